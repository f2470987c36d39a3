"""Time in a model: the arrival rate through the day (a `Rate`), servers per interval
(a `Rota`) and the day itself (a `Day`). The one Python home of this arithmetic:
parsing YAML into these objects is compile.py's; the simulator and the solvers use them.

Every time is in the model's time_unit; t = 0 is the start of the day. A rate lives on
the day [0, length): when the day repeats it is periodic with period `length`, else it
is 0 outside the day (arrivals happen in [0, length), TIME.md). Each form gives

    rate(t)            lambda(t), vectorised
    cumulative(t)      Lambda(t) = integral_0^t lambda (negative for t < 0 when repeating);
                       exact for Constant, Steps and Linear, a quadrature for Curve
    bound(t0, t1)      an upper bound of lambda on [t0, t1) (a point has no arrivals:
                       bound(edge_i, edge_i+1) is interval i's rate), for thinning; exact
                       (the supremum itself) for Constant, Steps and Linear, rigorous for Curve

A rota holds its last interval's servers after a day that does not repeat (the
servers on at the end finish the work in hand) and its first before t = 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..units import time_factor
from .curve import Curve as CurveExpression

# A curve's cumulative rate is a composite 16-point Gauss-Legendre rule on panels
# halved until each panel's sum agrees with its two halves' to this relative
# tolerance of the day's total; the rule is exact for polynomials of degree 31 on each
# panel, so a smooth curve is integrated to about double precision.
CURVE_QUADRATURE_TOLERANCE = 1e-12
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(16)
_FIRST_PANELS = 64
_MAX_PANELS = 1 << 16


class Rate:
    """An arrival rate through the day; see the module's docstring. Subclasses define
    `_rate`, `_cumulative` and `_bound` on the day itself, 0 <= u <= length."""

    length: float
    repeat: bool
    #: Whether the rate is constant between its breaks (and the day's ends).
    steady_between_breaks: bool = False

    def rate(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if self.repeat:
            return self._rate(np.mod(t, self.length))
        inside = (t >= 0) & (t < self.length)
        out = np.zeros(t.shape)
        out[inside] = self._rate(t[inside])
        return out

    def cumulative(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if self.repeat:
            periods = np.floor(t / self.length)
            return periods * self.total + self._cumulative(t - periods * self.length)
        return self._cumulative(np.clip(t, 0.0, self.length))

    def bound(self, t0: float, t1: float) -> float:
        if t1 < t0:
            raise ValueError(f"bound over [{t0}, {t1}]: the span ends before it starts")
        if not self.repeat:
            u0, u1 = max(t0, 0.0), min(t1, self.length)
            return self._bound(u0, u1) if u0 < u1 or (u0 == u1 and 0 <= u0 < self.length) else 0.0
        if t1 - t0 >= self.length:
            return self._bound(0.0, self.length)
        u0 = t0 - math.floor(t0 / self.length) * self.length
        u1 = u0 + (t1 - t0)
        if u1 <= self.length:
            return self._bound(u0, u1)
        return max(self._bound(u0, self.length), self._bound(0.0, u1 - self.length))

    @property
    def breaks(self) -> np.ndarray:
        """The times in (0, length) where the rate jumps or bends (where a quadrature
        over it should cut); the day's ends are breaks too and are not listed."""
        return np.array([])

    @property
    def total(self) -> float:
        """The day's expected arrivals, Lambda(length)."""
        return float(self._cumulative(np.array([self.length]))[0])

    def interval_means(self, edges) -> np.ndarray:
        """The mean rate over each interval [edges[i], edges[i+1]]."""
        edges = np.asarray(edges, dtype=float)
        return np.diff(self.cumulative(edges)) / np.diff(edges)


def _check_day(length: float, repeat: bool) -> None:
    if not (isinstance(length, (int, float)) and 0 < length < math.inf):
        raise ValueError(f"a day's length must be a positive finite time, got {length!r}")


