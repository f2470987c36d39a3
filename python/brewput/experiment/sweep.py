"""Swept params: the three spellings of a sweep's values and their cartesian product.

`--sweep cpus=1..6` (whole numbers, both ends included), `--sweep cpus=1,2,4,8`
(a list), `--sweep load=0.1:0.9:0.1` (start:stop:step, both ends included);
several sweeps form every combination, the first sweep varying slowest.
"""
from __future__ import annotations

import math
from collections.abc import Sequence as SequenceABC
from decimal import Decimal, InvalidOperation
from typing import Dict, Iterable, List, Mapping, Sequence, Union

from ..errors import BrewputError

Number = Union[int, float]
Sweep = Dict[str, List[Number]]
MAX_VALUES = 10_000  # of one swept param: beyond this it is a typo
MAX_SCENARIOS = 1_000_000
SPELLINGS = "a..b (whole numbers), a,b,c or start:stop:step"


class SweepError(ValueError):
    """What is wrong with a sweep's values, in our words."""


def number(text: str) -> Number:
    """`4` -> 4, `0.5` -> 0.5, `1e3` -> 1000.0; ValueError otherwise."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return int(value) if value.is_integer() and not any(c in text for c in ".eE") else value


def parse_values(text: str) -> List[Number]:
    """A sweep's values from one of its spellings; SweepError says what is wrong."""
    text = text.strip()
    try:
        if ".." in text:
            return _whole_range(*text.split("..", 1))
        if ":" in text:
            parts = text.split(":")
            if len(parts) != 3:
                raise SweepError("expected start:stop:step")
            return _stepped_range(*parts)
        values = [number(part) for part in text.split(",")]
    except SweepError:
        raise
    except (ValueError, InvalidOperation):
        raise SweepError(f"expected numbers as {SPELLINGS}, got {text!r}") from None
    return _checked(values)


def _whole_range(first: str, last: str) -> List[Number]:
    low, high = number(first), number(last)
    if not (isinstance(low, int) and isinstance(high, int)):
        raise SweepError("a..b takes whole numbers (start:stop:step takes fractions)")
    if high < low:
        raise SweepError(f"{low}..{high} is empty: the end is below the start")
    if high - low >= MAX_VALUES:
        raise SweepError(f"more than {MAX_VALUES:,} values")
    return list(range(low, high + 1))


def _stepped_range(start: str, stop: str, step: str) -> List[Number]:
    # Decimal arithmetic, so that 0.1:0.9:0.1 gives 0.3 and not 0.30000000000000004.
    first, last, by = (Decimal(part.strip()) for part in (start, stop, step))
    if not all(d.is_finite() for d in (first, last, by)):
        raise SweepError("start:stop:step takes finite numbers")
    if by == 0 or (last - first) * by < 0:
        raise SweepError(f"step {by} never goes from {first} to {last}")
    count = int((last - first) / by) + 1
    if count > MAX_VALUES:
        raise SweepError(f"more than {MAX_VALUES:,} values")
    whole = all(part.strip().lstrip("+-").isdigit() for part in (start, stop, step))
    return [int(first + i * by) if whole else float(first + i * by) for i in range(count)]


def _checked(values: List[Number]) -> List[Number]:
    if len(values) > MAX_VALUES:
        raise SweepError(f"more than {MAX_VALUES:,} values")
    if len(set(values)) != len(values):
        raise SweepError("a value is listed twice")
    return values


def parse_sweeps(options: Iterable[str], option: str = "--sweep", verb: str = "swept") -> Sweep:
    """`--sweep name=values` options (or another `option` of that form, whose
    values are `verb`) as {name: values}, in the order given."""
    sweep: Sweep = {}
    for given in options:
        name, sep, text = given.partition("=")
        name = name.strip()
        if not (sep and name):
            raise BrewputError(f"{option} {given}: expected name=values, e.g. {option} cpus=1..6")
        if name in sweep:
            raise BrewputError(f"{option} {given}: {name} is {verb} twice")
        try:
            sweep[name] = parse_values(text)
        except ValueError as e:
            raise BrewputError(f"{option} {given}: {e}") from None
    check_size(sweep, option)
    return sweep


def check_size(sweep: Mapping[str, Sequence[Number]], where: str, times: int = 1) -> None:
    """Refuses a product of more than MAX_SCENARIOS scenarios (`times` the combinations)."""
    count = math.prod(len(values) for values in sweep.values()) * times
    if count > MAX_SCENARIOS:
        raise BrewputError(f"{where}: {count:,} scenarios is more than the {MAX_SCENARIOS:,} allowed")


class Combinations(SequenceABC):
    """Every combination of the swept values, the first param varying slowest,
    each made from its index when asked, so that a million cost no memory; one
    combination, {}, for no sweep (the model's own params)."""

    def __init__(self, sweep: Mapping[str, Sequence[Number]]):
        self._names = list(sweep)
        self._values = [list(sweep[name]) for name in self._names]
        self._count = math.prod(len(values) for values in self._values)

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        picked: Dict[str, Number] = {}
        for name, values in zip(reversed(self._names), reversed(self._values)):
            index, digit = divmod(index, len(values))
            picked[name] = values[digit]
        return {name: picked[name] for name in self._names}


def sweep_values(values: Union[str, Number, Sequence[Number]]) -> List[Number]:
    """A study file's sweep entry: a spelling as a string, a single number or a list."""
    if isinstance(values, bool):
        raise SweepError(f"expected numbers as {SPELLINGS} or a list, got {values}")
    if isinstance(values, (int, float)) and math.isfinite(values):
        return _checked([values])
    if isinstance(values, str):
        return parse_values(values)
    if isinstance(values, (list, tuple)) and values and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        return _checked(list(values))
    raise SweepError(f"expected numbers as {SPELLINGS} or a non-empty list of numbers, got {values!r}")


__all__ = ["Sweep", "Combinations", "check_size", "parse_sweeps", "parse_values", "sweep_values", "number"]
