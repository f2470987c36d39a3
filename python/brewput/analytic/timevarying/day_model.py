"""`brewput solve` of a model with a day: each class's station solved through the day,
per interval, by the method asked, each figure marked exact or approximate.

Solved: open classes with Poisson arrivals (a rate, constant or through the day), each
visiting one station of its own: FIFO with exponential service, servers or a rota, and
optional exponential patience (transient.py exactly; PSA, SIPP, lagged SIPP or MOL into
Erlang C / A), or a delay station (servers: inf) with any service law (offered_load.py,
exact). Anything else is refused in one line naming the field.
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
    per_class: Dict[str, IntervalFigures] = {}
    stations: Dict[str, str] = {}
    notes: List[str] = []
    for name, job_class in model.classes.items():
        step, station_name = _the_station(model, name, job_class)
        if station_name in stations:
            raise _refused(model, f"classes.{name}", f"classes {stations[station_name]} and {name} share station "
                                                     f"'{station_name}' through the day")
        stations[station_name] = name
        station = model.stations[station_name]
        rate = job_class.day_rate if job_class.time_varying else timeline.Constant(
            float(job_class.rate), length=day.length, repeat=day.repeat)
        at_start = int(model.day.at_start.get(station_name, 0))
        if math.isinf(station.servers):
            per_class[name] = _delay(rate, step.service, day, at_start)
            continue
        rota = day.rota(station.rotas[None]) if station.rotas else timeline.Rota(
            day.edges, np.full(day.intervals, int(station.servers)), day.repeat)
        patience = math.inf if step.patience is None else step.patience.mean
        if chosen == "transient":
            try:
                figures = solve_transient(rate, step.service.mean, rota, patience=patience, at_start=at_start,
                                          targets=within)
            except ArithmeticError as e:  # what the day cannot settle (say overloaded for good)
                raise _refused(model, f"stations.{station_name}", str(e)) from None
            if station.off_shift == "finish" and np.any(np.diff(rota.counts) < 0):
                figures.exact = False
                notes.append(f"stations.{station_name}: off_shift: finish is solved as resume (a server going off "
                             "shift hands its job back to the queue): exact for resume or restart, approximate "
                             "for finish where the rota falls")
        else:
            if at_start:
                notes.append(f"stations.{station_name}: {chosen} ignores the {at_start} jobs present at the start")
            figures = approximate(chosen, rate, step.service.mean, rota, patience=patience, targets=within)
            if figures.details.get("overloaded"):
                labels = [day.labels[i] for i in figures.details["overloaded"]]
                notes.append(f"stations.{station_name}: {chosen} has no stationary answer where the load reaches "
                             f"the servers (intervals {', '.join(labels)}): shown as null")
        per_class[name] = figures
    return _results(model, day, per_class, stations, chosen, within, notes)


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


def _results(model, day, per_class, stations, chosen, within, notes) -> dict:
    labels = day.labels
    edges = day.edges
    intervals = []
    for i in range(day.intervals):
        classes, at_stations = {}, {}
        for station_name, name in stations.items():
            f = per_class[name]
            waiting = {"mean": _number(f.mean_wait[i])}
            if within:
                levels = f.service_level or {}
                waiting["within"] = [[t, _number(levels[t][i]) if t in levels else
                                      (1.0 if f.method == "offered-load" else None)] for t in within]
            classes[name] = {"arrivals": float(f.arrivals[i]),
                             "abandonment": _number(f.abandoned[i]),
                             "loss_probability": _number(f.abandoned[i]),  # as steady-state solve names it
                             "abandoned": _number(f.abandoned[i] * f.arrivals[i]),
                             "waiting_time": waiting, "exact": f.exact, "method": f.method}
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
    for station_name, name in stations.items():
        f = per_class[name]
        arrivals = float(np.sum(f.arrivals))
        waits = np.nan_to_num(f.mean_wait) * f.arrivals
        gave_up = np.nan_to_num(f.abandoned) * f.arrivals
        unknown = bool(np.any(np.isnan(f.mean_wait) & (f.arrivals > 0)))
        totals[name] = {"station": station_name, "arrivals": arrivals, "abandoned": float(gave_up.sum()),
                        # served per time unit over the day: all who arrive and do not give up
                        "throughput": (arrivals - float(gave_up.sum())) / day.length,
                        "waiting_time": {"mean": None if unknown or arrivals == 0 else float(waits.sum() / arrivals)},
                        "exact": f.exact, "method": f.method}
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
