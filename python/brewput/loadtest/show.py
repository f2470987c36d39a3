"""A load run as people read it: the three histograms side by side, the
counts and rates, the thresholds. Prints through the console it is given."""
from __future__ import annotations

from typing import List, Optional, Tuple

from .. import _native
from ..measured import BEYOND, LEVEL_TEXT, ci_text, concluded, interval_text, is_busy, is_inside, verdict
from ..units import TYPED_SECONDS, rate_in, time_in
from .results import GENERATOR, SHOWN
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
        table.add_row(label, *(_ms(request[block].get(key)) + ci_text(request[block].get(f"{key}_ci"))
                               for _, block in _COLUMNS))
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
    console.print(intervals_line(results), soft_wrap=True, highlight=False)
    predicted = results.get("predicted")
    if "intervals" in results:  # a day (--day)
        from .show_day import print_day

        print_day(console, results)
    elif len(load["stages"]) > 1:
        print_stages(console, load["stages"], predicted)
    elif predicted:
        print_predicted(console, request["response_time"], predicted)
    for line in conclusions(results):
        console.print(line, soft_wrap=True, highlight=False)
    for threshold, figure, held in judged:
        shown = "not measured" if figure is None else _figure(threshold, figure)
        console.print(f"threshold {threshold.text}: {'ok' if held else 'BROKEN'} ({shown})")


def conclusions(results: dict) -> List[str]:
    """What the run says: each engine's mean beside the measured interval (with
    --predict, one rate), or on a busy machine that the times cannot be trusted."""
    request, load = results["classes"]["request"], results["load"]
    busy, predicted = load.get("others_utilization"), results.get("predicted")
    response = request["response_time"]
    if predicted and "intervals" in results:
        from .show_day import day_conclusions

        return [concluded(busy, line) for line in day_conclusions(results)]
    if predicted and len(load["stages"]) == 1:
        return [concluded(busy, f"{engine}'s mean response: "
                          + verdict(response["mean"], response["mean_ci"], figures.get("mean"), "ms"))
                for engine, figures in predicted["engines"].items() if "refused" not in figures]
    return [concluded(busy, "the times above include waits for a CPU")] if is_busy(busy) else []


def intervals_line(results: dict) -> str:
    """The intervals and how they were made: the batches, their correlation, what has none."""
    request, load = results["classes"]["request"], results["load"]
    made = load["intervals"]
    if made["batches"] == 0:
        return f"{LEVEL_TEXT} intervals: none ({made['note']})"
    rate = rate_in(request["throughput"], SHOWN, "s")
    rate_ci = None if request["throughput_ci"] is None else [rate_in(x, SHOWN, "s") for x in request["throughput_ci"]]
    line = (f"{LEVEL_TEXT} intervals by batch means ({made['batches']} batches of {made['batch_seconds']:.3g} s, "
            f"lag-1 correlation {made['lag1']:.2f} over twice as many): mean response "
            f"{interval_text(request['response_time']['mean'], request['response_time']['mean_ci'], 'ms')}, "
            f"mean service {interval_text(request['service_time']['mean'], request['service_time']['mean_ci'], 'ms')}"
            f", achieved {interval_text(rate, rate_ci)}/s")
    without = made.get("percentiles_without", {})
    with_ci = [name for name, _ in _native.PERCENTILES if request["response_time"].get(f"{name}_ci")]
    if with_ci:
        line += f"; {', '.join(with_ci)} by the spread of the batches' own"
    if without:
        line += (f"; none on {', '.join(without)} (fewer than {BEYOND} answers beyond "
                 f"{'it' if len(without) == 1 else 'them'} in a batch)")
    return line + (f"; {made['note']}" if made["note"] else "")


def _figure(threshold: Threshold, figure: float) -> str:
    if threshold.metric == "error_rate" or (threshold.at is not None and threshold.unit == "%"):
        return f"{figure:.3%}"
    if threshold.at is not None:  # a service level written as a fraction
        return f"{figure:.5g}"
    if threshold.metric == "achieved_rate":
        return f"{figure:,.1f}/s"
    return f"{figure / TYPED_SECONDS[threshold.unit]:,.4g} {threshold.unit}"


