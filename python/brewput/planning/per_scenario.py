"""A plan for each scenario of demand: the model at each combination of the
demand's values (a scenario) planned on its own over the decisions (plan.py),
so that each scenario gets its cheapest decision, confirmed by simulation, and
no demand is ever priced or counted as units."""
from __future__ import annotations

from typing import Callable, Mapping, Optional, Sequence

from ..errors import BrewputError
from ..experiment.sweep import Combinations, Number
from .npv import Cost
from .plan import plan, variant
from .slo import Objective


def check_costs(costs: Mapping[str, Cost], decisions: Mapping[str, object], scenarios: Mapping[str, object]) -> None:
    """A cost is per unit of a decision: demand is never bought."""
    demand = [name for name in costs if name in scenarios]
    if demand:
        raise BrewputError(f"--cost {demand[0]}: {demand[0]} is demand (a scenario), not something to buy; a cost "
                           f"is per unit of a decision ({', '.join(decisions)})")


def plan_per_scenario(model, objectives: Sequence[Objective], decisions: Mapping[str, Sequence[Number]],
                      scenarios: Mapping[str, Sequence[Number]], *, costs: Optional[Mapping[str, Cost]] = None,
                      progress: Optional[Callable[..., None]] = None, **settings) -> dict:
    """plan()'s record with `scenarios` ({name: values}) and `plans`: one per
    combination of their values, each {"scenario": values, "options",
    "chosen", "confirmed"} as plan() gives them."""
    costs = dict(costs or {})
    check_costs(costs, decisions, scenarios)
    combinations = Combinations(scenarios)
    per_plan = len(Combinations(decisions))
    plans, record = [], {}
    for index in range(len(combinations)):
        scenario = combinations[index]
        label = ", ".join(f"{k}={v}" for k, v in scenario.items())

        def step(done: int, total: int, what: str = "", offset: int = index * per_plan, label: str = label):
            if progress is not None:
                progress(offset + done, len(combinations) * total, f"{label}: {what}")

        record = plan(variant(model, scenario), objectives, decisions, costs=costs, progress=step, **settings)
        plans.append({"scenario": dict(scenario), **{key: record.pop(key) for key in
                                                     ("options", "chosen", "confirmed")}})
    record["model"] = model.file or model.name
    return {**record, "scenarios": {k: list(v) for k, v in scenarios.items()}, "plans": plans}
