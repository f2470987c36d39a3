"""The size of a floor's chain, bounded from the model before anything is built.

Each customer of a closed class is in one of a few places (a phase of its think,
waiting at a step, a phase of the step's service, blocked on its server for one
of the next steps, waiting outside for room): the states are at most the ways of
putting the class's customers in its places, multiplied over the classes. An
open class's jobs are at most the capacities of the stations it visits, or the
truncation's limit on open jobs where a station is unbounded. The order
of waiting jobs of several kinds at one station (or, where tokens run short,
across stations) is not in the bound: the walk counts those states as it finds
them and stops at the limit.
"""
from __future__ import annotations

from math import comb
from typing import List

from ..support import Unsupported
from .floor import Floor

#: The most states `solve` builds unless told otherwise (`--max-states`).
DEFAULT_MAX_STATES = 1_000_000


def places(floor: Floor, c: int) -> int:
    """The places one job of class c can be in."""
    job = floor.classes[c]
    count = job.think.phases if job.think is not None else 0
    count += 1  # waiting outside its first station for room, or (open) a slot left empty
    for step in job.steps:
        blocking = {target for target, _ in step.routes
                    if target is not None and floor.capacity[job.steps[target].station] is not None}
        count += 1 + step.service.phases + len(blocking)
    return count


def state_bound(floor: Floor) -> int:
    bound = 1
    for c, job in enumerate(floor.classes):
        if job.is_open and floor.unbounded:
            jobs = floor.open_limit
        elif job.is_open:
            jobs = sum(floor.capacity[m] for m in {step.station for step in job.steps})
        else:
            jobs = job.population
        bound *= comb(jobs + places(floor, c) - 1, jobs)
    return bound


def what_makes_it_large(floor: Floor) -> List[str]:
    """The model's fields that the bound grows with, largest first."""
    sizes = []
    for job in floor.classes:
        if not job.is_open:
            sizes.append((job.population, f"classes.{job.name}.population {job.population}"))
    for name, capacity, servers in zip(floor.stations, floor.capacity, floor.servers):
        if capacity is not None and capacity - servers > 0:
            sizes.append((capacity - servers, f"stations.{name}.buffer {capacity - servers}"))
    if floor.open_limit is not None:
        sizes.append((floor.open_limit, f"the open arrivals (truncated at {floor.open_limit} jobs)"))
    phases = max((law.phases for law in floor.laws), default=1)
    if phases > 1:
        laws = sum(1 for law in floor.laws if law.phases == phases)
        sizes.append((phases, f"{laws} time law{'s' if laws > 1 else ''} of {phases} phases"))
    return [text for _, text in sorted(sizes, key=lambda s: -s[0])]


def too_large(where: str, floor: Floor, states: int, limit: int, found: bool = False) -> Unsupported:
    size = f"more than {limit:,} states (found while building it)" if found else f"up to {states:,} states"
    fields = ", ".join(what_makes_it_large(floor)) or "its classes and stations"
    return Unsupported(f"{where}: its Markov chain has {size}, beyond --max-states {limit:,} "
                       f"(large by {fields}); use brewput simulate, or a larger --max-states")
