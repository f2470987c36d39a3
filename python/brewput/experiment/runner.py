"""Running an experiment: a list of scenarios, each one engine run of one model at
one combination of swept params, on an executor, into an experiment record.

A scenario's numbers depend on the scenario alone: every scenario of an
experiment uses the same seed (common random numbers, so that the differences
between scenarios are not drowned in noise), and no seed depends on the
executor, the worker count or the order in which scenarios finish.
"""
from __future__ import annotations

import functools
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..engine.simulate import run_settings
from ..model import Model, as_model
from ..errors import BrewputError
from .record import TABLE_COLUMNS, model_entry, new_record
from .sweep import Number, check_size, combinations

ENGINES = ("simulate", "solve")
# Called with (scenarios done, scenarios in all) as each one finishes.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Scenario:
    id: int
    model: str  # the model's label in the record
    engine: str  # simulate | solve
    params: Dict[str, Number]  # the swept params' values
    resolved: Model = field(repr=False)  # the model with every param applied
    options: Dict[str, object] = field(default_factory=dict)  # the engine's keyword arguments


def plan(models: Mapping[str, Model], sweep: Mapping[str, Sequence[Number]],
         engines: Mapping[str, Mapping[str, object]], where: str = "--sweep") -> List[Scenario]:
    """Every (model, combination of swept values, engine), in that order of
    nesting; each model is resolved with its params here, so that a bad value
    stops the experiment before any scenario runs."""
    check_size(sweep, where, times=len(models) * len(engines))
    for name in sweep:
        if name in TABLE_COLUMNS:
            raise BrewputError(f"{where}: a swept param cannot be called {name!r}: the results table has a "
                               f"column of that name ({', '.join(TABLE_COLUMNS)})")
    if "simulate" in engines:
        run_settings(**{"seed": 1, "replications": 5, "customers": None, "horizon": None,
                        "warmup": None, "threads": None, **engines["simulate"]})
    scenarios: List[Scenario] = []
    for label, model in models.items():
        for params in combinations(sweep):
            resolved = model.with_params(**params) if params else model
            for engine, options in engines.items():
                scenarios.append(Scenario(len(scenarios), label, engine, params, resolved, dict(options)))
    return scenarios


def one_model(model, params: Optional[Mapping[str, Number]], sweep: Mapping[str, Sequence[Number]],
              engine: str, options: Mapping[str, object], command: Optional[str] = None):
    """The record and scenarios of sweeping one model (a Model or a model file)
    with one engine: `brewput simulate --sweep` and `brewput solve --sweep`."""
    model = as_model(model, params)
    label = Path(model.file).stem if model.file else model.name
    record = new_record(title=model.name, command=command, models={label: model_entry(model.file)}, sweep=sweep)
    return record, plan({label: model}, sweep, {engine: dict(options)})


def run_scenario(scenario: Scenario, threads: Optional[int] = None) -> Tuple[Optional[dict], Optional[str]]:
    """One scenario's results dict (docs/results.md), or why it failed; runs in a
    worker. A failure comes back as its one-line message, so that the other
    scenarios still run and nothing finished is lost (and because BrewputError
    subclasses with their own constructor arguments do not survive pickling)."""
    try:
        if scenario.engine == "solve":
            from ..engine.solve import solve
            return solve(scenario.resolved, **scenario.options), None
        from ..engine.simulate import simulate
        return simulate(scenario.resolved, threads=threads, **scenario.options), None
    except BrewputError as e:
        return None, f"{scenario.model} at {params_text(scenario.params)}: {e}"


def params_text(params: Mapping[str, Number]) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items()) or "its own params"


def run(record: dict, scenarios: Sequence[Scenario], executor,
        progress: Optional[Progress] = None) -> dict:
    """Runs `scenarios` on `executor` (entered here) and fills `record["scenarios"]`
    in scenario order, and `record["failed"]` with the scenarios that could not
    run and why. Ctrl-C stops the run: the scenarios already finished are kept
    and the record is marked `interrupted`."""
    done: Dict[int, dict] = {}
    failed: Dict[int, str] = {}
    work = functools.partial(run_scenario, threads=executor.threads)
    if progress is not None:
        progress(0, len(scenarios))
    try:
        with executor:
            for index, (results, error) in executor.map_unordered(work, scenarios):
                if error is None:
                    done[index] = results
                else:
                    failed[index] = error
                if progress is not None:
                    progress(len(done) + len(failed), len(scenarios))
    except KeyboardInterrupt:
        record["interrupted"] = True
    record["scenarios"] = finished(scenarios, done)
    record["failed"] = [{"id": s.id, "model": s.model, "engine": s.engine, "params": dict(s.params),
                         "error": failed[i]} for i, s in enumerate(scenarios) if i in failed]
    return record


def finished(scenarios: Sequence[Scenario], results: Mapping[int, dict]) -> List[dict]:
    """The record's entries of the scenarios that have results, in scenario order."""
    return [{"id": s.id, "model": s.model, "engine": s.engine, "params": dict(s.params), "results": results[i]}
            for i, s in enumerate(scenarios) if i in results]
