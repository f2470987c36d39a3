"""Poisson arrivals during a random time: the laws M/G/1/K's embedded chain
(mg1k.py) needs, as (log a_0, log A_k) with a_k the probability that k arrive
and A_k = sum_{l >= k} a_l its tail. Each distribution builds its own from
these (Distribution.poisson_mixture, model/distributions.py): a point mass is
Poisson, a gamma a negative binomial, a density by quadrature, a mixture of
them a mixture.

The scipy module `special` is imported by each (0.3 s): only models that need
it pay."""
from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

Law = Tuple[float, np.ndarray]

#: A gamma shape beyond this is a constant to double precision (its cv² < 1e-15).
CONSTANT_SHAPE = 1e15
#: Gauss-Legendre nodes per panel, for service laws integrated numerically.
NODES = 16
#: Standard normal points from its 1e-20 to its 1 - 1e-20 quantile: where a lognormal
#: or normal service's density changes shape, and the mass the integration keeps.
SPREAD = np.linspace(-9.3, 9.3, 373)
#: Uniform service: the most panels (each a few hundred flops per k) before refusing.
MAX_PANELS = 200_000
#: ... and the most evaluations of the Poisson tail (panels x nodes x tails): some 10 s.
MAX_EVALUATIONS = 2e8


def poisson(k: np.ndarray, x: float) -> Law:
    """Poisson(x): a_0 = e^-x, A_k = P(Gamma(k) <= x), the regularized lower gamma."""
    from scipy import special

    if x == 0:
        return 0.0, np.where(k == 0, 0.0, -np.inf)
    tail = np.log(special.gammainc(np.maximum(k, 1.0), x))
    return -x, np.where(k == 0, 0.0, tail)


def negative_binomial(k: np.ndarray, shape: float, scale: float) -> Law:
    """Poisson mixed over a gamma of `shape` and `scale` (in arrivals): a negative
    binomial with success probability p = 1 / (1 + scale); a_0 = p^shape and
    A_k = I_{1-p}(k, shape), the regularized incomplete beta."""
    from scipy import special

    failure = scale / (1.0 + scale)
    tail = np.log(special.betainc(np.maximum(k, 1.0), shape, failure))
    return -shape * math.log1p(scale), np.where(k == 0, 0.0, tail)


def gamma(k: np.ndarray, shape: float, mean: float) -> Law:
    """Poisson mixed over a gamma of `shape` and `mean` (in arrivals), a constant
    when the shape is beyond CONSTANT_SHAPE."""
    if shape > CONSTANT_SHAPE:
        return poisson(k, mean)
    return negative_binomial(k, shape, mean / shape)


def by_quadrature(k: np.ndarray, grid: np.ndarray, density: Callable[[np.ndarray], np.ndarray]) -> Optional[Law]:
    """Poisson mixed over arrivals-per-service V of `density`, whose mass lies in
    [grid[0], grid[-1]] and changes shape on the scale of `grid`'s steps: a_0 =
    E[e^-V] and A_k = E[P(Gamma(k) <= V)] by Gauss-Legendre on panels that also
    resolve the Poisson tail (no wider than 1/2, nor than a quarter of the
    Poisson's spread sqrt(v), where the tail turns from 1 to 0). None beyond
    MAX_PANELS, or beyond MAX_EVALUATIONS of the Poisson tail."""
    from scipy import special
    from scipy.special import logsumexp

    low, high = float(grid[0]), float(grid[-1])
    edges = [low]
    while edges[-1] < high:
        if len(edges) > MAX_PANELS:
            return None
        edges.append(min(high, edges[-1] + max(0.5, math.sqrt(edges[-1]) / 4)))
    edges = np.union1d(edges, grid)
    if (len(edges) - 1) * NODES * len(k) > MAX_EVALUATIONS:
        return None
    nodes, weights = np.polynomial.legendre.leggauss(NODES)
    half = np.diff(edges)[:, None] / 2
    x = (edges[:-1, None] + half + half * nodes).ravel()
    w = (half * weights).ravel() * density(x)
    w /= w.sum()  # the mass outside the grid (1e-20) and rounding: A_0 is exactly 1
    log_a0 = float(logsumexp(-x, b=w))
    tail = np.ones(len(k))
    rows = max(1, 2_000_000 // len(x))  # bounded memory: a block of k at a time
    for start in range(1, len(k), rows):
        block = k[start:start + rows, None]
        tail[start:start + rows] = special.gammainc(block, x[None, :]) @ w
    return log_a0, np.log(np.minimum(tail, 1.0))


def mixture(laws: Sequence[Law], weights: Sequence[float]) -> Law:
    """The law of arrivals during a time drawn from a mixture of `laws`."""
    from scipy.special import logsumexp

    log_w = np.log(np.asarray(weights, dtype=float))[:, None]
    a0 = np.array([law[0] for law in laws])[:, None]
    tails = np.array([law[1] for law in laws])
    return float(logsumexp(a0 + log_w)), logsumexp(tails + log_w, axis=0)
