"""The pace of a simulation measured in a short pilot run, for models whose cost the
model does not tell. Where customers may be lost (balking, patience, a full first
station), a run stopped by its completed customers pays for every lost one too, and
a class that loses nearly all of them (closed customers reneging at once, a think
time of 1e-12) needs days for a few completions, which no count of visits foresees.
The pilot runs the model itself for PILOT_SECONDS, one replication on one thread,
and extrapolates its completions per second: a floor where it completed none."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from .. import _native
from ..errors import CancelledError, EngineError
from .cancellable import run_controlled
from .work import Work, duration_text

PILOT_SECONDS = 0.1
# The features that let customers leave uncompleted (model/features.py's names).
LOSING = frozenset({"patience", "balk-threshold", "balk-probabilities", "finite-buffer"})


@dataclass(frozen=True)
class Paced:
    """A run's seconds at the pace of its pilot (engine/work.py's check_work reads it)."""

    seconds: float
    completed: int
    basis = ""
    less = Work.less

    def __str__(self) -> str:
        if not self.completed:  # its pace is below one customer a pilot: the time is a floor
            return (f"more than {duration_text(self.seconds)} at the pace of a {PILOT_SECONDS:g} s pilot run (no "
                    "customer completed in it)")
        return (f"about {duration_text(self.seconds)} at the pace of a {PILOT_SECONDS:g} s pilot run "
                f"({self.completed:,} customers completed in it)")


def paced(compiled: str, settings: dict, customers: int, parallel: int) -> Optional[Paced]:
    """The pace of `customers` completions (in all replications, `parallel` at once)
    from a pilot of the compiled model with the run's `settings`; None when the
    pilot ended within PILOT_SECONDS, so the run is short anyway."""
    pilot = json.dumps({**settings, "replications": 1, "threads": 1})
    seen: dict = {}

    def run(control):
        seen["control"] = control
        return _native.simulate(compiled, pilot, control)

    def watch(shown):  # first called after PILOT_SECONDS, then once more as the pilot ends
        seen.setdefault("completed", shown["customers"])
        seen["control"].cancel()

    try:
        run_controlled("simulate", run, watch=watch, interval=PILOT_SECONDS)
    except CancelledError:  # the pilot's time was up
        completed = seen.get("completed", 0)
        return Paced(customers * PILOT_SECONDS / max(completed, 1) / parallel, completed)
    except EngineError:  # a model the engine refuses: the run itself says so, in its words
        pass
    return None
