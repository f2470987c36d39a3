"""Time units: the one table of them, and the units figures are shown in.

A model counts time in its `time_unit`; results keep it. What people read shows
times in that unit and throughputs per second when the unit is a second or
shorter (the talk's lattes per second, not per millisecond), else per that unit
(calls per minute, not per second, for a helpdesk that counts in minutes).
"""
from __future__ import annotations

import re
from typing import Dict, NamedTuple, Optional, Tuple

SECONDS: Dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
TIME_UNITS = tuple(SECONDS)
#: The units a time typed as an option may use: the table's, and µs as people also type it.
TYPED_SECONDS: Dict[str, float] = {**SECONDS, "µs": 1e-6}

#: A number as an option gives it (sign, decimals, exponent).
NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_TYPED_TIME = re.compile(rf"^\s*({NUMBER})\s*([a-zµ]+)\s*$")


def split_time(text: str) -> Optional[Tuple[float, str]]:
    """`250ms` -> (250.0, "ms"): a typed time's number and unit as written (the
    caller says which units it accepts), or None when it is not a number and a word."""
    match = _TYPED_TIME.match(str(text))
    return (float(match.group(1)), match.group(2)) if match else None
WORDS = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second", "min": "minute",
         "h": "hour"}


def rate_unit(time_unit: str) -> str:
    """The unit throughputs of a model in `time_unit` are shown per."""
    return "s" if SECONDS[time_unit] <= 1.0 else time_unit


def time_factor(from_unit: str, to_unit: str) -> float:
    """Multiplies a time in from_unit into to_unit."""
    return SECONDS[from_unit] / SECONDS[to_unit]


def rate_factor(from_unit: str, to_unit: str) -> float:
    """Multiplies a throughput per from_unit into one per to_unit."""
    return SECONDS[to_unit] / SECONDS[from_unit]


def time_in(value: Optional[float], from_unit: str, to_unit: str) -> Optional[float]:
    """A time in from_unit as one in to_unit, rounded once: multiplied by the
    whole number of to_units in a from_unit, or divided by the whole number of
    from_units in a to_unit (any two units of the table are such a pair), so
    that 1500 us is 1.5 ms exactly, as 1500 / 1e3 is. None (nothing measured) stays None."""
    if value is None:
        return None
    ratio = SECONDS[from_unit] / SECONDS[to_unit]
    return value * round(ratio) if ratio >= 1 else value / round(1 / ratio)


def rate_in(value: Optional[float], from_unit: str, to_unit: str) -> Optional[float]:
    """A throughput per from_unit as one per to_unit, rounded once (as `time_in`)."""
    return time_in(value, to_unit, from_unit)


class Display(NamedTuple):
    """How a record's figures are shown: times in `time`, throughputs per `rate`."""
    time: str
    rate: str

    @classmethod
    def of(cls, time_unit: str) -> "Display":
        return cls(time_unit, rate_unit(time_unit))

    @property
    def per(self) -> str:
        """`per second`, `per minute`: the words of a throughput header."""
        return f"per {WORDS[self.rate]}"

    def time_from(self, unit: str) -> float:
        return time_factor(unit, self.time)

    def rate_from(self, unit: str) -> float:
        return rate_factor(unit, self.rate)
