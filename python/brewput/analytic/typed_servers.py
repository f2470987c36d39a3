"""Typed servers under FCFS-ALIS, exactly: customer types c arrive in Poisson
streams (rate lam_c); servers come in types t (n_t servers, each exponential at
rate mu_t whatever it serves); a type-c customer may be served only by the types
in served_by[c]. A freed server takes the longest-waiting customer it may serve
(FCFS); an arriving customer goes to the longest-idle server that may serve it
(ALIS).

Adan and Weiss (2014), "A skill based parallel service system under FCFS-ALIS:
steady state, overloads, and abandonments", Stochastic Systems 4(1) 250-299,
section 2 (the state description is Visschers, Adan and Weiss 2012, Queueing
Systems 70(3) 269-298): in the state (S_1, n_1, ..., S_i, n_i; S_{i+1}, ..., S_J) -- busy
servers S_1..S_i in the order their customers arrived, n_j customers waiting
between the customers of S_j and S_{j+1}, then the idle servers, longest idle
first -- the stationary probability is

    B  prod_{j<=i} lam_U(S_1..S_j)^n_j / mu(S_1..S_j)^(n_j + 1)  prod_{j>i} 1 / lam_C(S_{i+1}..S_j)

with mu(.) the servers' total rate, U(.) the customer types only those servers
may serve (the waiting customers of segment j are those, i.i.d. in proportion to
lam_c), C(.) the types at least one of them may serve. Summing the geometric
segments, a busy prefix contributes 1 / (mu - lam_U). The measures are sums over
orderings of servers; they depend on a prefix only through how many servers of
each type it holds, so they are computed by recursions over those count vectors
(the weight of one set of busy servers is f(set) times the sum over its members
of the weight without that member), level by level with a common scale per level
so nothing overflows, and multiplied by the number of sets with those counts.

Per customer type: mean wait by Little's law from the waiting segments; the
probability of waiting (an arrival finding no idle server it may use: Poisson
arrivals see time averages); the matching rates r(c, t) -- how often type-t
servers start type-c services -- from the two ways a service starts: an arrival
taken by the longest-idle compatible server, or a server finishing and taking
the first compatible waiting customer (the first of the later segments holding
one); the response adds the mean service, sum_t r(c, t) / mu_t / lam_c.
Stable exactly when every set of customer types offers less than the servers
that may serve it can do (Adan and Weiss 2014).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

from ..errors import BrewputError


@dataclass(frozen=True)
class FcfsAlis:
    """Exact means of a typed-server station under FCFS-ALIS."""

    wait: Dict[str, float]                   # per customer type: mean time waiting
    response: Dict[str, float]               # per customer type: wait + mean service
    throughput: Dict[str, float]             # per customer type (its arrival rate: nobody is lost)
    waiting_probability: Dict[str, float]    # per customer type: P(an arrival waits)
    utilization: Dict[str, float]            # per server type: busy servers / servers
    matching_rates: Dict[Tuple[str, str], float]  # (customer type, server type): services per time unit
    exact: bool = True
    method: str = "fcfs-alis"


def fcfs_alis(arrival_rates: Mapping[str, float], servers: Mapping[str, int],
              service_rates: Mapping[str, float], served_by: Mapping[str, Sequence[str]]) -> FcfsAlis:
    """Adan-Weiss FCFS-ALIS means: arrival rates per customer type, server counts and
    service rates per server type, and the server types that may serve each customer type."""
    import numpy as np

    customers, kinds = _checked(arrival_rates, servers, service_rates, served_by)
    idle_always = [t for t in kinds if not any(t in served_by[c] for c in customers)]
    kinds = [t for t in kinds if t not in idle_always]  # serving nobody, they are always idle
    lam = np.array([float(arrival_rates[c]) for c in customers])
    mu = np.array([float(service_rates[t]) for t in kinds])
    count = np.array([int(servers[t]) for t in kinds])
    able = np.array([[t in served_by[c] for t in kinds] for c in customers])  # (C, T)
    _check_stable(customers, kinds, lam, mu, count, able)
    from . import sizing  # the one home of what a method may cost (it imports numpy)

    sizing.check(f"typed servers: {len(kinds)} server types of {', '.join(str(n) for n in count)} servers",
                 sizing.typed_servers_cost([int(n) for n in count], len(customers)), "use brewput simulate")

    busy = _busy_recursions(lam, mu, count, able)
    idle = _idle_recursions(lam, count, able)
    total = int(count.sum())
    # Pair each busy vector k with the idle vector count - k; their level scales add.
    log_scale = np.array([busy.log_scale[level] + idle.log_scale[total - level] for level in range(total + 1)])
    level_weight = np.exp(log_scale - log_scale.max())
    z = 0.0
    busy_servers = np.zeros(len(kinds))
    in_queue = np.zeros(len(customers))
    waits_found = np.zeros(len(customers))
    by_arrival = np.zeros((len(customers), len(kinds)))
    by_completion = np.zeros((len(kinds), len(customers)))
    for k, a in busy.a.items():
        rest = tuple(int(n) for n in count - np.array(k))
        # The recursions weigh one set of busy servers; this many sets have these counts.
        w = level_weight[sum(k)] * math.prod(math.comb(int(n), b) for n, b in zip(count, k))
        p = a * idle.i[rest] * w
        z += p
        busy_servers += p * np.array(k)
        in_queue += busy.g[k] * idle.i[rest] * w
        waits_found += p * ~(able & (np.array(rest) > 0)).any(axis=1)
        by_arrival += idle.h[rest] * a * w
        by_completion += busy.p2[k] * idle.i[rest] * w
    rates = (lam[:, None] * by_arrival + (mu[:, None] * by_completion).T) / z  # (C, T)
    service = (rates / mu).sum(axis=1) / lam
    wait = in_queue / z / lam
    matching = {(c, t): float(rates[i, j]) for i, c in enumerate(customers) for j, t in enumerate(kinds)
                if able[i, j]}
    utilization = {t: float(busy_servers[j] / z / count[j]) for j, t in enumerate(kinds)}
    utilization.update({t: 0.0 for t in idle_always})
    return FcfsAlis(
        wait={c: float(wait[i]) for i, c in enumerate(customers)},
        response={c: float(wait[i] + service[i]) for i, c in enumerate(customers)},
        throughput={c: float(lam[i]) for i, c in enumerate(customers)},
        waiting_probability={c: float(waits_found[i] / z) for i, c in enumerate(customers)},
        utilization=utilization,
        matching_rates=matching,
    )


def _checked(arrival_rates, servers, service_rates, served_by) -> Tuple[List[str], List[str]]:
    customers, kinds = list(arrival_rates), list(servers)
    if not customers:
        raise BrewputError("typed servers: no customer types")
    for c in customers:
        rate = arrival_rates[c]
        if not (isinstance(rate, (int, float)) and not isinstance(rate, bool) and math.isfinite(rate) and rate > 0):
            raise BrewputError(f"typed servers: customer type {c}: arrival rate must be a positive number, "
                               f"got {rate!r}")
        if c not in served_by or not served_by[c]:
            raise BrewputError(f"typed servers: customer type {c}: served_by names no server type")
        if isinstance(served_by[c], str) or not isinstance(served_by[c], (list, tuple)):
            raise BrewputError(f"typed servers: customer type {c}: served_by must be a list of server types, "
                               f"got {served_by[c]!r}")
        for t in served_by[c]:
            if not isinstance(t, str) or t not in servers:
                raise BrewputError(f"typed servers: customer type {c}: served_by names {t!r}, which is not a "
                                   f"server type (server types: {', '.join(map(str, kinds))})")
    for c in served_by:
        if c not in arrival_rates:
            raise BrewputError(f"typed servers: served_by names customer type {c!r}, which has no arrival rate")
    for t in kinds:
        n = servers[t]
        if not (isinstance(n, int) and not isinstance(n, bool) and n > 0):
            raise BrewputError(f"typed servers: server type {t}: count must be a positive integer, got {n!r}")
        rate = service_rates.get(t)
        if not (isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0):
            raise BrewputError(f"typed servers: server type {t}: service rate must be a positive number, got {rate!r}")
    return customers, kinds


def _check_stable(customers, kinds, lam, mu, count, able) -> None:
    """Every set of customer types must offer less than the servers able to serve it can do.
    It suffices to check, for each set P of server types, the customer types only P may serve."""
    import numpy as np

    worst = None
    for size in range(1, len(kinds) + 1):
        for chosen in itertools.combinations(range(len(kinds)), size):
            inside = np.zeros(len(kinds), bool)
            inside[list(chosen)] = True
            only = ~(able & ~inside).any(axis=1)
            if not only.any():
                continue
            reach = able[only].any(axis=0)
            offered, capacity = lam[only].sum(), (count * mu)[reach].sum()
            if offered >= capacity and (worst is None or only.sum() < worst[0].sum()):
                worst = (only, reach, offered, capacity)
    if worst is not None:
        only, reach, offered, capacity = worst
        names = ", ".join(c for c, o in zip(customers, only) if o)
        able_names = ", ".join(t for t, r in zip(kinds, reach) if r)
        raise BrewputError(f"typed servers: customer types {{{names}}} arrive at {offered:.6g} per time unit but the "
                           f"servers that may serve them ({{{able_names}}}) complete at most {capacity:.6g}: "
                           "unstable, no steady state exists")


def _levels(count) -> List[List[Tuple[int, ...]]]:
    """Every count vector 0 <= k <= count, grouped by its total."""
    levels: List[List[Tuple[int, ...]]] = [[] for _ in range(int(sum(count)) + 1)]
    for k in itertools.product(*(range(int(n) + 1) for n in count)):
        levels[sum(k)].append(k)
    return levels


def _less(k: Tuple[int, ...], t: int) -> Tuple[int, ...]:
    return k[:t] + (k[t] - 1,) + k[t + 1:]


@dataclass
class _Busy:
    a: Dict[tuple, float]     # sum over orderings of busy servers of their weight
    g: Dict[tuple, object]    # (C,) the same, times the type-c customers waiting
    p2: Dict[tuple, object]   # (T, C) orderings with a type-t server whose first compatible waiting customer is type c
    log_scale: List[float]    # per level: the log of the factor taken out of every entry


def _busy_recursions(lam, mu, count, able) -> _Busy:
    import numpy as np

    kinds = len(count)
    zero = (0,) * kinds
    a, g = {zero: 1.0}, {zero: np.zeros(len(lam))}
    p1, p2 = {zero: np.zeros(kinds)}, {zero: np.zeros((kinds, len(lam)))}
    log_scale = [0.0]
    for level in _levels(count)[1:]:
        for k in level:
            full = np.array(k) == count
            only = ~(able & ~full).any(axis=1)           # types only these busy servers may serve
            rate = float(np.dot(k, mu))
            f = 1.0 / (rate - lam[only].sum())
            only_by = (able & only[:, None]) * lam[:, None]  # (C, T): their arrival rates, by server type
            f_none = 1.0 / (rate - lam[only].sum() + only_by.sum(axis=0))  # (T,): segment holds none for t
            below = [(t, _less(k, t)) for t in range(kinds) if k[t]]
            a[k] = f * sum(k[t] * a[j] for t, j in below)
            g[k] = f * sum(k[t] * g[j] for t, j in below) + lam * only * f * a[k]
            # Orderings in which a type-t server (added at some step) has found no compatible
            # waiting customer in the segments so far: X_t is them, one segment short.
            started = np.zeros(kinds)
            for t, j in below:
                started[t] += k[t] * a[j]
            x = sum(k[t] * p1[j] for t, j in below) + started
            p1[k] = f_none * x
            first = (f_none[:, None] * f) * only_by.T      # (T, C): this segment's first compatible is c
            p2[k] = f * sum(k[t] * p2[j] for t, j in below) + first * x[:, None]
        scale = max(a[k] for k in level)
        for k in level:
            a[k] /= scale
            g[k] = g[k] / scale
            p1[k] = p1[k] / scale
            p2[k] = p2[k] / scale
        log_scale.append(log_scale[-1] + math.log(scale))
    return _Busy(a, g, p2, log_scale)


@dataclass
class _Idle:
    i: Dict[tuple, float]     # sum over longest-idle-first orderings of idle servers of their weight
    h: Dict[tuple, object]    # (C, T) the same, where type c's first compatible idle server is of type t
    log_scale: List[float]


def _idle_recursions(lam, count, able) -> _Idle:
    import numpy as np

    kinds = len(count)
    zero = (0,) * kinds
    i, h = {zero: 1.0}, {zero: np.zeros((len(lam), kinds))}
    log_scale = [0.0]
    for level in _levels(count)[1:]:
        for k in level:
            present = np.array(k) > 0
            reachable = (able & present).any(axis=1)
            below = [(t, _less(k, t)) for t in range(kinds) if k[t]]
            inverse = 1.0 / lam[reachable].sum()
            i[k] = inverse * sum(k[t] * i[j] for t, j in below)
            step = sum(k[t] * h[j] for t, j in below)
            for t, j in below:
                newly = able[:, t] & ~(able & (np.array(j) > 0)).any(axis=1)  # t is c's first compatible
                step = step + np.outer(newly, np.eye(kinds)[t]) * k[t] * i[j]
            h[k] = inverse * step
        scale = max(i[k] for k in level)
        for k in level:
            i[k] /= scale
            h[k] = h[k] / scale
        log_scale.append(log_scale[-1] + math.log(scale))
    return _Idle(i, h, log_scale)
