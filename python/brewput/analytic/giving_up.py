"""Customers who give up (`balk:`, `patience:`) at the one station of an open
model, or of one closed class with exponential think (a finite source: one who
gives up thinks again), exactly: the number present is a birth-death chain
(abandonment.py).

The model says it per step in waiting jobs seen (those in service not counted):
a threshold b balks whoever sees b or more waiting, so with c servers an arrival
finding n present joins while n < c + b (M/M/c/K with K = c + b); probabilities
q_0, q_1, ... balk whoever sees w = max(n - c, 0) waiting with q_w, the last
holding beyond the list. A finite buffer cuts the chain at c + buffer: who finds
it full is lost as `full`, not `balked`. Exponential patience is Erlang A.

Exact when every class there has one exponential service mean, the same `balk`
and the same exponential `patience` (the chain is then blind to class, FCFS),
at a fifo station of untyped servers. Else refused by name.
"""
from __future__ import annotations

import math
from typing import Callable, List, Tuple

from ..errors import Unstable
from ..model import Model
from . import sizing
from .abandonment import Impatience, chain_states, finite_source, impatient
from .laws.birth_death import birth_death_laws
from .network import Network
from .one_station import OneStation, one_station, refusal, station_solution
from .solution import Solution

CONDITION = ("at a fifo station of untyped servers whose classes share one exponential service mean, "
             "one balk: and one exponential patience:")


def solve_giving_up(model: Model, net: Network, feature: str, site: str) -> Tuple[Network, Solution]:
    """The exact solution, or Unsupported naming `feature` (first used at `site`)."""
    one = one_station(model, feature, site, closed=True)
    station, steps = one.station, one.steps
    at = [f"classes.{label}.route[0]" for label in one.classes]

    def refuse(problem: str):
        return refusal(model, feature, site, CONDITION, problem)

    if station.server_types:
        raise refuse(f"stations.{one.name}.servers are typed")
    if station.discipline != "fifo":
        raise refuse(f"stations.{one.name}.discipline is {station.discipline}")
    first = steps[0]
    for where, step in zip(at, steps):
        if not step.service.is_exponential:
            raise refuse(f"{where}.service is not exponential")
        if step.patience is not None and not step.patience.is_exponential:
            raise refuse(f"{where}.patience is not exponential")
        if step.service.mean != first.service.mean:
            raise refuse(f"{where}.service has mean {step.service.mean:g}, {at[0]}.service {first.service.mean:g}")
        if step.balk != first.balk:
            raise refuse(f"{where}.balk differs from {at[0]}.balk")
        if _patience(step) != _patience(first):
            raise refuse(f"{where}.patience differs from {at[0]}.patience")
    c, s, patience = int(station.servers), first.service.mean, _patience(first)
    capacity = station.servers + station.buffer
    if one.population > capacity:  # a closed customer who finds it full waits outside (outside.py), in no chain here
        raise refuse(f"stations.{one.name}.buffer can be full, and closed customers wait outside a full station")
    length, chance, beyond = _joining(first.balk, c, capacity)
    if (chance(0) if length else beyond) == 0:
        raise refuse(f"{at[0]}.balk turns every arrival away: nobody is ever served")
    lam = sum(one.rates)
    if one.population:  # the chain ends where everyone is there, or joining stops
        states = min(one.population, length if beyond == 0 else one.population) + 1.0
    else:
        states = chain_states(lam, s, c, join_length=length, beyond=beyond, patience=patience)
    if math.isinf(states):  # no patience, no end to joining, and more work than the servers do
        raise Unstable(f"station {one.name}: utilization {lam * beyond * s / c:.4g} >= 1 of the customers "
                           f"who join, the open model is unstable; no steady state exists")
    sizing.check(f"station {one.name}'s chain of customers who give up, about {states:,.0f} states",
                 sizing.birth_death_cost(states), "use brewput simulate")
    join = [chance(n) for n in range(min(length, int(states)))]  # a closed chain ends at its population
    if one.population:
        chain = finite_source(one.population, one.think, s, c, join=join, beyond=beyond, patience=patience)
    else:
        chain = impatient(lam, s, c, join=join, beyond=beyond, patience=patience)
    method = _method(first.balk, patience, capacity, one.population)
    solution = _solution(net, one, chain, full=chain.at_end if length == capacity else 0.0, method=method)
    if not one.population:  # open: arrivals see the chain's time averages; every class alike (FCFS)
        laws = birth_death_laws(lam, s, c, patience, lambda n: chance(n) if n < length else beyond,
                                int(math.ceil(states)), method)
        solution.laws = {r: laws for r in range(len(net.classes))}
    return net, solution


def _patience(step) -> float:
    return math.inf if step.patience is None else step.patience.mean


def _joining(balk, c: int, capacity: float) -> Tuple[int, Callable[[int], float], float]:
    """The chain's chance to join on finding n present, as (how many states
    n = 0..length-1 have their own, that chance, the chance beyond them), the
    buffer's cut at `capacity` included; not listed, so that the chain is sized
    before any list of its length is built."""
    if isinstance(balk, list):  # n <= c present: 0 waiting seen; then one more waiting per place
        length, beyond = c + len(balk) - 1, 1.0 - balk[-1]

        def chance(n: int) -> float:
            return 1.0 - balk[min(max(n - c, 0), len(balk) - 1)]
    else:  # everyone joins, or joins while fewer than `balk` wait: n < c + balk (nobody, at a threshold of 0)
        length, beyond = (0, 1.0) if balk is None else (c + int(balk) if balk else 0, 0.0)

        def chance(n: int) -> float:
            return 1.0
    if math.isfinite(capacity) and (beyond > 0 or length > capacity):  # full before balking ends it
        length, beyond = int(capacity), 0.0
    return length, chance, beyond


def _method(balk, patience: float, capacity: float, population: int) -> str:
    if population:
        return "finite-source"
    if balk is None and math.isinf(capacity):
        return "erlang-a"
    if not isinstance(balk, list) and math.isinf(patience):
        return "mmck"
    return "birth-death"


def _solution(net: Network, one: OneStation, chain: Impatience, full: float, method: str) -> Solution:
    lam = sum(one.rates)
    shares = [rate / lam for rate in one.rates] if lam else [1.0]  # FCFS is blind to class: each its share
    reneged = chain.abandoned

    def per_class(x: float) -> List[float]:
        return [x] * len(shares)

    return station_solution(
        net, one, method,
        throughput=[share * chain.throughput for share in shares],
        response=per_class(chain.mean_response),
        busy=[share * chain.utilization * one.station.servers for share in shares],
        present=[share * chain.mean_in_system for share in shares],
        loss_by={"full": per_class(full), "balked": per_class(chain.balked - full), "reneged": per_class(reneged)},
        station_response=chain.mean_response,
    )
