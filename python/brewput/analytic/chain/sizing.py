"""The size of a floor's chain, bounded from the model before anything is built.

Each customer of a class is in one of a few places (a phase of its think, at a step,
blocked on its server for one of the next steps, waiting outside for room): the states
are at most the ways of putting the class's customers in its places, multiplied over
the classes. An open class's jobs are at most the capacities of the stations it
visits, or the truncation's limit on open jobs where a station is unbounded. The order
of waiting jobs of several kinds at one station (or, where tokens run short, across
stations) is not in the bound: the walk counts those states as it finds them and stops
at the limit.

The ways are counted by generating functions, each place's counting how many it can
hold: at a step, n present with at most c in service over its service's k phases. Where
the step is the only one at its station and holds no tokens that may run short, a job
waits only while every server is busy, so n present are min(n, c) in service, one way
per spread of them over the phases: the closed central-server model's bound is then
its count (C(N + 3, 3), where counting waiting and in service apart gave 5.8e9 for
91,881 states at N = 80, and refused it). Elsewhere any m <= min(n, c) of them may be
in service. Counted in floats (a bound, compared with limits), held below _HUGE.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import List, Optional

import numpy as np
from scipy import special

from ..support import Unsupported
from .floor import Floor

#: The most states `solve` builds unless told otherwise (`--max-states`).
DEFAULT_MAX_STATES = 1_000_000


def state_limit(max_states: Optional[int]) -> int:
    """The most states a chain may have: `--max-states`, else the default."""
    return DEFAULT_MAX_STATES if max_states is None else max_states


#: Where a count stops growing: far beyond any limit, and far below a float's range.
_HUGE = 1e300


def state_bound(floor: Floor, beyond: float = _HUGE) -> float:
    """The bound, or infinity as soon as it is known to pass `beyond`: an open class that
    may hold n jobs has n + 1 ways at least (one for each number of them), and counting
    the ways of millions of jobs takes seconds (a station of 10^7 servers)."""
    bound = 1.0
    for c, job in enumerate(floor.classes):
        if job.is_open and floor.unbounded:
            jobs = floor.open_limit
        elif job.is_open:
            stations = {step.station for step in job.served}
            jobs = sum(max(floor.holds(step) for step in job.served if step.station == m) for m in stations)
        else:
            jobs = job.population
        if job.is_open and bound * (jobs + 1) > beyond:
            return math.inf
        bound = min(bound * _placements(floor, c, jobs), _HUGE)
    return float(int(bound))


def _placements(floor: Floor, c: int, jobs: int) -> float:
    """The ways of putting class c's `jobs` in its places (an open class's: at most so many)."""
    job = floor.classes[c]
    visitors = Counter(step.station for other in floor.classes for step in other.served)
    ways = np.zeros(jobs + 1)
    ways[0] = 1.0
    for _ in range(job.think.phases if job.think is not None else 0):
        ways = _any_number(ways)
    first = floor.capacity[job.steps[0].station] if job.steps else None
    if job.is_open or first is not None:  # waiting outside for room, or (open) a slot left empty
        ways = _any_number(ways)
    for step in job.served:
        servers = floor.servers[step.station]
        alone = visitors[step.station] == 1 and not (step.uses and floor.tokens_bind)
        ways = _times(ways, _at_step(jobs, servers, step.service.phases, alone))
        for target, _ in step.routes:  # blocked after service on a server, for a full next station
            if target is not None and floor.capacity[job.steps[target].station] is not None:
                ways = _times(ways, np.ones(min(jobs, servers if servers is not None else jobs) + 1))
    for step in job.steps:
        if step.dispatch is None:
            continue
        if step.dispatch.policy == "round_robin":  # its turn
            ways = np.minimum(ways * len(step.dispatch.branches), _HUGE)
        if step.dispatch.policy == "shared":  # its queue
            ways = _any_number(ways)
        # waiting outside for room: at a branch's first station, or after the branch
        firsts = [job.steps[b].station for b in step.dispatch.branches]
        afters = [job.steps[t].station for t, _ in step.routes if t is not None]
        for m in set(firsts + afters):
            if floor.capacity[m] is not None:
                ways = _any_number(ways)
    return float(ways[jobs])


def _any_number(ways: np.ndarray) -> np.ndarray:
    """Times a place that holds any number: 1 / (1 - x)."""
    return np.minimum(np.cumsum(ways), _HUGE)


def _at_step(jobs: int, servers: Optional[int], phases: int, alone: bool) -> np.ndarray:
    """The ways n = 0 .. jobs present at a step can be: min(n, c) in service spread over the
    phases where the step is alone at its station, else any m <= min(n, c) so."""
    n = np.arange(jobs + 1)
    serving = n if servers is None else np.minimum(n, servers)
    spreads = np.minimum(special.comb(np.arange(serving.max() + 1) + phases - 1, phases - 1), _HUGE)
    return spreads[serving] if alone else np.cumsum(spreads)[serving]


def _times(ways: np.ndarray, place: np.ndarray) -> np.ndarray:
    """The product of two generating functions, to the power `jobs` (FFT where long: a bound
    needs no more than its leading digits)."""
    size = ways.size
    if size * place.size < 10**7:
        product = np.convolve(ways, place[:size])[:size]
    else:
        from scipy.signal import fftconvolve  # imported here: 0.3 s and more, for the rare long product
        product = fftconvolve(ways, place[:size])[:size]
    return np.minimum(np.maximum(product, 0.0), _HUGE)


def what_makes_it_large(floor: Floor) -> List[str]:
    """The model's fields that the bound grows with, largest first."""
    sizes = []
    for job in floor.classes:
        if not job.is_open:
            sizes.append((job.population, f"classes.{job.name}.population {job.population}"))
    for name, capacity, servers in zip(floor.stations, floor.capacity, floor.servers):
        if capacity is not None and capacity - servers > 0:
            sizes.append((capacity - servers, f"stations.{name}.buffer {capacity - servers}"))
    open_stations = {step.station for job in floor.classes if job.is_open for step in job.served}
    for m in sorted(open_stations):
        if floor.capacity[m] is not None and floor.servers[m] is not None and floor.servers[m] > 1:
            sizes.append((floor.servers[m], f"stations.{floor.stations[m]}.servers {floor.servers[m]:,}"))
    if floor.open_limit is not None:
        sizes.append((floor.open_limit, f"the open arrivals (truncated at {floor.open_limit} jobs)"))
    phases = max((law.phases for law in floor.laws), default=1)
    if phases > 1:
        laws = sum(1 for law in floor.laws if law.phases == phases)
        sizes.append((phases, f"{laws} time law{'s' if laws > 1 else ''} of {phases} phases"))
    return [text for _, text in sorted(sizes, key=lambda s: -s[0])]


def too_large(where: str, floor: Floor, limit: int, bound: Optional[float] = None) -> Unsupported:
    """The refusal of a chain beyond `limit` states: by its `bound` (infinite: known only
    to pass the limit), or (None) found while building it."""
    if bound is None:
        size = f"more than {limit:,} states (found while building it)"
    elif math.isinf(bound):
        size = f"more than {limit:,} states (counted from the model)"
    else:
        size = f"up to {int(bound):,} states"
    fields = ", ".join(what_makes_it_large(floor)) or "its classes and stations"
    return Unsupported(f"{where}: its Markov chain has {size}, beyond --max-states {limit:,} "
                       f"(large by {fields}); use brewput simulate, or a larger --max-states")
