"""The model language for time (docs/model-language.md, "Time"; /tmp/team/TIME.md):
the `day:` block, rates that change through the day, rotas (servers per interval)
and what a server going off shift does with the job in hand.

Parsed here into plain data (`Day`, `VaryingRate`, rotas as tuples); the rate's
math (its integral, its bounds) is model/timeline.py's. A list given per interval
needs the day, so the `day:` field is checked first and leaves itself in the
walk's context for the fields that follow (`context["day"]`)."""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ..errors import FieldError
from .distributions import typed_time
from .fields import Field, ListOf, MapOf, Maybe, Strict, Value, WithContext
from .limits import MAX_SIZE, MAX_TIME, MIN_TIME
from .params import ExpressionError
from .source import UnreadableFile, read_text
from .values import boolean, count, is_number, name, show

if TYPE_CHECKING:
    from . import timeline

#: The most intervals a day may have (a year in minutes is 525,600; per-interval
#: figures are kept for each in every replication).
MAX_INTERVALS = 10_000
#: How far length / interval may be from a whole number and still be one.
WHOLE_TOLERANCE = 1e-9
#: A rate no day could mean (and the bound that keeps the engine's draws finite).
MAX_RATE = 1 / MIN_TIME

_CLOCK = re.compile(r"^([0-9]{1,2}):([0-5][0-9])$")
# A number followed by a unit of time in a curve (`24h`, `1.5min`), not part of a name.
_TIMED = re.compile(r"(?<![\w.])((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(ns|us|µs|ms|s|min|h)\b")


def _time(value: Any, context: Dict[str, Any]) -> float:
    """A time: a number in the model's time_unit, or with its unit (`15min`, `5h`)."""
    unit = context.get("time_unit", "s")
    if isinstance(value, str):
        typed = typed_time(value, unit)
        if typed is None:
            raise FieldError(f"expected a time (a number in {unit}, or with a unit like 15min), got {show(value)}")
        value = typed
    if not is_number(value) or not math.isfinite(value) or value < 0:
        raise FieldError(f"expected a time (a number in {unit}, or with a unit like 15min), got {show(value)}")
    if value > MAX_TIME:
        raise FieldError(f"{show(value)} is too long (at most {MAX_TIME:g} {unit})")
    return float(value)


_TIME_SCHEMA = {"anyOf": [{"type": "number", "minimum": 0},
                          {"type": "string", "pattern": r"^\s*[0-9.eE+-]+\s*(ns|us|µs|ms|s|min|h)\s*$"}]}
Time = WithContext(_time, schema=_TIME_SCHEMA)


def _positive_time(value: Any, context: Dict[str, Any]) -> float:
    time = _time(value, context)
    if time < MIN_TIME:
        raise FieldError(f"expected a positive time, got {show(value)}")
    return time


PositiveTime = WithContext(_positive_time, schema=_TIME_SCHEMA)


def _clock(value: Any) -> str:
    match = _CLOCK.match(value) if isinstance(value, str) else None
    if not match or int(match.group(1)) > 23:
        raise FieldError(f'expected a clock time like "06:00" (quoted), got {show(value)}')
    return value


_clock.schema = {"type": "string", "pattern": _CLOCK.pattern}  # type: ignore[attr-defined]


class Day(Strict):
    """A day: the horizon (arrivals in [0, length)), its intervals, the clock time
    at t = 0 (for labels), whether it repeats, and the jobs present at the start."""

    start = Field(Maybe(Value(_clock)), default=None)
    length = Field(PositiveTime)
    interval = Field(PositiveTime)
    repeat = Field(Value(boolean), default=False)
    at_start = Field(MapOf(Value(name), Value(count(0, MAX_SIZE))), default={})

    def _check(self) -> None:
        n = self.length / self.interval
        if abs(n - round(n)) > WHOLE_TOLERANCE * max(1.0, n):
            raise FieldError(f"the length ({self.length:g}) must be a whole number of intervals "
                             f"({self.interval:g}); it is {n:.4g}", "length")
        if round(n) > MAX_INTERVALS:
            raise FieldError(f"at most {MAX_INTERVALS:,} intervals in a day, got {round(n):,}", "interval")
        object.__setattr__(self, "intervals", int(round(n)))

    @property
    def timeline(self) -> "timeline.Day":
        """The day as model/timeline.py's Day: its edges and labels."""
        from . import timeline

        return timeline.Day(self.length, self.interval, self.start, self.repeat, dict(self.at_start), self.time_unit)


