"""Each implementation's model (examples/coffee) with the measurement's
parameters: the same CPUs, the customers as the closed population, the stage
time as the time unit and the jitter as the models' `noise`, run by
brewput.simulate. What each model covers is said in its file."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Dict, Optional, Tuple

import yaml

from ..bundled import EXAMPLES
from ..engine.simulate import simulate
from ..errors import Field, OptionError
from ..model import Model
from .options import numbered

COFFEE = EXAMPLES / "coffee"
MACHINES = ("grinder", "espresso", "steamer")
# The simulation behind each prediction: deterministic stages need few customers,
# but every customer of a large population must come round often enough to pass the
# start, when all of them order at once (at 10,000 customers, 50,000 lattes leave
# multi-2 3 % short of its 1500/s).
CUSTOMERS, REPLICATIONS, ROUNDS = 50_000, 3, 20


def model_file(implementation: str) -> Path:
    """The example a model starts from: its own file, else the family's template
    (multi-N from multi-2, linearpipe-N from linearpipe-0, splitpipe-N from splitpipe-1)."""
    own = COFFEE / f"{implementation}.yaml"
    if own.is_file():
        return own
    family = numbered(implementation)
    templates = {"multi-": "multi-2", "linearpipe-": "linearpipe-0", "splitpipe-": "splitpipe-1",
                 "multipipe-": "multipipe-2"}
    if family is None:
        raise OptionError("predict", f"no model for {implementation} in {COFFEE}")
    return COFFEE / f"{templates[family[0]]}.yaml"


def coffee_model(implementation: str, par: Optional[int]) -> Tuple[dict, Dict[str, Optional[str]]]:
    """The model document for `implementation` with `par` customers (None: as
    many as CPUs, as the files say), and its `models` entry for the record: the
    file's text, or the adapted document when it had to be changed."""
    path = model_file(implementation)
    text = path.read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    adapted = copy.deepcopy(doc)
    family = numbered(implementation)
    if family is not None and path.stem != implementation:
        prefix, n = family
        if prefix == "multipipe-":
            _shops(adapted, n)
        else:
            for machine in MACHINES:
                adapted["stations"][machine]["servers" if prefix == "multi-" else "buffer"] = n
    if par is not None:
        adapted["classes"]["latte"]["population"] = par
    if adapted != doc:
        changes = f"{implementation}" + (f", {par} customers" if par is not None else "")
        text = f"# {path.name} adapted for {changes}\n" + yaml.safe_dump(adapted, sort_keys=False)
    return adapted, {"file": str(path), "text": text}


def _shops(doc: dict, n: int) -> None:
    """multipipe-2's two shops (stations ending in _a and _b, the dispatch's two
    branches) made n, all reading the one shared order queue; one shop is its
    pipeline in place of the dispatch."""
    template_stations = {k[:-2]: v for k, v in doc["stations"].items() if k.endswith("_a")}
    doc["stations"] = {k: v for k, v in doc["stations"].items() if not k.endswith(("_a", "_b"))}
    for i in range(n):
        for name, station in template_stations.items():
            doc["stations"][f"{name}_{i}"] = copy.deepcopy(station)
    route = doc["classes"]["latte"]["route"]
    dispatch, rest = route[0], route[1:]
    pipeline = dispatch["dispatch"]["a"]
    shops = {f"shop_{i}": [dict(copy.deepcopy(step), station=step["station"][:-2] + f"_{i}") for step in pipeline]
             for i in range(n)}
    if n == 1:
        doc["classes"]["latte"]["route"] = shops["shop_0"] + rest
    else:
        doc["classes"]["latte"]["route"] = [dict(dispatch, dispatch=shops)] + rest
    doc["name"] = f"Coffee shop, {n} pipelines"


def closed_models_only() -> OptionError:
    """Why an open-loop measurement (a rate) has no model beside it."""
    return OptionError("predict", "the coffee models are closed (customers ordering back to back); drop ",
                       Field("rate_per_s"), " to compare")


def stage_ms(settings) -> float:
    """The one stage time the models take as their time unit."""
    stages = {"grind": settings.grind_ms, "press": settings.press_ms,
              "steam": settings.steam_ms, "latte": settings.latte_ms}
    if len(set(stages.values())) != 1:
        shown = ", ".join(f"{name} {ms:g}ms" for name, ms in stages.items())
        raise OptionError("predict", f"the coffee models have four equal stages; got {shown}")
    return settings.grind_ms


def predict_coffee(implementation: str, cpus: int, par: Optional[int], settings) -> dict:
    """The model's prediction, in milliseconds like the measurement."""
    stage = stage_ms(settings)
    doc, _ = coffee_model(implementation, par)
    model = Model.from_dict(doc, params={"cpus": cpus, "noise": settings.jitter_ms / stage})
    if settings.rate_per_s is not None:
        raise closed_models_only()
    population = cpus if par is None else par
    results = simulate(model, customers=max(CUSTOMERS, ROUNDS * population), replications=REPLICATIONS)
    return in_ms(results, stage)


def in_ms(results: dict, stage_ms: float) -> dict:
    """Results of a model whose time unit is one stage, in milliseconds."""
    if stage_ms == 1.0:
        return results
    out = copy.deepcopy(results)
    for figures in out["classes"].values():
        figures["throughput"] /= stage_ms
        figures["throughput_ci"] = _times(figures["throughput_ci"], 1 / stage_ms)
        for block in ("response_time", "waiting_time"):
            for key, value in figures[block].items():
                figures[block][key] = ([[p, _times(v, stage_ms)] for p, v in value] if key == "spectrum"
                                       else _times(value, stage_ms))
    stations = out["stations"].values()
    for figures in [*stations, *(at for s in stations for at in (s.get("classes") or {}).values())]:
        for key in ("response_time", "throughput"):
            factor = stage_ms if key == "response_time" else 1 / stage_ms
            figures[key] = _times(figures[key], factor)
            figures[f"{key}_ci"] = _times(figures.get(f"{key}_ci"), factor)
    out["time_unit"] = "ms"
    return out


def _times(value, factor: float):
    if value is None:
        return None
    if isinstance(value, list):
        return [_times(v, factor) for v in value]
    return value * factor
