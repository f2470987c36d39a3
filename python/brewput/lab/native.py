"""Calling the Rust lab: cancellable by Ctrl-C (engine/cancellable.py), its
errors as one-line BrewputErrors. The lab is built only on Linux (it pins
threads to CPUs with sched_setaffinity): elsewhere the binding has no lab and
`require_lab` says so in one line."""
from __future__ import annotations

import json
import platform

from .. import _native
from ..engine.cancellable import run_controlled
from ..errors import BrewputError, InternalError, LabError


def require_lab() -> None:
    """Refuses, before anything else, to run the lab where it was not built."""
    if not hasattr(_native, "lab_coffee"):
        raise BrewputError(f"brewput lab: needs Linux (it pins threads to CPUs with sched_setaffinity); "
                           f"this is {platform.system() or 'an unknown system'}, where simulate, solve and "
                           "compare work but the lab does not")


def call(function_name: str, run: dict) -> dict:
    """Runs `_native.<function_name>` on `run` (a dict) and returns its report."""
    require_lab()
    function = getattr(_native, function_name)
    try:
        report = run_controlled("lab", lambda control: function(json.dumps(run, allow_nan=False), control))
    except (LabError, InternalError) as e:  # each its own class (crates/py/src/errors.rs), said of the lab
        raise type(e)(f"lab: {e}") from None
    return json.loads(report)
