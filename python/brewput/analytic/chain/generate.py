"""The state space of a floor (floor.py), walked breadth first from the state the
simulator starts in, with every transition the simulator can make.

A state is what the simulator would need to go on, and no more:
- per closed class, its thinking customers per phase of the think time;
- the waiting jobs as (station, class, step) in the order they arrived: where
  tokens can run short, across stations (the oldest startable job takes a freed
  token: crates/sim/src/starts.rs), else each station's own order (sorted by
  station, keeping it);
- per station, the jobs in service as a sorted tuple of (class, step, phase);
- per station, its line of jobs waiting for room there, first come first
  served, each (the station it is blocked on, or OUTSIDE, class, next step).

A transition is one event of the simulator (an arrival, the end of a phase of a
service or think time) carried out by the simulator's own rules, in its order
(crates/sim/src/simulation.rs and deferred.rs): the job leaves its server or
blocks it until there is room, tokens go back, the lines for room are settled
(the stations last listed first), then, with tokens, the oldest startable jobs
start. New services and thinks draw their first phase at the end, so one event
may lead to several states.

Why the interface is a function of a `Floor` returning arrays: generation is the
one step that costs per state, and it can move to Rust (crates/chain) behind it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np
import scipy.sparse as sp

from ...errors import BrewputError
from .floor import Floor

#: Where a job waiting for room comes from when it holds no server.
OUTSIDE = -1


class TooManyStates(BrewputError):
    """The walk reached more states than the limit."""


@dataclass
class Chain:
    #: The states, in the order found (the first is the simulator's start).
    states: List[tuple]
    #: (S, S) the generator, rows summing to 0.
    generator: sp.csr_matrix
    #: (S, R) per state, the rate at which customers of each class complete.
    completions: np.ndarray
    #: (S, R) per state, the rate at which arrivals of each open class are turned away (full).
    losses: np.ndarray
    #: (S, R) per state, the rate at which arrivals of each open class are cut off by the
    #: truncation (Floor.open_limit): not the model's losses, the chain's error.
    truncated: np.ndarray


class _Work:
    """A state being changed by one event: the simulator's moves, on lists."""

    def __init__(self, floor: Floor, state: tuple):
        thinking, queue, serving, lines = state
        self.floor = floor
        self.thinking = [list(t) for t in thinking]
        self.queue = list(queue)
        self.serving = [list(s) for s in serving]
        self.lines = [list(line) for line in lines]
        self.to_admit: List[int] = []
        self.starts_due = False
        self.completed: List[int] = []
        self.new_thinkers: List[int] = []
        self.uses_tokens = any(floor.tokens)
        #: A closed class whose next customer back from its cycle arrives as another
        #: class: the tagged customer of a passage (tagged.py), for one event.
        self.arrives_as: Dict[int, int] = {}

    # -- what the stations hold
    def blocked_on(self, m: int) -> int:
        return sum(1 for line in self.lines for source, _, _ in line if source == m)

    def present(self, m: int) -> int:
        return sum(1 for st, _, _ in self.queue if st == m) + len(self.serving[m]) + self.blocked_on(m)

    def free_servers(self, m: int) -> float:
        servers = self.floor.servers[m]
        return float("inf") if servers is None else servers - len(self.serving[m]) - self.blocked_on(m)

    def has_room(self, m: int, already_here: bool) -> bool:
        capacity = self.floor.capacity[m]
        return capacity is None or self.present(m) - already_here < capacity

    def station_of(self, c: int, step: int) -> int:
        return self.floor.classes[c].steps[step].station

    def head(self, m: int) -> Optional[int]:
        """The index in the queue of the job station m serves next."""
        best = None
        for i, (st, c, _) in enumerate(self.queue):
            if st != m:
                continue
            if self.floor.discipline[m] != "priority":
                return i
            if best is None or self.floor.classes[c].priority > self.floor.classes[self.queue[best][1]].priority:
                best = i
        return best

    def tokens_free(self, uses) -> bool:
        if not uses:
            return True
        held = [0] * len(self.floor.tokens)
        for serving in self.serving:
            for c, step, _ in serving:
                for r in self.floor.classes[c].steps[step].uses:
                    held[r] += 1
        return all(held[r] < self.floor.tokens[r] for r in uses)

    # -- the simulator's moves (simulation.rs, by the same names)
    def start(self, i: int) -> None:
        m, c, step = self.queue.pop(i)
        self.serving[m].append((c, step, None))  # its first phase is drawn at the end

    def dispatch(self, m: int) -> None:
        if self.uses_tokens:
            self.starts_due = True
            return
        while self.free_servers(m) > 0:
            i = self.head(m)
            if i is None:
                return
            self.start(i)

    def enter(self, c: int, step: int) -> None:
        m = self.station_of(c, step)
        self.queue.append((m, c, step))
        self.dispatch(m)

    def depart(self, source: int, c: int, step: Optional[int]) -> None:
        """The job leaves `source` (it no longer holds anything there) and goes on."""
        if source != OUTSIDE:
            if self.lines[source]:
                self.to_admit.append(source)
            self.dispatch(source)
        if step is None:
            self.complete(c)
        else:
            self.enter(c, step)

    def complete(self, c: int) -> None:
        self.completed.append(c)
        if c == self.floor.tagged:
            return  # the tagged customer's passage ends here: it does not come back
        if not self.floor.classes[c].is_open:
            if self.floor.classes[c].think is None:
                self.closed_arrival(self.arrives_as.pop(c, c))
            else:
                self.new_thinkers.append(c)

    def closed_arrival(self, c: int) -> None:
        m = self.station_of(c, 0)
        if self.lines[m]:
            self.lines[m].append((OUTSIDE, c, 0))
            self.to_admit.append(m)
        elif not self.has_room(m, False):
            self.lines[m].append((OUTSIDE, c, 0))
        else:
            self.depart(OUTSIDE, c, 0)

    def finish(self, m: int, entry: tuple, step: Optional[int]) -> None:
        """`entry`'s service at m ended and it goes to `step`: it leaves, or blocks
        its server until the next station has room."""
        c = entry[0]
        if self.floor.classes[c].steps[entry[1]].uses:
            self.starts_due = self.uses_tokens
        blocked = step is not None and not self.has_room(self.station_of(c, step), self.station_of(c, step) == m)
        self.serving[m].remove(entry)
        if blocked:
            self.lines[self.station_of(c, step)].append((m, c, step))
        else:
            self.depart(m, c, step)

    def settle(self) -> None:
        while self.to_admit:
            m = self.to_admit.pop()
            line = self.lines[m]
            while line:
                source, c, step = line[0]
                if not self.has_room(m, source == m):
                    break
                line.pop(0)
                self.depart(source, c, step)
        if self.starts_due:
            self.starts_due = False
            self.start_due()

    def start_due(self) -> None:
        """The oldest job that can start anywhere starts, again while there is one."""
        while True:
            heads = {m: self.head(m) for m in {st for st, _, _ in self.queue}}
            ready = [i for m, i in heads.items() if self.free_servers(m) > 0
                     and self.tokens_free(self.floor.classes[self.queue[i][1]].steps[self.queue[i][2]].uses)]
            if not ready:
                return
            self.start(min(ready))

    # -- the states it leads to
    def outcomes(self) -> List[Tuple[float, tuple]]:
        """The states after the event, each with its probability: every new
        service and think draws its first phase."""
        floor = self.floor
        choices = []
        for m, serving in enumerate(self.serving):
            for j, (c, step, phase) in enumerate(serving):
                if phase is None:
                    choices.append((("serve", m, j), floor.classes[c].steps[step].service.starts))
        for c in self.new_thinkers:
            choices.append((("think", c), floor.classes[c].think.starts))
        # Across stations the order of arrival matters only to who takes a freed token:
        # kept among the stations whose steps hold tokens, where tokens can run short.
        by_station = sorted(self.queue, key=lambda e: e[0])  # stable: each station's own order kept
        if floor.tokens_bind:
            by_station = ([e for e in self.queue if e[0] in floor.token_stations]
                          + [e for e in by_station if e[0] not in floor.token_stations])
        queue = tuple(by_station)
        lines = tuple(tuple(line) for line in self.lines)
        results = []
        for picks in itertools.product(*(options for _, options in choices)):
            probability = 1.0
            serving = [list(s) for s in self.serving]
            thinking = [list(t) for t in self.thinking]
            for (where, (phase, p)) in zip((w for w, _ in choices), picks):
                probability *= p
                if where[0] == "serve":
                    _, m, j = where
                    c, step, _ = serving[m][j]
                    serving[m][j] = (c, step, phase)
                else:
                    thinking[where[1]][phase] += 1
            state = (tuple(tuple(t) for t in thinking), queue, tuple(tuple(sorted(s)) for s in serving), lines)
            results.append((probability, state))
        return results


