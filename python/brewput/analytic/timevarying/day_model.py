"""`brewput solve` of a model with a day: each class's station solved through the day,
per interval, by the method asked, each figure marked exact or approximate.

Solved: open classes with Poisson arrivals (a rate, constant or through the day), each
visiting one station: FIFO with exponential service, servers or a rota, and optional
exponential patience (transient.py exactly; PSA, SIPP, lagged SIPP or MOL into Erlang
C / A), classes at one station sharing its service mean and patience (FIFO is blind to
class: one stream at their total rate); or a delay station (servers: inf) with any
service law (offered_load.py, exact). Anything else is refused in one line naming the field.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional

import numpy as np

from ...model import timeline
from ..methods import DAY_METHODS
from ..support import Unsupported
from .figures import IntervalFigures
from .offered_load import mean_present, still_in_service
from .stationary_approximations import approximate
from .transient import solve_transient


def solve_day(model, method: str = "auto", asked: Optional[dict] = None) -> dict:
    """The results schema with its `intervals` list (docs/results.md) for `model`'s day."""
    asked = asked or {}
    if method not in DAY_METHODS:
        from ...errors import OptionError

        raise OptionError("method", f"a day is solved by one of {', '.join(DAY_METHODS)}, got {method!r}",
                          value=method)
    chosen = DAY_METHODS[method]
    day = model.day.timeline
    within = list(asked.get("within", ()))
    at: Dict[str, List[str]] = {}    # station -> the classes it serves
    steps, rates = {}, {}
    for name, job_class in model.classes.items():
        steps[name], station_name = _the_station(model, name, job_class)
        at.setdefault(station_name, []).append(name)
        rates[name] = job_class.day_rate if job_class.time_varying else timeline.Constant(
            float(job_class.rate), length=day.length, repeat=day.repeat)
    figures: Dict[str, IntervalFigures] = {}
    notes: List[str] = []
    for station_name, names in at.items():
        station = model.stations[station_name]
        at_start = int(model.day.at_start.get(station_name, 0))
        if math.isinf(station.servers):  # each class's offered load, added
            parts = [_delay(rates[name], steps[name].service, day, at_start if k == 0 else 0)
                     for k, name in enumerate(names)]
            figures[station_name] = parts[0] if len(parts) == 1 else _added(parts)
            continue
        step = _shared_step(model, station_name, [steps[name] for name in names], names)
        rate = rates[names[0]] if len(names) == 1 else timeline.Total([rates[name] for name in names])
        rota = day.rota(station.rotas[None]) if station.rotas else timeline.Rota(
            day.edges, np.full(day.intervals, int(station.servers)), day.repeat)
        patience = math.inf if step.patience is None else step.patience.mean
        if chosen == "transient":
            try:
                found = solve_transient(rate, step.service.mean, rota, patience=patience, at_start=at_start,
                                        targets=within, off_shift=station.off_shift)
            except ArithmeticError as e:  # what the day cannot settle (say overloaded for good)
                raise _refused(model, f"stations.{station_name}", str(e)) from None
            caught = _caught_by_a_fall(rota.counts, day.repeat)
            if station.off_shift != "finish" and caught.any() and within:
                found.customers_exact = ~caught
                notes.append(f"stations.{station_name}: a customer in service when the rota falls is handed back "
                             "and waits again: the mean waits and abandonment are exact (the whole wait), but "
                             "P(wait <= x) is of the first wait, approximate for those who arrive before the last "
                             f"fall ({', '.join(day.labels[i] for i in np.flatnonzero(caught))})")
        else:
            if at_start:
                notes.append(f"stations.{station_name}: {chosen} ignores the {at_start} jobs present at the start")
            found = approximate(chosen, rate, step.service.mean, rota, patience=patience, targets=within)
            if found.details.get("overloaded"):
                labels = [day.labels[i] for i in found.details["overloaded"]]
                notes.append(f"stations.{station_name}: {chosen} has no stationary answer where the load reaches "
                             f"the servers (intervals {', '.join(labels)}): shown as null")
        figures[station_name] = found
    arrivals = {name: np.diff(rates[name].cumulative(day.edges)) for name in rates}
    return _results(model, day, figures, at, arrivals, chosen, within, notes)


