"""Traffic equations: how often each step is visited per customer, and the load
that open classes offer each station and resource.

The simulator uses it to warn about unstable open models before running them;
the analytic solver builds on the same visit ratios.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List

from ..model import Model
from ..model.schema import ForkStep, JobClass, Station, Step


#: Routes longer than this solve their traffic equations as a sparse system: a
#: dense one of 10,000 steps takes 800 MB and minutes; routes are mostly chains.
DENSE_STEPS = 256


def step_visits(job_class: JobClass) -> List[float]:
    """Expected visits to each step of the route per customer: the solution of
    v = e_0 + P^T v, where P is the step-to-step routing (exit absorbs; the
    model language guarantees every step can reach it)."""
    routing_table = job_class.visits_routing()
    n = len(routing_table)
    if all(row == [(i + 1 if i + 1 < n else None, 1.0)] for i, row in enumerate(routing_table)):
        return [1.0] * n  # a chain visits each step once: no system to solve, no numpy to import
    import numpy as np  # only routes that branch or loop pay numpy's import time

    links = [(i, target, p) for i, row in enumerate(routing_table) for target, p in row if target is not None]
    start = np.zeros(n)
    start[0] = 1.0
    if n <= DENSE_STEPS:
        routing = np.zeros((n, n))
        for i, target, p in links:
            routing[i, target] += p
        return [float(v) for v in np.linalg.solve(np.eye(n) - routing.T, start)]
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    rows, cols, probabilities = zip(*links) if links else ((), (), ())
    routing_t = sparse.csc_matrix((probabilities, (cols, rows)), shape=(n, n))  # duplicates add up
    return [float(v) for v in spsolve(sparse.identity(n, format="csc") - routing_t, start)]


@dataclass(frozen=True)
class OfferedLoad:
    """Utilization that open arrivals alone demand of each station and resource."""

    stations: Dict[str, float]
    resources: Dict[str, float]


def _joining_a_long_queue(step) -> float:
    """The fraction of a step's arrivals that still join when the queue has grown
    long: none with a balking threshold, a final balking probability of 1 or any
    patience (impatient customers leave as fast as the queue grows, so the queue
    stays bounded: Erlang A is stable at any load); else 1 less the final
    probability of balking."""
    if step.patience is not None or isinstance(step.balk, int):
        return 0.0
    if isinstance(step.balk, list):
        return 1.0 - step.balk[-1]
    return 1.0


def _most_passing(station: Station, step: Step) -> float:
    """The most visits per time a step's station can serve for it alone: its servers (of
    the types that may serve it) each at its own mean."""
    if math.isinf(station.servers):
        return math.inf
    if not station.server_types:
        return _served_per_time(station.servers, step.service.mean)
    by_type = dict(step.services()) if isinstance(step.served_by, dict) else {}
    allowed = step.served_by if step.served_by is not None else list(station.server_types)
    return sum(_served_per_time(station.server_types[kind],
                                (by_type[f"served_by.{kind}"] if by_type else step.service).mean)
               for kind in allowed)


def _served_per_time(servers: float, mean: float) -> float:
    """What `servers` serve per time at `mean` each: without end where a service takes no time."""
    return servers / mean if mean > 0 else math.inf


def _most_arriving(model: Model, job_class: JobClass, k: int, visits: List[float],
                   fed_by: Dict[int, List[int]]) -> float:
    """An upper bound on the visits per time step `k` can receive however fast customers
    arrive: no more pass a station than its servers serve, so every station a customer
    must pass before reaching `k` caps it, and so does a fork's branch whose first
    station has a finite buffer, since the fork enters all its branches at once and
    waits for room (the Starbucks register, behind a ticket rail that is full). Only
    steps reached from exactly one step are followed, where flows scale by visits."""
    most = math.inf
    steps = job_class.steps
    current, seen = k, {k}
    while len(fed_by.get(current, [])) == 1:
        before = fed_by[current][0]
        if before in seen:
            break
        seen.add(before)
        step = steps[before][1]
        if step.station is not None:
            passing = [before]
        elif isinstance(step, ForkStep):
            passing = [first for first in job_class.branch_starts(before) if first != current
                       and steps[first][1].station is not None
                       and math.isfinite(model.stations[steps[first][1].station].buffer)]
        else:
            passing = []
        for j in passing:
            most = min(most, _most_passing(model.stations[steps[j][1].station], steps[j][1]) * visits[k] / visits[j])
        current = before
    return most


def open_offered_load(model: Model, growing: bool = False) -> OfferedLoad:
    """The load open arrivals offer; `growing`: only the part that keeps joining a
    queue grown long, at stations whose buffer is unbounded (what decides whether
    a queue grows without bound)."""
    work_at: Dict[str, float] = {name: 0.0 for name in model.stations}
    work_on: Dict[str, float] = {name: 0.0 for name in model.resources}
    for job_class in model.classes.values():
        if not job_class.is_open:
            continue
        rate = 1.0 / job_class.interarrival.mean
        fed_by: Dict[int, List[int]] = {}   # the steps each step is reached from
        for before, row in enumerate(job_class.visits_routing() if growing else []):
            for after, _ in row:
                fed_by.setdefault(after, []).append(before)
        joined: Dict[int, float] = {}   # the share of each step's arrivals still joining a long queue
        visits_of = step_visits(job_class)
        for k, (visits, (path, step)) in enumerate(zip(visits_of, job_class.steps)):
            before = fed_by.get(k, [])
            upstream = joined.get(before[0], 1.0) if len(before) == 1 else 1.0
            if step.station is None:
                joined[k] = upstream  # a fork or dispatch: its branches' steps do the work
                continue
            arriving = rate * visits
            if growing:
                arriving = min(arriving, _most_arriving(model, job_class, k, visits_of, fed_by))
            work = arriving * step.least_service_mean
            joining = _joining_a_long_queue(step) if growing else 1.0
            if growing and math.isfinite(model.stations[step.station].buffer):
                # Arrivals that find the first station full are lost. A full station further on
                # blocks the one it is reached from instead, so there the excess piles up, unless
                # that one (the only one) sheds it in turn: the Starbucks register's (or
                # expediter's) balking and patience in front of the ticket rail.
                joining = 0.0 if path == ("route", 0) else min(joining, upstream)
            joined[k] = joining
            work_at[step.station] += work * joining
            for resource in step.uses:
                work_on[resource] += work * joining
    return OfferedLoad(
        stations={name: work / model.stations[name].servers for name, work in work_at.items()
                  if work > 0 and not math.isinf(model.stations[name].servers)},
        resources={name: work / model.resources[name] for name, work in work_on.items() if work > 0},
    )


# The words of an instability warning, which reports look for in a scenario's warnings.
UNSTABLE = "the model is unstable"


def instability_warnings(model: Model) -> List[str]:
    """One line per station or resource that open arrivals load to 100 % or more."""
    if not any(c.is_open for c in model.classes.values()):
        return []
    load = open_offered_load(model, growing=True)
    where = [("station", name, rho) for name, rho in load.stations.items()] + \
            [("resource", name, rho) for name, rho in load.resources.items()]
    return [
        f"{kind} {name}: open arrivals offer utilization {rho:.3g} >= 1; {UNSTABLE} "
        f"and its queues grow without bound (figures depend on the run length)"
        for kind, name, rho in where if rho >= 1.0
    ]
