"""Experiment records for the report tests, made the contract's way (the
experiment record, docs/experiments.md): brewput.simulate and brewput.solve run
over a few params with small customer counts, each result one scenario."""
import copy
import itertools
from functools import lru_cache
from pathlib import Path

import brewput

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CUSTOMERS = 4000


def run(engine, file, params):
    if engine == "simulate":
        return brewput.simulate(str(file), params=params or None, customers=CUSTOMERS, replications=3, seed=5)
    return brewput.solve(str(file), params=params or None)


def record(title, models, sweep, engines=("simulate",), set_=None):
    """Every model at every combination of swept values with every engine."""
    scenarios = []
    for label, file in models.items():
        for values in itertools.product(*sweep.values()):
            params = dict(set_ or {}, **dict(zip(sweep, values)))
            for engine in engines:
                scenarios.append({"id": len(scenarios), "model": label, "engine": engine, "params": params,
                                  "results": run(engine, file, params)})
    return {
        "brewput": "experiment", "version": 1, "title": title, "created": "2026-11-21T22:40:00+00:00",
        "command": f"brewput test {title}", "study": None,
        "models": {label: {"file": str(file), "text": Path(file).read_text()} for label, file in models.items()},
        "sweep": dict(sweep), "charts": None, "interrupted": False, "scenarios": scenarios,
    }


@lru_cache(maxsize=None)
def _coffee():
    models = {m: EXAMPLES / "coffee" / f"{m}.yaml" for m in ("ideal", "locking", "finelocking", "linearpipe-0")}
    return record("coffee", models, {"cpus": [1, 2, 3, 4, 5, 6]}, set_={"noise": 0.5})


@lru_cache(maxsize=None)
def _mixed():
    return record("M/M/c, simulated and solved", {"mmc": EXAMPLES / "mmc.yaml"}, {"c": [3, 4, 6]},
                  engines=("simulate", "solve"))


@lru_cache(maxsize=None)
def _no_sweep():
    models = {"ideal": EXAMPLES / "coffee" / "ideal.yaml", "multi-2": EXAMPLES / "coffee" / "multi-2.yaml",
              "locking": EXAMPLES / "coffee" / "locking.yaml"}
    return record("coffee at 4 cpus", models, {}, set_={"cpus": 4, "noise": 0.5})


@lru_cache(maxsize=None)
def _two_params():
    return record("M/M/c at two loads", {"mmc": EXAMPLES / "mmc.yaml"}, {"c": [2, 3, 4], "rate": [1.0, 1.5]})


@lru_cache(maxsize=None)
def _unstable():
    return record("M/M/c with too few servers", {"mmc": EXAMPLES / "mmc.yaml"}, {"c": [2, 3, 4, 6]})


def unstable_record():
    """M/M/c at rate 2.7 with c = 2 (offered 135 %: unstable, its queue grows with the run), 3, 4, 6."""
    return copy.deepcopy(_unstable())


def two_params_record():
    """M/M/c swept over c and the arrival rate: lines against c, one per rate."""
    return copy.deepcopy(_two_params())


@lru_cache(maxsize=None)
def _mixed_no_sweep():
    models = {"mmc": EXAMPLES / "mmc.yaml", "site-a": EXAMPLES / "helpdesk" / "site-a.yaml"}
    return record("two queues, simulated and solved", models, {}, engines=("simulate", "solve"))


def mixed_no_sweep_record():
    """Two queues, one scenario each, simulated and solved: bars grouped by engine."""
    return copy.deepcopy(_mixed_no_sweep())


@lru_cache(maxsize=None)
def _central():
    return record("central server", {"central": EXAMPLES / "central-server.yaml"}, {"users": [1, 4, 8, 16]},
                  engines=("simulate", "solve"))


def central_record():
    """Buzen's closed central-server model at 1..16 users, simulated and solved (with bounds)."""
    return copy.deepcopy(_central())


@lru_cache(maxsize=None)
def _starbucks():
    models = {m: EXAMPLES / "starbucks" / f"{m}.yaml" for m in ("fifo", "first-fit", "early-order")}
    return record("Starbucks counter", models, {"rate": [2, 3], "espresso_share": [0.4, 0.6]})


def starbucks_record():
    """The Starbucks counters below capacity: typed servers, customers lost by reason, measures."""
    return copy.deepcopy(_starbucks())


def coffee_record():
    """Four coffee shops at 1..6 cpus with the talk's noise (a sweep, one engine)."""
    return copy.deepcopy(_coffee())


def mixed_record():
    """M/M/c at c = 3, 4, 6, simulated and solved (mixed engines)."""
    return copy.deepcopy(_mixed())


def no_sweep_record():
    """Three coffee shops, one scenario each (no sweep)."""
    return copy.deepcopy(_no_sweep())
