"""Service-level objectives a plan must meet, as people write them:
`p95<200ms`, `mean<=2s`, `wait_p90<20s`, any percentile (`wait_p80<=20s`,
`p975<1s`: percentiles.py names them), a service level (`P(wait<=20s)>=80%`,
`P(response<=1s)>=0.95`), `utilization<85%`, `loss<1%`, `throughput>=100`,
each optionally for one class or station (`checkout.p99<1s`,
`calls.P(wait<=20s)>=80%`, `db.utilization<70%`).

An objective is parsed against the model before anything runs (an unknown
metric, class or station is a usage error) and judged on a results dict of
any engine; a figure the engine did not give breaks it rather than passing, except
where nobody arrived (an interval of a day with no arrivals): its waits and losses break
nothing, as no count of servers could give them.
"""
from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..errors import OptionError
from ..percentiles import NAMED, percent_of, share_at, union
from ..units import SECONDS, TYPED_SECONDS, split_time

_OPERATORS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
_FIGURE = re.compile(r"^\s*(?:([A-Za-z0-9_-]+)\.)?([a-z0-9_]+)\s*$")
_FORM = re.compile(r"^\s*((?:[A-Za-z0-9_-]+\.)?[a-z0-9_]+)\s*(<=|>=|<|>)\s*(.+?)\s*$")
_LEVEL = re.compile(r"^\s*(?:([A-Za-z0-9_-]+)\.)?P\(\s*(wait|response)\s*<=\s*([^)]*?)\s*\)\s*(<=|>=|<|>)\s*(.+?)\s*$")
_STATISTICS = ("mean", *(name for name, _ in NAMED))
_TIMES = {"": "response_time", "wait_": "waiting_time"}
# metric -> (where in the results, the block, the figure)
_TIME_METRICS = {f"{prefix}{s}": ("classes", block, s) for prefix, block in _TIMES.items() for s in _STATISTICS}
_SHARE_METRICS = {"utilization": ("stations", None, "utilization"), "loss": ("classes", None, "loss_probability")}
_RATE_METRICS = {"throughput": ("classes", None, "throughput")}
_WHERE = {**_TIME_METRICS, **_SHARE_METRICS, **_RATE_METRICS}
METRICS = tuple(_WHERE) + ("wait_pNN", "pNN", "P(wait<=T)", "P(response<=T)")


def _where(metric: str) -> Optional[Tuple[str, Optional[str], str]]:
    """Where a metric's figure is: a listed one, any other percentile (`wait_p80`), or a
    service level (`P(wait<=t)`, whose figure is looked up by its time)."""
    if metric in _WHERE:
        return _WHERE[metric]
    if metric in ("P(wait)", "P(response)"):
        return "classes", _TIMES["wait_" if metric == "P(wait)" else ""], "within"
    prefix = "wait_" if metric.startswith("wait_") else ""
    return ("classes", _TIMES[prefix], metric[len(prefix):]) if percent_of(metric[len(prefix):]) else None


@dataclass(frozen=True)
class Figure:
    """A figure of the results: `p95` of every class, `db.utilization` of one station."""
    scope: Optional[str]  # a class or station name; None: every class (or station) of the model
    metric: str
    #: A service level's time t, in the model's unit (`P(wait<=t)`); None for other figures.
    at: Optional[float] = None

    @property
    def kind(self) -> str:
        """time (in the model's unit), share (a fraction) or rate (per the model's unit)."""
        if self.at is not None or self.metric in _SHARE_METRICS:
            return "share"
        return "rate" if self.metric in _RATE_METRICS else "time"

    @property
    def owner(self) -> str:
        """What the figure belongs to: "classes" or "stations"."""
        return _where(self.metric)[0]

    def asked(self) -> dict:
        """What an engine must be asked for this figure beyond its fixed list (percentiles.py)."""
        if self.at is not None:
            return {"quantiles": [], "within": [self.at]}
        figure = _where(self.metric)[2]
        extra = figure.startswith("p") and figure not in _STATISTICS
        return {"quantiles": [percent_of(figure)] if extra else [], "within": []}

    def _part(self, results: dict, name: str) -> dict:
        """The dict holding the figure (and its `_ci`) for class or station `name`."""
        kind, block, _ = _where(self.metric)
        part = results[kind][name]
        return part if block is None else part.get(block) or {}

    def _found(self, results: dict, name: str) -> Tuple[Optional[float], Optional[list]]:
        part = self._part(results, name)
        if self.at is not None:
            return share_at(part, self.at)
        figure = _where(self.metric)[2]
        return part.get(figure), part.get(f"{figure}_ci")

    def figures(self, results: dict) -> List[Tuple[str, Optional[float]]]:
        """(class or station, figure) for each part the objective covers, but a class
        nobody arrived at (in an interval of a day), which has no figure to judge."""
        names = [self.scope] if self.scope is not None else list(results[_where(self.metric)[0]])
        found = []
        for name in names:
            value = self._found(results, name)[0]
            if not isinstance(value, (int, float)) and self._nobody_arrived(results, name):
                continue
            found.append((name, value if isinstance(value, (int, float)) else None))
        return found

    def _nobody_arrived(self, results: dict, name: str) -> bool:
        return self.owner == "classes" and results["classes"][name].get("arrivals") == 0

    def interval(self, results: dict, name: str) -> Optional[Tuple[float, float]]:
        """The figure's confidence interval at class or station `name`, where the engine gives one."""
        found = self._found(results, name)[1]
        return (found[0], found[1]) if found else None


