"""A model of the service beside the measurement: the model's one open class
offered the run's target rate (Poisson as `rate:`, constant arrivals as
`arrivals: const(1/rate)`), then `solve` and `simulate` run on it, each
response time put beside the measured one with its relative error.

A schedule of stages (`--step`, or a `--ramp` in tenths) is predicted stage
by stage, each at its own (mean) target rate, beside the responses whose
intended start fell in it; a ramp's slices are marked as not a steady state.
A stage beyond the model's saturation is refused by `solve` and warned about
by `simulate`, as a constant rate there is.

The model covers the service, not the loopback round trip or the client: the
measured response time includes those (docs/load.md says how large)."""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional

import yaml

from ..errors import BrewputError, OptionError
from ..units import SECONDS

FIGURES = ("mean", "p50", "p90", "p99")
# The simulation behind a prediction: enough customers for tight intervals in a second or two.
CUSTOMERS = 200_000


def offered_model(path: str, params: Mapping[str, object], rate_per_s: float, arrivals: str):
    """The model at `path` (with `params`) whose one open class arrives at
    `rate_per_s` (converted to the model's time unit)."""
    from ..model import Model, load

    model = load(path).with_params(**params) if params else load(path)
    open_classes = [name for name, job in model.classes.items() if job.population is None]
    if len(model.classes) != 1 or len(open_classes) != 1:
        raise OptionError("predict", "expected a model with one open class (the requests), got "
                                     f"{len(model.classes)} classes, {len(open_classes)} open", value=path)
    name = open_classes[0]
    rate = rate_per_s * SECONDS[model.time_unit]
    document = yaml.safe_load(model.to_yaml())
    job = document["classes"][name]
    job.pop("rate", None)
    job.pop("arrivals", None)
    if arrivals == "poisson":
        job["rate"] = rate
    else:
        job["arrivals"] = f"const({1 / rate!r})"
    return Model.from_dict(document), name


def predict(path: str, params: Mapping[str, object], rate_per_s: float, arrivals: str, seed: int) -> dict:
    """{engine: {figure: ms} or {"refused": why}} for solve and simulate."""
    from .. import simulate, solve

    model, name = offered_model(path, params, rate_per_s, arrivals)
    to_ms = SECONDS[model.time_unit] * 1e3
    predicted: Dict[str, dict] = {}
    for engine, run in (("solve", lambda: solve(model)), ("simulate",
                                                            lambda: simulate(model, seed=seed, customers=CUSTOMERS))):
        try:
            results = run()
        except BrewputError as e:
            predicted[engine] = {"refused": str(e)}
            continue
        times = results["classes"][name]["response_time"]
        predicted[engine] = {f: scaled(times.get(f), to_ms) for f in FIGURES}
        if results.get("warnings"):
            predicted[engine]["warnings"] = list(results["warnings"])
    return {"model": path, "class": name, "engines": predicted}


def offered_rates(schedule: dict) -> List[float]:
    """The rates a schedule's stages start and end at (above 0): what a model
    is checked at before the run (a ramp's slices lie between its ends)."""
    return sorted({r for stage in schedule["stages"] for r in (stage["from"], stage["to"]) if r > 0})


def beside(path: str, params: Mapping[str, object], schedule: dict, results: dict) -> dict:
    """The model's predictions for a measured run (its `predicted`), each
    engine's figures with their relative errors: one rate's `engines`, or a
    row per stage when the run had stages (`--step`, `--ramp`)."""
    stages, arrivals, seed = results["load"]["stages"], schedule["arrivals"], schedule["seed"]
    if len(stages) == 1:
        predicted = predict(path, params, stages[0]["target_rate"], arrivals, seed)
        add_errors(results["classes"]["request"]["response_time"], predicted["engines"])
        return predicted
    predicted = predict_stages(path, params, stages, arrivals, seed)
    for row, stage in zip(predicted["stages"], stages):
        add_errors(stage["response_time"], row["engines"])
    return predicted


def predict_stages(path: str, params: Mapping[str, object], stages: List[dict], arrivals: str, seed: int) -> dict:
    """`predict` at each stage's target rate: {model, class, stages: [{start_seconds,
    end_seconds, rate, steady, engines}]}, a row per stage of the run's `load.stages`."""
    rows = []
    for stage in stages:
        each = predict(path, params, stage["target_rate"], arrivals, seed)
        rows.append({"start_seconds": stage["start_seconds"], "end_seconds": stage["end_seconds"],
                     "rate": stage["target_rate"], "steady": stage["steady"], "engines": each["engines"]})
    return {"model": path, "class": each["class"], "stages": rows}


def add_errors(measured: Mapping[str, Optional[float]], engines: Mapping[str, dict]) -> None:
    """Each engine's figures (not refused) get their `relative_error` against `measured`."""
    for figures in engines.values():
        if "refused" not in figures:
            figures["relative_error"] = relative_errors(measured, figures)


def scaled(value: Optional[float], factor: float) -> Optional[float]:
    """`value` times `factor`; None stays None (a figure not measured or not predicted)."""
    return None if value is None else value * factor


def relative_errors(measured: Mapping[str, Optional[float]], predicted: Mapping[str, Optional[float]]) -> dict:
    """(measured − predicted) / predicted per figure, None where either is missing."""
    return {f: (None if measured.get(f) is None or not predicted.get(f) else
                (measured[f] - predicted[f]) / predicted[f]) for f in FIGURES}