class _DayShape:
    """The `day:` field: the day, left in the walk's context for the fields that give
    a value per interval."""

    def check(self, value: Any, context: Dict) -> Day:
        context["day_given"] = True
        day = Day.check(value, context)
        object.__setattr__(day, "time_unit", context.get("time_unit", "s"))
        context["day"] = day
        return day

    def schema(self, defs: Dict[str, Any]) -> Dict[str, Any]:
        return Day.schema(defs)


DayField = _DayShape()


def _the_day(context: Dict, what: str) -> Optional[Day]:
    """The model's day, None if it was given but is itself invalid (its own error is told)."""
    day = context.get("day")
    if day is None and not context.get("day_given"):
        raise FieldError(f"{what} that changes through the day needs a day: block (its length and interval)")
    return day


def _per_interval(values: List[Any], day: Optional[Day], what: str) -> None:
    if day is not None and len(values) != day.intervals:
        raise FieldError(f"{what} must give one value per interval: {day.intervals} (the day's "
                         f"{day.length:g} / {day.interval:g}), got {len(values)}")


class PerInterval:
    """A list of `item`s, one per interval of the model's day."""

    def __init__(self, item: Any, what: str):
        self.items, self.what = ListOf(item), what

    def check(self, value: Any, context: Dict) -> Tuple[Any, ...]:
        day = _the_day(context, self.what)
        values = self.items.check(value, context)
        _per_interval(values, day, self.what)
        return tuple(values)

    def schema(self, defs: Dict[str, Any]) -> Dict[str, Any]:
        return {**self.items.schema(defs), "minItems": 1, "maxItems": MAX_INTERVALS}


@dataclass(frozen=True)
class VaryingRate:
    """A rate that changes through the day, as given: `steps` (a rate per interval,
    from a list or a CSV of counts), `linear` (through (time, rate) points, held
    beyond the first and last) or `curve` (its text, times in time_unit: model/curve.py)."""

    form: str
    rates: Tuple[float, ...] = ()
    times: Tuple[float, ...] = ()
    text: str = ""


_RATE = Value(lambda v: _rate_value(v), schema={"type": "number", "minimum": 0})


def _rate_value(value: Any) -> float:
    if not is_number(value) or not math.isfinite(value) or not 0 <= value <= MAX_RATE:
        raise FieldError(f"expected a rate from 0 to {MAX_RATE:g}, got {show(value)}")
    return float(value)


def _counts(spec: Dict[str, Any], context: Dict, day: Optional[Day]) -> VaryingRate:
    """`{counts: file.csv, column: name}`: arrivals counted per interval -> rates."""
    unknown = set(spec) - {"counts", "column"}
    if unknown:
        raise FieldError("unknown field (expected one of: counts, column)", sorted(unknown)[0])
    file = spec["counts"]
    if not isinstance(file, str) or not file.strip():
        raise FieldError(f"expected a CSV file's name, got {show(file)}", "counts")
    path = Path(file) if Path(file).is_absolute() else Path(context.get("base_dir", Path("."))) / file
    try:
        rows = list(csv.reader(io.StringIO(read_text(path))))
    except UnreadableFile as e:
        raise FieldError(f"cannot read {file}: {e}", "counts") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    header = [cell.strip() for cell in rows[0]] if rows else []
    column = spec.get("column")
    if column is None:
        if len(header) != 1:
            raise FieldError(f"{file} has {len(header)} columns ({', '.join(header)}); say which with column:",
                             "counts")
        column = header[0]
    if column not in header:
        raise FieldError(f"{file} has no column {show(column)} (columns: {', '.join(header)})", "column")
    at = header.index(column)
    counts = []
    for line, row in enumerate(rows[1:], start=2):
        cell = row[at].strip() if at < len(row) else ""
        try:
            value = float(cell)
        except ValueError:
            value = -1.0
        if not math.isfinite(value) or value < 0:
            raise FieldError(f"{file} line {line}: expected a count >= 0 in column {column}, got {cell!r}", "counts")
        counts.append(value)
    _per_interval(counts, day, f"{file}'s column {column}")
    interval = day.interval if day is not None else 1.0
    return VaryingRate("steps", rates=tuple(c / interval for c in counts))