@dataclass(frozen=True)
class Objective(Figure):
    """A bound on a figure: `p95<200ms`."""
    text: str = ""
    op: str = "<"
    value: float = math.inf  # in the model's time unit (times and rates), or a fraction
    #: The unit the bound was written in, which its figures are shown in: a time's
    #: (`ms`, `min`), `%` or `fraction` for a share, `/s` for a rate (typed per second).
    unit: str = ""

    def worst(self, results: dict) -> Tuple[Optional[str], Optional[float], bool]:
        """The part that holds the objective least well, its figure and whether
        every part held (a missing figure breaks it; with nobody arrived, none is judged
        and it holds)."""
        figures = self.figures(results)
        missing = [name for name, value in figures if value is None]
        if missing:
            return missing[0], None, False
        if not figures:
            return None, None, True
        name, value = (max if self.op.startswith("<") else min)(figures, key=lambda nv: nv[1])
        return name, value, self.holds(value)

    def holds(self, value: float) -> bool:
        return _OPERATORS[self.op](value, self.value)

    def nearer(self, before: float, after: float) -> bool:
        """Whether the figure `after` is nearer the bound than `before` by more than
        rounding (a trillionth of the larger figure or bound): the test by which a plan
        stops adding servers that bring a figure no nearer (planning/rota.py)."""
        step = before - after if self.op.startswith("<") else after - before
        return step > 1e-12 * max(abs(before), abs(after), abs(self.value))

    def as_service_level(self) -> "Objective":
        """A bound on a wait's percentile as the service level it is: `wait_p90<=1min` is
        P(wait<=1min) >= 90 % (what a day's figures give); the same objective otherwise."""
        percent = percent_of(self.metric[len("wait_"):]) if self.metric.startswith("wait_") else None
        if percent is None or self.op not in ("<", "<="):
            return self
        return Objective(scope=self.scope, metric="P(wait)", at=self.value, text=self.text,
                         op=">=" if self.op == "<=" else ">", value=percent / 100, unit="%")

    def verdict(self, value: Optional[float], interval: Optional[Tuple[float, float]]) -> str:
        """held, broken, or undecided: the interval wholly on one side of the
        bound, or across it (without an interval, the figure alone decides)."""
        if value is None:
            return "broken"
        if interval is None:
            return "held" if self.holds(value) else "broken"
        ends = [self.holds(end) for end in interval]
        return "held" if all(ends) else "broken" if not any(ends) else "undecided"


def parse_figure(text: str, model, option: str = "slo", whole: Optional[str] = None) -> Figure:
    """`p95` or `db.utilization` checked against `model` (its classes and stations)."""
    whole = str(text) if whole is None else whole
    match = _FIGURE.match(str(text))
    if not match:
        raise OptionError(option, "expected [CLASS.|STATION.]METRIC, e.g. p95 or db.utilization", value=whole)
    scope, metric = match.groups()
    return _checked(scope, metric, model, option, whole)


