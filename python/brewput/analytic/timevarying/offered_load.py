"""The offered load of a time-varying rate: the number busy in an infinite-server
station (Mt/G/inf), exact for any service law (Eick, Massey and Whitt, "The physics
of the Mt/G/inf queue", Operations Research 41(4), 1993):

    m(t) = E[lambda(t - S_e)] E[S] = integral_0^inf lambda(t - u) P(S > u) du,

S_e the equilibrium excess of the service time S. Started empty at t = 0 (lambda is 0
before the day unless it repeats), the number present at t is Poisson with mean m(t);
jobs present at the start, each starting its service at 0, add a binomial
(n0, P(S > t)). A delay station's figures, and the heart of PSA and MOL.

The integral is cut where the rate jumps or bends (as seen from t) and at quantiles
of S (its first 64ths, then 1 - 2^-k to 2^-50), and each piece summed by 20-point
Gauss-Legendre; the tail beyond the last quantile, at most max(lambda) E[(S - q)+],
is left out. A law of atoms is summed exactly: m(t) = sum p_i (Lambda(t) - Lambda(t - v_i)).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from ...model.distributions import Distribution
from ...model.timeline import Rate

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(20)
_QUANTILES = np.concatenate([np.arange(64) / 64, 1 - 2.0 ** -np.arange(7, 51)])


def offered_load(rate: Rate, service: Distribution, t: Sequence[float]) -> np.ndarray:
    """m(t) at each time of `t` (time_unit)."""
    t = np.atleast_1d(np.asarray(t, dtype=float))

    def atoms(values, probabilities):
        drop = rate.cumulative(t[:, None]) - rate.cumulative(t[:, None] - values[None, :])
        return drop @ probabilities

    def density(law):
        cuts = law.ppf(_QUANTILES)
        return np.array([_integral(rate, law, cuts, at) for at in t])

    return _over_parts(service, atoms, density)


def _over_parts(service: Distribution, atoms: Callable, density: Callable) -> np.ndarray:
    """sum over the law's parts of weight x (atoms(values, probabilities) for a part that
    is all atoms, density(its scipy law) for one with a density)."""
    total = 0.0
    for weight, part in service.parts():
        found = part.atoms()
        total = total + weight * (atoms(*found) if found is not None else density(part.quantile_law()[0]))
    return total


def _integral(rate: Rate, law, cuts: np.ndarray, t: float) -> float:
    """integral_0^last cut of lambda(t - u) P(S > u) du."""
    low, high = 0.0, float(cuts[-1])
    if not rate.repeat and math.isfinite(rate.length):  # lambda(t - u) is 0 unless 0 <= t - u < length
        low, high = max(low, t - rate.length), min(high, t)
    if high <= low:
        return 0.0
    seen = t - np.concatenate([[0.0], rate.breaks, [rate.length]]) if math.isfinite(rate.length) else np.array([])
    if rate.repeat and seen.size:  # every copy of the day's breaks within [low, high]
        first, last = math.floor((t - high) / rate.length), math.ceil((t - low) / rate.length)
        seen = (seen[None, :] - rate.length * np.arange(first, last + 1)[:, None] + 0.0).ravel()
    edges = np.unique(np.concatenate([[low, high], cuts, seen]))
    edges = edges[(edges >= low) & (edges <= high)]
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2
    u = (a + b)[:, None] / 2 + half[:, None] * _NODES[None, :]
    values = rate.rate(t - u) * law.sf(u)
    return float(np.sum(half * (values @ _WEIGHTS)))


def still_in_service(service: Distribution, t: Sequence[float]) -> np.ndarray:
    """P(S > t): the chance that a job present at 0, starting its service then, is still there at t."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    return _over_parts(service, lambda values, probabilities: (values[None, :] > t[:, None]) @ probabilities,
                       lambda law: law.sf(t))


def number_present_law(mean_offered: float, at_start: int, still_there: float, most: int) -> np.ndarray:
    """P(N(t) = n) for n = 0..most: Poisson(m(t)) plus binomial(at_start, P(S > t))."""
    from scipy import stats

    n = np.arange(most + 1)
    law = stats.poisson.pmf(n, mean_offered)
    if at_start:
        law = np.convolve(law, stats.binom.pmf(np.arange(at_start + 1), at_start, still_there))[:most + 1]
    return law


def mean_present(rate: Rate, service: Distribution, edges: Sequence[float], at_start: int = 0) -> np.ndarray:
    """The time average of the number present over each interval [edges[i], edges[i+1]]:
    of m(t) + at_start P(S > t), by 20-point Gauss-Legendre on each interval (m is
    continuous; a rate's jump only bends it)."""
    edges = np.asarray(edges, dtype=float)
    a, b = edges[:-1], edges[1:]
    half = (b - a) / 2
    t = ((a + b)[:, None] / 2 + half[:, None] * _NODES[None, :]).ravel()
    present = offered_load(rate, service, t)
    if at_start:
        present = present + at_start * still_in_service(service, t)
    return (present.reshape(a.size, _NODES.size) @ _WEIGHTS) / 2
