"""The lab's options as people type them, and the one home of their bounds.

Times (`2s`, `1ms`, `250us`), rates, whole numbers and ranges of them (`1..6`,
`1,2,4`) and implementation names. Every problem is one BrewputError naming the
option and what was given: `--grind 1e30ms: expected 0 or a time from 1us to 10s`.

The bounds live here, on the Python side, and nowhere else: this is where the
option a person typed (and its text) is known, and both ways in, the command
line and the Python API (lab/coffee.py, lab/pool.py), check through `LIMITS`
before anything is measured. The Rust lab converts what it is handed with
checked forms only (an error, never a panic), without a second set of rules.
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

from ..errors import BrewputError
from ..units import SECONDS

# Milliseconds per unit, from the one unit table, and the spellings people also type.
_UNITS_MS = {**{unit: s * 1e3 for unit, s in SECONDS.items()}, "µs": 1e-3, "m": 60e3}
_TIME = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]+)\s*$")

IMPLEMENTATIONS = ("ideal", "locking", "finelocking", "parsteam", "multi-2", "multi-4",
                   "linearpipe-0", "linearpipe-1", "linearpipe-10", "splitpipe-1", "multipipe-2")
_NUMBERED = {"multi-": 1, "linearpipe-": 0, "splitpipe-": 0, "multipipe-": 1}
_PLAIN = ("ideal", "locking", "finelocking", "parsteam")
MAX_NUMBERED = 1024

Number = Union[int, float]


@dataclass(frozen=True)
class Limit:
    """What one option accepts: a time in ms, a rate per second or a whole
    number, from `low` to `high`; times that can be off also take 0."""
    option: str
    kind: str  # "time" | "rate" | "count"
    low: Number
    high: Number
    off: bool = False

    def expected(self) -> str:
        if self.kind == "time":
            return f"expected {'0 or ' if self.off else ''}a time from {_time_text(self.low)} to {_time_text(self.high)}"
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
            raise BrewputError(f"{self.option} {shown}: {self.expected()}")
        return value


SECOND_MS, HOUR_MS = 1e3, 3600e3
# One stage burns at least 1 us (the burn loop's resolution) unless it is 0.
_STAGE = dict(kind="time", low=1e-3, high=10 * SECOND_MS, off=True)
LIMITS = {limit.option: limit for limit in (
    Limit("--grind", **_STAGE), Limit("--press", **_STAGE), Limit("--steam", **_STAGE), Limit("--latte", **_STAGE),
    Limit("--jitter", **_STAGE),  # and at most twice the shortest stage (CoffeeSettings.check)
    Limit("--dur", "time", 1.0, HOUR_MS),
    Limit("--warmup", "time", 1e-3, HOUR_MS, off=True),
    Limit("--stall", "time", 1e-3, 60 * SECOND_MS, off=True),
    Limit("--work", "time", 1e-3, 10 * SECOND_MS),
    Limit("--rate", "rate", 1e-3, 1e7),
    Limit("--repetitions", "count", 1, 1000),
    # The request queue is allocated whole when a repetition starts.
    Limit("--queue", "count", 0, 1_000_000),
    Limit("--par", "count", 1, 4096),
    Limit("--cpus", "count", 1, 4096),
    Limit("--tasks", "count", 1, 10_000),
    Limit("--threads", "count", 1, 10_000),
    Limit("--nice", "count", -20, 19),
    Limit("--stall-every", "count", 1, 10**9),
    Limit("seed", "count", 0, 2**64 - 1),  # the API's only: the command line keeps seed 1
)}


def _number_text(x: Number) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _time_text(ms: float) -> str:
    """A bound in the largest unit that keeps it whole: 1e-3 -> 1us, 3.6e6 -> 1h."""
    for unit in ("h", "min", "s", "ms", "us", "ns"):
        value = ms / _UNITS_MS[unit]
        if value >= 1 and abs(value - round(value)) < 1e-9:
            return f"{round(value)}{unit}"
    return f"{ms:g}ms"


def time_ms(option: str, text: str) -> float:
    """`2s` -> 2000.0 (milliseconds), within the option's bounds."""
    match = _TIME.match(str(text))
    if not match or match.group(2) not in _UNITS_MS:
        raise BrewputError(f"{option} {text}: expected a time with a unit, e.g. 2s, 1ms, 250us")
    return LIMITS[option].check(float(match.group(1)) * _UNITS_MS[match.group(2)], shown=str(text))


