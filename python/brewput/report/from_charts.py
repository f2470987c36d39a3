"""The chart of a model followed from a given state (solve --from, docs/results.md "From a
given state"): the expected number in the system and at each station against the time
since the start, and P(empty) beside it, the mean times until no job waits and until the
system is first empty marked where they fall within the span followed."""
from __future__ import annotations

from typing import List

from ..figures import number
from ..units import Display
from .charts import _labelled
from .from_table import start_text
from .spec import Chart, Guide, Line, Panel, color, marker


def from_chart(res: dict) -> Chart:
    block = res["from"]
    unit = Display.of(res["time_unit"]).time
    points = block["points"]
    times = [p["time"] for p in points]
    x_label = f"time since the start ({unit})"

    def line(k: int, label: str, values: List[float], dash: str = "solid") -> Line:
        return Line(label=label, x=times, y=values, color=color(k), marker=marker(k), dash=dash)

    stations = list(points[0]["stations"])
    number_lines = [line(0, "in system", [p["number"] for p in points])]
    number_lines += [line(k + 1, f"at {name}", [p["stations"][name]["queue_length"] for p in points], "dash")
                     for k, name in enumerate(stations)]
    guides = [Guide("x", times_of["mean"], f"{what}: mean {number(times_of['mean'])} {unit}")
              for what, times_of in (("no job waits", block["clears"]["waiting"]), ("first empty", block["clears"]))
              if times_of["mean"] is not None and times_of["mean"] <= block["over"]]
    panels = [Panel("number in the system", x_label, "expected number of jobs", number_lines, guides=guides,
                    x_span=(0.0, block["over"])),
              Panel("P(empty)", x_label, "P(no job in the system)",
                    [line(0, "P(empty)", [p["empty"] for p in points])], guides=list(guides),
                    x_span=(0.0, block["over"]))]
    how = "exact" if block["exact"] else "≈, a time law fitted by phases (see the notes)"
    return Chart("from_state", f"From {start_text(block)}: the next {number(block['over'])} {unit}",
                 f"The expected number of jobs in the system (solid) and at each station (dashed) at each time "
                 f"since the start from {start_text(block)}, and the probability that the system is empty, by "
                 f"the Markov chain followed from that state ({how}); the vertical lines mark the mean time until "
                 "no job waits and until the system is first empty, where they fall within the span.",
                 [_labelled(panel) for panel in panels])
