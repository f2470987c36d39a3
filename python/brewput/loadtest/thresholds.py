"""Thresholds as exit codes: `p99<250ms`, `mean<=20ms`, `lag_p99<10ms`,
`service_max<1s`, `error_rate<1%`, `achieved_rate>=0.95*target`; any
percentile (`p975<300ms`, `service_p80<50ms`: percentiles.py names them) and a
service level, the share answered within a time (`P(response<=250ms)>=99%`,
`P(service<=50ms)>=0.9`), both read off the run's whole histogram.

A threshold is parsed before anything is sent (an unknown metric or a value
that does not parse is a usage error, exit 2) and judged on the results; a
figure that was not measured (no answers) breaks its threshold rather than
passing it silently.
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from .. import _native
from ..errors import OptionError
from ..percentiles import percent_of, share_at, union
from ..units import split_time, time_in
from .options import seconds
from .results import GENERATOR, SHOWN

_OPERATORS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
_FORM = re.compile(r"^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*(.+?)\s*$")
_LEVEL = re.compile(r"^\s*P\(\s*(response|service|lag)\s*<=\s*([^)]*?)\s*\)\s*(<=|>=|<|>)\s*(.+?)\s*$")
_TIMES = {"": "response_time", "service_": "service_time", "lag_": "lag"}
_STATISTICS = ("mean", *(name for name, _ in _native.PERCENTILES), "max")
TIME_METRICS = tuple(prefix + s for prefix in _TIMES for s in _STATISTICS)
METRICS = TIME_METRICS + ("error_rate", "achieved_rate")
_KNOWN = ", ".join(METRICS) + "; pNN, service_pNN, lag_pNN any percentile (p975: 97.5 %); P(response<=T)>=SHARE"


def _split(metric: str) -> tuple:
    """(prefix, statistic): `service_p80` -> ("service_", "p80")."""
    prefix = next((p for p in _TIMES if p and metric.startswith(p)), "")
    return prefix, metric[len(prefix):]


def _is_time(metric: str) -> bool:
    return metric in TIME_METRICS or percent_of(_split(metric)[1]) is not None


@dataclass(frozen=True)
class Threshold:
    text: str
    metric: str
    op: str
    value: float  # seconds, a fraction, or requests per second
    of_target: bool = False  # achieved_rate's value is a fraction of the target rate
    unit: str = ""  # a time's unit as written (`1s`: s), which its figure is shown in
    at: Optional[float] = None  # a service level's time (seconds): the figure is the share at or below it

    def figure(self, results: dict) -> Optional[float]:
        """The measured figure it judges (seconds, a fraction or per second)."""
        load = results["load"]
        if self.metric == "error_rate":
            return load["error_rate"]
        if self.metric == "achieved_rate":
            return load["achieved_rate"]
        prefix, statistic = _split(self.metric)
        block = results["classes"]["request"][_TIMES[prefix]]
        if self.at is not None:
            return share_at(block, time_in(self.at, GENERATOR, SHOWN))[0]
        value = block.get(statistic)
        return time_in(value, SHOWN, GENERATOR)

    def asked(self) -> dict:
        """What the generator must be asked beyond its fixed list (crates/measure/src/asked.rs)."""
        statistic = _split(self.metric)[1]
        extra = self.at is None and statistic not in _STATISTICS and percent_of(statistic) is not None
        return {"quantiles": [percent_of(statistic)] if extra else [],
                "within_seconds": [self.at] if self.at is not None else []}

    def bound(self, results: dict) -> float:
        return self.value * results["load"]["target_rate"] if self.of_target else self.value

    def holds(self, results: dict) -> bool:
        figure = self.figure(results)
        return figure is not None and _OPERATORS[self.op](figure, self.bound(results))


def parse_threshold(text: str) -> Threshold:
    level = _LEVEL.match(str(text))
    if level:
        which, time, op, value = level.groups()
        prefix = "" if which == "response" else f"{which}_"
        return Threshold(text, f"{prefix}within", op, _fraction(text, value),
                         at=seconds("threshold", time, zero=True), unit="%" if value.endswith("%") else "")
    match = _FORM.match(str(text))
    if not match:
        raise OptionError("threshold", "expected METRIC<VALUE, e.g. p99<250ms, P(response<=250ms)>=99%, "
                                       "error_rate<1%, achieved_rate>=0.95*target", value=str(text))
    metric, op, value = match.groups()
    if metric not in METRICS and not _is_time(metric):
        raise OptionError("threshold", f"unknown metric {metric!r} (known: {_KNOWN})", value=str(text))
    if _is_time(metric):
        return Threshold(text, metric, op, seconds("threshold", value, zero=True), unit=split_time(value)[1])
    if metric == "error_rate":
        return Threshold(text, metric, op, _fraction(text, value))
    factor, star, target = value.partition("*")
    if star and target.strip() == "target":
        return Threshold(text, metric, op, _number(text, factor), of_target=True)
    return Threshold(text, metric, op, _number(text, value))


def _number(text: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number >= 0 or number == float("inf"):
        raise OptionError("threshold", "expected a rate per second or F*target, e.g. 0.95*target", value=text)
    return number


def _fraction(text: str, value: str) -> float:
    percent = value.endswith("%")
    try:
        number = float(value.rstrip("%")) / (100 if percent else 1)
    except ValueError:
        number = float("nan")
    if not 0 <= number <= 1:
        raise OptionError("threshold", "expected a fraction from 0 to 1 or a percentage, e.g. 1%", value=text)
    return number


def asked_by(thresholds: List[Threshold]) -> dict:
    """What the generator must be asked for `thresholds` (its settings' `asked`), empty when nothing."""
    extra = [threshold.asked() for threshold in thresholds]
    quantiles, within = union(e["quantiles"] for e in extra), union(e["within_seconds"] for e in extra)
    return {"quantiles": quantiles, "within_seconds": within} if quantiles or within else {}


def judge(thresholds: List[Threshold], results: dict) -> List[Tuple[Threshold, Optional[float], bool]]:
    """Each threshold with the figure it judged (None: not measured) and whether it
    held, also kept in the results (`load.thresholds`)."""
    judged = [(t, t.figure(results), t.holds(results)) for t in thresholds]
    results["load"]["thresholds"] = [{"threshold": t.text, "figure": f, "held": ok} for t, f, ok in judged]
    return judged