def _starting(floor: Floor, held_back: Optional[Dict[int, int]] = None) -> _Work:
    """The simulator's start, before first phases are drawn: every closed customer
    begins a cycle, in class order (but those `held_back` per class, placed elsewhere)."""
    empty = (tuple(tuple([0] * (job.think.phases if job.think else 0)) for job in floor.classes), (),
             tuple(() for _ in floor.stations), tuple(() for _ in floor.stations))
    work = _Work(floor, empty)
    for c, job in enumerate(floor.classes):
        for _ in range(job.population - (held_back or {}).get(c, 0)):
            work.complete(c)
            work.completed.pop()
    return work


def initial_state(floor: Floor) -> tuple:
    """The simulator's start: every closed customer begins a cycle, in class order."""
    work = _starting(floor)
    work.settle()
    # Where first phases are drawn at random, the start is one of several states: any
    # will do, the steady state does not depend on it (it is one recurrent class).
    return work.outcomes()[0][1]


class NoRoom(BrewputError):
    """Jobs placed at a station beyond what it holds (its servers and buffer)."""


def placed_state(floor: Floor, placed: List[Tuple[int, int, int]]) -> List[Tuple[float, tuple]]:
    """The simulator's state with jobs placed at the start, as a day's `at_start` places
    them (crates/sim/src/simulation.rs, start_day): every closed customer not placed
    begins a cycle, then each (class, step, jobs) enters its step from outside, in order,
    taking a free server or else waiting (a closed class's placed jobs are of its
    population); NoRoom where a station cannot hold them. Several states with their
    probabilities where the services started draw their first phase at random."""
    held_back: Dict[int, int] = {}
    for c, _, jobs in placed:
        if not floor.classes[c].is_open:
            held_back[c] = held_back.get(c, 0) + jobs
    work = _starting(floor, held_back)
    work.settle()
    for c, step, jobs in placed:
        m = work.station_of(c, step)
        for _ in range(jobs):
            if not work.has_room(m, False):
                raise NoRoom(m)
            work.depart(OUTSIDE, c, step)
    work.settle()
    return work.outcomes()


