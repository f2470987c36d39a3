"""`brewput load` and `brewput serve`: a real service measured under open-loop
load, honestly, and the M/G/c demo server to measure.

The Rust crate brewput-load paces the schedule, carries the requests and keeps
three HdrHistograms; this package checks the options, runs it with a live view
and Ctrl-C, turns what it measured into the results schema (`engine: "load"`)
and judges the thresholds.

It is `loadtest`, not `load`: `brewput.load` is the public model loader, and a
subpackage of that name would replace it once imported.
"""
from importlib import import_module

# Each name's module, imported when the name is first used: the command line
# reads the settings (loadtest/settings.py) at start-up and pays for no run.
_HOMES = {"measure": "run", "schedule_times": "run", "Threshold": "thresholds", "judge": "thresholds",
          "parse_threshold": "thresholds"}
__all__ = list(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOMES[name]}", __name__), name)
