"""The lab's options as people type them, and the one home of their bounds.

Times (`2s`, `1ms`, `250us`), rates, whole numbers and ranges of them (`1..6`,
`1,2,4`) and implementation names. Every problem is one OptionError naming the
field as the API spells it and what was given: `grind_ms 1e30ms: expected 0 or a
time from 1us to 10s`, which the command line words as its option (`--grind 1e30ms: ...`).

The bounds live here, on the Python side, and nowhere else: this is where the
option a person typed (and its text) is known, and both ways in, the command
line and the Python API (lab/coffee.py, lab/pool.py), check through `LIMITS`
(keyed by the API's field names) before anything is measured. The Rust lab converts what it is handed with
checked forms only (an error, never a panic), without a second set of rules.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

from ..errors import Naming, OptionError
from ..units import TYPED_SECONDS, split_time
from ..vocabulary import MAX_SEED

# Milliseconds per unit, from the one unit table, and "m" for minutes as people also type it.
_UNITS_MS = {**{unit: s * 1e3 for unit, s in TYPED_SECONDS.items()}, "m": 60e3}

IMPLEMENTATIONS = ("ideal", "locking", "finelocking", "parsteam", "multi-2", "multi-4",
                   "linearpipe-0", "linearpipe-1", "linearpipe-10", "splitpipe-1", "multipipe-2")
# What a customer's or a barista's task is (crates/lab/src/runtime): Go-like
# tasks on K processors, the first and default because it is what the talk
# measured, or a thread each.
RUNTIMES = ("tasks", "threads")
_NUMBERED = {"multi-": 1, "linearpipe-": 0, "splitpipe-": 0, "multipipe-": 1}
_PLAIN = ("ideal", "locking", "finelocking", "parsteam")
MAX_NUMBERED = 1024

Number = Union[int, float]


@dataclass(frozen=True)
class Limit:
    """What one option accepts: a time in ms, a rate per second or a whole
    number, from `low` to `high`; times that can be off also take 0."""
    field: str
    kind: str  # "time" | "rate" | "count"
    low: Number
    high: Number
    off: bool = False

    def expected(self) -> str:
        if self.kind == "time":
            return f"expected {'0 or ' if self.off else ''}a time from {time_text(self.low)} to {time_text(self.high)}"
        if self.kind == "rate":
            return f"expected a rate from {_number_text(self.low)} to {_number_text(self.high)} per second"
        return f"expected a whole number from {_number_text(self.low)} to {_number_text(self.high)}"

    def check(self, value, shown: Optional[str] = None):
        """`value` if it is within bounds, else the error; `shown` is how the
        user wrote it (default: the value, with its unit)."""
        if shown is None:
            shown = f"{value:g}ms" if self.kind == "time" and isinstance(value, (int, float)) else str(value)
        if self.kind == "count":
            ok = isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high
        else:
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                  and (self.low <= value <= self.high or (self.off and value == 0)))
        if not ok:
            raise OptionError(self.field, self.expected(), value=shown)
        return value


SECOND_MS, HOUR_MS = 1e3, 3600e3
# One stage burns at least 1 us (the burn loop's resolution) unless it is 0.
_STAGE = dict(kind="time", low=1e-3, high=10 * SECOND_MS, off=True)
LIMITS = {limit.field: limit for limit in (
    Limit("grind_ms", **_STAGE), Limit("press_ms", **_STAGE), Limit("steam_ms", **_STAGE),
    Limit("latte_ms", **_STAGE),
    Limit("jitter_ms", **_STAGE),  # and at most twice the shortest of grind, press, steam (CoffeeSettings.check)
    Limit("duration_ms", "time", 1.0, HOUR_MS),
    Limit("warmup_ms", "time", 1e-3, HOUR_MS, off=True),
    Limit("stall_ms", "time", 1e-3, 60 * SECOND_MS, off=True),
    Limit("work_ms", "time", 1e-3, 10 * SECOND_MS),
    Limit("rate_per_s", "rate", 1e-3, 1e7),
    Limit("repetitions", "count", 1, 1000),
    # The request queue is allocated whole when a repetition starts.
    Limit("queue", "count", 0, 1_000_000),
    Limit("par", "count", 1, 4096),
    Limit("cpus", "count", 1, 4096),
    Limit("tasks", "count", 1, 10_000),
    Limit("threads", "count", 1, 10_000),
    Limit("nice", "count", -20, 19),
    Limit("stall_every", "count", 1, 10**9),
    Limit("seed", "count", 0, MAX_SEED),  # the API's only: the command line keeps seed 1
)}


def _number_text(x: Number) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def time_text(ms: float) -> str:
    """A bound in the largest unit that keeps it whole: 1e-3 -> 1us, 3.6e6 -> 1h."""
    for unit in ("h", "min", "s", "ms", "us", "ns"):
        value = ms / _UNITS_MS[unit]
        if value >= 1 and abs(value - round(value)) < 1e-9:
            return f"{round(value)}{unit}"
    return f"{ms:g}ms"


def time_ms(field: str, text: str) -> float:
    """`2s` -> 2000.0 (milliseconds), within the field's bounds."""
    typed = split_time(text)
    if typed is None or typed[1] not in _UNITS_MS:
        raise OptionError(field, "expected a time with a unit, e.g. 2s, 1ms, 250us", value=str(text))
    return LIMITS[field].check(typed[0] * _UNITS_MS[typed[1]], shown=str(text))