def _caught_by_a_fall(counts: np.ndarray, repeat: bool) -> np.ndarray:
    """Per interval, whether its arrivals may be in service when the rota later falls
    (then handed back to wait again: the transient's mean wait and abandonment follow
    the whole wait, virtual_wait.py, but its P(wait <= x) is the first wait's; 14
    servers falling to 5 behind 5-minute services: P(wait <= 30 s) 0.97 solved, 0.82
    simulated). A fall at an interval's start comes before its arrivals; a repeating
    day falls again."""
    if repeat:  # the next day's first interval follows the last
        return np.full(counts.size, bool(np.any(np.diff(np.append(counts, counts[0])) < 0)))
    falls = np.flatnonzero(np.diff(counts) < 0) + 1  # the intervals that start lower
    return np.arange(counts.size) < (falls[-1] if falls.size else 0)


def _shared_step(model, station: str, shared, names):
    """The step the classes at a queueing station share: FCFS is blind to class, so
    classes with one exponential service mean and one patience are one stream."""
    first = shared[0]
    for step, name in zip(shared[1:], names[1:]):
        same_patience = (step.patience is None) == (first.patience is None) and (
            step.patience is None or step.patience.mean == first.patience.mean)
        if step.service.mean != first.service.mean or not same_patience:
            raise _refused(model, f"classes.{name}.route", f"classes {names[0]} and {name} share station "
                                                          f"'{station}' with different service or patience")
    return first


def _added(parts: List[IntervalFigures]) -> IntervalFigures:
    """Delay-station figures of several classes: the numbers present add up."""
    first = parts[0]
    return IntervalFigures(method=first.method, exact=True, edges=first.edges, servers=first.servers,
                           arrivals=sum(p.arrivals for p in parts),
                           mean_in_system=sum(p.mean_in_system for p in parts), mean_in_queue=first.mean_in_queue,
                           utilization=first.utilization, mean_wait=first.mean_wait, abandoned=first.abandoned)


def _the_station(model, name: str, job_class):
    """The one step of an open class with Poisson arrivals, and its station, else refused."""
    at = f"classes.{name}"
    if not job_class.is_open or job_class.rate is None:
        raise _refused(model, at, "only open classes with a rate (Poisson arrivals) are solved through a day")
    route = job_class.route
    step = route[0] if len(route) == 1 else None
    if step is None or getattr(step, "station", None) is None or getattr(step, "service", None) is None:
        raise _refused(model, f"{at}.route", "through a day, solve takes one station per class (one step with "
                                             "a service)")
    station = model.stations[step.station]
    if step.balk is not None or step.uses:
        raise _refused(model, f"{at}.route", "balking and resources are not solved through a day")
    if math.isinf(station.servers):
        return step, step.station
    if station.server_types or station.discipline != "fifo" or math.isfinite(station.buffer):
        raise _refused(model, f"stations.{step.station}", "through a day, solve takes untyped servers, "
                                                          "discipline fifo and no buffer limit")
    if not step.service.is_exponential:
        raise _refused(model, f"{at}.route", "the transient through a day needs exponential service at a "
                                             "station that queues")
    if step.patience is not None and not step.patience.is_exponential:
        raise _refused(model, f"{at}.route", "patience through a day must be exponential")
    return step, step.station


def _refused(model, site: str, problem: str) -> Unsupported:
    return Unsupported(f"{model.file or model.name}: {site}: {problem}; use brewput simulate")