def live_line(progress: dict) -> str:
    elapsed = progress["elapsed_seconds"]
    rate = progress["answered"] / elapsed if elapsed > 0 else 0.0
    return (f"{elapsed:6.1f} s  {rate:,.0f}/s  in flight {progress['in_flight']:,}  "
            f"p50 {time_in(progress['response_p50'], GENERATOR, SHOWN):,.3f} {SHOWN}  "
            f"p99 {time_in(progress['response_p99'], GENERATOR, SHOWN):,.3f} {SHOWN}")


def print_predicted(console, measured: dict, predicted: dict) -> None:
    """Measured response times beside each engine's prediction, with the relative error."""
    from rich.table import Table

    from .predict import FIGURES

    engines = predicted["engines"]
    table = Table(title=f"response time (ms), measured beside {predicted['model']}")
    table.add_column("")
    table.add_column("measured", justify="right")
    for engine in engines:
        table.add_column(engine, justify="right")
    for figure in FIGURES:
        ci = measured.get(f"{figure}_ci")
        table.add_row(figure, _ms(measured.get(figure)) + ci_text(ci),
                      *(_predicted_cell(f, figure, ci) for f in engines.values()))
    console.print(table)
    for engine, figures in engines.items():
        if "refused" in figures:
            console.print(f"{engine}: {figures['refused']}")


def print_stages(console, stages: List[dict], predicted: Optional[dict]) -> None:
    """A row per stage (or ramp slice): its rates, answers and response times,
    and each engine's prediction at its rate with the relative error."""
    from rich.table import Table

    rows = predicted["stages"] if predicted else [{"engines": {}}] * len(stages)
    engines = list(rows[0]["engines"])
    title = "stages: response times in ms of the requests due in each"
    table = Table(title=title + (f", beside {predicted['model']}" if predicted else ""))
    for column in ("stage (s)", "target/s", "achieved/s", "answers"):
        table.add_column(column, justify="right")
    for figure in ("mean", "p99"):
        table.add_column(figure, justify="right")
        for engine in engines:
            table.add_column(f"{engine} {figure}", justify="right")
    table.add_column("")
    notes = []
    for stage, row in zip(stages, rows):
        label = f"{stage['start_seconds']:.4g}-{stage['end_seconds']:.4g}"
        cells = [label, f"{stage['target_rate']:,.1f}", f"{stage['achieved_rate']:,.1f}", f"{stage['answered']:,}"]
        for figure in ("mean", "p99"):
            shown = stage["response_time"]
            cells.append(_ms(shown.get(figure)) + ci_text(shown.get(f"{figure}_ci")))
            cells += [_predicted_cell(row["engines"][engine], figure, shown.get(f"{figure}_ci"))
                      for engine in engines]
        table.add_row(*cells, _stage_note(stage))
        for engine, figures in row["engines"].items():
            notes += [f"stage {label} s: {engine}: {why}" for why in
                      ([figures["refused"]] if "refused" in figures else figures.get("warnings", []))]
    if predicted:
        table.caption = f"* a predicted mean outside the measured {LEVEL_TEXT} interval"
    console.print(table)
    for note in notes:
        console.print(note, soft_wrap=True)


def _predicted_cell(figures: dict, figure: str, measured_ci: Optional[List[float]] = None) -> str:
    """An engine's figure with its relative error, or that it refused; `*`
    when it lies outside the measured interval."""
    if "refused" in figures:
        return "refused"
    error = figures["relative_error"][figure]
    outside = is_inside(measured_ci, figures.get(figure)) is False
    return _ms(figures.get(figure)) + ("" if error is None else f" ({error:+.1%})") + ("*" if outside else "")


def _stage_note(stage: dict) -> str:
    """What to keep in mind reading a stage: a ramp's slice or response times
    that drifted across it (not a steady state), and its errors."""
    notes = [] if stage["steady"] else ["ramp slice"]
    if stage["settled"] is False:
        notes.append("drifting")
    if stage["error_rate"]:
        notes.append(f"errors {stage['error_rate']:.2%}")
    return ", ".join(notes)


