"""Thresholds as exit codes: `p99<250ms`, `mean<=20ms`, `lag_p99<10ms`,
`service_max<1s`, `error_rate<1%`, `achieved_rate>=0.95*target`.

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
from ..units import split_time, time_in
from .options import seconds
from .results import GENERATOR, SHOWN

_OPERATORS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
_FORM = re.compile(r"^\s*([a-z0-9_]+)\s*(<=|>=|<|>)\s*(.+?)\s*$")
_TIMES = {"": "response_time", "service_": "service_time", "lag_": "lag"}
_STATISTICS = ("mean", *(name for name, _ in _native.PERCENTILES), "max")
TIME_METRICS = tuple(prefix + s for prefix in _TIMES for s in _STATISTICS)
METRICS = TIME_METRICS + ("error_rate", "achieved_rate")


@dataclass(frozen=True)
class Threshold:
    text: str
    metric: str
    op: str
    value: float  # seconds, a fraction, or requests per second
    of_target: bool = False  # achieved_rate's value is a fraction of the target rate
    unit: str = ""  # a time's unit as written (`1s`: s), which its figure is shown in

    def figure(self, results: dict) -> Optional[float]:
        """The measured figure it judges (seconds, a fraction or per second)."""
        load = results["load"]
        if self.metric == "error_rate":
            return load["error_rate"]
        if self.metric == "achieved_rate":
            return load["achieved_rate"]
        prefix, _, statistic = self.metric.rpartition("_") if "_" in self.metric else ("", "", self.metric)
        block = results["classes"]["request"][_TIMES[prefix + "_" if prefix else ""]]
        value = block.get(statistic)
        return time_in(value, SHOWN, GENERATOR)

    def bound(self, results: dict) -> float:
        return self.value * results["load"]["target_rate"] if self.of_target else self.value

    def holds(self, results: dict) -> bool:
        figure = self.figure(results)
        return figure is not None and _OPERATORS[self.op](figure, self.bound(results))


def parse_threshold(text: str) -> Threshold:
    match = _FORM.match(str(text))
    if not match:
        raise OptionError("threshold", "expected METRIC<VALUE, e.g. p99<250ms, error_rate<1%, "
                                       "achieved_rate>=0.95*target", value=str(text))
    metric, op, value = match.groups()
    if metric not in METRICS:
        raise OptionError("threshold", f"unknown metric {metric!r} (known: {', '.join(METRICS)})", value=str(text))
    if metric in TIME_METRICS:
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


def judge(thresholds: List[Threshold], results: dict) -> List[Tuple[Threshold, Optional[float], bool]]:
    """Each threshold with the figure it judged (None: not measured) and whether it
    held, also kept in the results (`load.thresholds`)."""
    judged = [(t, t.figure(results), t.holds(results)) for t in thresholds]
    results["load"]["thresholds"] = [{"threshold": t.text, "figure": f, "held": ok} for t, f, ok in judged]
    return judged
