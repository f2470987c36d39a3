"""The state space of a floor (floor.py), walked breadth first from the state the
simulator starts in, with every transition the simulator can make: the walk is
Rust's (crates/chain), this module its Python face.

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
may lead to several states. A job entering a step that balks decides on the jobs
waiting in that station's queue (after the room check); where it balks by a chance
strictly between 0 and 1, the event is carried out once per way its chances fall
(crates/chain/src/chance.rs), each way weighted by its probability. A waiting job at
a step with (exponential) patience leaves the queue at its rate, the station's line
for room admitted. One who balks or reneges gives up: an open customer is lost, a
closed one thinks again.

Why Rust behind a function of a `Floor` returning arrays: the walk is the one step
that costs per state (in Python 60 to 300 us and 2 to 4 KB a state; bench/RESULTS.md,
"The chain's walk"). The states stay in Rust (`Chain.states`, read one at a time as
the tuples above); what the figures need of them comes as sparse counts per state.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

import numpy as np
import scipy.sparse as sp

from ... import _native
from ...errors import BrewputError
from .floor import Floor

#: Where a job waiting for room comes from when it holds no server.
OUTSIDE = -1


class TooManyStates(BrewputError):
    """The walk reached more states than the limit."""


class NoRoom(BrewputError):
    """Jobs placed at a station beyond what it holds (its servers and buffer); args[0]
    is the station."""


@dataclass
class Chain:
    #: The states, in the order found (the first are the walk's starts): len() and
    #: states[i], a state as the tuples of the module's docstring.
    states: _native.ChainStates
    #: (S, S) the generator, rows summing to 0.
    generator: sp.csr_matrix
    #: (S, R) per state, the rate at which customers of each class complete.
    completions: np.ndarray
    #: (S, R) per state, the rate at which arrivals of each open class are turned away (full).
    losses: np.ndarray
    #: (S, R) per state, the rate at which arrivals of each open class are cut off by the
    #: truncation (Floor.open_limit): not the model's losses, the chain's error.
    truncated: np.ndarray
    #: (S, R) per state, the rate at which customers of each class balk, and renege.
    balked: np.ndarray
    reneged: np.ndarray
    #: (S, R * M) per state, the rate at which services of class c end at station m
    #: (column c * M + m): where customers give up, not their completions times visits.
    served: np.ndarray
    #: (S, R * M) per state, the jobs of class c at station m (column c * M + m): waiting
    #: for a server, in service, blocked after service on a server there.
    waiting: sp.csr_matrix
    busy: sp.csr_matrix
    blocked: sp.csr_matrix
    #: (S, R) per state, the customers waiting outside a full station.
    outside: sp.csr_matrix
    #: (S, K) per state, the tokens held per resource.
    in_use: sp.csr_matrix
    #: The weights of the walk's starts, its first states (one, 1, from the simulator's start).
    start: np.ndarray

    def by_station(self, counts: sp.csr_matrix) -> np.ndarray:
        """(S, M) `waiting`, `busy` or `blocked` summed over the classes."""
        classes = self.completions.shape[1]
        stations = counts.shape[1] // classes
        return (counts @ sp.vstack([sp.identity(stations, format="csr")] * classes)).toarray()


def generate(floor: Floor, max_states: int) -> Chain:
    """The chain of `floor` from the simulator's start (where first phases are drawn at
    random, the first of its states: the steady state does not depend on it), or
    TooManyStates once more than `max_states` are found. Where the floor has a tagged
    class, its completion or giving up ends the walk's paths there (the chain's
    `completions`, `balked` and `reneged` of that class are its rates of absorption)."""
    return _chain(floor, _native.chain_walk(floor, max_states))


def generate_placed(floor: Floor, placed: List[Tuple[int, int, int]], max_states: int) -> Chain:
    """The chain of `floor` from the simulator's state with jobs placed at the start, as
    a day's `at_start` places them (crates/sim/src/simulation.rs, start_day): every
    closed customer not placed begins a cycle, then each (class, step, jobs) enters its
    step from outside, in order, taking a free server or else waiting (a closed class's
    placed jobs are of its population); NoRoom where a station cannot hold them. Its
    `start`: the probabilities of its first states, where the services started draw
    their first phase at random."""
    return _chain(floor, _native.chain_walk_placed(floor, max_states, list(placed)))


def generate_arrivals(floor: Floor, model: Chain, pi: np.ndarray, c: int, max_states: int) -> Chain:
    """The chain of the tagged `floor` (tagged.py) from its tagged customer of class c
    arriving into the states of the `model`'s chain, weighted by their stationary law
    `pi` times the rate of class c's arrivals in each (PASTA for a Poisson class,
    counting only the arrivals admitted; the arrival theorem for a closed class). Its
    `start`: those weights (unnormalised) of its first states."""
    return _chain(floor, _native.chain_walk_arrivals(floor, max_states, model.states, np.asarray(pi, float).tolist(), c))


def _chain(floor: Floor, walked: dict) -> Chain:
    states = walked["states"]
    n, n_classes, n_stations = len(states), len(floor.classes), len(floor.stations)

    def floats(name: str) -> np.ndarray:
        return np.frombuffer(walked[name], dtype=np.float64)

    def rows(name: str, columns: int) -> sp.csr_matrix:
        indptr, indices, data = walked[name]
        return sp.csr_matrix((np.frombuffer(data, dtype=np.float64), np.frombuffer(indices, dtype=np.int32),
                              np.frombuffer(indptr, dtype=np.int64)), shape=(n, columns))

    # The transitions as found, a target repeated or the state itself: summed as a COO's
    # conversion sums them, the self-loops cancelling out in the diagonal.
    q = sp.csr_matrix((floats("rates"), np.frombuffer(walked["indices"], dtype=np.int32),
                       np.frombuffer(walked["indptr"], dtype=np.int64)), shape=(n, n))
    q.sum_duplicates()
    q.setdiag(q.diagonal() - np.asarray(q.sum(axis=1)).ravel())
    names = ("completions", "losses", "truncated", "balked", "reneged")
    per_class = [floats(name).reshape(n, n_classes) for name in names]
    cells = n_classes * n_stations
    return Chain(states, q.tocsr(), *per_class, floats("served").reshape(n, cells), rows("waiting", cells),
                 rows("busy", cells), rows("blocked", cells),
                 rows("outside", n_classes), rows("in_use", len(floor.tokens)), floats("start"))
