"""The results of a solved chain: time averages over its states, and by Little's
law the times, counted as the simulator counts them (simulation.rs): a station
holds its waiting, served and blocked jobs, a blocked job holds its server (no
other job starts there) but is not serving (utilization) and gave its tokens
back, and a customer's waiting time is its time in queues and outside a full
station, not its time blocked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict

import numpy as np

from .floor import Floor
from .generate import Chain


@dataclass
class Averages:
    """Time averages, per class c and station m."""
    #: (R,) completions per time unit.
    throughput: np.ndarray
    #: (R,) arrivals turned away per time unit (open classes at a full first station).
    lost: np.ndarray
    #: (R,) customers who balk, and who renege, per time unit.
    balked: np.ndarray
    reneged: np.ndarray
    #: (R, M) services ended per time unit.
    served: np.ndarray
    #: (R, M) jobs present: waiting, in service and blocked.
    present: np.ndarray
    #: (R, M) jobs in service.
    busy: np.ndarray
    #: (R, M) jobs blocked after service on a server here (waiting for room at their next station).
    blocked: np.ndarray
    #: (R, M) jobs waiting for a server.
    waiting: np.ndarray
    #: (R,) jobs waiting outside a full station (closed customers after their think).
    outside: np.ndarray
    #: (K,) tokens held per resource.
    in_use: np.ndarray


def averages(floor: Floor, chain: Chain, pi: np.ndarray) -> Averages:
    shape = (len(floor.classes), len(floor.stations))
    waiting, busy, blocked = ((pi @ counts).reshape(shape) for counts in (chain.waiting, chain.busy, chain.blocked))
    present = waiting + busy + blocked
    return Averages(pi @ chain.completions, pi @ chain.losses, pi @ chain.balked, pi @ chain.reneged,
                    (pi @ chain.served).reshape(shape), present, busy, blocked, waiting, pi @ chain.outside,
                    pi @ chain.in_use)


def resource_figures(floor: Floor, names, avg: Averages) -> Dict[str, dict]:
    return {name: {"utilization": float(avg.in_use[r] / floor.tokens[r]), "in_use": float(avg.in_use[r])}
            for r, name in enumerate(names)}
