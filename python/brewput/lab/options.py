"""The lab's options as people type them: times (`2s`, `1ms`, `250us`), ranges
of whole numbers (`1..6`, `1,2,4`) and implementation names. Every problem is
one BrewputError naming the option."""
from __future__ import annotations

import os
import re
from typing import List, Optional, Tuple

from ..errors import BrewputError

_UNITS_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "min": 60e3}
_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]+)\s*$")

IMPLEMENTATIONS = ("ideal", "locking", "finelocking", "parsteam", "multi-2", "multi-4",
                   "linearpipe-0", "linearpipe-1", "linearpipe-10", "splitpipe-1", "multipipe-2")
_NUMBERED = {"multi-": 1, "linearpipe-": 0, "splitpipe-": 0, "multipipe-": 1}
_PLAIN = ("ideal", "locking", "finelocking", "parsteam")


def time_ms(option: str, text: str, *, allow_zero: bool = False) -> float:
    """`2s` -> 2000.0 (milliseconds)."""
    match = _TIME.match(str(text))
    if not match or match.group(2) not in _UNITS_MS:
        raise BrewputError(f"{option} {text}: expected a time with a unit, e.g. 2s, 1ms, 250us")
    value = float(match.group(1)) * _UNITS_MS[match.group(2)]
    if value < 0 or (value == 0 and not allow_zero):
        raise BrewputError(f"{option} {text}: expected a {'non-negative' if allow_zero else 'positive'} time")
    return value


def whole_numbers(option: str, text: str, low: int = 1, high: int = 4096) -> List[int]:
    """`1..6` -> [1, ..., 6]; `1,2,4` -> [1, 2, 4]; `2` -> [2]."""
    values: List[int] = []
    try:
        for part in str(text).split(","):
            first, sep, last = part.strip().partition("..")
            values += list(range(int(first), int(last) + 1)) if sep else [int(first)]
    except ValueError:
        raise BrewputError(f"{option} {text}: expected whole numbers like 2, 1..6 or 1,2,4") from None
    if not values or any(not low <= v <= high for v in values):
        raise BrewputError(f"{option} {text}: expected whole numbers from {low} to {high}")
    return list(dict.fromkeys(values))


def implementations(text: str) -> List[str]:
    """`all` or a comma-separated list of names, each checked."""
    if text.strip() == "all":
        return list(IMPLEMENTATIONS)
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise BrewputError("--impl: expected `all` or names like ideal,locking,multi-2")
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
            if rest.isdigit() and least <= int(rest) <= 1024:
                return prefix, int(rest)
            raise BrewputError(f"--impl {name}: expected {prefix}N with N a whole number from {least} to 1024")
    return None


def machine_cpus() -> int:
    """The CPUs this process may run on (what the lab can confine itself to)."""
    return len(os.sched_getaffinity(0))


def capped_cpus(asked: List[int]) -> Tuple[List[int], Optional[str]]:
    """`asked` with every count above the machine's lowered to it (duplicates
    dropped), and the warning to print when any was."""
    have = machine_cpus()
    capped = list(dict.fromkeys(min(k, have) for k in asked))
    over = [k for k in asked if k > have]
    if not over:
        return capped, None
    return capped, (f"--cpus {','.join(map(str, over))}: this machine lets brewput use {have} "
                    f"CPU{'s' if have != 1 else ''}; measuring at {have} instead")