def _delay(rate, service, day, at_start: int) -> IntervalFigures:
    """A delay station: nobody waits; the number present is the offered load, exact."""
    edges = day.edges
    present = mean_present(rate, service, edges, at_start)
    nothing = np.zeros(edges.size - 1)
    return IntervalFigures(method="offered-load", exact=True, edges=edges, servers=np.full(nothing.size, np.inf),
                           arrivals=np.diff(rate.cumulative(edges)), mean_in_system=present,
                           mean_in_queue=nothing, utilization=np.full(nothing.size, np.nan), mean_wait=nothing,
                           abandoned=nothing, service_level={},
                           details={"busy_at_end": float(at_start * still_in_service(service, [edges[-1]])[0])})


def _number(value) -> Optional[float]:
    value = float(value)
    return None if math.isnan(value) else value


def _customers_exact(f: IntervalFigures, i: Optional[int]) -> bool:
    """Whether the customers' figures of interval i (None: of the whole day) are exact."""
    if f.customers_exact is None:
        return f.exact
    return bool(f.exact and (f.customers_exact.all() if i is None else f.customers_exact[i]))


def _results(model, day, figures, at, arrivals, chosen, within, notes) -> dict:
    """The results schema: each class's figures are its station's (FIFO is blind to class),
    its arrivals its own."""
    labels = day.labels
    edges = day.edges
    intervals = []
    for i in range(day.intervals):
        classes, at_stations = {}, {}
        for station_name, names in at.items():
            f = figures[station_name]
            waiting = {"mean": _number(f.mean_wait[i])}
            if within:
                levels = f.service_level or {}
                waiting["within"] = [[t, _number(levels[t][i]) if t in levels else
                                      (1.0 if f.method == "offered-load" else None)] for t in within]
            for name in names:
                classes[name] = {"arrivals": float(arrivals[name][i]),
                                 "abandonment": _number(f.abandoned[i]),
                                 "loss_probability": _number(f.abandoned[i]),  # as steady-state solve names it
                                 "abandoned": _number(f.abandoned[i] * arrivals[name][i]),
                                 "waiting_time": dict(waiting), "exact": _customers_exact(f, i),
                                 "method": f.method}
            servers = f.servers[i]
            busy = f.mean_in_system[i] - f.mean_in_queue[i]
            at_stations[station_name] = {"servers": None if math.isinf(servers) else int(servers),
                                         "busy_servers": _number(busy), "utilization": _number(f.utilization[i]),
                                         "queue_length": _number(f.mean_in_system[i]),
                                         "waiting": _number(f.mean_in_queue[i]), "exact": f.exact,
                                         "method": f.method}
        intervals.append({"start": float(edges[i]), "end": float(edges[i + 1]), "label": labels[i],
                          "classes": classes, "stations": at_stations})
    totals = {}
    for station_name, names in at.items():
        f = figures[station_name]
        for name in names:
            came = arrivals[name]
            gave_up = np.nan_to_num(f.abandoned) * came
            served = came - gave_up  # the waits are of those served
            unknown = bool(np.any(np.isnan(f.mean_wait) & (came > 0)))
            totals[name] = {"station": station_name, "arrivals": float(came.sum()), "abandoned": float(gave_up.sum()),
                            # served per time unit over the day: all who arrive and do not give up
                            "throughput": float(served.sum()) / day.length,
                            "waiting_time": {"mean": None if unknown or served.sum() <= 0 else
                                             float(np.sum(np.nan_to_num(f.mean_wait) * served) / served.sum())},
                            "exact": _customers_exact(f, None), "method": f.method}
    return {
        "model": model.name,
        "engine": "solve",
        "method": chosen,
        "time_unit": model.time_unit,
        "params": dict(model.params),
        "day": {"length": day.length, "interval": day.interval, "start": day.start_label, "repeat": day.repeat},
        "classes": totals,
        "stations": {},
        "resources": {},
        "intervals": intervals,
        "notes": notes,
        "warnings": [],
    }
