"""What each analytic method will cost, estimated before it runs: seconds and
bytes from the sizes its loops and arrays take, so that a model too large for
a method is refused in one line naming the method and the size, never met by
numpy's "Unable to allocate 22.4 GiB" or an hour of waiting.

The constants were measured on one core (numpy 2.4, x86-64):
 - exact MVA: 5 ns per population vector x class x station, plus 30 us of Python
   per population total (3 classes x 30 customers at 50 stations: 0.025 s); it
   keeps the customers at each station for every population vector;
 - convolution: 20 ns per pair k <= n of population vectors, in each of its
   3 x (queueing stations) convolutions (one class of 500 at 10 stations: 0.05 s);
   it keeps the pairs' indices and a log-space table per station;
 - Linearizer: some ten rounds of ten Newton steps, each solving (R + 1) M linear
   systems of R classes with R right-hand sides: 0.02 s + 0.1 us x (R + 1) M R^3
   (10 classes at 50 stations: 0.07 s); Bard-Schweitzer solves one set of those;
 - open stations: Erlang's B recursion 0.1 us per server, M/M/c/K 0.25 us and
   64 bytes per place, M/G/1/K's embedded chain 20 us per place plus 1 ns per
   pair of places (10,000 places: 1 s);
 - customers who give up (abandonment.py): 2 to 4 us and 200 to 260 bytes per
   state of the birth-death chain (half a million states: 1.4 s; a closed class
   of a million: 2.3 s);
 - typed servers under FCFS-ALIS (typed_servers.py): 40 us per vector of busy
   server counts per server type (5 types of 6 servers, 16,807 vectors: 2.4 s),
   plus its stability check over every set of server types.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import BrewputError

#: What any one solve may take before it is refused.
MAX_SECONDS, MAX_BYTES = 60.0, 2e9


class Cost(NamedTuple):
    seconds: float
    bytes: float

    def __add__(self, other: "Cost") -> "Cost":  # type: ignore[override]
        return Cost(self.seconds + other.seconds, self.bytes + other.bytes)

    @property
    def affordable(self) -> bool:
        return self.seconds <= MAX_SECONDS and self.bytes <= MAX_BYTES

    def describe(self) -> str:
        return f"{_amount(self.seconds)} s and {_amount(self.bytes / 1e9)} GB"


NOTHING = Cost(0.0, 0.0)


def closed_cost(method: str, population: np.ndarray, stations: int, queueing: int) -> Cost:
    """The cost of closed `method` ("mva-exact", "convolution", "bard-schweitzer",
    "linearizer") for `population` (R,) at `stations`, `queueing` of them not delays."""
    population = np.asarray(population, dtype=float)
    classes, customers = len(population), float(population.sum())
    lattice = _product(population + 1.0)
    if method == "mva-exact":
        widest_level = min(lattice, 3.0 * lattice / (customers + 1.0))  # vectors of one total
        return Cost(5e-9 * lattice * classes * stations + 3e-5 * customers,
                    8.0 * lattice * (stations + 2 * classes + 6) + 32.0 * widest_level * classes * stations)
    if method == "convolution":
        pairs = _product((population + 1.0) * (population + 2.0) / 2)
        return Cost(2e-8 * 3 * queueing * pairs, 64.0 * pairs + 16.0 * lattice * (queueing + 1))
    batch = classes + 1.0 if method == "linearizer" else 1.0  # N and every N - e_r
    per_step = batch * stations * classes**2
    return Cost((0.02 if method == "linearizer" else 0.002) + 1e-7 * batch * stations * classes**3,
                64.0 * per_step + 64.0 * classes * classes * stations)


def lattice_cost(population: np.ndarray) -> Cost:
    """A table over every population vector 0 <= n <= N: its points and a dozen
    arrays of it, each filled in some 20 ns a point."""
    lattice = _product(np.asarray(population, dtype=float) + 1.0)
    return Cost(2e-8 * 12 * lattice, 8.0 * lattice * (len(population) + 12))


def network_cost(classes: int, stations: int) -> Cost:
    """The model as a network (network.py) and any method's per-class, per-station
    tables: some twenty arrays of classes x stations doubles, each filled in
    about 10 ns an entry."""
    entries = float(classes) * stations
    return Cost(2e-7 * entries, 160.0 * entries)


def erlang_cost(servers: float) -> Cost:
    """Erlang's B recursion at a station of `servers`."""
    return Cost(1e-7 * servers, 0.0) if math.isfinite(servers) else NOTHING


def loss_station_cost(capacity: float, embedded_chain: bool) -> Cost:
    """A finite station holding `capacity` jobs: M/M/c/K, or M/G/1/K's embedded chain."""
    if embedded_chain:
        return Cost(2e-5 * capacity + 7e-9 * capacity**2, 48.0 * capacity)
    return Cost(2.5e-7 * capacity, 64.0 * capacity)


def birth_death_cost(states: float) -> Cost:
    """A birth-death chain of `states` states (abandonment.chain_states estimates them)."""
    return Cost(4e-6 * states, 300.0 * states)


def typed_servers_cost(counts, customer_types: int) -> Cost:
    """FCFS-ALIS at a station of typed servers, `counts` servers of each type: its
    recursions keep per-type and per-customer-type arrays for every count vector."""
    kinds = len(counts)
    vectors = _product([n + 1.0 for n in counts])
    return Cost(4e-5 * vectors * kinds + 1e-6 * kinds * _product([2.0] * kinds),
                vectors * (1000.0 + 48.0 * kinds * customer_types))


def check(what: str, cost: Cost, advice: str) -> None:
    """Refuses `what` (e.g. "station s with 5,000 servers") when `cost` is beyond
    the limits, saying what it would take and what to do instead."""
    if not cost.affordable:
        raise BrewputError(f"{what} {beyond(cost)}; {advice}")


def beyond(cost: Cost) -> str:
    """What an unaffordable `cost` would take, against the limits."""
    return f"would take {cost.describe()}, beyond the limit of {MAX_SECONDS:g} s and {MAX_BYTES / 1e9:g} GB"


def population_text(population: np.ndarray) -> str:
    """"3 classes of 1,000, 20 and 5 customers" or "1,000 customers"."""
    counts = [f"{int(n):,}" for n in population]
    if len(counts) == 1:
        return f"{counts[0]} customers"
    shown = ", ".join(counts[:4]) + (", ..." if len(counts) > 4 else "")
    return f"{len(counts):,} classes of {shown} customers"


def _product(factors: np.ndarray) -> float:
    """The product, inf when it overflows: Python's float arithmetic, unlike
    numpy's reduce, overflows quietly instead of warning on stderr."""
    return math.prod(float(x) for x in factors)


def _amount(x: float) -> str:
    if not math.isfinite(x):
        return "more than 1e308"
    return "about " + (f"{x:.3g}" if x >= 1e6 else f"{x:,.0f}" if x >= 10 else f"{x:.2g}")
