"""Features a model writes that cannot act in it as written: each said once, as a
warning beside the figures (simulate) or a note (solve), so that a user who
expects them to matter is told they did not."""
from __future__ import annotations

import math
from typing import List

from .model import Model


def preempt_without_effect(name: str, station) -> str:
    """Why `preempt:` at station `name` never preempts, or "" if it can."""
    if station.preempt == "none":
        return ""
    if math.isinf(station.servers):
        return (f"stations.{name}.preempt has no effect: with servers: inf nobody waits, so no job is ever "
                f"preempted")
    if station.buffer == 0:
        return (f"stations.{name}.preempt has no effect: with buffer: 0 a preempted job would have nowhere to "
                f"wait, so an arrival that finds every server busy is turned away and none is preempted")
    return ""


def no_effect_warnings(model: Model) -> List[str]:
    """One line per feature of `model` that has no effect as written."""
    return [line for line in (preempt_without_effect(name, station) for name, station in model.stations.items())
            if line]
