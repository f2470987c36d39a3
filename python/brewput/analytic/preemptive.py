"""Preemptive priority (`preempt: resume | restart` at a `discipline: priority`
station) at the one station of an open model, per class, exactly (priority.py):
resume at one server with any service laws (M/G/1, Avi-Itzhak and Naor), and at
several servers with one exponential service mean for all classes; restart
(a new draw) where it is resume exactly: exponential service. Else refused by name.
"""
from __future__ import annotations

import math
from typing import Sequence, Tuple

from ..errors import Unstable
from ..model import Model
from ..model.no_effect import preempt_without_effect
from . import sizing
from .laws.priority import top_priority_laws
from .network import Network
from .one_station import one_station, refusal, station_solution
from .priority import preemptive_repeat, preemptive_resume
from .solution import Solution

CONDITION = ("for resume at one server (M/G/1), and for resume or restart at untyped servers with "
             "exponential service of one mean for all classes, with no finite buffer and nobody giving up")


def solve_preemptive(model: Model, net: Network, feature: str, site: str) -> Tuple[Network, Solution]:
    """The exact solution, or Unsupported naming `feature` (first used at `site`)."""
    one = one_station(model, feature, site)
    station, at = one.station, f"stations.{one.name}"

    def refuse(problem: str):
        return refusal(model, feature, site, CONDITION, problem)

    if station.server_types:
        raise refuse(f"{at}.servers are typed")
    if station.buffer != float("inf"):
        raise refuse(f"{at}.buffer is finite")
    steps = [(f"classes.{label}.route[0]", step) for label, step in zip(one.classes, one.steps)]
    for here, step in steps:
        if step.balk is not None or step.patience is not None:
            raise refuse(f"{here}.{'balk' if step.balk is not None else 'patience'} gives up")
    lams, means = list(one.rates), [step.service.mean for step in one.steps]
    if math.isinf(station.servers):
        return net, _infinite_servers(net, one, lams, means)
    c = int(station.servers)
    if station.preempt == "restart" or c > 1:
        first_here, first = steps[0]
        for here, step in steps:
            if not step.service.is_exponential:
                raise refuse(f"{here}.service is not exponential")
            if c > 1 and step.service.mean != first.service.mean:
                raise refuse(f"{here}.service has mean {step.service.mean:g}, {first_here}.service "
                             f"{first.service.mean:g}, at {c} servers")
    # Two M/M/c figures per class at several servers, each Erlang's recursion over the servers.
    sizing.check(f"station {one.name} with {c:,} servers", sum([sizing.erlang_cost(c)] * 2 * len(lams),
                                                                sizing.NOTHING), "use brewput simulate")
    priorities = [job.priority for job in model.classes.values()]
    load = sum(lam * s for lam, s in zip(lams, means)) / c
    if load >= 1:
        raise Unstable(f"station {one.name}: utilization {load:.4g} >= 1, the open model is unstable; "
                           f"no steady state exists")
    if station.preempt == "restart":
        figures, method = preemptive_repeat(lams, means, priorities, c), "preemptive-repeat"
    else:
        figures = preemptive_resume(lams, means, [step.service.scv for step in one.steps], priorities, c)
        method = "preemptive-resume"
    solution = station_solution(
        net, one, method,
        throughput=figures.throughput,
        response=figures.response,
        busy=[lam * s for lam, s in zip(lams, means)],
        present=figures.in_system,
    )
    solution.laws = top_priority_laws(lams, [step.service for step in one.steps], priorities, c)
    return net, solution


def _infinite_servers(net: Network, one, lams: Sequence[float], means: Sequence[float]) -> Solution:
    """Every job has a server the moment it arrives, so none is ever preempted:
    each class is exactly M/G/inf, whatever its priority."""
    return station_solution(
        net, one, "infinite-server",
        throughput=lams, response=means, busy=[lam * s for lam, s in zip(lams, means)],
        present=[lam * s for lam, s in zip(lams, means)],
        notes=[preempt_without_effect(one.name, one.station)],
    )
