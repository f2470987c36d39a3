"""The chain of one tagged customer's passage: from the moment it arrives (an open
class's arrival, a closed customer's end of think) to the moment it is done, with
the rest of the system going on around it.

The tagged customer is a copy of its class (same steps, priority, tokens) added as a
class of its own, `Floor.tagged`, so that the state says where it is; its completion
absorbs. The state it arrives into is the model's chain as its class's arrivals see it:
a state s weighted by pi(s) times the rate of those arrivals in s (PASTA for a Poisson
class, counting only the arrivals admitted; the arrival theorem for a closed class),
and the arrival carried out by the simulator's rules (the walk's, generate.py) with the
arriving customer tagged. Where nobody arriving after it can reach it, arrivals are left out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp

from .floor import Floor, JobClass
from .generate import Chain, generate_arrivals


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
    walked = generate_arrivals(tagged, chain, pi, c, max_states)
    start = np.zeros(len(walked.states))
    start[:len(walked.start)] = walked.start
    absorbed = walked.completions[:, tagged.tagged]
    generator = (walked.generator - sp.diags(absorbed)).tocsr()
    # waiting: in a queue, or outside a full station
    stations = len(floor.stations)
    queued = walked.waiting[:, tagged.tagged * stations:(tagged.tagged + 1) * stations].sum(axis=1)
    waiting = np.asarray(queued).ravel() + walked.outside[:, tagged.tagged].toarray().ravel() > 0
    return Passage(start / start.sum(), generator, waiting)
