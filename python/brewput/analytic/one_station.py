"""The one station of an open model: where the service floor's exact results
hold (customers who give up, typed servers, preemptive priority). Every class is
open with Poisson arrivals and its route is one visit to the same station.

`one_station` reads that station and its classes from the model, or refuses the
model in one line naming the feature, its field and what takes the model
elsewhere; `station_solution` puts one station's per-class figures into the
Solution every method returns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..model import Model
from ..model.schema import Station, Step
from .network import Network, Unsupported
from .support import refusal
from .solution import Solution


@dataclass(frozen=True)
class OneStation:
    name: str
    index: int                  # in the model's stations (the Network's order)
    station: Station
    classes: Tuple[str, ...]
    rates: Tuple[float, ...]    # (R,) each class's Poisson arrival rate (0 for the one closed class)
    steps: Tuple[Step, ...]     # (R,) each class's one step there
    population: int = 0         # the one closed class's customers (0: the classes are open)
    think: float = 0.0          # their mean exponential think time


WHERE = "at the one station of an open model with Poisson arrivals, each class visiting it once"
#: Where a closed class may come instead (customers who give up: a finite source).
WHERE_OR_CLOSED = (f"{WHERE}, or of one closed class with an exponential think time of positive mean visiting "
                   f"it once")


def one_station(model: Model, feature: str, site: str, closed: bool = False) -> OneStation:
    """The model's one station, or the refusal of `feature` (used at `site`)
    naming the first thing that makes the model more than one station; with
    `closed`, a model of one closed class (exponential think) is one station too."""

    def refuse(problem: str) -> Unsupported:
        return refusal(model, feature, site, WHERE_OR_CLOSED if closed else WHERE, problem)

    stations = list(model.stations)
    visited: Dict[str, str] = {}
    jobs = list(model.classes.values())
    for label, job in model.classes.items():
        at = f"classes.{label}"
        if not job.is_open and not closed:
            raise refuse(f"{at} is closed")
        if not job.is_open and len(jobs) > 1:
            raise refuse(f"{at} is closed beside other classes")
        if not job.is_open and not (job.think.is_exponential and job.think.mean > 0):
            raise refuse(f"{at}.think is not exponential of positive mean")
        if job.is_open and not job.interarrival.is_exponential:
            raise refuse(f"{at}.arrivals are not Poisson")
        if len(job.steps) > 1:  # forks and dispatches counted with their branches' steps
            raise refuse(f"{at}.route has {len(job.steps)} steps")
        if job.routing() != [[(None, 1.0)]]:
            raise refuse(f"{at}.route[0].next comes back")
        visited.setdefault(job.route[0].station, label)
    if len(visited) > 1:
        (first, a), (second, b) = list(visited.items())[:2]
        raise refuse(f"class {a} visits station {first}, class {b} station {second}")
    name = next(iter(visited))
    return OneStation(
        name=name,
        index=stations.index(name),
        station=model.stations[name],
        classes=tuple(model.classes),
        rates=tuple(1.0 / job.interarrival.mean if job.is_open else 0.0 for job in jobs),
        steps=tuple(job.route[0] for job in jobs),
        population=0 if jobs[0].is_open else int(jobs[0].population),
        think=0.0 if jobs[0].is_open else jobs[0].think.mean,
    )


def station_solution(net: Network, one: OneStation, method: str, *, throughput: Sequence[float],
                     response: Sequence[float], busy: Sequence[float], present: Sequence[float],
                     loss_by: Optional[Dict[str, Sequence[float]]] = None,
                     station_response: Optional[float] = None,
                     server_types: Optional[Dict[str, dict]] = None, notes: Sequence[str] = ()) -> Solution:
    """An exact Solution from one station's per-class figures (R,): completions
    per time unit, mean response of those served, busy servers, jobs present."""
    classes, stations = len(net.classes), len(net.stations)
    m = one.index

    def at_station(values: Sequence[float]) -> np.ndarray:
        table = np.zeros((classes, stations))
        table[:, m] = values
        return table

    servers = net.servers[m]
    by_station = [None] * stations
    if station_response is not None:
        by_station[m] = station_response
    return Solution(
        method=method,
        throughput=np.asarray(throughput, dtype=float),
        response_time=np.asarray(response, dtype=float),
        utilization=at_station(np.asarray(busy, dtype=float) / (1.0 if math.isinf(servers) else servers)),
        queue_length=at_station(present),
        residence_time=at_station(response),
        exact_class=np.ones(classes, dtype=bool),
        exact_station=np.ones(stations, dtype=bool),
        station_method=[method if i == m else "idle" for i in range(stations)],
        loss_probability=None if loss_by is None else np.sum([np.asarray(v, dtype=float)
                                                               for v in loss_by.values()], axis=0),
        loss_by=None if loss_by is None else {reason: np.asarray(v, dtype=float) for reason, v in loss_by.items()},
        station_response_time=by_station,
        server_types={m: server_types} if server_types else {},
        notes=list(notes),
    )
