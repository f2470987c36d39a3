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
    start = ",".join(f"{name}={jobs}" for name, jobs in block["state"].items())
    how = "exact, ctmc" if block["exact"] else "≈ ctmc"
    table = _table(f"{res['model']}: from {start}, expected figures over the next {number(block['over'])} {unit} "
                   f"({how})",
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


def _passage(times: dict, unit: str) -> str:
    if times["mean"] is None:
        return "perhaps never (see the notes)"
    quantiles = ", ".join(f"{key} {number(value)}" for key, value in times.items() if key.startswith("p"))
    return f"after {number(times['mean'])} {unit} on average ({quantiles})"