def rate_per_s(field: str, text: str) -> float:
    """`150` -> 150.0 (per second), within the field's bounds."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise OptionError(field, LIMITS[field].expected(), value=str(text)) from None
    return LIMITS[field].check(value, shown=str(text))


def whole_number(field: str, text: str) -> int:
    """`4` -> 4, within the field's bounds."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise OptionError(field, LIMITS[field].expected(), value=str(text)) from None
    return LIMITS[field].check(value, shown=str(text))


def whole_numbers(field: str, text: str) -> List[int]:
    """`1..6` -> [1, ..., 6]; `1,2,4` -> [1, 2, 4]; `2` -> [2]; each within the
    field's bounds (checked before a range is made, so `1..10**12` costs nothing)."""
    limit = LIMITS[field]
    values: List[int] = []
    for part in str(text).split(","):
        first, sep, last = part.strip().partition("..")
        try:
            ends = [int(first)] + ([int(last)] if sep else [])
        except ValueError:
            raise OptionError(field, "expected whole numbers like 2, 1..6 or 1,2,4", value=str(text)) from None
        for end in ends:
            if not limit.low <= end <= limit.high:
                raise OptionError(field, f"expected whole numbers from {_number_text(limit.low)} "
                                         f"to {_number_text(limit.high)}", value=str(text))
        if sep and ends[1] < ends[0]:
            raise OptionError(field, "a range runs upwards, e.g. 1..6", value=str(text))
        values += list(range(ends[0], ends[-1] + 1))
    return list(dict.fromkeys(values))


def implementations(text: str) -> List[str]:
    """`all` or a comma-separated list of names, each checked."""
    if text.strip() == "all":
        return list(IMPLEMENTATIONS)
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise OptionError("implementations", "expected `all` or names like ideal,locking,multi-2", value=text)
    for name in names:
        check_implementation(name, "implementations")
    return list(dict.fromkeys(names))


def check_implementation(name: str, field: str = "implementation") -> None:
    """Refuses an unknown `name`, naming the API's `field` that gave it."""
    if name in _PLAIN or numbered(name, field) is not None:
        return
    raise OptionError(field, f"unknown implementation (expected all or any of {', '.join(_PLAIN)}, "
                             "multi-N, linearpipe-N, splitpipe-N, multipipe-N)", value=name)


def numbered(name: str, field: str = "implementation") -> Optional[Tuple[str, int]]:
    """`multi-4` -> ("multi-", 4); None for names without a valid number."""
    for prefix, least in _NUMBERED.items():
        if name.startswith(prefix):
            rest = name[len(prefix):]
            if rest.isdigit() and rest.isascii() and least <= int(rest) <= MAX_NUMBERED:
                return prefix, int(rest)
            raise OptionError(field, f"expected {prefix}N with N a whole number from {least} to {MAX_NUMBERED}",
                              value=name)
    return None


def machine_cpus() -> int:
    """The CPUs this process may run on (what the lab can confine itself to)."""
    return len(os.sched_getaffinity(0))


def capped_cpus(asked: List[int], name: Naming = str) -> Tuple[List[int], Optional[str]]:
    """`asked` with every count above the machine's lowered to it (duplicates
    dropped), and the warning to print when any was, naming the field by `name`
    (the command line's: its option)."""
    for k in asked:
        LIMITS["cpus"].check(k)
    have = machine_cpus()
    capped = list(dict.fromkeys(min(k, have) for k in asked))
    over = [k for k in asked if k > have]
    if not over:
        return capped, None
    return capped, (f"{name('cpus')} {','.join(map(str, over))}: this machine lets brewput use {have} "
                    f"CPU{'s' if have != 1 else ''}; measuring at {have} instead")
