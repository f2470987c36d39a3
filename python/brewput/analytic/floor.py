"""The service floor in `solve`: which exact method answers a model using typed
servers, customers who give up or preemption (each exact only at the one station
of an open model, one_station.py), forks or dispatches (branches.py; a random
dispatch is routing, which the network methods solve), refused by name where
they are not exact (which measures between marks solve answers: support.py).
"""
from __future__ import annotations

from importlib import import_module
from typing import Optional, Tuple

from ..model import Model
from ..model.features import feature_sites
from .network import Network
from .solution import Solution

#: Each feature of the floor, by the module and function of the method that
#: answers a model using it (imported only for such a model: `brewput solve` of
#: a plain network does not pay their import); a model using several goes to
#: the first, which refuses the others by name.
SOLVERS = (
    ("typed-servers", "typed_station", "solve_typed"),
    ("balk-threshold", "giving_up", "solve_giving_up"),
    ("balk-probabilities", "giving_up", "solve_giving_up"),
    ("patience", "giving_up", "solve_giving_up"),
    ("preempt-resume", "preemptive", "solve_preemptive"),
    ("preempt-restart", "preemptive", "solve_preemptive"),
    ("fork-join", "branches", "solve_branches"),
    ("dispatch-round-robin", "branches", "solve_branches"),
    ("dispatch-shared", "branches", "solve_branches"),
    ("dispatch-power-of-d", "branches", "solve_branches"),
)


def solve_floor(model: Model, net: Network) -> Optional[Tuple[Network, Solution]]:
    """The model's exact solution if it uses a feature of the floor (Unsupported
    naming it where it is not exact), else None: a queueing network's methods answer it."""
    sites = feature_sites(model)
    for feature, module, solver in SOLVERS:
        if feature in sites:
            solve = getattr(import_module(f".{module}", __package__), solver)
            return solve(model, net, feature, sites[feature])
    return None
