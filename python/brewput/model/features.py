"""The named features a model uses: what an engine must model to answer it.

`FEATURES` is the one table of them, `FIELDS` says which features each field of
the model language can bring, and `feature_sites(model)` finds where a model
first uses each. An engine that cannot model everything (`brewput solve`) keeps
an allow-list of the features it covers and refuses the rest by name, so that a
field added to the language is refused until someone says it is covered, never
silently ignored (tests/test_solve_features.py fails until the field is here).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from ..errors import format_path
from ..vocabulary import DEFAULTS, WORDS, feature

#: Every feature, with the words an error or a document uses for it: those of a
#: model's shape here, and those a field's word brings (a discipline, a dispatch
#: policy, ...) from the vocabulary the engine owns.
FEATURES: Dict[str, str] = {
    "open-class": "an open class (customers arrive from outside and leave)",
    "closed-class": "a closed class (a fixed population that cycles)",
    "think-time": "a closed class's think time between cycles",
    "non-poisson-arrivals": "arrivals whose times between them are not exponential",
    "multi-class": "several classes of customers",
    "class-priorities": "classes of different priorities",
    "probabilistic-routing": "a step whose next step is drawn with probabilities",
    "feedback": "a route that can return to a step it has left (a loop)",
    "finite-buffer": "a finite buffer (a station that can be full)",
    "resource-tokens": "a step that holds a server and resource tokens at once (simultaneous possession)",
    "infinite-servers": "a station with infinitely many servers (a delay)",
    "multi-server": "a station with several servers",
    "non-exponential-service": "a service time that is not exponential",
    "typed-servers": "typed groups of servers at a station (servers: {type: count})",
    "per-type-service": "a service time that depends on the server type (served_by: {type: service})",
    "balk-threshold": "customers who balk when they see too many waiting (balk: n)",
    "balk-probabilities": "customers who balk with a probability that depends on how many wait (balk: [...])",
    "patience": "customers who give up waiting after their patience runs out (patience:)",
    "measures": "times measured between marks on a route (measures:)",
    "fork-join": "a job split into parallel branches that join again (fork:)",
    "partial-join": "a fork that goes on when some of its branches ended (join: any or k)",
    "day": "a day with a start and an end (day:): figures through the day, not a steady state",
    "initial-jobs": "jobs present at the start of the day (day: at_start:)",
    "time-varying-rate": "an arrival rate that changes through the day (rate: per interval, counts, curve or linear)",
    "rota": "servers that change through the day (servers: a list per interval, a rota)",
    **{name: meaning for words in WORDS.values() for name, meaning in filter(None, words.values())},
}


def _brought(field: str) -> Tuple[str, ...]:
    """The features the words of `field` (one that takes a word) can bring."""
    return tuple(brought[0] for brought in WORDS[field].values() if brought is not None)


#: Each field of the model language, by the part of a model it belongs to, with
#: the features it can bring (none: it names, describes or holds the others).
FIELDS: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "model": {"brewput": (), "name": (), "time_unit": (), "params": (), "day": ("day", "initial-jobs"),
              "resources": (), "stations": (), "classes": ("multi-class",)},
    "station": {"servers": ("infinite-servers", "multi-server", "typed-servers", "rota"), "buffer": ("finite-buffer",),
                "discipline": _brought("discipline"), "take": _brought("take"), "assign": _brought("assign"),
                "preempt": _brought("preempt"), "off_shift": _brought("off_shift")},
    "class": {"arrivals": ("open-class", "non-poisson-arrivals"), "rate": ("open-class", "time-varying-rate"),
              "population": ("closed-class",), "think": ("think-time",), "priority": ("class-priorities",),
              "route": (), "measures": ("measures",)},
    "step": {"station": (), "service": ("non-exponential-service",), "served_by": ("per-type-service",),
             "uses": ("resource-tokens",), "balk": ("balk-threshold", "balk-probabilities"),
             "patience": ("patience",), "id": (), "next": ("probabilistic-routing", "feedback"),
             "mark": ()},
    "fork": {"fork": ("fork-join",), "join": ("partial-join",), "id": (), "next": ("probabilistic-routing", "feedback"),
             "mark": ()},
    "dispatch": {"dispatch": (feature("policy", DEFAULTS["policy"]),), "policy": _brought("policy"),
                 "d": (feature("policy", "power_of_d"),), "weights": (feature("policy", "random"),),
                 "tie": _brought("tie"), "id": (),
                 "next": ("probabilistic-routing", "feedback"), "mark": ()},
}


def feature_sites(model) -> Dict[str, str]:
    """Each feature `model` uses (a Model or its validated spec: anything with
    `stations` and `classes`), with the field where it is first used, as errors
    name fields (`classes.latte.route[0].uses`)."""
    sites: Dict[str, str] = {}

    def use(name: Optional[str], site: str) -> None:
        if name is not None:  # a word that brings no feature (preempt: none) asks nothing
            sites.setdefault(name, site)

    day = model.day
    if day is not None:
        use("day", "day")
        if any(day.at_start.values()):
            use("initial-jobs", "day.at_start")
    classes = model.classes
    if len(classes) > 1:
        use("multi-class", "classes")
    priorities = {job.priority for job in classes.values()}
    visited = set()
    for label, job in classes.items():
        at = f"classes.{label}"
        if job.is_open:
            use("open-class", f"{at}.{'rate' if job.rate is not None else 'arrivals'}")
            if job.time_varying:
                use("time-varying-rate", f"{at}.rate")
            elif not job.interarrival.is_exponential:
                use("non-poisson-arrivals", f"{at}.arrivals")
        else:
            use("closed-class", f"{at}.population")
            if job.think.mean > 0:
                use("think-time", f"{at}.think")
        if job.measures:
            use("measures", f"{at}.measures")
        if len(priorities) > 1 and job.priority != 0:  # the classes that set one
            use("class-priorities", f"{at}.priority")
        routing = job.routing()
        for i, (path, step) in enumerate(job.steps):
            here = format_path(("classes", label, *path))
            if sum(1 for _, p in routing[i] if p > 0) > 1:
                use("probabilistic-routing", f"{here}.next")
            if step.station is None:
                _branching(step, here, use)
                continue
            visited.add(step.station)
            for field, service in step.services():
                if not service.is_exponential:
                    use("non-exponential-service", f"{here}.{field}")
            if isinstance(step.served_by, dict):
                use("per-type-service", f"{here}.served_by")
            if step.balk is not None:
                use("balk-probabilities" if isinstance(step.balk, list) else "balk-threshold", f"{here}.balk")
            if step.patience is not None:
                use("patience", f"{here}.patience")
            if step.uses:
                use("resource-tokens", f"{here}.uses")
        loop = _first_loop(job.visits_routing())  # into the branches too: a loop may be inside one
        if loop is not None:
            use("feedback", format_path(("classes", label, *job.steps[loop][0], "next")))
    for label, station in model.stations.items():
        if label not in visited:
            continue  # a station nobody visits asks nothing of an engine
        at = f"stations.{label}"
        use(feature("discipline", station.discipline), f"{at}.discipline")
        use(feature("preempt", station.preempt), f"{at}.preempt")
        if math.isinf(station.servers):
            use("infinite-servers", f"{at}.servers")
        elif station.servers > 1:
            use("multi-server", f"{at}.servers")
        if math.isfinite(station.buffer):
            use("finite-buffer", f"{at}.buffer")
        if station.rotas:
            use("rota", f"{at}.servers")
            use(feature("off_shift", station.off_shift), f"{at}.off_shift")
        if station.server_types:
            use("typed-servers", f"{at}.servers")
            use(feature("take", station.take), f"{at}.take")
            use(feature("assign", station.assign), f"{at}.assign")
    return sites


def _branching(step, here: str, use: Callable[[Optional[str], str], None]) -> None:
    """The features a fork or dispatch step brings."""
    if step.kind == "fork":
        use("fork-join", f"{here}.fork")
        if step.join_count < len(step.fork):
            use("partial-join", f"{here}.join")
    else:
        use(feature("policy", step.policy), f"{here}.{'policy' if 'policy' in step.given else 'dispatch'}")
        use(feature("tie", step.tie), f"{here}.tie")


def features(model) -> FrozenSet[str]:
    """The names (keys of FEATURES) of the features `model` uses."""
    return frozenset(feature_sites(model))


def _first_loop(routing: List[List[Tuple[Optional[int], float]]]) -> Optional[int]:
    """The step whose `next` closes the first loop reachable from the start, or
    None: a depth-first search without recursion (routes may have thousands of steps)."""
    if all(target is None or target > step or p <= 0 for step, row in enumerate(routing) for target, p in row):
        return None  # every way on goes forward: no loop (most routes, read at once)
    state = {0: "open"}  # open: on the current path; done: every way on explored
    stack = [(0, iter(routing[0]))]
    while stack:
        step, arcs = stack[-1]
        for target, p in arcs:
            if target is None or p <= 0:
                continue
            if state.get(target) == "open":
                return step
            if target not in state:
                state[target] = "open"
                stack.append((target, iter(routing[target])))
                break
        else:
            state[step] = "done"
            stack.pop()
    return None
