"""Forks and dispatches (`fork:`, `dispatch:`) whose branches are one exponential
single-server station each, fed by nothing else, with one service mean: the
cases with a closed form (fork_join.py, dispatch.py).

- fork, join all: two branches exactly (Flatto-Hahn, Nelson-Tantawi's R_2); three
  to 32 by Nelson and Tantawi's approximation, marked approximate. Join any of two:
  exact (min = T_1 + T_2 - max). Other joins: refused.
- dispatch: round_robin exactly (each station E_c/M/1), shared exactly (one queue
  before c servers: M/M/c; ties go to the first free branch, so the first work more:
  ordered_servers.py), power_of_d by the supermarket model's mean field,
  marked approximate (a large-system limit). A random dispatch is probabilistic
  routing, solved as a network (network.py's traffic equations split by its weights).

The model is one open class with Poisson arrivals whose route is that one step.
The class's waiting time counts the dispatch's queues (the shared one, or its
branch's) but not a fork's branches' queues, which overlap the customer's own time
(as the simulator counts it, docs/simulation.md); each branch station is an M/M/1
queue under fork, and under round_robin and power_of_d holds the even share of the
work (identical branches, chosen in turn or at random).
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

import numpy as np

from ..errors import BrewputError
from ..model import Model
from .dispatch import dispatch
from .fork_join import fork_join
from .network import Network
from .one_station import refusal
from .laws.mmc import mmc_laws
from .ordered_servers import MAX_SERVERS, ordered_utilizations
from .solution import Solution

CONDITION = ("for one open class with Poisson arrivals whose route is the one {kind}, each branch one step "
             "at a fifo station of one untyped server that nothing else visits, exponential service of one "
             "mean for all branches")


def solve_branches(model: Model, net: Network, feature: str, site: str) -> Tuple[Network, Solution]:
    """The fork's or dispatch's solution, or Unsupported naming `feature` (first used at `site`)."""
    label, job = next(iter(model.classes.items()))
    step = job.route[0]
    kind = "fork" if feature in ("fork-join", "partial-join") else "dispatch"

    def refuse(problem: str):
        return refusal(model, feature, site, CONDITION.format(kind=kind), problem)

    if len(model.classes) > 1:
        raise refuse(f"{len(model.classes)} classes")
    at = f"classes.{label}"
    if not job.is_open:
        raise refuse(f"{at} is closed")
    if not job.interarrival.is_exponential:
        raise refuse(f"{at}.arrivals are not Poisson")
    if len(job.route) > 1:
        raise refuse(f"{at}.route has {len(job.route)} steps")
    if job.routing()[0] != [(None, 1.0)]:
        raise refuse(f"{at}.route[0].next comes back")
    stations = _branch_stations(model, step, f"{at}.route[0].{step.kind}", refuse)
    lam = 1.0 / job.interarrival.mean
    s = net.service[0, stations[0]]
    if kind == "fork":
        if step.join_count not in (len(stations), 1) or (step.join_count == 1 and len(stations) > 2):
            raise refuse(f"{at}.route[0].join waits for {step.join_count} of {len(stations)} branches")
        try:
            figures = fork_join(lam, 1.0 / s, len(stations), step.join_count)
        except BrewputError as e:
            raise BrewputError(f"{model.file or model.name}: {site}: {str(e).replace('fork/join: ', '', 1)}") \
                from None
        branch = s / (1.0 - lam * s)  # each branch an M/M/1 queue of its own
        note = None if figures.exact else (
            f"{site}: {len(stations)} branches joined by Nelson and Tantawi's approximation (within about 5 % "
            f"of simulation for 2 to 32 branches); exact bounds {figures.lower:.4g} to {figures.upper:.4g} (approximate)")
        solution = _solution(net, stations, figures.method, figures.exact, response=figures.response,
                             per_visit=[branch] * len(stations), present=[lam * branch] * len(stations),
                             throughput=lam, note=note, stations_exact=True)  # the join's time alone is not
        solution.waiting_time = np.zeros(1)  # its branches' queues overlap the customer's time: not counted
        return net, solution
    try:
        figures = dispatch(step.policy, lam, s, len(stations), step.choices)
    except BrewputError as e:
        raise BrewputError(f"{model.file or model.name}: {site}: {str(e).replace('dispatch: ', '', 1)}") from None
    share, split_exact, busy = 1.0 / len(stations), figures.exact, None
    note = None if figures.exact else (
        f"{site}: power of {step.choices} choices by the supermarket model's mean field, the limit of many "
        f"branches (a large-system limit: approximate for {len(stations)})")
    if step.policy == "shared":  # those waiting wait in the shared queue, not at a station
        if len(stations) <= MAX_SERVERS:  # ties go to the first free branch: the first work more
            busy = ordered_utilizations(lam, s, len(stations))
        else:
            busy, split_exact = [lam * share * s] * len(stations), False
            note = (f"{site}: the split of the work between {len(stations)} branches (ties to the first) is "
                    f"solved up to {MAX_SERVERS}; each branch shown with an even share (approximate)")
        present = busy
        visits = net.visits.copy()  # each branch takes the jobs it is busy with: busy / s of them per time unit
        visits[0, stations] = np.array(busy) / (lam * s)
        net = dataclasses.replace(net, visits=visits)
    else:
        present = [figures.in_system * share] * len(stations)
    # Each branch is visited by its share of the jobs: residence per visit is the response.
    solution = _solution(net, stations, figures.method, figures.exact, response=figures.response,
                         per_visit=[figures.response] * len(stations), present=present, throughput=lam,
                         note=note, busy=busy, stations_exact=split_exact)
    if step.policy == "shared":  # the class sees an M/M/c FCFS queue: its laws too
        solution.laws = {0: mmc_laws(lam, s, len(stations))}
    return net, solution


def _branch_stations(model: Model, step, at: str, refuse) -> List[int]:
    """The stations of the branches' one step each (indices in the model's order)."""
    names = list(model.stations)
    seen: List[int] = []
    mean = None
    for label, branch in step.branches.items():
        here = f"{at}.{label}"
        if len(branch) > 1 or branch[0].station is None:
            raise refuse(f"branch {here} is {'a ' + branch[0].kind if branch[0].station is None else f'{len(branch)} steps'}")
        inner = branch[0]
        station = model.stations[inner.station]
        m = names.index(inner.station)
        if m in seen:
            raise refuse(f"branches share station {inner.station}")
        seen.append(m)
        if station.server_types or station.servers != 1:
            raise refuse(f"stations.{inner.station}.servers is not one untyped server")
        if station.discipline != "fifo" or station.buffer != float("inf"):
            raise refuse(f"stations.{inner.station} is not fifo with no buffer")
        if inner.next is not None:  # (balk, patience and uses are refused before: floor.py, network.py)
            raise refuse(f"{here}[0].next is given")
        if not inner.service.is_exponential:
            raise refuse(f"{here}[0].service is not exponential")
        if mean is not None and inner.service.mean != mean:
            raise refuse(f"{here}[0].service has mean {inner.service.mean:g}, the first branch's {mean:g}")
        mean = inner.service.mean
    return seen


def _solution(net: Network, stations: List[int], method: str, exact: bool, *, response: float,
              per_visit: List[float], present: List[float], throughput: float, note,
              busy: Optional[List[float]] = None, stations_exact: Optional[bool] = None) -> Solution:
    """`busy`: each branch station's utilization where the work is not split evenly."""
    classes, count = len(net.classes), len(net.stations)
    residence, queue_length = np.zeros((classes, count)), np.zeros((classes, count))
    utilization = throughput * net.demand  # (1, M): work per time unit at each one-server station
    for i, (m, time, jobs) in enumerate(zip(stations, per_visit, present)):
        residence[0, m] = net.visits[0, m] * time
        queue_length[0, m] = jobs
        if busy is not None:
            utilization[0, m] = busy[i]
    exact_station = np.ones(count, dtype=bool)
    exact_station[stations] = exact if stations_exact is None else stations_exact
    return Solution(
        method=method,
        throughput=np.array([throughput]),
        response_time=np.array([response]),
        utilization=utilization,
        queue_length=queue_length,
        residence_time=residence,
        exact_class=np.array([exact]),
        exact_station=exact_station,
        station_method=[method if m in stations else "idle" for m in range(count)],
        notes=[note] if note else [],
    )
