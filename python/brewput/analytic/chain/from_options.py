"""The options of a solve from a given state (from_state.py), checked before anything is
built: the jobs per station, the span followed and its grid. Plain Python, so that a
refusal is one line without numpy's import."""
from __future__ import annotations

import math
import numbers
from typing import Dict, Mapping, Optional, Tuple, Union

from ...errors import OptionError

#: Steps of the grid over [0, over] unless `bins` sets their width.
DEFAULT_STEPS = 20
#: The most steps of the grid (each a row of the results).
MAX_STEPS = 10_000


def parse_state(text: str) -> Dict[str, int]:
    """`desk=12,back=3` as {station: jobs}; each station once."""
    state: Dict[str, int] = {}
    for part in text.split(","):
        name, sep, jobs = part.partition("=")
        name = name.strip()
        if not sep or not name:
            raise OptionError("from_state", "expected STATION=JOBS, comma-separated (desk=12,back=3)", value=text)
        if name in state:
            raise OptionError("from_state", f"station '{name}' given twice", value=text)
        try:
            state[name] = int(jobs.strip())
        except ValueError:
            raise OptionError("from_state", f"expected a whole number of jobs at '{name}', got {jobs.strip()!r}",
                              value=text) from None
    return checked_state(state)


def checked_state(state: Mapping[str, int]) -> Dict[str, int]:
    """The jobs per station as given to the API: whole numbers of at least 0."""
    if not isinstance(state, Mapping) or not state:
        raise OptionError("from_state", "expected jobs per station, e.g. {'desk': 12}", value=repr(state))
    shown = ",".join(f"{name}={jobs}" for name, jobs in state.items())
    for name, jobs in state.items():
        if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) and not (
                isinstance(jobs, numbers.Real) and float(jobs).is_integer()):
            raise OptionError("from_state", f"expected a whole number of jobs at '{name}', got {jobs!r}", value=shown)
        if jobs < 0:
            raise OptionError("from_state", f"expected jobs of at least 0 at '{name}', got {jobs}", value=shown)
    return {str(name): int(jobs) for name, jobs in state.items()}


def grid(over: Union[float, str, None], bins: Union[float, str, None], time_unit: str) -> Tuple[float, int]:
    """(over, steps) in the model's time unit: the span followed and how many steps of
    equal width cover it (`bins` their width, which must divide it)."""
    if over is None:
        raise OptionError("over", "how long to follow the model from the given state is needed, e.g. 1h")
    span = _time(over, "over", time_unit)
    if bins is None:
        return span, DEFAULT_STEPS
    width = _time(bins, "bins", time_unit)
    steps = span / width
    if abs(steps - round(steps)) > 1e-9 * max(1.0, steps) or round(steps) < 1:
        raise OptionError("bins", f"the span followed ({span:g} {time_unit}) must be a whole number of bins "
                                  f"({width:g} {time_unit}); it is {steps:.4g}", value=str(bins))
    if round(steps) > MAX_STEPS:
        raise OptionError("bins", f"at most {MAX_STEPS:,} bins, got {round(steps):,}", value=str(bins))
    return span, int(round(steps))


def _time(value: Union[float, str], option: str, time_unit: str) -> float:
    """A positive time: a number in the model's unit, or with a unit (15min)."""
    from ...percentiles import time_in_model

    time: Optional[float]
    if isinstance(value, bool):
        time = None
    elif isinstance(value, numbers.Real):
        time = float(value)
    else:
        time = time_in_model(str(value).strip(), time_unit)
    if time is None or not math.isfinite(time) or time <= 0:
        raise OptionError(option, f"expected a positive time, with a unit (20min, 1.5h) or in the model's unit "
                                  f"({time_unit})", value=str(value))
    return time