def _check_rates(values: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{what}: each rate must be >= 0 and finite, got {values[i]!r} at position {i + 1}")


@dataclass(frozen=True)
class Constant(Rate):
    """A constant rate; `length` inf for a model without a day (the rate never ends)."""

    value: float
    length: float = math.inf
    repeat: bool = False
    steady_between_breaks = True

    def __post_init__(self):
        _check_rates(np.array([self.value], dtype=float), "a constant rate")
        if not self.length > 0:
            raise ValueError(f"a day's length must be a positive time, got {self.length!r}")

    def rate(self, t) -> np.ndarray:
        if math.isinf(self.length) or self.repeat:
            return np.full(np.shape(t), float(self.value))
        return super().rate(t)

    def cumulative(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if math.isinf(self.length) or self.repeat:
            return self.value * t
        return super().cumulative(t)

    def bound(self, t0: float, t1: float) -> float:
        if math.isinf(self.length) or self.repeat:
            return float(self.value)
        return super().bound(t0, t1)

    def _rate(self, u):
        return np.full(u.shape, float(self.value))

    def _cumulative(self, u):
        return self.value * u

    def _bound(self, u0, u1):
        return float(self.value)


@dataclass(frozen=True, eq=False)
class Steps(Rate):
    """values[i] on [edges[i], edges[i+1]) (a table or a CSV per interval); edges from 0 to length."""

    edges: np.ndarray
    values: np.ndarray
    repeat: bool = False
    steady_between_breaks = True

    def __post_init__(self):
        edges, values = np.asarray(self.edges, dtype=float), np.asarray(self.values, dtype=float)
        if edges.ndim != 1 or edges.size != values.size + 1 or values.size == 0:
            raise ValueError(f"steps: {values.size} rates need {values.size + 1} edges, got {edges.size}")
        if edges[0] != 0 or not np.all(np.diff(edges) > 0) or not np.isfinite(edges[-1]):
            raise ValueError("steps: edges must start at 0 and increase")
        _check_rates(values, "steps")
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "_at_edges", np.concatenate([[0.0], np.cumsum(values * np.diff(edges))]))

    @property
    def length(self) -> float:
        return float(self.edges[-1])

    @property
    def breaks(self) -> np.ndarray:
        return self.edges[1:-1]

    def _index(self, u):
        return np.clip(np.searchsorted(self.edges, u, side="right") - 1, 0, self.values.size - 1)

    def _rate(self, u):
        return self.values[self._index(u)]

    def _cumulative(self, u):
        i = self._index(u)
        return self._at_edges[i] + self.values[i] * (u - self.edges[i])

    def _bound(self, u0, u1):
        first = int(self._index(np.array([u0]))[0])
        # the last interval whose [edge, next edge) meets [u0, u1]
        last = max(first, int(np.searchsorted(self.edges, u1, side="left")) - 1)
        last = min(last, self.values.size - 1)
        return float(np.max(self.values[first:last + 1]))


@dataclass(frozen=True, eq=False)
class Linear(Rate):
    """Piecewise linear through (times[i], rates[i]); held flat before the first point and
    after the last, on the day [0, length)."""

    times: np.ndarray
    rates: np.ndarray
    length: float
    repeat: bool = False

    def __post_init__(self):
        _check_day(self.length, self.repeat)
        times, rates = np.asarray(self.times, dtype=float), np.asarray(self.rates, dtype=float)
        if times.ndim != 1 or times.size != rates.size or times.size < 2:
            raise ValueError("linear: give at least two [time, rate] points")
        if times[0] < 0 or times[-1] > self.length or not np.all(np.diff(times) > 0):
            raise ValueError(f"linear: the times must increase within the day [0, {self.length:g}]")
        _check_rates(rates, "linear")
        # The knots over the whole day, with the flat ends made explicit.
        knots_t = np.concatenate([[0.0], times, [self.length]])
        knots_r = np.concatenate([[rates[0]], rates, [rates[-1]]])
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "rates", rates)
        object.__setattr__(self, "_knots", (knots_t, knots_r))
        areas = np.diff(knots_t) * (knots_r[:-1] + knots_r[1:]) / 2
        object.__setattr__(self, "_at_knots", np.concatenate([[0.0], np.cumsum(areas)]))

    @property
    def breaks(self) -> np.ndarray:
        return self.times[(self.times > 0) & (self.times < self.length)]

    def _rate(self, u):
        return np.interp(u, *self._knots)

    def _cumulative(self, u):
        knots_t, knots_r = self._knots
        i = np.clip(np.searchsorted(knots_t, u, side="right") - 1, 0, knots_t.size - 2)
        width = knots_t[i + 1] - knots_t[i]
        slope = np.divide(knots_r[i + 1] - knots_r[i], width, out=np.zeros(np.shape(u)), where=width > 0)
        du = u - knots_t[i]
        return self._at_knots[i] + knots_r[i] * du + slope * du * du / 2

    def _bound(self, u0, u1):
        knots_t, _ = self._knots
        inside = knots_t[(knots_t > u0) & (knots_t < u1)]
        return float(np.max(self._rate(np.concatenate([[u0, u1], inside]))))


