"""A model in queueing-network terms: the one input every analytic method reads.

`Network` is plain numbers in numpy arrays, indexed [class, station] in the
model file's order; `network_of(model)` builds it from a validated model and
says, with `Unsupported` (support.py), which feature no analytic method here covers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..model import Model
from ..model.distributions import Distribution
from . import sizing
from .support import Unsupported, check_supported  # noqa: F401  (Unsupported is imported from here too)
from .traffic import step_visits


def shortest_job_first(station: str, where: str) -> Unsupported:
    """The refusal of an `sjf` station `where` no method follows it (sjf.py solves
    the one server of an open model's one station)."""
    return Unsupported(f"station {station}: shortest job first (sjf) {where} has no analytic method here; "
                       f"use brewput simulate")


@dataclass(frozen=True)
class Network:
    stations: Tuple[str, ...]
    #: (M,) servers per station; math.inf for a delay (infinite-server) station.
    servers: np.ndarray
    #: (M,) "fifo" | "lifo" | "priority" | "sjf" | "ps" per station.
    discipline: Tuple[str, ...]
    #: (M,) most jobs present (servers + buffer); math.inf when unbounded.
    capacity: np.ndarray
    classes: Tuple[str, ...]
    #: (R,) arrival rate per time unit of each open class; 0 for closed classes.
    arrival_rate: np.ndarray
    #: (R,) squared coefficient of variation of the time between arrivals (open classes).
    arrival_scv: np.ndarray
    #: (R,) whether each open class arrives as a Poisson process (exponential gaps).
    arrival_poisson: np.ndarray
    #: (R,) customers of each closed class; 0 for open classes.
    population: np.ndarray
    #: (R,) mean think time of each closed class (0 for open classes).
    think: np.ndarray
    #: (R,) priority of each class (higher is served first under `priority`).
    priority: np.ndarray
    #: (R, M) expected visits to each station per customer (per cycle when closed).
    visits: np.ndarray
    #: (R, M) the servers each class may use at each station: all of them, or at a
    #: station of typed servers those of the types its steps there are `served_by`.
    class_servers: np.ndarray
    #: (R, M) mean service time per visit (0 where never visited).
    service: np.ndarray
    #: (R, M) squared coefficient of variation of the service time per visit.
    service_scv: np.ndarray
    #: (R, M) whether the service time per visit is exponential: every step of the
    #: class there draws from an exponential of one mean (scv 1 alone does not say so).
    service_exponential: np.ndarray
    #: Per class, each route step as (station, expected visits per customer, service
    #: distribution): for the methods that need the whole distribution, not its moments.
    steps: Tuple[Tuple[Tuple[int, float, Distribution], ...], ...] = ()
    #: (R,) each open class's law of the time between arrivals (None for closed
    #: classes): for the methods that need the whole law, not its moments (GI/M/1).
    interarrival: Tuple[Optional[Distribution], ...] = ()
    #: (R,) whether each class forks: its branches run at once, so its demands
    #: add up to more than its time in the network (bounds.py keeps only 1 / D_max).
    forks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    @cached_property  # read per class and station by every method: computed once
    def demand(self) -> np.ndarray:
        """(R, M) service demand per customer: visits x mean service."""
        return self.visits * self.service

    @property
    def is_open(self) -> np.ndarray:
        """(R,) whether each class is open."""
        return self.arrival_rate > 0

    @property
    def is_delay(self) -> np.ndarray:
        """(M,) whether each station has infinitely many servers."""
        return np.isinf(self.servers)


def network_of(model: Model) -> Network:
    """The model's queueing network, or Unsupported naming the feature in the way."""
    check_supported(model)
    return network(model)


def network(model: Model) -> Network:
    """The model's queueing network, whatever its features (for the Markov chain,
    which follows the model itself and reads here only its visits and demands)."""
    stations = tuple(model.stations)
    index = {name: m for m, name in enumerate(stations)}
    classes = tuple(model.classes)
    n_classes, n_stations = len(classes), len(stations)
    sizing.check(f"{model.file or model.name}: solving {n_classes:,} classes x {n_stations:,} stations",
                 sizing.network_cost(n_classes, n_stations), "use brewput simulate")
    visits = np.zeros((n_classes, n_stations))
    first_moment = np.zeros((n_classes, n_stations))  # sum over steps of visits x E[S]
    second_moment = np.zeros((n_classes, n_stations))  # sum over steps of visits x E[S^2]
    step_means = {}  # (class, station) visited: the means of the steps there
    exponential = np.ones((n_classes, n_stations), dtype=bool)
    steps = []
    class_servers = np.tile([float(s.servers) for s in model.stations.values()], (n_classes, 1))
    for r, job_class in enumerate(model.classes.values()):
        # Station steps only, into branches too: a fork or dispatch step has no station of its own.
        route = [(v, step) for v, (_, step) in zip(step_visits(job_class), job_class.steps)
                 if step.station is not None]
        steps.append(tuple((index[step.station], v, _least_service(step)) for v, step in route))
        eligible: Dict[int, set] = {}
        for v, step in route:
            m = index[step.station]
            types = model.stations[step.station].server_types
            if types:
                eligible.setdefault(m, set()).update(_serving_types(step, types))
                class_servers[r, m] = sum(types[kind] for kind in eligible[m])
            service = _least_service(step)
            mean = service.mean
            visits[r, m] += v
            first_moment[r, m] += v * mean
            second_moment[r, m] += v * mean * mean * (1 + service.scv)
            exponential[r, m] &= service.is_exponential
            step_means.setdefault((r, m), set()).add(mean)
    one_mean = np.zeros((n_classes, n_stations), dtype=bool)
    for (r, m), means in step_means.items():
        one_mean[r, m] = len(means) == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        service = np.where(visits > 0, first_moment / visits, 0.0)
        # A station visited by several steps serves a mixture of their times.
        mixture_second = np.where(visits > 0, second_moment / visits, 0.0)
        service_scv = np.where(service > 0, mixture_second / service**2 - 1, 0.0)
    jobs = list(model.classes.values())
    return Network(
        stations=stations,
        servers=np.array([float(s.servers) for s in model.stations.values()]),
        discipline=tuple(s.discipline for s in model.stations.values()),
        capacity=np.array([float(s.servers + s.buffer) for s in model.stations.values()]),
        classes=classes,
        arrival_rate=np.array([1 / c.interarrival.mean if c.is_open else 0.0 for c in jobs]),
        arrival_scv=np.array([c.interarrival.scv if c.is_open else 0.0 for c in jobs]),
        arrival_poisson=np.array([c.is_open and c.interarrival.is_exponential for c in jobs]),
        interarrival=tuple(c.interarrival if c.is_open else None for c in jobs),
        population=np.array([0 if c.is_open else int(c.population) for c in jobs]),
        think=np.array([0.0 if c.is_open else c.think.mean for c in jobs]),
        priority=np.array([c.priority for c in jobs]),
        visits=visits,
        class_servers=class_servers,
        service=service,
        service_scv=np.maximum(service_scv, 0.0),
        # Exponential steps of different means mix into a hyperexponential.
        service_exponential=exponential & (visits > 0) & one_mean,
        steps=tuple(steps),
        forks=np.array([any(getattr(step, "kind", None) == "fork" for _, step in c.steps) for c in jobs]),
    )


def _serving_types(step, types: Dict[str, int]) -> List[str]:
    """The server types that may serve `step` at its typed station (all when it says none)."""
    if step.served_by is None:
        return list(types)
    return list(step.served_by)


def _least_service(step) -> Distribution:
    """The step's service; where it depends on the server type, the fastest
    type's, so that bounds never overstate the work (the typed-servers solution,
    typed_station.py, puts the mean its matching of types gives in its place)."""
    return min((service for _, service in step.services()), key=lambda service: service.mean)
