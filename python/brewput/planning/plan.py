"""The cheapest configuration that meets every objective: each combination of
the varied params (or fields at a path) solved where theory is exact,
simulated where no analytic method covers the model, judged against the
objectives and costed; then the chosen one, and the one just below it,
confirmed by simulation with confidence intervals.

Cost: without prices, the fewest units (the sum of the varied values, e.g.
servers, each raised by the shrinkage: the share of a unit's time lost to
breaks or maintenance); with `Cost`s, the net present value over the years of buying the
units now and running them (npv.py), the purchase and running costs shown
apart so that a manager can read the table of options.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from ..errors import BrewputError
from ..experiment.sweep import Combinations, Number
from .answer import all_exact, answer_work, answered
from .npv import Cost
from .slo import Objective, asked_by

MAX_OPTIONS = 100_000  # combinations solved (each a few ms); beyond, narrow the ranges
CONFIRM_CUSTOMERS = 100_000  # per replication of a confirming simulation
CONFIRM_REPLICATIONS = 10


@dataclass
class Option:
    values: Dict[str, Number]
    engine: str = "solve"  # or simulate, when no analytic method covers the model
    exact: bool = True
    figures: List[dict] = field(default_factory=list)  # per objective: part, figure, held
    meets: bool = False
    problem: Optional[str] = None  # why it could not be solved (unstable, ...)
    scheduled: Dict[str, Number] = field(default_factory=dict)  # the units to pay for, shrinkage added
    purchase: Optional[float] = None
    running: Optional[float] = None  # a year
    cost: Optional[float] = None  # the present value over the years, or the units without prices

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("values", "engine", "exact", "figures", "meets", "problem",
                                              "scheduled", "purchase", "running", "cost")}


def variant(model, values: Mapping[str, Number]):
    """`model` with the varied values: params by name, other fields by their dotted path."""
    params = {k: v for k, v in values.items() if "." not in k}
    edits = {k: v for k, v in values.items() if "." in k}
    varied = model.with_edits(edits) if edits else model
    return varied.with_params(**params) if params else varied


def check_vary(model, given: Mapping[str, Mapping[str, Sequence[Number]]]) -> None:
    """The varied names by the option that gave them ({"--vary": {name: values}, ...}):
    something varied, not too many combinations in all, no name given twice, every
    name one the model has (a param, or a path) and every value a valid model,
    refused before anything is solved."""
    every: Dict[str, Sequence[Number]] = {}
    for option, vary in given.items():
        for name in vary:
            if name in every:
                first = next(o for o, v in given.items() if name in v)
                raise BrewputError(f"{option} {name}: {name} is varied twice (also {first})")
        every.update(vary)
    if not every:
        raise BrewputError("--vary: name at least one param or field to vary, e.g. --vary servers=1..64")
    size = len(Combinations(every))
    if size > MAX_OPTIONS:
        raise BrewputError(f"{', '.join(o for o, v in given.items() if v)}: {size:,} combinations, more than "
                           f"{MAX_OPTIONS:,}; narrow the ranges")
    for option, vary in given.items():
        for name, values in vary.items():
            if "." not in name and name not in model.params:
                raise BrewputError(f"{option} {name}: {model.missing_param(name)}; a field is named by its path, "
                                   "e.g. stations.web.servers")
            for value in values:
                try:
                    variant(model, {name: value})
                except BrewputError as e:
                    raise BrewputError(f"{option} {name}={value}: {e}") from None
    _check_independent(model, given)


def _check_independent(model, given: Mapping[str, Mapping[str, Sequence[Number]]]) -> None:
    """A field varied with a param it is computed from: the field's values would
    replace the param's effect on it, so the param's options would differ only in name."""
    option_of = {name: option for option, vary in given.items() for name in vary}
    for path in (name for name in option_of if "." in name):
        for param in sorted(model.params_behind(path) & set(option_of)):
            raise BrewputError(f"{option_of[path]} {path}: the model computes it from param {param}, also "
                               f"varied ({option_of[param]} {param}); vary one of them")


def judge(objectives: Sequence[Objective], results: dict) -> List[dict]:
    judged = []
    for objective in objectives:
        part, value, held = objective.worst(results)
        judged.append({"slo": objective.text, "kind": objective.kind, "part": part, "figure": value,
                       "bound": objective.value, "held": held})
    return judged


def evaluate(model, values: Mapping[str, Number], objectives: Sequence[Objective],
             costs: Mapping[str, Cost], years: int, rate: float, shrinkage: float = 0.0) -> Option:
    option = Option(values=dict(values))
    _price(option, costs, years, rate, shrinkage)
    try:
        results, option.engine = answered(variant(model, values), asked=asked_by(objectives))
    except BrewputError as e:  # no steady state, a deadlock: the option cannot serve the load
        option.problem = str(e)
        return option
    option.exact = all_exact(results)
    option.figures = judge(objectives, results)
    option.meets = all(f["held"] for f in option.figures)
    return option


def scheduled(value: Number, shrinkage: float) -> Number:
    """The units to have so that `value` are at work when a `shrinkage` share of
    each one's time goes elsewhere (breaks, training, maintenance): whole
    units stay whole, rounded up."""
    needed = value / (1 - shrinkage)
    return math.ceil(needed - 1e-9) if isinstance(value, int) else needed


def _price(option: Option, costs: Mapping[str, Cost], years: int, rate: float, shrinkage: float) -> None:
    option.scheduled = {name: scheduled(value, shrinkage) for name, value in option.values.items()}
    units = {name: float(value) for name, value in option.scheduled.items()}
    if not costs:
        option.cost = sum(units.values())
        return
    option.purchase = sum(units[n] * c.purchase for n, c in costs.items())
    option.running = sum(units[n] * c.running for n, c in costs.items())
    option.cost = sum(c.over(units[n], years, rate) for n, c in costs.items())


def plan(model, objectives: Sequence[Objective], vary: Mapping[str, Sequence[Number]], *,
         costs: Optional[Mapping[str, Cost]] = None, years: int = 3, rate: float = 0.0, shrinkage: float = 0.0,
         confirm: bool = True, seed: int = 1, progress: Optional[Callable[[int, int], None]] = None) -> dict:
    """Every option, the cheapest that meets all `objectives` (`chosen`, an index)
    and, with `confirm`, the chosen one and the one below it simulated."""
    costs = dict(costs or {})
    unknown = [name for name in costs if name not in vary]
    if unknown:
        raise BrewputError(f"cost {unknown[0]}: not varied; a cost is per unit of a varied name ({', '.join(vary)})")
    combinations = Combinations(vary)
    options = []
    for index in range(len(combinations)):
        options.append(evaluate(model, combinations[index], objectives, costs, years, rate, shrinkage))
        if progress is not None:
            progress(index + 1, len(combinations), ", ".join(f"{k}={v}" for k, v in combinations[index].items()))
    meeting = [i for i, o in enumerate(options) if o.meets]
    chosen = min(meeting, key=lambda i: (options[i].cost, i)) if meeting else None
    record = {"model": model.file or model.name, "time_unit": model.time_unit,
              "objectives": [o.text for o in objectives], "objective_units": [o.unit for o in objectives],
              "vary": {k: list(v) for k, v in vary.items()},
              "costs": {k: {"purchase": c.purchase, "running": c.running} for k, c in costs.items()},
              "years": years, "discount_rate": rate, "shrinkage": shrinkage, "options": [o.as_dict() for o in options],
              "chosen": chosen, "confirmed": []}
    if chosen is not None and confirm:
        record["confirmed"] = [confirmation(model, options[i].values, objectives, seed)
                               for i in _chosen_and_below(options, chosen, vary)]
    return record


def plan_work(model, decisions: Mapping[str, Sequence[Number]], scenarios: Mapping[str, Sequence[Number]],
              confirm: bool):
    """What planning will cost (engine/work.py's Work), from some of its options:
    each option answered (solved, or simulated where solve does not cover it),
    then for each scenario the chosen option and those just below it confirmed
    by simulation. Known before any option is answered, so that hours are said first."""
    from ..engine.simulate import estimate
    from ..engine.work import sample_positions, sweep_work

    every = Combinations({**decisions, **scenarios})
    sampled = [answer_work(variant(model, every[i])) for i in sample_positions(len(every))]
    work = sweep_work(len(every), sampled, workers=1)
    if confirm:
        confirming = estimate(model, customers=CONFIRM_CUSTOMERS, replications=CONFIRM_REPLICATIONS)
        for _ in range((1 + len(decisions)) * len(Combinations(scenarios))):
            work += confirming
    return work


def _chosen_and_below(options: List[Option], chosen: int, vary: Mapping[str, Sequence[Number]]) -> List[int]:
    """The chosen option and, for each varied name, the option one value lower
    with the others the same (if there is one)."""
    picked = [chosen]
    values = options[chosen].values
    for name, candidates in vary.items():
        ordered = sorted(candidates)
        position = ordered.index(values[name])
        if position > 0:
            below = {**values, name: ordered[position - 1]}
            picked += [i for i, o in enumerate(options) if o.values == below]
    return picked


def confirmation(model, values: Mapping[str, Number], objectives: Sequence[Objective], seed: int) -> dict:
    """The option simulated: each objective held, broken, or undecided by its 95 %
    interval (wholly on one side of the bound, or across it)."""
    from ..engine.simulate import simulate

    results = simulate(variant(model, values), seed=seed, customers=CONFIRM_CUSTOMERS,
                       replications=CONFIRM_REPLICATIONS, **asked_by(objectives))
    verdicts = []
    for objective in objectives:
        part, value, _ = objective.worst(results)
        interval = None if part is None else objective.interval(results, part)
        verdicts.append({"slo": objective.text, "kind": objective.kind, "part": part, "figure": value,
                         "interval": None if interval is None else list(interval),
                         "verdict": objective.verdict(value, interval)})
    return {"values": dict(values), "figures": verdicts, "meets": all(v["verdict"] == "held" for v in verdicts)}
