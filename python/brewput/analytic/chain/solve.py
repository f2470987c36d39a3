"""`solve --method ctmc`: the model's continuous-time Markov chain, built and
solved; exact when every law in the model is phase-type (exponential, Erlang,
hyperexponential), else marked approximate with its phase-type fit named.

A constant (and any law less variable than Erlang-k) takes k Erlang phases: k
doubles from 2 while the chain stays within FIT_STATES states (and at most
MAX_PHASES phases), and the answer at the last k is given with its change from
the k before, so the user sees how far it may still move.
"""
from __future__ import annotations

import time
from typing import List, Optional, Tuple

import numpy as np

from ...model import Model
from ..network import Network
from ..solution import Solution
from .figures import Averages, averages, resource_figures
from .floor import Floor, floor_of
from .generate import TooManyStates, generate
from .sizing import DEFAULT_MAX_STATES, state_bound, too_large
from .steady import stationary

METHOD = "ctmc"
#: The most states a rung of the ladder of Erlang phases may take: scipy's LU of the
#: chain of 4 constant stages at Erlang-8 (20,000 states) fills 13 million entries and
#: takes 28 s, at Erlang-4 (1,900 states) 0.07 s.
FIT_STATES = 5_000
#: How far the bound (sizing.py) may exceed the limit before the walk is not even
#: tried: the bound counts placements the model's rules never reach (a closed line of
#: one-server stations holds one job in service at each), often by this much.
BOUND_SLACK = 50
#: The most Erlang phases a constant is given.
MAX_PHASES = 64


def solve_chain(model: Model, net: Network, max_states: Optional[int] = None) -> Solution:
    """The model by its Markov chain, or Unsupported naming what the chain does not
    follow yet or the size beyond `max_states`."""
    limit = DEFAULT_MAX_STATES if max_states is None else max_states
    where = model.file or model.name
    compiled = model.compile()
    floor = floor_of(compiled, where, constant_phases=1)
    if floor.exact:
        try:
            avg, states, seconds = _solved(floor, limit)
        except TooManyStates:
            raise too_large(where, floor, state_bound(floor), limit, found=state_bound(floor) <= limit) from None
        return _solution(model, net, floor, avg, [_size_note(states, seconds)])
    rungs: List[Tuple[int, Floor, Averages, int, float]] = []
    phases = 2
    while phases <= MAX_PHASES:
        floor = floor_of(compiled, where, constant_phases=phases)
        budget = limit if not rungs else min(limit, FIT_STATES)
        try:
            avg, states, seconds = _solved(floor, budget)
        except TooManyStates:
            if not rungs:
                raise too_large(where, floor, state_bound(floor), budget, found=state_bound(floor) <= budget) from None
            break
        rungs.append((phases, floor, avg, states, seconds))
        if floor == floor_of(compiled, where, constant_phases=2 * phases):
            break  # every law is fitted by its own moments: more phases change nothing
        phases *= 2
    phases, floor, avg, states, seconds = rungs[-1]
    notes = [f"approximate, times replaced by phase-type laws: {'; '.join(floor.fits)}"]
    if len(rungs) > 1:
        before = rungs[-2]
        notes.append(f"from Erlang-{before[0]} to Erlang-{phases}: {_change(model, before[2], avg)}")
    notes.append(_size_note(states, seconds))
    return _solution(model, net, floor, avg, notes)


def _solved(floor: Floor, limit: int) -> Tuple[Averages, int, float]:
    """The floor's time averages, its states and the seconds they took; TooManyStates
    beyond `limit`."""
    if state_bound(floor) > limit * BOUND_SLACK:
        raise TooManyStates(f"up to {state_bound(floor):,} states")
    started = time.perf_counter()
    chain = generate(floor, limit)
    pi = stationary(chain.generator)
    return averages(floor, chain, pi), len(chain.states), time.perf_counter() - started


def _size_note(states: int, seconds: float) -> str:
    return f"ctmc: {states:,} states, built and solved in {seconds:.2g} s"


def _change(model: Model, before: Averages, after: Averages) -> str:
    parts = []
    for c, name in enumerate(model.classes):
        moved = []
        for label, old, new in (("throughput", before.throughput[c], after.throughput[c]),
                                ("response time", _response(before, c), _response(after, c))):
            if old > 0:
                moved.append(f"{label} {100 * (new - old) / old:+.2g} %")
        parts.append(f"{name} {', '.join(moved)}")
    return "; ".join(parts)


def _response(avg: Averages, c: int) -> float:
    jobs = avg.present[c].sum() + avg.outside[c]
    return jobs / avg.throughput[c] if avg.throughput[c] > 0 else 0.0


def _solution(model: Model, net: Network, floor: Floor, avg: Averages, notes: List[str]) -> Solution:
    n_classes, n_stations = avg.present.shape
    x = avg.throughput
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where(x > 0, 1 / x, 0.0)
    servers = np.array([np.inf if s is None else s for s in floor.servers])
    utilization = np.where(np.isinf(servers), avg.busy, avg.busy / np.where(np.isinf(servers), 1, servers))
    exact = floor.exact
    loss = None
    if any(job.is_open for job in floor.classes):  # every station of an open class has a finite buffer
        offered = np.array([job.rate or 0.0 for job in floor.classes])
        loss = np.where(offered > 0, avg.lost / np.where(offered > 0, offered, 1), 0.0)
    return Solution(
        method=METHOD,
        throughput=x,
        response_time=np.array([_response(avg, c) for c in range(n_classes)]),
        utilization=utilization,
        queue_length=avg.present,
        residence_time=avg.present * per[:, None],
        exact_class=np.full(n_classes, exact),
        exact_station=np.full(n_stations, exact),
        station_method=[METHOD] * n_stations,
        loss_probability=loss,
        waiting_time=(avg.waiting.sum(axis=1) + avg.outside) * per,
        station_waiting=avg.waiting.sum(axis=0),
        notes=notes,
        resources=resource_figures(floor, list(model.resources), avg),
    )
