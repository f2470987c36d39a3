"""Preemptive priority (resume or restart): the classes of the highest priority
never wait for a lower one, not even for one in service, so among themselves
(FIFO) they are an M/M/c queue of their own when their services are
exponential of one mean: their laws are Erlang C's at their own arrival rate.
Lower classes wait through busy periods of the higher ones; their laws are not
known in closed form here, so they have none."""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, Sequence

from . import Laws
from .mmc import mmc_laws


def top_priority_laws(lams: Sequence[float], services: Sequence, priorities: Sequence[float],
                      c: int) -> Dict[int, Laws]:
    """{class index: laws} for the classes of the highest priority, where exact."""
    top = [r for r, p in enumerate(priorities) if p == max(priorities)]
    laws = [services[r] for r in top]
    if not all(s.is_exponential for s in laws) or len({s.mean for s in laws}) > 1:
        return {}
    known = replace(mmc_laws(sum(lams[r] for r in top), laws[0].mean, c), method="erlang-c-top-priority")
    return {r: known for r in top}
