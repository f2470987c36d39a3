"""Bounds that need no solution: the bottleneck, the most a class can get through,
and for a closed class alone its asymptotic and balanced job bounds.

For one class, with D = sum of its demands at queueing stations (a customer's
service time per cycle), D_max = the largest demand per server there (the
bottleneck's) and Z = think time plus time at delay stations (customers never
queue there):

    asymptotic bounds       max(D, N D_max - Z) <= R(N) <= N D
                            N / (N D + Z) <= X(N) <= min(N / (D + Z), 1 / D_max)
    balanced job bounds     N / (D + Z + (N - 1) D_max / (1 + Z / (N D))) <= X(N)
    (single-server only)    X(N) <= N / (D + Z + (N - 1) D_avg / (1 + Z / D)),  D_avg = D / K

(Zahorjan, Sevcik, Eager and Galler 1982; K counts the queueing stations the
class visits.) Response times here leave think out but include delay stations.
The lower bounds on X (and upper on R) hold for product-form networks: a customer
then finds at most the N - 1 others ahead and each still needs its mean. Where a
station is not product form (FIFO with non-exponential service: an arrival finds
the job in service with more than its mean left, E[S^2] / 2 E[S]), or with other
classes present, only the capacity bounds X <= N / (D + Z) and X <= 1 / D_max are
sure, with R >= N / X_max - Z by Little, so the rest is left out. A closed class
whose customers give up (balk or renege, then think again) completes fewer cycles
than N / (R + Z), so Little's law does not bound its R: only R >= D (plus delay
stations) is left. For a class that forks (its branches at once) only X <= 1 / D_max is.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Dict, Optional, Tuple

import numpy as np

from .closed import product_form_stations
from .network import Network

Interval = Tuple[Optional[float], Optional[float]]  # (lower, upper); None: no bound known


@dataclass(frozen=True)
class Bounds:
    #: The station with the largest demand per server: the first to saturate.
    bottleneck: str
    #: D_max: the bottleneck's demand per server.
    max_demand: float
    #: D: the demand at queueing stations, a customer's service time per cycle.
    demand: float
    #: Z: think time plus time at delay stations.
    delay: float
    #: 1 / D_max: the most customers per time unit (for an open class, the highest
    #: arrival rate it could have alone in the network).
    max_throughput: float
    #: N* = (D + Z) / D_max: the population beyond which the bottleneck limits (closed).
    saturation_population: Optional[float] = None
    #: Asymptotic bounds on throughput and response time (see the module's docstring).
    throughput: Optional[Interval] = None
    response_time: Optional[Interval] = None
    #: Balanced job bounds, tighter: a single closed class at single-server and delay stations.
    balanced_throughput: Optional[Interval] = None
    balanced_response_time: Optional[Interval] = None


def class_bounds(net: Network, r: int, gives_up: bool = False) -> Optional[Bounds]:
    """Bounds for class r, or None when it visits no queueing station (nothing limits it).
    `gives_up`: the class's customers may balk or renege."""
    queueing = ~net.is_delay & (net.demand[r] > 0)
    if not queueing.any():
        return None
    demand = net.demand[r]
    per_server = np.where(queueing, demand / np.where(net.is_delay, 1.0, net.class_servers[r]), 0.0)
    b = int(np.argmax(per_server))
    d_max, d = float(per_server[b]), float(demand[queueing].sum())
    z = float(net.think[r] + demand[net.is_delay].sum())
    common = dict(bottleneck=net.stations[b], max_demand=d_max, demand=d, delay=z, max_throughput=1 / d_max)
    if net.is_open[r] or (len(net.forks) and net.forks[r]):
        # A forking class's branches run at once: its cycle can be shorter than D + Z,
        # so only the bottleneck's capacity bounds it.
        return Bounds(**common)
    n = int(net.population[r])
    think = float(net.think[r])  # response times leave think out, keep delay stations in
    common["saturation_population"] = (d + z) / d_max
    x_up = min(n / (d + z), 1 / d_max)
    if gives_up:
        return Bounds(**common, throughput=(None, x_up), response_time=(d + z - think, None))
    if len(net.classes) > 1 or not product_form_stations(net)[0][queueing].all():
        return Bounds(**common, throughput=(None, x_up), response_time=(n / x_up - think, None))
    x_low = n / (n * d + z)
    balanced = {}
    if (net.class_servers[r][queueing] == 1).all():
        low = n / (d + z + (n - 1) * d_max / (1 + z / (n * d)))
        high = min(1 / d_max, n / (d + z + (n - 1) * (d / int(queueing.sum())) / (1 + z / d)))
        balanced = dict(balanced_throughput=(low, high),
                        balanced_response_time=(n / high - think, n / low - think))
    return Bounds(**common, throughput=(x_low, x_up), response_time=(n / x_up - think, n / x_low - think),
                  **balanced)


def network_bounds(net: Network, gives_up: Optional[np.ndarray] = None) -> Dict[str, dict]:
    """Every class's bounds, keyed by class name, as plain dicts (for the results schema);
    `gives_up` (R,): whether each class's customers may balk or renege."""
    found = {name: class_bounds(net, r, bool(gives_up is not None and gives_up[r]))
             for r, name in enumerate(net.classes)}
    return {name: asdict(b) for name, b in found.items() if b is not None}