def _checked(scope: Optional[str], metric: str, model, option: str, whole: str, at: Optional[float] = None) -> Figure:
    """The figure, its metric known and its scope one of the model's classes or stations."""
    if _where(metric) is None:
        raise OptionError(option, f"unknown metric {metric!r} (known: {', '.join(METRICS)}; pNN is any "
                                  "percentile, e.g. p80 or p975 for 97.5 %)", value=whole)
    kind = _where(metric)[0]
    parts = model.stations if kind == "stations" else model.classes
    if not parts:
        raise OptionError(option, f"{metric} is a figure of a {'station' if kind == 'stations' else 'class'}, "
                                  "and there is none here", value=whole)
    if scope is not None and scope not in parts:
        word = "station" if kind == "stations" else "class"
        raise OptionError(option, f"{metric} is a figure of a {word}, and the model has no {word} {scope!r} "
                                  f"(its {word}{'s' if word == 'station' else 'es'}: {', '.join(parts)})",
                          value=whole)
    return Figure(scope=scope, metric=metric, at=at)


def parse_objective(text: str, model) -> Objective:
    """`p95<200ms` or `P(wait<=20s)>=80%` checked against `model` (its classes, stations and time unit)."""
    level = _LEVEL.match(str(text))
    if level:
        scope, which, time_text, op, value_text = level.groups()
        seconds, _ = _time(time_text, text)
        figure = _checked(scope, f"P({which})", model, "slo", str(text), at=seconds / SECONDS[model.time_unit])
        return _satisfiable(Objective(scope=figure.scope, metric=figure.metric, at=figure.at, text=str(text).strip(),
                                      op=op, value=_share(value_text, text),
                                      unit="%" if value_text.endswith("%") else "fraction"))
    match = _FORM.match(str(text))
    if not match:
        raise OptionError("slo", "expected [CLASS.|STATION.]METRIC OP VALUE, e.g. p95<200ms, wait_p80<=20s, "
                                 "P(wait<=20s)>=80% or db.utilization<70%", value=str(text))
    figure_text, op, value_text = match.groups()
    figure = parse_figure(figure_text, model, whole=str(text))
    if figure.kind == "time":
        seconds, unit = _time(value_text, text)
        value = seconds / SECONDS[model.time_unit]
    elif figure.kind == "share":
        value, unit = _share(value_text, text), "%" if value_text.endswith("%") else "fraction"
    else:
        value, unit = _number(value_text, text) * SECONDS[model.time_unit], "/s"  # typed per second
    return _satisfiable(Objective(scope=figure.scope, metric=figure.metric, text=str(text).strip(), op=op,
                                  value=value, unit=unit))


def _satisfiable(objective: Objective) -> Objective:
    """The objective, refused where no figure could meet it (`loss<0%`: no figure is
    below 0, no share above 100 %), before a plan searches every option for one."""
    if objective.op == "<" and objective.value <= 0:
        raise OptionError("slo", "no figure is below 0: nothing could meet it",
                          value=objective.text)
    if objective.op == ">" and objective.kind == "share" and objective.value >= 1:
        raise OptionError("slo", "no share is above 100 %: nothing could meet it",
                          value=objective.text)
    return objective


def asked_by(objectives) -> dict:
    """What the engines must be asked for `objectives` beyond their fixed lists
    (engine.simulate's and engine.solve's `quantiles` and `within`)."""
    extra = [objective.asked() for objective in objectives]
    quantiles, within = union(e["quantiles"] for e in extra), union(e["within"] for e in extra)
    return {"quantiles": quantiles, "within": within} if quantiles or within else {}


def _time(text: str, whole: str) -> Tuple[float, str]:
    """`20s` -> (20.0, "s"): the time in seconds and the unit it was written in."""
    typed = split_time(text)
    if typed is None or typed[1] not in TYPED_SECONDS or not (math.isfinite(typed[0]) and typed[0] > 0):
        raise OptionError("slo", "expected a time above 0 with its unit, e.g. 200ms or 2s", value=whole)
    return typed[0] * TYPED_SECONDS[typed[1]], typed[1]


def _share(text: str, whole: str) -> float:
    percent = text.endswith("%")
    value = _number(text[:-1] if percent else text, whole) / (100 if percent else 1)
    if not 0 <= value <= 1:
        raise OptionError("slo", "expected a share from 0 to 1, or a percentage, e.g. 0.8 or 80%", value=whole)
    return value


def _number(text: str, whole: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise OptionError("slo", "expected a number of at least 0", value=whole)
    return value
