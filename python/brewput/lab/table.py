"""The lab's tables, as the talk shows them: an implementation per row, a CPU
count per column; with predictions, measured / predicted and the relative error."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from rich.table import Table

from ..figures import count, number, signed_percent
from ..measured import LEVEL_TEXT, half_text, is_inside
from ..units import rate_factor

Figure = Callable[[dict], Optional[float]]
Interval = Callable[[dict], Optional[List[float]]]

#: The caption of a table whose measured figures carry intervals.
MEASURED_CAPTION = f"measured ± its {LEVEL_TEXT} interval over the repetitions"
PREDICTED_CAPTION = (f"measured ± {LEVEL_TEXT} interval / predicted by the model (relative error); "
                     "* a prediction outside the measured interval")


def throughput_per_s(results: dict) -> Optional[float]:
    value = _class(results)["throughput"]
    return None if value is None else value * rate_factor(results["time_unit"], "s")


def throughput_ci_per_s(results: dict) -> Optional[List[float]]:
    ci = _class(results).get("throughput_ci")
    return None if ci is None else [x * rate_factor(results["time_unit"], "s") for x in ci]


def median_ms(results: dict) -> Optional[float]:
    return _class(results)["response_time"]["p50"]


def median_ci_ms(results: dict) -> Optional[List[float]]:
    return _class(results)["response_time"].get("p50_ci")


def p99_ms(results: dict) -> Optional[float]:
    return _class(results)["response_time"]["p99"]


def p99_ci_ms(results: dict) -> Optional[List[float]]:
    return _class(results)["response_time"].get("p99_ci")


def measured_cell(value: Optional[float], ci: Optional[List[float]], predicted: Optional[float], written=number,
                  has_prediction: bool = False, half_written=half_text) -> str:
    """`measured ± h`, then ` / predicted (error)` with `*` when the
    prediction lies outside the measured interval."""
    text = "" if value is None else written(value)
    if value is not None and ci is not None:
        text += f" ± {half_written((ci[1] - ci[0]) / 2)}"
    if has_prediction:
        error = relative_error(value, predicted)
        text += f" / {written(predicted)}"
        text += f" ({signed_percent(error)})" if error is not None else ""
        text += "*" if is_inside(ci, predicted) is False else ""
    return text


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
              counts: bool = False, interval: Optional[Interval] = None) -> Table:
    """One figure of a record's scenarios: measured (± its `interval`), and
    predicted beside it when present."""
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
            ci = None if measured is None or interval is None else interval(measured)
            p = None if predicted is None else figure(predicted)
            texts.append(measured_cell(m, ci, p, written, has_prediction=predicted is not None))
        table.add_row(row, *texts)
    if any(engine == "simulate" for *_, engine in cells):
        table.caption = PREDICTED_CAPTION if interval else "measured / predicted by the model (relative error)"
    elif interval:
        table.caption = MEASURED_CAPTION
    return table
