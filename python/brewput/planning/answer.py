"""One model answered the planning way: by `solve` where an analytic method
covers it (exact, or marked approximate), else by `simulate`, so that a plan or
a what-if never stops at a model theory does not reach.

A Markov chain of phase-type fits (solve's `ctmc` where a law is not exponential)
is not taken: its error is stated but can be large (the talk's kitchen of constant
stages, 25 % at Erlang-4), and a plan compares options by their figures; the
simulation is the better answer there. An exact chain is taken."""
from __future__ import annotations

from typing import Optional, Tuple

SIMULATED_CUSTOMERS = 20_000  # per replication, when no analytic method covers the model
SIMULATED_REPLICATIONS = 3


def answered(model, seed: int = 1, asked: Optional[dict] = None) -> Tuple[dict, str]:
    """(results, engine): solve's where it covers the model (and, for the
    quantiles and service levels `asked`, knows every class's law), else simulate's."""
    from ..analytic.network import Unsupported
    from ..engine.simulate import simulate
    from ..engine.solve import solve

    asked = asked or {}
    try:
        results = solve(model, **asked)
        if _taken(results) and (not asked or all(c.get("law") for c in results["classes"].values())):
            return results, "solve"
    except Unsupported:
        pass
    return simulate(model, seed=seed, customers=SIMULATED_CUSTOMERS, replications=SIMULATED_REPLICATIONS,
                    **asked), "simulate"


def answer_work(model):
    """What `answered` will cost (engine/work.py's Work): nothing to speak of where
    solve covers the model (or refuses it, so the option cannot serve), else the
    simulation's. Finding out solves the model once: a few milliseconds."""
    from ..analytic.network import Unsupported
    from ..engine.simulate import estimate
    from ..engine.solve import solve
    from ..engine.work import Work
    from ..errors import BrewputError

    try:
        simulated = not _taken(solve(model))
    except Unsupported:
        simulated = True
    except BrewputError:  # the option cannot serve: nothing is run for it
        simulated = False
    if simulated:
        return estimate(model, customers=SIMULATED_CUSTOMERS, replications=SIMULATED_REPLICATIONS)
    return Work(0.0, 0.0)


def _taken(results: dict) -> bool:
    """Whether a plan takes solve's results: all but a chain of phase-type fits."""
    from ..analytic.methods import CHAIN

    return results["method"] != CHAIN or all_exact(results)


def all_exact(results: dict) -> bool:
    """Whether every figure of a solve's results is exact (a simulation's never are)."""
    if results["engine"] != "solve":
        return False
    parts = [*results["classes"].values(), *results["stations"].values()]
    return all(part.get("exact", True) for part in parts)