def rate_per_s(option: str, text: str) -> float:
    """`150` -> 150.0 (per second), within the option's bounds."""
    try:
        value = float(str(text).strip())
    except ValueError:
        raise BrewputError(f"{option} {text}: {LIMITS[option].expected()}") from None
    return LIMITS[option].check(value, shown=str(text))


def whole_number(option: str, text: str) -> int:
    """`4` -> 4, within the option's bounds."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise BrewputError(f"{option} {text}: {LIMITS[option].expected()}") from None
    return LIMITS[option].check(value, shown=str(text))


def whole_numbers(option: str, text: str) -> List[int]:
    """`1..6` -> [1, ..., 6]; `1,2,4` -> [1, 2, 4]; `2` -> [2]; each within the
    option's bounds (checked before a range is made, so `1..10**12` costs nothing)."""
    limit = LIMITS[option]
    values: List[int] = []
    for part in str(text).split(","):
        first, sep, last = part.strip().partition("..")
        try:
            ends = [int(first)] + ([int(last)] if sep else [])
        except ValueError:
            raise BrewputError(f"{option} {text}: expected whole numbers like 2, 1..6 or 1,2,4") from None
        for end in ends:
            if not limit.low <= end <= limit.high:
                raise BrewputError(f"{option} {text}: expected whole numbers from {_number_text(limit.low)} "
                                   f"to {_number_text(limit.high)}")
        if sep and ends[1] < ends[0]:
            raise BrewputError(f"{option} {text}: a range runs upwards, e.g. 1..6")
        values += list(range(ends[0], ends[-1] + 1))
    return list(dict.fromkeys(values))


def implementations(text: str) -> List[str]:
    """`all` or a comma-separated list of names, each checked."""
    if text.strip() == "all":
        return list(IMPLEMENTATIONS)
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise BrewputError(f"--impl {text}: expected `all` or names like ideal,locking,multi-2")
    for name in names:
        check_implementation(name)
    return list(dict.fromkeys(names))


def check_implementation(name: str) -> None:
    if name in _PLAIN or numbered(name) is not None:
        return
    raise BrewputError(f"--impl {name}: unknown implementation (expected all or any of "
                       f"{', '.join(_PLAIN)}, multi-N, linearpipe-N, splitpipe-N, multipipe-N)")


def numbered(name: str) -> Optional[Tuple[str, int]]:
    """`multi-4` -> ("multi-", 4); None for names without a valid number."""
    for prefix, least in _NUMBERED.items():
        if name.startswith(prefix):
            rest = name[len(prefix):]
            if rest.isdigit() and rest.isascii() and least <= int(rest) <= MAX_NUMBERED:
                return prefix, int(rest)
            raise BrewputError(f"--impl {name}: expected {prefix}N with N a whole number from {least} "
                               f"to {MAX_NUMBERED}")
    return None


def machine_cpus() -> int:
    """The CPUs this process may run on (what the lab can confine itself to)."""
    return len(os.sched_getaffinity(0))


def capped_cpus(asked: List[int]) -> Tuple[List[int], Optional[str]]:
    """`asked` with every count above the machine's lowered to it (duplicates
    dropped), and the warning to print when any was."""
    for k in asked:
        LIMITS["--cpus"].check(k)
    have = machine_cpus()
    capped = list(dict.fromkeys(min(k, have) for k in asked))
    over = [k for k in asked if k > have]
    if not over:
        return capped, None
    return capped, (f"--cpus {','.join(map(str, over))}: this machine lets brewput use {have} "
                    f"CPU{'s' if have != 1 else ''}; measuring at {have} instead")
