"""`brewput load` and `brewput serve`: a real service measured under open-loop
load, honestly, and the M/G/c demo server to measure.

The Rust crate brewput-load paces the schedule, carries the requests and keeps
three HdrHistograms; this package checks the options, runs it with a live view
and Ctrl-C, turns what it measured into the results schema (`engine: "load"`)
and judges the thresholds.

It is `loadtest`, not `load`: `brewput.load` is the public model loader, and a
subpackage of that name would replace it once imported.
"""
from .run import measure, schedule_times
from .thresholds import Threshold, judge, parse_threshold

__all__ = ["measure", "schedule_times", "Threshold", "judge", "parse_threshold"]
