"""Running an experiment: a list of scenarios, each one engine run of one model at
one combination of swept params, on an executor, into an experiment record.

A scenario's numbers depend on the scenario alone: every scenario of an
experiment uses the same seed (common random numbers, so that the differences
between scenarios are not drowned in noise), and no seed depends on the
executor, the worker count or the order in which scenarios finish.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..analytic.methods import check_method
from ..engine.simulate import run_settings
from ..model import Model, as_model
from ..errors import BrewputError
from .record import TABLE_COLUMNS, model_entry, new_record
from .sweep import Combinations, Number, SweepError, check_size, sweep_values

MODEL_ENGINES = ("simulate", "solve")  # what runs a model, anywhere: in a worker, on a Dask cluster
ENGINES = MODEL_ENGINES + ("load",)  # load measures the service the models describe, here, one rate at a time
# Called with (scenarios done, scenarios in all) as each one finishes.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Scenario:
    id: int
    model: str  # the model's label in the record
    engine: str  # simulate | solve | load
    params: Dict[str, Number]  # the swept params' values
    base: Model = field(repr=False)  # the model before the swept params, shared by its scenarios
    options: Dict[str, object] = field(default_factory=dict)  # the engine's keyword arguments

    @property
    def resolved(self) -> Model:
        """The model with the swept params applied: made where the scenario runs."""
        return self.base.with_params(**self.params) if self.params else self.base


class Plan(SequenceABC):
    """Every (model, combination of swept values, engine), in that order of
    nesting, each scenario made from its index when asked: planning a million
    scenarios takes neither time nor memory."""

    def __init__(self, models: Mapping[str, Model], sweep: Mapping[str, Sequence[Number]],
                 engines: Mapping[str, Mapping[str, object]]):
        self._models = list(models.items())
        self._combinations = Combinations(sweep)
        self._engines = [(engine, dict(options)) for engine, options in engines.items()]

    def __len__(self) -> int:
        return len(self._models) * len(self._combinations) * len(self._engines)

    @property
    def engines(self) -> List[str]:
        return [name for name, _ in self._engines]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        rest, engine = divmod(index, len(self._engines))
        model, combination = divmod(rest, len(self._combinations))
        label, base = self._models[model]
        name, options = self._engines[engine]
        return Scenario(index, label, name, self._combinations[combination], base, dict(options))


def plan(models: Mapping[str, Model], sweep: Mapping[str, Sequence[Number]],
         engines: Mapping[str, Mapping[str, object]], where: str = "sweep") -> Plan:
    """The scenarios of an experiment, checked before any runs: the engines'
    options, and every swept value of every model (each value once, the other
    params at their first value; a combination that still cannot run is kept in
    the record's failed list with its error)."""
    check_size(sweep, where, times=len(models) * len(engines))
    for name in sweep:
        if name in TABLE_COLUMNS:
            raise BrewputError(f"{where}: a swept param cannot be called {name!r}: the results table has a "
                               f"column of that name ({', '.join(TABLE_COLUMNS)})")
    if "simulate" in engines:
        # How the runs run, checked once; `distribution`, `quantiles` and `within` say only what they record.
        options = {k: v for k, v in engines["simulate"].items() if k not in ("distribution", "quantiles", "within")}
        run_settings(**{"seed": 1, "replications": 5, "customers": None, "horizon": None,
                        "warmup": None, "threads": None, **options})
    if "solve" in engines:
        check_method(engines["solve"].get("method", "auto"))
    first = {name: values[0] for name, values in sweep.items()}
    for model in models.values() if sweep else ():
        model.with_params(**first)
        for name, values in sweep.items():
            for value in values[1:]:
                model.with_params(**{**first, name: value})
    return Plan(models, sweep, engines)


def one_model(model, params: Optional[Mapping[str, Number]], sweep: Mapping[str, Sequence[Number]],
              engine: str, options: Mapping[str, object], command: Optional[str] = None, where: str = "sweep"):
    """The record and scenarios of sweeping one model (a Model or a model file)
    with one engine: `brewput simulate --sweep` and `brewput solve --sweep`;
    `where` names the sweep in errors."""
    model = as_model(model, params)
    label = Path(model.file).stem if model.file else model.name
    record = new_record(title=model.name, command=command, models={label: model_entry(model.file)}, sweep=sweep)
    return record, plan({label: model}, sweep, {engine: dict(options)}, where)


def sweep(model, values: Mapping[str, object], engine: str = "simulate", *, params: Optional[Mapping] = None,
          executor: str = "local", workers: Optional[int] = None, scheduler: Optional[str] = None,
          progress: Optional[Progress] = None, **options) -> dict:
    """Runs `engine` (simulate or solve, with its keyword `options`) on `model`
    (a Model, a model file or a mapping) at every combination of the swept
    params' `values` ({"cpus": range(1, 7)}, or the spellings of --sweep:
    {"cpus": "1..6"}) and returns the experiment record (docs/experiments.md);
    `brewput.table(record)` makes it a pandas table. Scenarios run on local
    worker processes (or a Dask cluster: executor="dask", scheduler=ADDRESS);
    the numbers do not depend on where. After a Ctrl-C the record holds the
    scenarios that finished and says `interrupted`."""
    from .executors import executor as make_executor

    if engine not in MODEL_ENGINES:
        raise BrewputError(f"engine: expected one of {', '.join(MODEL_ENGINES)}, got {engine!r}")
    if not isinstance(values, Mapping):
        raise BrewputError(f"values: expected a mapping of params to their values, e.g. {{'cpus': range(1, 7)}}, "
                           f"got {type(values).__name__}")
    swept = {}
    for name, spelled in values.items():
        try:
            swept[name] = sweep_values(spelled if isinstance(spelled, (str, int, float)) else list(spelled))
        except (SweepError, TypeError) as e:
            raise BrewputError(f"sweep {name}: {e}") from None
    record, scenarios = one_model(model, params, swept, engine, options)
    return run(record, scenarios, make_executor(executor, workers=workers, scheduler=scheduler), progress)


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
        from .bounds import model_bounds
        model = scenario.resolved
        results = simulate(model, threads=threads, **scenario.options)
        bounds = model_bounds(model)
        return (results if bounds is None else {**results, "bounds": bounds}), None
    except BrewputError as e:
        return None, f"{scenario.model} at {params_text(scenario.params)}: {e}"


def describe(scenario: Scenario) -> str:
    """A scenario as a progress line names it: `finelocking.yaml simulate cpus=4`."""
    return f"{scenario.model} {scenario.engine} {params_text(scenario.params)}"


def params_text(params: Mapping[str, Number]) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items()) or "its own params"


