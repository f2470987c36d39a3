"""The chart of a measured day (`brewput load --day MODEL [--days N] [--predict MODEL] -o
FILE`, docs/load.md "A day"): per interval of the day, the rate sent against the target and
the mean response time measured, with its 95 % interval (across the days, or the run's
batches where they allow one), beside each engine's prediction (the wait of those arriving
in the interval plus the mean service), as the load run's results hold them (`intervals`,
and `predicted.intervals`, a row per interval with each engine's)."""
from __future__ import annotations

from typing import Dict, List, Optional

from .spec import Chart, Line, color, marker
from .time_of_day import TimeOfDay

#: The predicting engines, in the order drawn beside the measurement (dashed, then dotted).
PREDICTED = ("simulate", "solve")


def _figure(values: List[Optional[float]], lows: List[Optional[float]], highs: List[Optional[float]],
            axis: TimeOfDay, label: str, k: int, dash: str) -> Optional[Line]:
    if all(v is None for v in values):
        return None
    band = any(v is not None for v in lows)
    return Line(label=label, x=list(axis.middles), y=values, color=color(k), marker=marker(k), dash=dash,
                low=[None if v is None else max(v, 0.0) for v in lows] if band else None,
                high=highs if band else None, points=list(axis.labels))


def _ci(block: dict, end: int, figure: str = "mean") -> Optional[float]:
    """An end of a figure's 95 % interval (over several days, or the run's batches), or None."""
    ci = block.get(f"{figure}_ci")
    return None if ci is None else ci[end]


def measured_chart(results: dict) -> Chart:
    intervals = results["intervals"]
    axis = TimeOfDay(intervals, results["time_unit"])
    name = next(iter(intervals[0]["classes"]))
    figures = [i["classes"][name] for i in intervals]
    rate = [axis.steps("target", [f["target_rate"] for f in figures], 0),
            _figure([f.get("achieved_rate") for f in figures], [_ci(f, 0, "achieved_rate") for f in figures],
                    [_ci(f, 1, "achieved_rate") for f in figures], axis, "achieved", 1, "solid")]
    times = [f["response_time"] for f in figures]
    means = [_figure([t.get("mean") for t in times], [_ci(t, 0) for t in times], [_ci(t, 1) for t in times],
                     axis, "measured", 0, "solid")]
    rows = (results.get("predicted") or {}).get("intervals") or [{}] * len(intervals)
    predicted: Dict[str, List[dict]] = {engine: [(row.get("engines") or {}).get(engine) or {} for row in rows]
                                        for engine in PREDICTED}
    for k, engine in enumerate(PREDICTED):
        rows = predicted[engine]
        approximate = engine == "solve" and not all(row.get("exact", False) for row in rows if row)
        label = f"{engine}{' ≈' if approximate else ''}"
        means.append(_figure([row.get("mean") for row in rows], [_ci(row, 0) for row in rows],
                             [_ci(row, 1) for row in rows], axis, label, k + 2, ("dash", "dot")[k]))
    means = [line for line in means if line is not None]
    drawn = {line.dash for line in means}
    engines = [(dash, text) for dash, text in (("solid", "measured (95 % band)"), ("dash", "simulated"),
                                               ("dot", "solved")) if dash in drawn] if len(drawn) > 1 else []
    panels = [axis.panel("requests per second", "per second", rate),
              axis.panel("mean response", f"mean response ({results['time_unit']})", means, engines)]
    return Chart("day_measured", "The day measured",
                 "Per interval of the day: the rate sent (points) against the target (steps), and the mean "
                 "response time of the requests due in the interval, measured (with its 95 % band where the "
                 "run's batches allow one) beside each engine's prediction (the wait of those arriving in the "
                 "interval plus the mean service; simulated with its band, solved marked ≈ where approximate); with --days N each measured "
                 "figure is the days' mean with its interval across them.",
                 panels)
