"""Calling the Rust generator: watched through its control for the live view,
stopped by Ctrl-C with what was measured kept, its errors as one-line
BrewputErrors."""
from __future__ import annotations

import json
from typing import Callable, List, Optional, Sequence

from .. import _native
from ..engine.cancellable import run_controlled
from ..errors import BindError, InternalError, LoadError, LoadInputError, OutputError, UnreachableError


def run_settings(target: dict, schedule: dict, *, connections: int, max_in_flight: int, timeout_seconds: float,
                 interval_log: Optional[str] = None, tick_seconds: Optional[float] = None,
                 thresholds: Sequence = (), intervals: Optional[list] = None) -> dict:
    """What the generator takes (crates/load's settings), from checked parts.
    The tick is the generator's own default unless given, and is written
    either way, so that every record says how its requests were paced. The
    quantiles and service levels `thresholds` need beyond the fixed list are
    asked of the generator (`asked`, only when there are any). A day's
    intervals (loadtest/day.py) are reported in place of the schedule's
    stages (`intervals`, only when given)."""
    from .thresholds import asked_by

    asked = asked_by(list(thresholds))
    return {"target": target, "schedule": schedule, "connections": connections, "max_in_flight": max_in_flight,
            "timeout_seconds": timeout_seconds, "interval_log": interval_log,
            "tick_seconds": _native.LOAD_DEFAULT_TICK_SECONDS if tick_seconds is None else tick_seconds,
            **({"asked": asked} if asked else {}), **({"intervals": intervals} if intervals else {})}


def measure(settings: dict, watch: Optional[Callable[[dict], None]] = None) -> dict:
    """Runs the load `settings` describe and returns the generator's summary
    (times in seconds) and `others_share`, the share of the CPUs other
    processes took meanwhile (machine.py); `watch` gets the live figures a few
    times a second.
    Ctrl-C stops the run and returns what it measured, marked `interrupted`."""
    from .machine import CpuWatch

    cpu_watch = CpuWatch()
    outcome: dict = {}

    def work(control) -> None:
        outcome["summary"] = _native.load_run(json.dumps(settings, allow_nan=False), control)

    try:
        run_controlled("load", work, watch=watch, interval=0.25)
    except KeyboardInterrupt:
        if "summary" not in outcome:
            raise
    except (UnreachableError, BindError, OutputError):  # nothing was sent, and the message says why
        raise
    except (LoadError, InternalError) as e:  # each its own class (crates/py/src/errors.rs), said of the load
        raise type(e)(f"load: {e}") from None
    summary = json.loads(outcome["summary"])
    summary["others_share"] = cpu_watch.others_share()
    return summary


def schedule_times(schedule: dict, most: int = 1_000_000) -> List[float]:
    """The first `most` intended start times (seconds) a schedule paces: what
    `measure` would send, computed without sending anything."""
    try:
        return _native.load_schedule(json.dumps(schedule, allow_nan=False), most)
    except (LoadInputError, InternalError) as e:
        raise type(e)(f"load: {e}") from None
