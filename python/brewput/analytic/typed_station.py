"""Typed servers (`servers: {type: count}`, `served_by:`) at the one station of an
open model, exactly, under FCFS-ALIS: the Adan-Weiss product form (typed_servers.py).

FCFS-ALIS is `discipline: fifo` with `take: first_fit` (a freed server takes the
longest-waiting job it may serve) and `assign: longest_idle`; `take: head` is the
same where every class may be served by every type (the head can then always
start on any free server). Service must be exponential with a mean that depends
on the server type only (one mean per type, whichever class it serves). Else
refused by name; customers who give up and preemption at a typed station too.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from ..errors import BrewputError
from ..model import Model
from . import sizing
from .network import Network
from .one_station import OneStation, one_station, refusal, station_solution
from .solution import Solution
from .typed_servers import fcfs_alis

CONDITION = ("under FCFS-ALIS (discipline: fifo, take: first_fit, assign: longest_idle) with exponential "
             "service whose mean depends on the server type only")


def solve_typed(model: Model, net: Network, feature: str, site: str) -> Tuple[Network, Solution]:
    """The exact solution, with the network given each class's mean service as the
    types that serve it give it, or Unsupported naming `feature` (first used at `site`)."""
    one = one_station(model, feature, site)
    station, name = one.station, one.name

    def refuse(problem: str):
        return refusal(model, feature, site, CONDITION, problem)

    at = f"stations.{name}"
    served_by = {label: _types(step, station) for label, step in zip(one.classes, one.steps)}
    everyone_everywhere = all(len(kinds) == len(station.server_types) for kinds in served_by.values())
    if station.discipline != "fifo":
        raise refuse(f"{at}.discipline is {station.discipline}")
    if station.take != "first_fit" and not everyone_everywhere:
        raise refuse(f"{at}.take is {station.take}, and not every class may be served by every type")
    if station.assign != "longest_idle":
        raise refuse(f"{at}.assign is {station.assign}")
    if station.buffer != float("inf"):
        raise refuse(f"{at}.buffer is finite")
    means: Dict[str, float] = {}
    first_at: Dict[str, str] = {}
    for label, step in zip(one.classes, one.steps):
        here = f"classes.{label}.route[0]"
        for field, kind, service in _services(step, served_by[label]):
            if not service.is_exponential:
                raise refuse(f"{here}.{field} is not exponential")
            if means.setdefault(kind, service.mean) != service.mean:
                raise refuse(f"{here}.{field} has mean {service.mean:g} on {kind}, "
                             f"{first_at[kind]} {means[kind]:g}")
            first_at.setdefault(kind, f"{here}.{field}")
        if step.balk is not None or step.patience is not None:
            raise refuse(f"{here}.{'balk' if step.balk is not None else 'patience'} gives up at typed servers")
    counts = dict(station.server_types)
    sizing.check(f"station {name}'s {len(counts):,} server types of {', '.join(map(str, counts.values()))} "
                 f"servers under FCFS-ALIS", sizing.typed_servers_cost(list(counts.values()), len(one.classes)),
                 "use brewput simulate")
    rates = {kind: 1.0 / means.get(kind, 1.0) for kind in counts}  # a type nobody uses idles at any rate
    try:
        alis = fcfs_alis(dict(zip(one.classes, one.rates)), counts, rates, served_by)
    except BrewputError as e:
        raise BrewputError(f"station {name}: {str(e).replace('typed servers: ', '', 1)}") from None
    return _solution(net, one, alis, rates)


def _types(step, station) -> List[str]:
    """The server types that may serve the step (absent: every type)."""
    return list(station.server_types) if step.served_by is None else list(step.served_by)


def _services(step, kinds: List[str]):
    """(field, type, service) for each type that may serve the step."""
    if isinstance(step.served_by, dict):
        return [(f"served_by.{kind}", kind, service) for kind, service in step.served_by.items()]
    return [("service", kind, step.service) for kind in kinds]


def _solution(net: Network, one: OneStation, alis, rates: Dict[str, float]) -> Tuple[Network, Solution]:
    busy = []  # per class: busy servers, sum over types of its services there per time unit x their mean
    for label in one.classes:
        busy.append(sum(alis.matching_rates.get((label, kind), 0.0) / rate for kind, rate in rates.items()))
    server_types = {
        kind: {"utilization": alis.utilization[kind],
               "served": {label: alis.matching_rates.get((label, kind), 0.0) for label in one.classes}}
        for kind in one.station.server_types}
    service = net.service.copy()
    for r, label in enumerate(one.classes):  # the mean service each class gets from the types that serve it
        service[r, one.index] = alis.response[label] - alis.wait[label]
    return dataclasses.replace(net, service=service), station_solution(
        net, one, alis.method,
        throughput=[alis.throughput[label] for label in one.classes],
        response=[alis.response[label] for label in one.classes],
        busy=busy,
        present=[alis.throughput[label] * alis.response[label] for label in one.classes],
        server_types=server_types,
    )
