"""The laws of waiting and response times where solve knows them: each a
cumulative distribution and its quantiles, so that any percentile (p80, p97.5)
and any service level P(wait <= t) can be read off, marked exact or not with
the method that gave it (docs/solve.md, "Service levels and quantiles")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Law:
    """One time's law: P(T <= t) and its q-quantile (the least t with P(T <= t) >= q)."""
    cdf: Callable[[float], float]
    quantile: Callable[[float], float]


@dataclass(frozen=True)
class Laws:
    """A class's waiting- and response-time laws, and how they are known."""
    waiting: Law
    response: Law
    exact: bool
    method: str


def by_bisection(cdf: Callable[[float], float], q: float, hi: float) -> float:
    """The q-quantile of a continuous `cdf` from a bracket [0, hi] with cdf(hi) >= q,
    halved until no float lies between its ends (no scipy import: solve's start-up)."""
    lo = 0.0
    while cdf(hi) < q:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-15 * hi:
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
    return (lo + hi) / 2.0
