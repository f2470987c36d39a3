"""Closed classes at one station with a finite buffer: customers who end their
think and find the station full wait outside, in arrival order, with their
response time running (docs/simulation.md), then enter as room frees.

Waiting outside changes where a customer waits, not who is served next: the
outside line feeds the station in arrival order, so a FIFO station and its
outside line are one FIFO queue, and the station serves min(n, c) of the n
customers not thinking whatever its buffer. With one exponential service time
S for every class that is a product-form network (the think a delay of any
distribution), whose states n = (n_1 .. n_R) of customers not thinking have

    P(n) proportional to  n! / prod n_r!  S^n / prod_{j<=n} min(j, c)
                          x prod_r Z_r^{N_r - n_r} / (N_r - n_r)!

(one class: the machine-repairman birth-death chain), normalized in log space
over the population lattice. Every order of the n in line is equally likely
given the counts, so class r holds n_r / n of any position: its throughput is
X_r = E[n_r min(n, c) / n] / S, its response (end of think to leaving) E[n_r] / X_r,
and it holds E[n_r min(n, K) / n] inside the station of room K.

Exact for FIFO with one exponential service mean; a single class needs only
exponential service (any discipline that keeps servers busy), and nothing at
all when nobody ever queues (c >= N) or nobody ever thinks (Z = 0: n = N);
otherwise it is the figure of exponential service with the same mean, marked
approximate.
"""
from __future__ import annotations

import math

import numpy as np

from . import sizing
from .closed import Lattice, utilization
from .network import Network
from .solution import Solution


def binding_buffer(net: Network) -> bool:
    """Whether a closed network's customers can find a station full (network_of
    allows that only for closed classes at one station, each visiting it once); a
    station that takes no time is never full."""
    visiting = net.population @ (net.visits > 0)  # (M,) customers of the classes that visit each
    return bool(((net.capacity < visiting) & (net.demand.sum(axis=0) > 0)).any())


def solve_waiting_outside(net: Network) -> Solution:
    """The exact product-form solution described in the module's docstring."""
    m = int(np.flatnonzero(net.demand.sum(axis=0) > 0)[0])
    name, servers, capacity = net.stations[m], net.servers[m], int(net.capacity[m])
    population, think = net.population.astype(int), net.think.astype(float)
    service = net.service[:, m]
    mean = float(service @ population / population.sum())  # one mean when exact
    sizing.check(f"station {name}: the states of {sizing.population_text(population)} waiting outside",
                 sizing.lattice_cost(population), "use brewput simulate")
    lattice = Lattice(population)
    n_r = lattice.points                    # (L, R) customers not thinking
    n = n_r.sum(axis=1)
    thinking = population - n_r
    log_factorial = np.array([math.lgamma(j + 1) for j in range(int(population.sum()) + 1)])
    busy = np.minimum(n, servers)
    log_rates = np.concatenate(([0.0], np.cumsum(np.log(np.minimum(np.arange(1, n.max() + 1), servers)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_think = np.where(thinking > 0, thinking * np.log(think), 0.0)  # Z = 0: nobody thinks
        log_think = np.where((thinking > 0) & (think == 0), -np.inf, log_think)
    log_weight = (log_factorial[n] - log_factorial[n_r].sum(axis=1) + n * math.log(mean) - log_rates[n]
                  + (log_think - log_factorial[thinking]).sum(axis=1))
    p = np.exp(log_weight - log_weight.max())  # the largest term is 1: nothing overflows
    p /= p.sum()
    share = np.divide(n_r, n[:, None], out=np.zeros(n_r.shape), where=n[:, None] > 0)  # of each position
    throughput = (share * busy[:, None]).T @ p / mean
    present = n_r.T @ p
    inside = (share * np.minimum(n, capacity)[:, None]).T @ p
    response = present / throughput

    one_mean = bool(np.all(np.abs(service - mean) <= 1e-9 * mean))
    exponential = bool(net.service_exponential[:, m].all()) and one_mean
    fifo = net.discipline[m] == "fifo" or (net.discipline[m] == "priority" and len(set(net.priority)) == 1)
    exact = (exponential and (fifo or len(population) == 1)) or servers >= population.sum() or \
        bool(np.all(think == 0))
    notes = [] if exact else [
        f"station {name}: finite buffer with service not one exponential mean for all classes, or not "
        f"fifo for several classes; solved as fifo exponential service of the mean (approximate)"]
    stations = len(net.stations)
    residence = np.zeros((len(population), stations))
    residence[:, m] = response  # the time waiting outside for room is spent for this station
    queue = np.zeros((len(population), stations))
    queue[:, m] = inside
    return Solution(
        method="waiting-outside",
        throughput=throughput,
        response_time=response,
        utilization=utilization(net.demand, net.servers, throughput),
        queue_length=queue,
        residence_time=residence,
        exact_class=np.full(len(population), exact),
        exact_station=np.full(stations, exact),
        station_method=["waiting-outside" if k == m else "idle" for k in range(stations)],
        notes=notes,
    )
