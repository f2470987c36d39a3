"""The lab's tables, as the talk shows them: an implementation per row, a CPU
count per column; with predictions, measured / predicted and the relative error."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from rich.table import Table

from ..figures import count, number, signed_percent
from ..units import rate_factor

Figure = Callable[[dict], Optional[float]]


def throughput_per_s(results: dict) -> Optional[float]:
    value = _class(results)["throughput"]
    return None if value is None else value * rate_factor(results["time_unit"], "s")


def median_ms(results: dict) -> Optional[float]:
    return _class(results)["response_time"]["p50"]


def p99_ms(results: dict) -> Optional[float]:
    return _class(results)["response_time"]["p99"]


def lost(results: dict) -> Optional[float]:
    return _class(results).get("lost")


def _class(results: dict) -> dict:
    return next(iter(results["classes"].values()))


def relative_error(measured: Optional[float], predicted: Optional[float]) -> Optional[float]:
    """(measured - predicted) / predicted."""
    if measured is None or not predicted:
        return None
    return (measured - predicted) / predicted


def _cells(record: dict, swept: str) -> Tuple[List[str], List, Dict]:
    """Rows (a model, with any other swept params), columns (the swept values) and cells."""
    rows, columns, cells = [], [], {}
    others = [name for name in record["sweep"] if name != swept]
    for scenario in record["scenarios"]:
        params = scenario["params"]
        model = " ".join([scenario["model"], *(f"{name}={params[name]}" for name in others if name in params)])
        x = params[swept]
        rows += [model] if model not in rows else []
        columns += [x] if x not in columns else []
        cells[model, x, scenario["engine"]] = scenario["results"]
    return rows, columns, cells


def lab_table(record: dict, title: str, figure: Figure, *, swept: str = "cpus", unit: str = "cpu",
              counts: bool = False) -> Table:
    """One figure of a record's scenarios: measured, and predicted beside it when present."""
    written = count if counts else number
    rows, columns, cells = _cells(record, swept)
    table = Table(title=title, title_justify="left", min_width=len(title))  # titles never wrap
    table.add_column("implementation")
    for x in columns:
        table.add_column(f"{x} {unit}", justify="right")
    for row in rows:
        texts = []
        for x in columns:
            measured, predicted = cells.get((row, x, "lab")), cells.get((row, x, "simulate"))
            m = None if measured is None else figure(measured)
            p = None if predicted is None else figure(predicted)
            text = "" if m is None else written(m)
            if predicted is not None:
                error = relative_error(m, p)
                text += f" / {written(p)}"
                text += f" ({signed_percent(error)})" if error is not None else ""
            texts.append(text)
        table.add_row(row, *texts)
    if any(engine == "simulate" for *_, engine in cells):
        table.caption = "measured / predicted by the model (relative error)"
    return table
