"""A model of the service beside the measurement: the model's one open class
offered the run's target rate (Poisson as `rate:`, constant arrivals as
`arrivals: const(1/rate)`), then `solve` and `simulate` run on it, each
response time put beside the measured one with its relative error.

The model covers the service, not the loopback round trip or the client: the
measured response time includes those (docs/load.md says how large)."""
from __future__ import annotations

from typing import Dict, Mapping, Optional

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


def scaled(value: Optional[float], factor: float) -> Optional[float]:
    """`value` times `factor`; None stays None (a figure not measured or not predicted)."""
    return None if value is None else value * factor


def relative_errors(measured: Mapping[str, Optional[float]], predicted: Mapping[str, Optional[float]]) -> dict:
    """(measured − predicted) / predicted per figure, None where either is missing."""
    return {f: (None if measured.get(f) is None or not predicted.get(f) else
                (measured[f] - predicted[f]) / predicted[f]) for f in FIGURES}
