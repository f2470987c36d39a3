"""The validated model -> the engine's input (docs/compiled-model.md): flat,
numeric, every name replaced by its index in file order. A field at its default
is left out (the engine's default is the same), so a model that uses none of the
newer fields compiles as it always has."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Union

from ..vocabulary import DEFAULTS, MARKED
from .day import Day
from .schema import DispatchStep, ForkStep, JobClass, ModelSpec, Station, Step, first_class_at


def compile_model(spec: ModelSpec) -> Dict[str, Any]:
    resources = {name: i for i, name in enumerate(spec.resources)}
    compiled = {
        "stations": [_station(name, s) for name, s in spec.stations.items()],
        "resources": [{"name": name, "tokens": tokens} for name, tokens in spec.resources.items()],
        "classes": [_class(name, c, spec.stations, resources, spec.day) for name, c in spec.classes.items()],
    }
    if spec.day is not None:
        compiled["day"] = _day(spec)
    return compiled


def _day(spec: ModelSpec) -> Dict[str, Any]:
    """The day: its length and intervals, and the jobs it starts with, each
    of the first class whose route visits the station (its class and step)."""
    day = spec.day
    classes = list(spec.classes)
    at_start = []
    for station, jobs in day.at_start.items():
        if jobs:
            label, step = first_class_at(spec, station)
            at_start.append({"class": classes.index(label), "step": step, "jobs": jobs})
    return {"length": day.length, "intervals": day.intervals, "repeat": day.repeat, "at_start": at_start}


def _rate(job_class: JobClass, day: Day) -> Dict[str, Any]:
    """A rate through the day as the engine draws it: its form, and an upper
    bound of it on each interval to thin against (model/timeline.py's)."""
    rate, edges = job_class.rate, day.timeline.edges
    bounds = [job_class.day_rate.bound(a, b) for a, b in zip(edges[:-1], edges[1:])]
    if rate.form == "steps":
        form = {"steps": list(rate.rates)}
    elif rate.form == "linear":
        form = {"linear": {"times": list(rate.times), "rates": list(rate.rates)}}
    else:
        from .curve import Curve  # numpy: only a model with a curve pays for it

        form = {"curve": Curve(rate.text).postfix()}
    return {**form, "bounds": [float(b) for b in bounds]}


def _finite(n: Union[int, float]) -> Optional[int]:
    return None if n == math.inf else int(n)


def _station(name: str, station: Station) -> Dict[str, Any]:
    compiled = {
        "name": name,
        "servers": _finite(station.servers),
        "capacity": _finite(station.servers + station.buffer),
        "discipline": station.discipline,
    }
    if station.server_types:
        compiled.update(server_types=[{"name": kind, "count": count} for kind, count in station.server_types.items()],
                        take=station.take, assign=station.assign)
    if station.preempt != "none":
        compiled["preempt"] = station.preempt
    if None in station.rotas:
        compiled["rota"] = list(station.rotas[None])
    for kind in compiled.get("server_types", []):
        if kind["name"] in station.rotas:
            kind["rota"] = list(station.rotas[kind["name"]])
    if station.rotas and station.off_shift != DEFAULTS["off_shift"]:
        compiled["off_shift"] = station.off_shift
    return compiled


def _served_by(step: Step, station: Station) -> List[List[Any]]:
    """[[type index, its service or None for the step's]]; empty: every type, the step's service."""
    if step.served_by is None:
        return []
    types = {kind: i for i, kind in enumerate(station.server_types)}
    if isinstance(step.served_by, dict):
        return [[types[kind], service.compile()] for kind, service in step.served_by.items()]
    return [[types[kind], None] for kind in step.served_by]


def _class(name: str, job_class: JobClass, stations: Dict[str, Station], resources: Dict[str, int],
           day: Optional[Day]) -> Dict[str, Any]:
    if job_class.time_varying:
        source = {"kind": "varying", **_rate(job_class, day)}
    elif job_class.is_open:
        source = {"kind": "open", "interarrival": job_class.interarrival.compile()}
    else:
        source = {"kind": "closed", "population": job_class.population, "think": job_class.think.compile()}
    index = {label: i for i, label in enumerate(stations)}
    marks = job_class.marks
    steps = []
    for i, ((_, step), routing, scope) in enumerate(zip(job_class.steps, job_class.routing(), job_class.scopes())):
        if isinstance(step, (ForkStep, DispatchStep)):
            compiled = _branching(step, job_class.branch_starts(i))
        else:
            compiled = _station_step(step, stations[step.station], index, resources)
        compiled["next"] = [[target, p] for target, p in routing]
        if step.mark is not None:
            compiled["mark"] = marks.index(step.mark)
        if scope is not None:
            compiled["scope"] = scope
        steps.append(compiled)
    compiled_class = {"name": name, "priority": job_class.priority, "source": source, "steps": steps}
    if len(marks) > len(MARKED) or job_class.measures:
        compiled_class["marks"] = marks
        compiled_class["measures"] = [{"name": label, "from": marks.index(start), "to": marks.index(end)}
                                      for label, (start, end) in job_class.measures.items()]
    return compiled_class


def _station_step(step: Step, station: Station, index: Dict[str, int], resources: Dict[str, int]) -> Dict[str, Any]:
    compiled = {
        "station": index[step.station],
        # With served_by mapping every type to its service the step has none of its own;
        # the engine reads the per-type ones.
        "service": None if step.service is None else step.service.compile(),
        "uses": [resources[r] for r in step.uses],
    }
    served_by = _served_by(step, station)
    if served_by:
        compiled["served_by"] = served_by
    if step.balk is not None:
        compiled["balk"] = ({"probabilities": [float(p) for p in step.balk]} if isinstance(step.balk, list)
                            else {"threshold": step.balk})
    if step.patience is not None:
        compiled["patience"] = step.patience.compile()
    return compiled


def _branching(step: Union[ForkStep, DispatchStep], branches: List[int]) -> Dict[str, Any]:
    if isinstance(step, ForkStep):
        return {"kind": "fork", "branches": branches, "join": step.join_count}
    compiled = {"kind": "dispatch", "branches": branches, "policy": step.policy}
    if step.policy == "random":
        compiled["weights"] = step.shares()
    if step.policy == "power_of_d":
        compiled["d"] = step.choices
    if step.tie != DEFAULTS["tie"]:
        compiled["tie"] = step.tie
    return compiled
