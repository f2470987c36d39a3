"""Calling the Rust lab: cancellable by Ctrl-C (engine/cancellable.py), its
errors as one-line BrewputErrors."""
from __future__ import annotations

import json

from .. import _native
from ..engine.cancellable import run_cancellable
from ..errors import BrewputError


def call(function_name: str, run: dict) -> dict:
    """Runs `_native.<function_name>` on `run` (a dict) and returns its report."""
    control = _native.LabControl()
    function = getattr(_native, function_name)
    try:
        report = run_cancellable(lambda: function(json.dumps(run), control), control.cancel)
    except ValueError as e:
        raise BrewputError(f"lab: {e}") from None
    return json.loads(report)
