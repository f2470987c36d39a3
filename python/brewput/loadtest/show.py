"""A load run as people read it: the three histograms side by side, the
counts and rates, the thresholds. Prints through the console it is given."""
from __future__ import annotations

from typing import List, Optional, Tuple

from .. import _native
from .thresholds import Threshold

_COLUMNS = (("response", "response_time"), ("service", "service_time"), ("lag", "lag"))


def _ms(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:,.3f}" if value < 100 else f"{value:,.1f}"


def print_results(console, results: dict, judged: List[Tuple[Threshold, Optional[float], bool]]) -> None:
    from rich.table import Table

    request, load = results["classes"]["request"], results["load"]
    table = Table(title=f"{results['model']}: times in ms (response from the intended start)")
    table.add_column("")
    for name, _ in _COLUMNS:
        table.add_column(name, justify="right")
    rows = [("mean", "mean")] + [(n, n) for n, _ in _native.PERCENTILES]
    far = [p for p, _ in request["response_time"]["spectrum"] if p > 99.9]
    for label, key in rows:
        table.add_row(label, *(_ms(request[block].get(key)) for _, block in _COLUMNS))
    for p in far:
        values = [dict((q, v) for q, v in request[block]["spectrum"]).get(p) for _, block in _COLUMNS]
        table.add_row(f"p{p:g}", *(_ms(v) for v in values))
    table.add_row("max", *(_ms(request[block]["max"]) for _, block in _COLUMNS))
    console.print(table)
    answers = ", ".join(f"{k} {v:,}" for k, v in load["answers"].items()) or "none"
    errors = ", ".join(f"{k} {v:,}" for k, v in load["errors"].items()) or "none"
    error_rate = "-" if load["error_rate"] is None else f"{load['error_rate']:.2%}"
    console.print(f"rate: achieved {load['achieved_rate']:,.1f}/s of target {load['target_rate']:,.1f}/s over "
                  f"{load['elapsed_seconds']:.2f} s; sent {load['sent']:,}, answers: {answers}; errors: {errors}; "
                  f"dropped {load['dropped']:,}; late (> {load['late_after_ms']:g} ms) {load['late']:,}; "
                  f"error rate {error_rate}")
    if len(load["stages"]) > 1:
        console.print("stages: " + "; ".join(f"{s['start_seconds']:g}-{s['end_seconds']:g} s: {s['sent_rate']:,.1f}/s"
                                              for s in load["stages"]))
    if results.get("predicted"):
        print_predicted(console, request["response_time"], results["predicted"])
    for threshold, figure, held in judged:
        shown = "not measured" if figure is None else _figure(threshold, figure)
        console.print(f"threshold {threshold.text}: {'ok' if held else 'BROKEN'} ({shown})")


def _figure(threshold: Threshold, figure: float) -> str:
    if threshold.metric == "error_rate":
        return f"{figure:.3%}"
    if threshold.metric == "achieved_rate":
        return f"{figure:,.1f}/s"
    return f"{figure * 1e3:,.3f} ms"


def live_line(progress: dict) -> str:
    elapsed = progress["elapsed_seconds"]
    rate = progress["answered"] / elapsed if elapsed > 0 else 0.0
    return (f"{elapsed:6.1f} s  {rate:,.0f}/s  in flight {progress['in_flight']:,}  "
            f"p50 {progress['response_p50'] * 1e3:,.3f} ms  p99 {progress['response_p99'] * 1e3:,.3f} ms")


def print_predicted(console, measured: dict, predicted: dict) -> None:
    """Measured response times beside each engine's prediction, with the relative error."""
    from rich.table import Table

    from .predict import FIGURES, relative_errors

    engines = predicted["engines"]
    table = Table(title=f"response time (ms), measured beside {predicted['model']}")
    table.add_column("")
    table.add_column("measured", justify="right")
    for engine in engines:
        table.add_column(engine, justify="right")
    errors = {e: relative_errors(measured, f) for e, f in engines.items() if "refused" not in f}
    for figure in FIGURES:
        cells = [_ms(measured.get(figure))]
        for engine, figures in engines.items():
            if "refused" in figures:
                cells.append("refused")
                continue
            error = errors[engine][figure]
            cells.append(_ms(figures.get(figure)) + ("" if error is None else f" ({error:+.1%})"))
        table.add_row(figure, *cells)
    console.print(table)
    for engine, figures in engines.items():
        if "refused" in figures:
            console.print(f"{engine}: {figures['refused']}")
