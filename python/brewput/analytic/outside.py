"""One closed class at one station with a finite buffer: customers who end their
think and find the station full wait outside, in arrival order, with their
response time running (docs/simulation.md), then enter as room frees.

Count n = the customers not thinking (at the station or waiting outside for
it). Waiting outside changes where a customer waits, not how many are served:
the station serves min(n, c) at a time whatever its buffer, so n is the
machine-repairman birth-death chain of the same station without a buffer,

    up from n at (N - n) / Z,   down from n at min(n, c) / S,   n = 0 .. N,

p_n proportional to prod_{j<=n} (N - j + 1) S / (Z min(j, c)), normalized in log
space. Then X = E[min(n, c)] / S, a customer's response (end of think to
leaving the station) R = E[n] / X, and the station holds E[min(n, K)].

Exact for exponential service (any think distribution: the think is a delay,
insensitive), and for any service when nobody ever queues (c >= N) or nobody
ever thinks (Z = 0: n = N, X = min(N, c) / S); otherwise it is the exponential
service's answer with the same mean, marked approximate.
"""
from __future__ import annotations

import math

import numpy as np

from .closed import utilization
from .network import Network
from .solution import Solution


def binding_buffer(net: Network) -> bool:
    """Whether a closed network's customers can find a station full (network_of
    allows that only for one class at one station)."""
    return bool(((net.capacity < net.population.sum()) & (net.visits.sum(axis=0) > 0)).any())


def solve_waiting_outside(net: Network) -> Solution:
    """The exact birth-death solution described in the module's docstring."""
    m = int(np.flatnonzero(net.visits[0] > 0)[0])
    name, population = net.stations[m], int(net.population[0])
    servers, capacity = net.servers[m], int(net.capacity[m])
    service, think = float(net.service[0, m]), float(net.think[0])
    n = np.arange(population + 1)
    busy = np.minimum(n, servers)
    if think == 0:
        p = (n == population).astype(float)
    else:
        with np.errstate(divide="ignore"):
            steps = np.log(population - n[1:] + 1) + math.log(service) - math.log(think) - np.log(busy[1:])
        log_weight = np.concatenate(([0.0], np.cumsum(steps)))
        p = np.exp(log_weight - log_weight.max())  # the largest term is 1: nothing overflows
        p /= p.sum()
    throughput = float(busy @ p) / service
    response = float(n @ p) / throughput
    inside = float(np.minimum(n, capacity) @ p)
    exact = bool(net.service_exponential[0, m]) or servers >= population or think == 0
    notes = [] if exact else [
        f"station {name}: finite buffer with non-exponential service between think times; solved as "
        f"exponential service of the same mean (approximate)"]
    stations = len(net.stations)
    residence = np.zeros((1, stations))
    residence[0, m] = response  # the time waiting outside for room is spent for this station
    queue = np.zeros((1, stations))
    queue[0, m] = inside
    return Solution(
        method="birth-death",
        throughput=np.array([throughput]),
        response_time=np.array([response]),
        utilization=utilization(net.demand, net.servers, np.array([throughput])),
        queue_length=queue,
        residence_time=residence,
        exact_class=np.array([exact]),
        exact_station=np.full(stations, exact),
        station_method=["birth-death" if k == m else "idle" for k in range(stations)],
        notes=notes,
    )
