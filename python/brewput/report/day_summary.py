"""The summary of a day's page: per class and engine (the simulation, each solved method),
the day's arrivals and those who gave up, summed over its intervals, and its worst
interval: the longest mean wait, and the lowest share served within each time asked."""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..figures import number
from ..units import Display
from .day_charts import GAVE_UP, Day, time_text
from .grid import Grid


def _worst(intervals, read, pick) -> Optional[Tuple[float, str]]:
    """The (figure, label) `pick` (max or min) chooses among the intervals that have one."""
    found = [(read(i), i["label"]) for i in intervals]
    found = [(value, label) for value, label in found if value is not None]
    return pick(found, key=lambda f: f[0]) if found else None


def _at(worst: Optional[Tuple[float, str]], scale: float = 1.0) -> str:
    return "-" if worst is None else f"{number(worst[0] * scale)} at {worst[1]}"


def summary_grid(day: Day) -> Grid:
    unit = Display.of(day.time_unit).time
    within = [t for t, _ in (day.intervals[0]["classes"][day.classes[0]].get("waiting_time") or {}).get("within", [])]
    grid = Grid("Summary: the day per class and engine, and its worst interval",
                ["class", "engine", "arrivals", "gave up", f"longest mean wait ({unit})",
                 *(f"lowest P(wait ≤ {time_text(t, day.time_unit)}) (%)" for t in within)], left=2)
    for name in day.classes:
        for label, results in day.engines():
            figures = [i["classes"][name] for i in results["intervals"]]
            arrivals = [f.get("arrivals") for f in figures]
            gave_up = [f.get("abandoned") for f in figures]
            total = None if None in arrivals else sum(arrivals)
            lost = None if None in gave_up else sum(gave_up)
            if lost is not None and total and lost < GAVE_UP * total:
                lost = 0   # the transient's rounding (1e-13 of a customer): nobody gave up
            share = "" if not total or lost is None else f" ({number(100 * lost / total)} %)"
            waits = _worst(results["intervals"], lambda i: (i["classes"][name].get("waiting_time") or {}).get("mean"),
                           max)
            levels: List[str] = []
            for k in range(len(within)):
                def level(i, k=k):
                    shares = (i["classes"][name].get("waiting_time") or {}).get("within") or []
                    return shares[k][1] if len(shares) > k else None
                levels.append(_at(_worst(results["intervals"], level, min), 100.0))
            grid.rows.append([name, label, number(total), f"{number(lost)}{share}", _at(waits), *levels])
    return grid