class Curve(Rate):
    """A rate given as an expression in t (model/curve.py); max(curve, 0) where rounding
    takes a curve that touches 0 a hair below it. A curve below 0 anywhere on the day
    (found rigorously by branch and bound) or not a finite number is refused."""

    def __init__(self, expression: str, length: float, repeat: bool = False):
        _check_day(length, repeat)
        self.expression = expression
        self.length = float(length)
        self.repeat = bool(repeat)
        self._curve = CurveExpression(expression)
        low, lowest, at = self._curve.extreme(0.0, self.length, highest=False)
        high, _, _ = self._curve.extreme(0.0, self.length, highest=True)
        scale = max(abs(high), abs(lowest), 1e-300)
        if lowest < -1e-9 * scale:
            raise ValueError(f"curve '{expression}' is negative at t = {at:g}: {lowest:.6g}")
        self._panels = self._quadrature()

    def __repr__(self) -> str:
        return f"Curve({self.expression!r}, length={self.length:g}, repeat={self.repeat})"

    def _rate(self, u):
        return np.maximum(self._curve.values(u), 0.0)

    def _integral(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Gauss-Legendre over each [a_i, b_i]."""
        half = (b - a) / 2
        nodes = (a + b)[:, None] / 2 + half[:, None] * _GAUSS_NODES[None, :]
        return half * (self._rate(nodes) @ _GAUSS_WEIGHTS)

    def _quadrature(self):
        """Panel edges and the cumulative rate at each, refined until the error estimate
        (a panel against its halves) is below the tolerance of the day's total."""
        edges = np.linspace(0.0, self.length, _FIRST_PANELS + 1)
        while True:
            a, b = edges[:-1], edges[1:]
            mid = (a + b) / 2
            whole = self._integral(a, b)
            halves = self._integral(a, mid) + self._integral(mid, b)
            total = max(float(np.sum(halves)), 1e-300)
            rough = np.abs(whole - halves) > CURVE_QUADRATURE_TOLERANCE * total
            if not rough.any() or edges.size > _MAX_PANELS:
                break
            edges = np.sort(np.concatenate([edges, mid[rough]]))
        return edges, np.concatenate([[0.0], np.cumsum(self._integral(edges[:-1], edges[1:]))])

    def _cumulative(self, u):
        edges, at_edges = self._panels
        u = np.asarray(u, dtype=float)
        flat = u.ravel()
        i = np.clip(np.searchsorted(edges, flat, side="right") - 1, 0, edges.size - 2)
        return (at_edges[i] + self._integral(edges[i], flat)).reshape(u.shape)

    def _bound(self, u0, u1):
        return max(self._curve.extreme(u0, u1, highest=True)[0], 0.0)


class Total(Rate):
    """The sum of rates on one day (classes that share a station): each of rate, cumulative
    and breaks is the parts' sum or union; its bound is the sum of the parts' bounds."""

    def __init__(self, parts: Sequence[Rate]):
        if not parts:
            raise ValueError("a total of no rates")
        self.parts = list(parts)
        self.length = parts[0].length
        self.repeat = parts[0].repeat
        if any(p.length != self.length or p.repeat != self.repeat for p in parts):
            raise ValueError("rates of different days cannot be added")
        self.steady_between_breaks = all(p.steady_between_breaks for p in parts)

    @property
    def breaks(self) -> np.ndarray:
        return np.unique(np.concatenate([p.breaks for p in self.parts]))

    def rate(self, t) -> np.ndarray:
        return sum(p.rate(t) for p in self.parts)

    def cumulative(self, t) -> np.ndarray:
        return sum(p.cumulative(t) for p in self.parts)

    def bound(self, t0: float, t1: float) -> float:
        return float(sum(p.bound(t0, t1) for p in self.parts))

    @property
    def total(self) -> float:
        return float(sum(p.total for p in self.parts))


@dataclass(frozen=True, eq=False)
class Rota:
    """counts[i] servers on over [edges[i], edges[i+1]); 0 closes the station for that interval."""

    edges: np.ndarray
    counts: np.ndarray
    repeat: bool = False

    def __post_init__(self):
        edges, counts = np.asarray(self.edges, dtype=float), np.asarray(self.counts)
        if edges.ndim != 1 or edges.size != counts.size + 1 or counts.size == 0:
            raise ValueError(f"rota: {counts.size} counts need {counts.size + 1} edges, got {edges.size}")
        if edges[0] != 0 or not np.all(np.diff(edges) > 0):
            raise ValueError("rota: edges must start at 0 and increase")
        if counts.dtype.kind not in "iu" and not (np.all(np.isfinite(counts)) and np.all(counts == np.round(counts))):
            raise ValueError("rota: each count must be a whole number of servers")
        if np.any(counts < 0):
            raise ValueError("rota: each count must be >= 0")
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "counts", counts.astype(np.int64))

    @classmethod
    def constant(cls, servers: int, edges) -> "Rota":
        edges = np.asarray(edges, dtype=float)
        return cls(edges, np.full(edges.size - 1, servers, dtype=np.int64))

    @property
    def length(self) -> float:
        return float(self.edges[-1])

    def servers(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if self.repeat:
            t = np.mod(t, self.length)
        i = np.clip(np.searchsorted(self.edges, t, side="right") - 1, 0, self.counts.size - 1)
        return self.counts[i]


def _clock_seconds(text: str) -> int:
    parts = text.split(":")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"a day's start is a clock time HH:MM or HH:MM:SS, got {text!r}")
    h, m, s = (int(p) for p in parts + ["0"] * (3 - len(parts)))
    if h > 23 or m > 59 or s > 59:
        raise ValueError(f"a day's start is a clock time HH:MM or HH:MM:SS, got {text!r}")
    return 3600 * h + 60 * m + s