def _linear(points: Any, context: Dict, day: Optional[Day]) -> VaryingRate:
    if not isinstance(points, (list, tuple)) or len(points) < 2:
        raise FieldError(f"expected at least two [time, rate] points, got {show(points)}", "linear")
    times, rates = [], []
    for i, point in enumerate(points):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise FieldError(f"expected [time, rate], got {show(point)}", "linear", i)
        try:
            times.append(_time(point[0], context))
            rates.append(_rate_value(point[1]))
        except FieldError as e:
            raise FieldError(str(e), "linear", i) from None
        if i and times[-1] <= times[-2]:
            raise FieldError(f"times must increase: {times[-1]:g} comes after {times[-2]:g}", "linear", i)
    if day is not None and times[-1] > day.length:
        raise FieldError(f"a point at {times[-1]:g}, after the day's end ({day.length:g})", "linear",
                         len(points) - 1)
    return VaryingRate("linear", rates=tuple(rates), times=tuple(times))


def _curve(text: Any, time_unit: str) -> str:
    """A curve's text with its times (`24h`) in time_unit, checked by model/curve.py."""
    if not isinstance(text, str) or not text.strip():
        raise FieldError(f"expected a curve in t, like \"100 + 60*sin(2*pi*t/24h)\", got {show(text)}", "curve")
    from .curve import Curve  # numpy: only a model with a curve pays for it

    plain = _TIMED.sub(lambda m: repr(typed_time(m.group(1) + m.group(2), time_unit)), text)
    try:
        Curve(plain)
    except ExpressionError as e:
        raise FieldError(str(e).replace(plain, text) + " (times like 24h are allowed too)", "curve") from None
    return plain


_FORMS = ("counts", "curve", "linear")


class RateShape:
    """A class's `rate:`: a number (constant, as always), a list (a rate per
    interval), or one of {counts: file.csv}, {curve: "..."}, {linear: [[t, r], ...]}.
    The number keeps its own check (schema.py's `Rate`, given as `constant`)."""

    def __init__(self, constant: Any):
        self.constant = constant

    def check(self, value: Any, context: Dict) -> Any:
        if isinstance(value, (list, tuple)):
            rates = PerInterval(_RATE, "a rate").check(value, context)
            return VaryingRate("steps", rates=rates)
        if not isinstance(value, dict):
            return self.constant.check(value, context)
        forms = [form for form in _FORMS if form in value]
        if len(forms) != 1:
            raise FieldError(f"expected one of {', '.join(f'{f}:' for f in _FORMS)} (a rate through the day), "
                             f"got {show(value)}")
        form = forms[0]
        day = _the_day(context, "a rate")
        if form == "counts":
            return _counts(value, context, day)
        extra = set(value) - {form}
        if extra:
            raise FieldError(f"unknown field (expected only {form}:)", sorted(extra)[0])
        if form == "linear":
            return _linear(value["linear"], context, day)
        return VaryingRate("curve", text=_curve(value["curve"], context.get("time_unit", "s")))

    def schema(self, defs: Dict[str, Any]) -> Dict[str, Any]:
        time = _TIME_SCHEMA
        return {"anyOf": [*self.constant.schema(defs)["anyOf"],
                          {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1,
                           "maxItems": MAX_INTERVALS},
                          {"type": "object", "additionalProperties": False, "required": ["counts"],
                           "properties": {"counts": {"type": "string"}, "column": {"type": "string"}}},
                          {"type": "object", "additionalProperties": False, "required": ["curve"],
                           "properties": {"curve": {"type": "string"}}},
                          {"type": "object", "additionalProperties": False, "required": ["linear"],
                           "properties": {"linear": {"type": "array", "minItems": 2, "items": {
                               "type": "array", "minItems": 2, "maxItems": 2,
                               "prefixItems": [time, {"type": "number", "minimum": 0}]}}}}]}


#: A rota: servers per interval, each a non-negative integer (0: closed then).
Rota = PerInterval(Value(count(0, MAX_SIZE)), "a rota (servers)")

def timeline_rate(rate: VaryingRate, day: Day) -> "timeline.Rate":
    """The rate as model/timeline.py's Rate (its rate, integral and bounds);
    ValueError if it is not one (a curve below 0 or not finite over the day)."""
    from . import timeline  # numpy: only a day's model pays for it

    if rate.form == "steps":
        return timeline.Steps(day.timeline.edges, rate.rates, day.repeat)
    if rate.form == "linear":
        return timeline.Linear(rate.times, rate.rates, day.length, day.repeat)
    return timeline.Curve(rate.text, day.length, day.repeat)
