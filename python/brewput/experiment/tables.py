"""Results as pandas tables, for notebooks: the flat table (a row per scenario
and class, station or resource; experiment/record.py) and the tidy long table
(a row per scenario, class/station/resource and figure, with its unit).

Both take an experiment record or one results dict. Figures keep the units the
engines give them: times in the model's time unit, throughputs per that unit.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, List, Mapping, Optional, Tuple

from .record import COUNTS, as_record, elements, flat_table

if TYPE_CHECKING:
    import pandas

TIMES = ("response_time", "waiting_time", "service_time", "makespan")  # in the model's time unit
RATES = ("throughput",)  # per time unit
TIDY_COLUMNS = ("figure", "value", "ci_low", "ci_high", "unit")


def table(record_or_results: Mapping, tidy: bool = True) -> "pandas.DataFrame":
    """The tidy long table (`tidy=True`) or the flat table of an experiment
    record or of one results dict."""
    return tidy_table(record_or_results) if tidy else flat_table(as_record(record_or_results))


def tidy_table(record_or_results: Mapping) -> "pandas.DataFrame":
    """A row per scenario, class/station/resource and figure.

    Columns: scenario, model, engine, each swept param, kind, name, figure
    (response_time_p95: nested names joined by `_`), value, ci_low and ci_high
    (the 95 % interval, where the engine gives one) and unit: the time unit for
    times (`ms`), per time unit for throughputs (`/ms`), empty for counts,
    utilizations and probabilities. Text and flags (an analytic figure's method)
    and lists (the percentile spectrum) stay in the record.
    """
    import pandas

    record = as_record(record_or_results)
    swept = list(record["sweep"])
    rows: List[dict] = []
    for scenario in record["scenarios"]:
        results = scenario["results"]
        ids = {"scenario": scenario["id"], "model": scenario["model"], "engine": scenario["engine"],
               **{name: scenario["params"].get(name) for name in swept}}
        for kind, name, figures in elements(results):
            for figure, value, interval, unit in _figures(figures, results["time_unit"]):
                low, high = interval if _is_pair(interval) else (None, None)
                rows.append({**ids, "kind": kind, "name": name, "figure": figure, "value": value,
                             "ci_low": low, "ci_high": high, "unit": unit})
    columns = ["scenario", "model", "engine", *swept, "kind", "name", *TIDY_COLUMNS]
    frame = pandas.DataFrame(rows, columns=columns)
    return frame.astype({"value": "float64", "ci_low": "float64", "ci_high": "float64"})


def _figures(figures: Mapping[str, Any], time_unit: str, family: Optional[str] = None,
             prefix: str = "") -> Iterator[Tuple[str, float, Any, Optional[str]]]:
    """(name, value, interval, unit) of every number among `figures`, nested ones included."""
    for key, value in figures.items():
        if key.endswith("_ci"):
            continue  # beside its figure
        if isinstance(value, Mapping):
            yield from _figures(value, time_unit, family or key, prefix + key + "_")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield prefix + key, value, figures.get(key + "_ci"), _unit(family or key, key, time_unit)


def _unit(family: str, key: str, time_unit: str) -> Optional[str]:
    if key in COUNTS:
        return None
    if family in TIMES:
        return time_unit
    if family in RATES:
        return f"/{time_unit}"
    return None


def _is_pair(interval: Any) -> bool:
    return isinstance(interval, (list, tuple)) and len(interval) == 2


__all__ = ["table", "tidy_table", "flat_table", "TIMES", "RATES"]
