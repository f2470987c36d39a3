"""How long a simulation will take, estimated from the model before it starts, so
that days of work are announced (or refused) rather than started silently.

The estimate counts the engine's events: per customer, its arrival (or the end of
its think time) and the end of each visit its route makes on average (a route that
loops with probability 0.9999999 makes ten million); per run, the customers of
every replication, warm-up included (a horizon's customers at the most throughput
the model allows: feasibility.py). The engine's speed is its M/M/3 benchmark's
(bench/RESULTS.md: about ten million customers a second on one core, two events
each); models with more features run slower, so the estimate is a floor.
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from typing import Optional, Sequence

from ..analytic.feasibility import most_throughput
from ..analytic.traffic import step_visits
from ..errors import BrewputError
from ..model import Model

EVENTS_PER_SECOND = 20e6   # one core
SCENARIO_SECONDS = 0.005   # a scenario's own cost besides its events: its model resolved, compiled, sent
SAY_BEYOND = 60.0          # seconds: a longer run is announced on stderr, with its estimate
REFUSE_BEYOND = 24 * 3600.0  # seconds: a longer run needs --yes (the API: yes=True)
SAMPLED_SCENARIOS = 20     # a sweep's estimate reads this many of its scenarios, evenly spaced


@dataclass(frozen=True)
class Work:
    """A simulation's work: what `check_work` reads of any work (its seconds, how they
    were found and what to cut), and the engine events they come from."""

    events: float
    seconds: float
    basis = " at the engine's speed"
    less = "run fewer customers, replications or scenarios"

    def __add__(self, other: "Work") -> "Work":
        return Work(self.events + other.events, self.seconds + other.seconds)

    def __str__(self) -> str:
        return f"about {duration_text(self.seconds)} ({self.events:.3g} engine events)"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def events_per_customer(model: Model) -> float:
    """The events of one completed customer, classes mixed as their most throughput is."""
    bounds = most_throughput(model)
    per_class = {name: 1.0 + math.fsum(step_visits(job_class)) for name, job_class in model.classes.items()}
    weights = {name: bound for name, bound in bounds.items() if math.isfinite(bound) and bound > 0}
    if len(weights) != len(per_class):  # a class with no finite bound: weigh them alike
        return math.fsum(per_class.values()) / len(per_class)
    total = math.fsum(weights.values())
    return math.fsum(per_class[name] * weights[name] / total for name in per_class)


def simulation_work(model: Model, settings: dict, threads: Optional[int] = None) -> Work:
    """The work of one simulation with the engine's run `settings` (run_settings),
    its replications `threads` at a time (all cores when None and the settings say none)."""
    stop, warm = settings["stop"], settings["warmup"]
    if stop["kind"] == "customers":
        customers = stop["count"] + warm["count"]
    else:
        customers = math.fsum(most_throughput(model).values()) * (stop["time"] + warm.get("time", 0.0))
    events = customers * settings["replications"] * events_per_customer(model)
    parallel = max(1, min(settings["replications"], settings["threads"] or threads or cores()))
    return Work(events, events / EVENTS_PER_SECOND / parallel)


def sweep_work(count: int, sampled: Sequence, workers: int):
    """`count` scenarios' work from the works of some of them, on `workers` at once:
    a Work, or where a sampled one was paced by its pilot (engine/pilot.py) that
    pace's kind, so the line said is how the sweep's time was found."""
    seconds = (math.fsum(w.seconds for w in sampled) / len(sampled) + SCENARIO_SECONDS) * count / max(1, workers)
    paced = [w for w in sampled if not isinstance(w, Work)]
    if paced:
        return dataclasses.replace(min(paced, key=lambda w: w.completed), seconds=seconds)
    return Work(math.fsum(w.events for w in sampled) / len(sampled) * count, seconds)


def sample_positions(count: int) -> range:
    """Which of `count` scenarios a sweep's estimate reads: evenly spaced, the first included."""
    return range(0, count, max(1, math.ceil(count / SAMPLED_SCENARIOS)))


def check_work(work, what: str, yes: bool) -> Optional[str]:
    """A line to say before running `what` when `work` (a Work, or any with its
    seconds, basis and less: lab/work.py) takes longer than SAY_BEYOND (None
    otherwise); refused beyond REFUSE_BEYOND unless `yes`."""
    if work.seconds > REFUSE_BEYOND and not yes:
        raise BrewputError(f"{what} needs {work}, more than a day; {work.less}, or add --yes to start it anyway")
    if work.seconds > SAY_BEYOND:
        return f"{what} needs {work}{work.basis} (Ctrl-C stops it)"
    return None


def duration_text(seconds: float) -> str:
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.2g} seconds"
