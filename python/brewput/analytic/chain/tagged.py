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
A tagged customer who balks or reneges is absorbed too, without completing: one who
balks on arrival is no passage at all (it is not timed, as simulate times only those who
complete), one who gives up later ends a passage that `completed_means` leaves out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .floor import Floor, JobClass
from .generate import Chain, generate_arrivals


@dataclass
class Passage:
    """The tagged customer's chain: transient states only, absorption at its completion
    (or where it gives up)."""
    #: (S,) where the tagged customer's passage starts (sums to 1).
    start: np.ndarray
    #: (S, S) the transient generator: its rows sum to minus the rate of absorption.
    generator: sp.csr_matrix
    #: (S,) whether the tagged customer is waiting (in a queue, or outside a full station).
    waiting: np.ndarray
    #: (S,) the rate at which it completes from each state (the rest of the absorption,
    #: where there is any, is its giving up).
    completing: np.ndarray
    #: (S, M) whether it waits in each station's queue.
    waiting_at: np.ndarray
    #: (S, M) the rate at which its service at each station ends.
    served_at: np.ndarray
    #: Whether it may give up (absorbed without completing).
    gives_up: bool


@dataclass
class CompletedTimes:
    """The mean times simulate reports where customers give up: of those who complete,
    and per station of the visits served there."""
    response: float
    waiting: float
    #: (M,) the mean wait at each station of the visits that end in service there (NaN where none).
    served_wait: np.ndarray


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
    if job.dispatches or any(target not in (None, i + 1) for i, step in enumerate(job.steps)
                             for target, _ in step.routes):
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
    t = tagged.tagged
    completing = walked.completions[:, t]
    generator = (walked.generator - sp.diags(completing + walked.balked[:, t] + walked.reneged[:, t])).tocsr()
    # waiting: in a queue, or outside a full station
    stations = len(floor.stations)
    queued = walked.waiting[:, tagged.tagged * stations:(tagged.tagged + 1) * stations].sum(axis=1)
    waiting_at = walked.waiting[:, t * stations:(t + 1) * stations].toarray() > 0
    waiting = np.asarray(queued).ravel() + walked.outside[:, t].toarray().ravel() > 0
    served_at = walked.served[:, t * stations:(t + 1) * stations]
    gives_up = bool((walked.balked[:, t] + walked.reneged[:, t]).any())
    return Passage(start / start.sum(), generator, waiting, completing, waiting_at, served_at, gives_up)


def completed_times(chain: Passage) -> CompletedTimes:
    """The mean times of the tagged customers who complete, and of the visits served at
    each station, as simulate measures them. With N = (-T)^-1 (T the transient
    generator), alpha the start and r the rates of completion: P(complete) = alpha N r,
    E[T; complete] = alpha N N r, E[W; complete] = alpha N diag(w) N r (w: the waiting
    states), the time in each state counted for the paths that go on to complete (N r).
    At a station m, a wait in its queue W_m ends in service there with probability h,
    (-T_WW) h = T_W,rest 1 (every way out of W_m but giving up starts its service): the
    waits of the visits served are alpha N (w_m h), over the services there alpha N s_m."""
    lu = spla.splu((-chain.generator).tocsc())
    ahead = lu.solve(chain.completing.astype(float))  # N r: from each state, P(it completes)
    seen = lu.solve(chain.start.astype(float), trans="T")  # alpha N: the time spent in each state
    completes = float(seen @ chain.completing)
    served_wait = np.full(chain.waiting_at.shape[1], np.nan)
    for m in range(len(served_wait)):
        services = float(seen @ chain.served_at[:, m])
        w = chain.waiting_at[:, m]
        if services <= 0:
            continue
        if not w.any():
            served_wait[m] = 0.0
            continue
        at = np.flatnonzero(w)
        starts = chain.generator[at] @ (~w).astype(float)
        h = spla.splu((-chain.generator[at][:, at]).tocsc()).solve(np.asarray(starts, dtype=float).ravel())
        served_wait[m] = float(seen[at] @ h) / services
    return CompletedTimes(float(seen @ ahead) / completes, float(seen @ (chain.waiting * ahead)) / completes,
                          served_wait)