def run(record: dict, scenarios: Sequence[Scenario], executor,
        progress: Optional[Progress] = None) -> dict:
    """Runs `scenarios` on `executor` (entered here) and fills `record["scenarios"]`
    in scenario order, and `record["failed"]` with the scenarios that could not
    run and why. Scenarios of the load engine run afterwards, here, one rate
    at a time (experiment/measured.py). Ctrl-C stops the run: the scenarios
    already finished are kept and the record is marked `interrupted`."""
    done: Dict[int, dict] = {}
    failed: Dict[int, str] = {}
    modelled, measured = _modelled_and_measured(scenarios)

    def tell(finished: Optional[Scenario] = None) -> None:
        if progress is not None:
            what = "" if finished is None else describe(finished) + (" failed" if finished.id in failed else "")
            progress(len(done) + len(failed), len(scenarios), what)

    if measured:
        from .measured import check_reachable, measure_rates

        check_reachable(measured[0].options)
    work = functools.partial(run_scenario, threads=executor.threads)
    tell()
    try:
        with executor:
            for position, (results, error) in executor.map_unordered(work, modelled):
                index = modelled[position].id
                if error is None:
                    done[index] = results
                else:
                    failed[index] = error
                tell(modelled[position])
    except KeyboardInterrupt:
        record["interrupted"] = True
    if measured and not record["interrupted"]:
        outcome = measure_rates(measured, done, failed, tell)
        record["saturation"] = outcome.saturation
        record["interrupted"] = outcome.interrupted
    record["scenarios"] = finished(scenarios, done)
    record["failed"] = [{**_entry(scenarios[i]), "error": failed[i]} for i in sorted(failed)]
    return record


def _modelled_and_measured(scenarios: Sequence[Scenario]) -> Tuple[Sequence[Scenario], List[Scenario]]:
    """The scenarios run on the executor, and those of the load engine; a plan
    without the load engine is not walked (it may be a million scenarios)."""
    if isinstance(scenarios, Plan) and "load" not in scenarios.engines:
        return scenarios, []
    return ([s for s in scenarios if s.engine != "load"], [s for s in scenarios if s.engine == "load"])


def finished(scenarios: Sequence[Scenario], results: Mapping[int, dict]) -> List[dict]:
    """The record's entries of the scenarios that have results, in scenario order."""
    return [{**_entry(scenarios[i]), "results": results[i]} for i in sorted(results)]


def _entry(s: Scenario) -> dict:
    return {"id": s.id, "model": s.model, "engine": s.engine, "params": dict(s.params)}
