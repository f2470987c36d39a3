"""What the analytic methods cover, decided from the model alone: `brewput solve`
refuses the rest in one line before it imports numpy (about a third of its start-up).
"""
from __future__ import annotations

import math
from typing import Optional

from ..errors import BrewputError
from ..model import Model
from ..model.features import FEATURES, feature_sites
from ..vocabulary import MARKED


class Unsupported(BrewputError):
    """A model feature that no analytic method covers: the message names it and
    suggests `brewput simulate`."""


class ChainDoesNotFollow(Unsupported):
    """A model feature the state-space engine (analytic/chain/) does not follow yet."""


class TruncationUnasked(ChainDoesNotFollow):
    """An open class that could pile up without end, where `auto` builds no truncated
    chain unasked: `--method ctmc` may answer it (truncated)."""


def refusal(model: Model, feature: str, site: str, condition: str, problem: str) -> Unsupported:
    """`feature`, first used at `site`, refused: it is exact here only under
    `condition`, which the model breaks by `problem`."""
    return Unsupported(f"{model.file or model.name}: {site}: {FEATURES[feature]} has an exact analytic "
                       f"solution here only {condition} ({problem}); use brewput simulate")


ARRIVED, DONE = MARKED


def check_measures(model: Model) -> None:
    """Refuses a measure other than the response time, naming it."""
    for label, job in model.classes.items():
        routing = job.routing()
        exits = {step.mark for i, (path, step) in enumerate(job.steps)  # a top-level step's end may be the exit
                 if step.mark is not None and len(path) == 2 and all(target is None for target, p in routing[i] if p > 0)}
        for name, (start, end) in job.measures.items():
            if start != ARRIVED or not (end == DONE or end in exits):
                raise refusal(model, "measures", f"classes.{label}.measures.{name}",
                              f"from {ARRIVED} to {DONE} (the response time, or to a mark at a step that always exits)",
                              f"it runs from {start} to {end}")


#: The features (model/features.py) that some analytic method here covers: an
#: allow-list, so that a feature added to the model language is refused by name
#: until a method covers it. Finer limits within a feature (sjf at one server of
#: one station, the finite buffers below) are refused where they are decided.
SOLVABLE_FEATURES = frozenset({
    "open-class", "closed-class", "think-time", "non-poisson-arrivals", "multi-class", "class-priorities",
    "probabilistic-routing", "feedback", "finite-buffer", "fifo", "lifo", "priority", "sjf", "ps",
    "infinite-servers", "multi-server", "non-exponential-service",
    # The service floor, each exact at the one station of an open model (floor.py says where else not):
    "typed-servers", "head-of-line", "first-fit", "per-type-service",  # FCFS-ALIS, typed_station.py
    "balk-threshold", "balk-probabilities", "patience",  # a birth-death chain, giving_up.py
    "preempt-resume", "preempt-restart",  # priority.py, preemptive.py
    "measures",  # from arrived to done: the response time
    "fork-join", "partial-join",  # two branches exactly, more approximately: branches.py
    "dispatch-random",  # probabilistic routing by its weights: the traffic equations
    "dispatch-round-robin", "dispatch-shared", "dispatch-power-of-d",  # branches.py
    # A day, one station per class: analytic/timevarying/day_model.py (its own checks)
    "day", "initial-jobs", "time-varying-rate", "rota", "off-shift-resume", "off-shift-restart",
})


def check_supported(model: Model) -> None:
    """Unsupported naming the first feature of the model that no analytic method covers."""
    where = model.file or model.name
    uncovered = sorted(model.features() - SOLVABLE_FEATURES)
    if uncovered:
        feature = uncovered[0]
        site = feature_sites(model).get(feature)
        raise Unsupported(f"{where}: {site + ': ' if site else ''}{FEATURES.get(feature, f'the feature {feature}')} "
                          f"has no exact analytic solution here; use brewput simulate")
    for name, station in model.stations.items():
        problem = _finite_buffer_problem(model, name)
        if problem:
            raise Unsupported(f"{where}: stations.{name}.buffer: {problem} has no analytic method here; "
                              f"use brewput simulate")


def _finite_buffer_problem(model: Model, name: str) -> Optional[str]:
    """What makes station `name`'s finite buffer unsolvable here, or None.

    Solved: the one station of an open model (loss: M/M/c/K, M/G/1/K), the one
    station of closed classes that visit it once per cycle (customers who find
    it full wait outside: outside.py), and any buffer that the closed customers
    visiting it can never fill."""
    station = model.stations[name]
    if math.isinf(station.buffer):
        return None
    capacity = station.servers + station.buffer
    visiting = [c for c in model.classes.values() if any(step.station == name for step in c.route)]
    if not any(c.is_open for c in visiting) and sum(c.population for c in visiting) <= capacity:
        return None  # never full: nobody is ever blocked or turned away
    if all(service.mean == 0 for c in visiting for step in c.route if step.station == name
           for _, service in step.services()):
        return None  # every job leaves the instant it comes: never full either
    route = {step.station for c in visiting for step in c.route}
    if len(route) > 1:
        return (f"a finite buffer inside a network of {len(route)} stations (a job that finds it full "
                f"blocks the server it leaves: blocking after service)")
    others = sorted({step.station for c in model.classes.values() for step in c.route} - {name})
    if others:
        return (f"a finite buffer at a station of its own classes while other classes use "
                f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''}")
    kinds = {c.is_open for c in visiting}
    if len(kinds) > 1:
        return "a finite buffer at a station shared by open and closed classes"
    if kinds == {False}:
        steps = max(len(c.route) for c in visiting)
        if steps > 1:
            return (f"a finite buffer at a station a closed customer visits {steps} times per "
                    f"cycle (it leaves and queues for room again)")
    return None