def _events(floor: Floor, state: tuple):
    """(rate, work) per event that changes more than a phase, and (rate, state) per
    change of phase only."""
    thinking, queue, serving, lines = state
    for c, phases in enumerate(thinking):
        think = floor.classes[c].think
        for p, n in enumerate(phases):
            if not n:
                continue
            for target, rate in think.moves[p]:
                if target is not None:
                    moved = [list(t) for t in thinking]
                    moved[c][p] -= 1
                    moved[c][target] += 1
                    yield n * rate, None, (tuple(tuple(t) for t in moved), queue, serving, lines)
                else:
                    work = _Work(floor, state)
                    work.thinking[c][p] -= 1
                    work.closed_arrival(c)
                    yield n * rate, work, None
    at_limit = floor.open_limit is not None and _open_jobs(floor, state) >= floor.open_limit
    for c, job in enumerate(floor.classes):
        if job.is_open and floor.arrivals:
            if at_limit:
                yield job.rate, "truncated", c
                continue
            work = _Work(floor, state)
            if not work.has_room(work.station_of(c, 0), False):
                yield job.rate, "lost", c
                continue
            work.depart(OUTSIDE, c, 0)
            yield job.rate, work, None
    for m, entries in enumerate(serving):
        for entry in sorted(set(entries)):
            n = entries.count(entry)
            c, step, phase = entry
            plan = floor.classes[c].steps[step]
            for target, rate in plan.service.moves[phase]:
                if target is not None:
                    moved = list(entries)
                    moved.remove(entry)
                    moved.append((c, step, target))
                    changed = serving[:m] + (tuple(sorted(moved)),) + serving[m + 1:]
                    yield n * rate, None, (thinking, queue, changed, lines)
                    continue
                for next_step, p in plan.routes:
                    work = _Work(floor, state)
                    work.finish(m, entry, next_step)
                    yield n * rate * p, work, None


def _open_jobs(floor: Floor, state: tuple) -> int:
    """The jobs of open classes in the system."""
    _, queue, serving, lines = state
    is_open = [job.is_open for job in floor.classes]
    return (sum(is_open[c] for _, c, _ in queue) + sum(is_open[e[0]] for s in serving for e in s)
            + sum(is_open[c] for line in lines for _, c, _ in line))


def generate(floor: Floor, max_states: int, starts: Optional[List[tuple]] = None) -> Chain:
    """The chain of `floor`, or TooManyStates once more than `max_states` are found:
    walked from the simulator's start, or from `starts` (each once). Where the floor
    has a tagged class, its completion ends the walk's paths there (the chain's
    `completions` of that class are its rates of absorption)."""
    states = list(dict.fromkeys(starts)) if starts is not None else [initial_state(floor)]
    index: Dict[tuple, int] = {state: i for i, state in enumerate(states)}
    rows: List[int] = []
    cols: List[int] = []
    rates: List[float] = []
    n_classes = len(floor.classes)
    completions: List[List[float]] = []
    losses: List[List[float]] = []
    truncated: List[List[float]] = []

    def find(state: tuple) -> int:
        i = index.get(state)
        if i is None:
            if len(states) >= max_states:
                raise TooManyStates(f"more than {max_states:,} states")
            i = index[state] = len(states)
            states.append(state)
        return i

    s = 0
    while s < len(states):
        done = [0.0] * n_classes
        lost = [0.0] * n_classes
        cut = [0.0] * n_classes
        for rate, work, other in _events(floor, states[s]):
            if work == "lost":
                lost[other] += rate
                continue
            if work == "truncated":
                cut[other] += rate
                continue
            if work is None:
                rows.append(s), cols.append(find(other)), rates.append(rate)
                continue
            work.settle()
            for c in work.completed:
                done[c] += rate
            if floor.tagged is not None and floor.tagged in work.completed:
                continue
            for p, state in work.outcomes():
                rows.append(s), cols.append(find(state)), rates.append(rate * p)
        completions.append(done)
        losses.append(lost)
        truncated.append(cut)
        s += 1
    n = len(states)
    q = sp.coo_matrix((rates, (rows, cols)), shape=(n, n)).tocsr()
    q.setdiag(q.diagonal() - np.asarray(q.sum(axis=1)).ravel())  # self-loops cancel out
    return Chain(states, q.tocsr(), *(np.array(rates).reshape(n, n_classes)
                                      for rates in (completions, losses, truncated)))
