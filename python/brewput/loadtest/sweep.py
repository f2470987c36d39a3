"""A capacity curve: the same load at rising rates, one run per rate, into an
experiment record (docs/experiments.md) whose scenarios are the runs
(`engine: "load"`, params `{rate}`) and, with a model, its predictions at the
same rates (`solve`, `simulate`), so that reports draw measured beside
predicted. The first rate at which a threshold breaks ends the sweep: it is the
saturation point the record names."""
from __future__ import annotations

import copy
from typing import Callable, List, Mapping, Optional

from ..errors import BrewputError
from ..experiment.record import add_scenario, new_record
from .predict import CUSTOMERS, offered_model
from .results import to_results
from .run import measure
from .thresholds import Threshold, judge


def run_sweep(settings: dict, rates: List[float], *, target: str, method: str, thresholds: List[Threshold],
              predict: Optional[str], params: Mapping[str, object], command: str,
              measured: Callable[[float, dict, list], None] = lambda rate, results, judged: None) -> dict:
    """Measures `settings` at each rate (its one stage's rate replaced) and
    returns the record; `measured` is told of each run as it ends."""
    from .. import simulate, solve

    record = new_record(title=f"brewput load {target}", command=command, sweep={"rate": rates})
    record["saturation"] = None
    for rate in rates:
        step = copy.deepcopy(settings)
        step["schedule"]["stages"][0].update({"from": rate, "to": rate})
        results = to_results(measure(step), target=target, method=method, settings=step)
        judged = judge(thresholds, results)
        add_scenario(record, target, "load", {"rate": rate}, results)
        if predict is not None:
            model, _ = offered_model(predict, params, rate, settings["schedule"]["arrivals"])
            seed = settings["schedule"]["seed"]
            for engine, run in (("solve", lambda: solve(model)),
                                ("simulate", lambda: simulate(model, seed=seed, customers=CUSTOMERS))):
                try:
                    add_scenario(record, predict, engine, {"rate": rate}, run())
                except BrewputError as e:  # a refusal (or an unstable rate) is recorded, the sweep goes on
                    record["failed"].append({"id": len(record["scenarios"]) + len(record["failed"]),
                                             "model": predict, "engine": engine, "params": {"rate": rate},
                                             "error": str(e)})
        measured(rate, results, judged)
        if results["load"]["interrupted"]:
            record["interrupted"] = True
            break
        broken = [t.text for t, _, ok in judged if not ok]
        if broken:
            record["saturation"] = {"rate": rate, "broken": broken}
            break
    return record