def sweep_line(rate: float, results: dict, judged: List[Tuple[Threshold, Optional[float], bool]]) -> str:
    """One rate's run as it ends, on stderr while the sweep goes on."""
    load, response = results["load"], results["classes"]["request"]["response_time"]
    broken = [t.text for t, _, ok in judged if not ok]
    return (f"rate {rate:g}/s: achieved {load['achieved_rate']:,.1f}/s, mean {_ms(response['mean'])}"
            f"{ci_text(response.get('mean_ci'))} ms, "
            f"p99 {_ms(response['p99'])} ms" + (f"; broke {', '.join(broken)}" if broken else ""))


def print_sweep(console, record: dict) -> None:
    """The capacity curve: a row per rate, measured (and predicted) side by side."""
    from rich.table import Table

    from .predict import scaled

    predicted = {}
    for s in record["scenarios"]:
        if s["engine"] != "load":
            name = next(iter(s["results"]["classes"]))
            predicted.setdefault(s["params"]["rate"], {})[s["engine"]] = s["results"]["classes"][name]
    engines = sorted({e for by_engine in predicted.values() for e in by_engine})
    table = Table(title=f"{record['title']}: times in ms (response from the intended start)")
    for column in ("rate /s", "achieved /s", "mean", "p99", "error rate", "lag p99", "dropped"):
        table.add_column(column, justify="right")
    for engine in engines:
        table.add_column(f"{engine} mean", justify="right")
        table.add_column(f"{engine} p99", justify="right")
    for s in record["scenarios"]:
        if s["engine"] != "load":
            continue
        rate, load, request = s["params"]["rate"], s["results"]["load"], s["results"]["classes"]["request"]
        error_rate = "-" if load["error_rate"] is None else f"{load['error_rate']:.2%}"
        response = request["response_time"]
        cells = [f"{rate:g}", f"{load['achieved_rate']:,.1f}", _ms(response["mean"]) + ci_text(response.get("mean_ci")),
                 _ms(request["response_time"]["p99"]), error_rate, _ms(request["lag"]["p99"]), f"{load['dropped']:,}"]
        for engine in engines:
            figures = predicted.get(rate, {}).get(engine, {}).get("response_time", {})
            to_ms = _to_ms(record, engine, rate) if figures else 1.0
            mean = scaled(figures.get("mean"), to_ms)
            outside = "*" if is_inside(response.get("mean_ci"), mean) is False else ""
            cells += [_ms(mean) + outside, _ms(scaled(figures.get("p99"), to_ms))]
        table.add_row(*cells)
    if engines:
        table.caption = f"mean ± its {LEVEL_TEXT} interval; * a predicted mean outside it"
    console.print(table)
    shares = [s["results"]["load"].get("others_utilization") for s in record["scenarios"] if s["engine"] == "load"]
    busiest = max((x for x in shares if x is not None), default=None)
    if is_busy(busiest):
        console.print(concluded(busiest, "the curve above includes waits for a CPU"), soft_wrap=True,
                      highlight=False)
    if record["saturation"]:
        console.print(saturation_line(record["saturation"]))
    for failure in record["failed"]:
        console.print(f"{failure['engine']} at rate {failure['params']['rate']:g}: {failure['error']}")


def saturation_line(saturation: dict) -> str:
    """Where a capacity curve stopped: `saturation: at 300/s p99<40ms broke`."""
    return f"saturation: at {saturation['rate']:g}/s {', '.join(saturation['broken'])} broke"


def _to_ms(record: dict, engine: str, rate: float) -> float:
    """Milliseconds per time unit of the prediction `engine` made at `rate`."""
    from ..units import SECONDS

    unit = next(s["results"]["time_unit"] for s in record["scenarios"]
                if s["engine"] == engine and s["params"]["rate"] == rate)
    return SECONDS[unit] * 1e3

