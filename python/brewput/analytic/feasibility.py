"""Runs that could never end, found from the model before they start.

A closed class whose think and every service take no time cycles infinitely
fast: no time passes, so a run stopped by a horizon never reaches it, and its
throughput is infinite. And a horizon run lasts as many customers as the model
completes in the warm-up plus the horizon: bounded above by each class's most
throughput (an open class's arrival rate; a closed class's N over its cycle
with no waiting, a fork's branches taken at once, or its bottleneck's servers
over its demand there), which
refuses `--horizon 1e300` before it runs instead of after a Ctrl-C.
"""
from __future__ import annotations

import math
from typing import Dict, Optional

from ..errors import BrewputError, Field, OptionError, format_path
from ..model import Model
from .traffic import step_visits


def zero_time_class(model: Model) -> Optional[str]:
    """The first closed class whose think and every service have mean 0, or None."""
    for name, job_class in model.classes.items():
        if not job_class.is_open and job_class.think.mean == 0 and all(
                service.mean == 0 for _, step in job_class.steps for _, service in step.services()):
            return name
    return None


def check_cycles_take_time(model: Model) -> None:
    """Refuses a closed class that would cycle infinitely fast (zero_time_class)."""
    name = zero_time_class(model)
    if name is not None:
        raise BrewputError(f"{model.file or model.name}: classes.{name}: its think and every service take "
                           f"no time, so its customers would cycle infinitely fast; give one of them a time")


def most_throughput(model: Model) -> Dict[str, float]:
    """Per class, an upper bound on the customers it completes per time unit."""
    bounds = {}
    for name, job_class in model.classes.items():
        if job_class.is_open:
            bounds[name] = 1.0 / job_class.interarrival.mean
            continue
        visits = step_visits(job_class)
        route = list(zip(visits, (step for _, step in job_class.steps)))
        cycle = job_class.think.mean + _least_walk(job_class, visits)
        limit = math.inf if cycle == 0 else job_class.population / cycle
        demand: Dict[tuple, float] = {}
        for v, step in route:
            holders = [] if step.station is None else [("station", step.station)]  # None: a fork or dispatch
            for holder in holders + [("resource", r) for r in step.uses]:
                demand[holder] = demand.get(holder, 0.0) + v * step.least_service_mean
        for (kind, holder), work in demand.items():
            units = model.stations[holder].servers if kind == "station" else model.resources[holder]
            if work > 0 and math.isfinite(units):
                limit = min(limit, units / work)
        bounds[name] = limit
    return bounds


def _least_walk(job_class, visits) -> float:
    """The least mean time a customer of `job_class` spends on its route per cycle, no
    waiting: its steps' work, a dispatch's branch walked in turn, but a fork's branches
    at once, so a fork that joins all takes at least its longest branch's work (the
    mean of a max is at least the max of the means) and one that joins fewer at least 0."""
    paths = [path for path, _ in job_class.steps]
    steps = [step for _, step in job_class.steps]
    scopes = job_class.scopes()

    def work(scope, branch=None) -> float:
        total = []
        for i, step in enumerate(steps):
            if scopes[i] != scope or (branch is not None and paths[i][len(paths[scope]) + 1] != branch):
                continue
            kind = getattr(step, "kind", None)  # a station step has none
            if kind == "fork":
                joins_all = step.join_count == len(step.fork)
                total.append(max(work(i, name) for name in step.fork) if joins_all else 0.0)
            elif kind == "dispatch":
                total.append(work(i))  # its branches' visits are already weighted by their choice
            else:
                total.append(visits[i] * step.least_service_mean)
        return math.fsum(total)
    return work(None)


def turns_every_arrival_away(step) -> bool:
    """A station step whose balking turns every arrival away: a threshold of 0 waiting,
    or certain balking with none waiting (so none ever waits)."""
    balk = getattr(step, "balk", None)  # a fork or dispatch step has none
    if balk is None:
        return False
    return balk[0] >= 1 if isinstance(balk, list) else balk == 0


def turned_away_at(model: Model) -> Optional[str]:
    """When no class can complete a customer because every way through each route
    meets a step that turns every arrival away: the first such step's balk field;
    else None."""
    first = None
    for name, job_class in model.classes.items():
        if _can_complete(job_class):
            return None
        blocking = next(path for path, step in job_class.steps if turns_every_arrival_away(step))
        first = first or format_path(("classes", name, *blocking, "balk"))
    return first


def _can_complete(job_class) -> bool:
    """Whether some customer of `job_class` can reach the end of its route: a path
    from its first step to an end through steps it can get past (a fork whose branches
    that can end are enough for its join, a dispatch with a branch it may take that can
    end, any station step that does not turn every arrival away)."""
    steps = [step for _, step in job_class.steps]
    routing = job_class.routing()
    ends: Dict[int, bool] = {}

    def passable(i: int) -> bool:
        step = steps[i]
        kind = getattr(step, "kind", None)
        if kind == "fork":
            return sum(scope_ends(first) for first in job_class.branch_starts(i)) >= step.join_count
        if kind == "dispatch":
            return any(share > 0 and scope_ends(first)
                       for first, share in zip(job_class.branch_starts(i), step.shares()))
        return not turns_every_arrival_away(step)

    def scope_ends(first: int) -> bool:  # a scope (the route, a branch) from its first step
        if first not in ends:
            seen, todo, ends[first] = {first}, [first], False
            while todo and not ends[first]:
                i = todo.pop()
                if not passable(i):
                    continue
                for target, p in routing[i]:
                    if p > 0 and target is None:
                        ends[first] = True
                    elif p > 0 and target not in seen:
                        seen.add(target)
                        todo.append(target)
        return ends[first]

    return scope_ends(0)


def check_run_ends(model: Model, horizon: Optional[float], warmup: Optional[float], max_customers: int) -> None:
    """Refuses a run that could not end: a zero-time cycle, a run stopped by its
    completed customers where no customer is ever served, or with a `horizon`
    (and a `warmup` in time units) more customers per replication than
    `max_customers`, naming the horizon or the warm-up, whichever is the larger."""
    check_cycles_take_time(model)
    if horizon is None:
        field = turned_away_at(model)
        if field is not None:
            raise BrewputError(f"{model.file or model.name}: {field} turns every arrival away, and every way "
                               f"through the routes meets such a step, so no customer ever completes and a run "
                               f"until so many complete would never end")
        return
    warmup = warmup or 0.0
    bounds = most_throughput(model)
    name = max(bounds, key=bounds.get)
    customers = math.fsum(bounds.values()) * (horizon + warmup)
    if customers > max_customers:
        field = Field("warmup" if warmup > horizon else "horizon")
        raise OptionError(
            field, f"a warm-up of {warmup:.4g} and a horizon of {horizon:.4g} time units would complete up "
            f"to {customers:.3g} customers per replication (class {name} alone up to {bounds[name]:.4g} per "
            f"time unit), beyond the {max_customers:,} a replication can count; shorten ", field)
