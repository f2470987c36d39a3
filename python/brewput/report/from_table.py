"""The table of a model followed from a given state (solve --from, analytic/chain/from_state.py):
a row per time of the grid, then a line with the time until the backlog clears."""
from __future__ import annotations

from typing import List, Union

from ..figures import number
from ..units import Display
from .table import _table
from .text_table import Table


def from_tables(res: dict) -> List[Union[Table, str]]:
    block = res["from"]
    shown = Display.of(res["time_unit"])
    unit, rate = shown.time, shown.rate_from(res["time_unit"])
    stations = list(block["points"][0]["stations"])
    how = "exact, ctmc" if block["exact"] else "≈ ctmc"
    table = _table(f"{res['model']}: from {start_text(block)}, expected figures over the next "
                   f"{number(block['over'])} {unit} ({how})",
                   [f"time ({unit})", "in system", "P(empty)", f"throughput ({shown.per})", "completions",
                    *(f"{name} L" for name in stations), *(f"{name} utilization" for name in stations)])
    for point in block["points"]:
        table.add_row(number(point["time"]), number(point["number"]), number(point["empty"]),
                      number(point["throughput"] * rate), number(point["completions"]),
                      *(number(point["stations"][name]["queue_length"]) for name in stations),
                      *(number(point["stations"][name]["utilization"]) for name in stations))  # null: "-"
    clears = block["clears"]
    then = " Then, in the steady state:" if res["stations"] else ""
    line = (f"the system is first empty {_passage(clears, unit)}; no job waits any more "
            f"{_passage(clears['waiting'], unit)}.{then}")
    return [table, line]


def start_text(block: dict) -> str:
    """The state followed from, as --from gives it: desk=12,back=3."""
    return ",".join(f"{name}={jobs}" for name, jobs in block["state"].items())


def clearing_table(res: dict) -> Table:
    """The time until the system is first empty and until no job waits: mean and quantiles,
    a row each (perhaps never where it may never come; "-" where a quantile took too long)."""
    clears = res["from"]["clears"]
    unit = Display.of(res["time_unit"]).time
    quantiles = [key for key in clears if key.startswith("p")]
    table = _table(f"{res['model']}: from {start_text(res['from'])}, the time until the backlog clears ({unit})",
                   ["passage", "mean", *quantiles])
    for label, times in (("the system is first empty", clears), ("no job waits any more", clears["waiting"])):
        never = times["mean"] is None
        table.add_row(label, "perhaps never" if never else number(times["mean"]),
                      *("" if never else number(times[key]) for key in quantiles))
    return table


def _passage(times: dict, unit: str) -> str:
    if times["mean"] is None:
        return "perhaps never (see the notes)"
    quantiles = ", ".join(f"{key} {number(value)}" for key, value in times.items() if key.startswith("p"))
    return f"after {number(times['mean'])} {unit} on average ({quantiles})"