@dataclass(frozen=True)
class Day:
    """The horizon [0, length) cut into intervals of `interval` (both in time_unit)."""

    length: float
    interval: float
    start_label: Optional[str] = None
    repeat: bool = False
    at_start: Dict[str, int] = field(default_factory=dict)
    time_unit: str = "s"

    def __post_init__(self):
        _check_day(self.length, self.repeat)
        if not (isinstance(self.interval, (int, float)) and 0 < self.interval <= self.length):
            raise ValueError(f"a day's interval must be a positive time no longer than the day, got {self.interval!r}")
        n = self.length / self.interval
        if abs(n - round(n)) > 1e-9 * n:
            raise ValueError(f"a day's length ({self.length:g}) must be a whole number of intervals "
                             f"({self.interval:g}), got {n:.6g}")
        if self.start_label is not None:
            _clock_seconds(self.start_label)
        for station, jobs in self.at_start.items():
            if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs < 0:
                raise ValueError(f"at_start: {station}: expected a whole number of jobs >= 0, got {jobs!r}")

    @property
    def intervals(self) -> int:
        return int(round(self.length / self.interval))

    @property
    def edges(self) -> np.ndarray:
        edges = np.arange(self.intervals + 1) * float(self.interval)
        edges[-1] = float(self.length)  # no rounding drift at the end
        return edges

    @property
    def labels(self) -> List[str]:
        """Each interval's start as a clock time from `start_label` ("06:15"); without one,
        the interval's start as a time in time_unit ("15 min")."""
        starts = self.edges[:-1]
        if self.start_label is None:
            return [f"{t:g} {self.time_unit}" for t in starts]
        seconds = _clock_seconds(self.start_label) + starts * time_factor(self.time_unit, "s")
        whole = np.round(seconds).astype(np.int64) % 86400
        show_seconds = bool(np.any(whole % 60))
        return [f"{s // 3600:02d}:{s % 3600 // 60:02d}" + (f":{s % 60:02d}" if show_seconds else "")
                for s in whole.tolist()]

    def steps(self, values: Sequence[float]) -> Steps:
        """A rate given per interval of this day."""
        return Steps(self.edges, np.asarray(values, dtype=float), self.repeat)

    def rota(self, counts: Sequence[int]) -> Rota:
        """A rota given per interval of this day."""
        return Rota(self.edges, np.asarray(counts), self.repeat)
