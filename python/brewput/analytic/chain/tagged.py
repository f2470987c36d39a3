"""The chain of one tagged customer's passage: from the moment it arrives (an open
class's arrival, a closed customer's end of think) to the moment it is done, with
the rest of the system going on around it.

The tagged customer is a copy of its class (same steps, priority, tokens) added as a
class of its own, `Floor.tagged`, so that the state says where it is; its completion
absorbs. The state it arrives into is the model's chain as its class's arrivals see it:
a state s weighted by pi(s) times the rate of those arrivals in s (PASTA for a Poisson
class, counting only the arrivals admitted; the arrival theorem for a closed class),
and the arrival carried out by the simulator's rules (generate.py) with the arriving
customer tagged. Where nobody arriving after it can reach it, arrivals are left out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Iterator, Optional, Tuple

import numpy as np
import scipy.sparse as sp

from .floor import Floor, JobClass
from .generate import OUTSIDE, Chain, _open_jobs, _Work, generate


@dataclass
class Passage:
    """The tagged customer's chain: transient states only, absorption at its completion."""
    #: (S,) where the tagged customer's passage starts (sums to 1).
    start: np.ndarray
    #: (S, S) the transient generator: its rows sum to minus the rate of absorption.
    generator: sp.csr_matrix
    #: (S,) whether the tagged customer is waiting (in a queue, or outside a full station).
    waiting: np.ndarray


def tagged_floor(floor: Floor, c: int) -> Floor:
    """`floor` with a copy of class c added last, as the tagged class."""
    job = floor.classes[c]
    copy = JobClass(f"{job.name} (tagged)", job.priority, None, 0, None, job.steps)
    return replace(floor, classes=floor.classes + (copy,), tagged=len(floor.classes),
                   arrivals=not behind_never_matters(floor, c))


def behind_never_matters(floor: Floor, c: int) -> bool:
    """Whether no open arrival after class c's customer can change its passage. Its route
    is a line of distinct FIFO stations (each step on to the next, or out), one server at
    each but the last, so that nobody who comes later at a station passes it there; no
    tokens are held anywhere (a later job elsewhere could take the one it needs); and
    every open class that visits a station of the line past its first comes there along
    the line from its first station, so behind it. Then its chain leaves open arrivals
    out: far fewer states (those ahead of it, not also those behind), the same law."""
    if any(step.uses for job in floor.classes for step in job.steps):
        return False
    path = _line(floor.classes[c])
    if path is None or any(floor.discipline[m] != "fifo" for m in path) \
            or any(floor.servers[m] != 1 for m in path[:-1]):
        return False
    later = set(path[1:])
    for job in floor.classes:
        if not job.is_open or not later & {step.station for step in job.steps}:
            continue
        line = _line(job)
        if line is None or any(m in later and line[:i + 1] != path[:i + 1] for i, m in enumerate(line)):
            return False
    return True


def _line(job: JobClass) -> Optional[Tuple[int, ...]]:
    """The stations of a route that goes step by step (each step to the next or out), each
    station once; None for any other route (a branch, a return, a station visited again)."""
    if any(target not in (None, i + 1) for i, step in enumerate(job.steps) for target, _ in step.routes):
        return None
    stations = tuple(step.station for step in job.steps)
    return stations if len(set(stations)) == len(stations) else None


def passage(floor: Floor, chain: Chain, pi: np.ndarray, c: int, max_states: int) -> Passage:
    """Class c's passage chain from the model's chain and its stationary law, or
    TooManyStates beyond `max_states` states."""
    tagged = tagged_floor(floor, c)
    weights: Dict[tuple, float] = {}
    for s in np.flatnonzero(pi > 0):
        state = _with_tagged(chain.states[s])
        for rate, work in _arrivals(tagged, c, state):
            work.settle()
            for p, arrived in work.outcomes():
                weights[arrived] = weights.get(arrived, 0.0) + pi[s] * rate * p
    starts = list(weights)
    walked = generate(tagged, max_states, starts=starts)
    start = np.zeros(len(walked.states))
    start[:len(starts)] = [weights[s] for s in starts]
    absorbed = walked.completions[:, tagged.tagged]
    generator = (walked.generator - sp.diags(absorbed)).tocsr()
    waiting = np.array([_waits(state, tagged.tagged) for state in walked.states])
    return Passage(start / start.sum(), generator, waiting)


def _with_tagged(state: tuple) -> tuple:
    """A state of the model's chain as a state of the tagged chain (no tagged customer yet)."""
    thinking, queue, serving, lines = state
    return thinking + ((),), queue, serving, lines


def _arrivals(floor: Floor, c: int, state: tuple) -> Iterator[Tuple[float, _Work]]:
    """(rate, work) per way class c's customer arrives in `state`, the arrival carried out
    with the arriving customer tagged (its first phases are drawn by work.outcomes)."""
    job, tagged = floor.classes[c], floor.tagged
    thinking, _, serving, _ = state
    if job.is_open:
        work = _Work(floor, state)
        at_limit = floor.open_limit is not None and _open_jobs(floor, state) >= floor.open_limit
        if not at_limit and work.has_room(work.station_of(c, 0), False):  # only the admitted are timed
            work.depart(OUTSIDE, tagged, 0)
            yield job.rate, work
        return
    if job.think is not None:
        for p, n in enumerate(thinking[c]):
            for target, rate in job.think.moves[p] if n else ():
                if target is None:
                    work = _Work(floor, state)
                    work.thinking[c][p] -= 1
                    work.closed_arrival(tagged)
                    yield n * rate, work
        return
    # No think: a customer arrives again the moment it completes its cycle.
    for m, entries in enumerate(serving):
        for entry in sorted(set(entries)):
            owner, step, phase = entry
            if owner != c:
                continue
            plan = job.steps[step]
            n = entries.count(entry)
            for target, rate in plan.service.moves[phase]:
                if target is not None:
                    continue
                for next_step, p in plan.routes:
                    if next_step is None:
                        work = _Work(floor, state)
                        work.arrives_as[c] = tagged
                        work.finish(m, entry, None)
                        yield n * rate * p, work


def _waits(state: tuple, tagged: int) -> bool:
    _, queue, _, lines = state
    return (any(c == tagged for _, c, _ in queue)
            or any(c == tagged and source == OUTSIDE for line in lines for source, c, _ in line))
