"""M/G/1/K exactly: one server, room for K jobs in all, Poisson arrivals and a
general service time, by the Markov chain embedded at departures.

Let a_k be the probability that k jobs arrive during one service and
A_k = sum_{l >= k} a_l its tail. Just after a departure the station holds
0 .. K-1 jobs (pi_j); across a cut between j - 1 and j the chain crosses as
often up as down, which gives a recursion of positive terms only (no
cancellation, unlike solving pi = pi P):

    pi_j a_0 = pi_0 A_j + sum_{i=1}^{j-1} pi_i A_{j-i+1},    j = 1 .. K-1

The time-average distribution follows (Poisson arrivals see time averages;
rho = lam E[S] is the offered load, any value):

    p_n = pi_n / (pi_0 + rho) for n < K,    p_K = 1 - 1 / (pi_0 + rho)

and p_K is the probability an arrival is lost. The recursion runs in log space
(log-sum-exp), so that neither a tiny a_0 (heavy load) nor a long buffer
overflows anything.

a_0 and the tails are exact for every distribution whose mixed Poisson law has
a closed form: const (Poisson), exp, erlang, gamma and hyperexp (negative
binomials, from gamma mixing), empirical (a mixture of Poissons). Uniform,
jitter, lognormal and normal integrate the Poisson tail against their density
by Gauss-Legendre panels narrow enough to resolve both to rounding (the
lognormal and normal between their 1e-20 and 1 - 1e-20 quantiles); when that
takes more than MAX_PANELS panels (a lognormal of cv 10 spans 1e15 arrivals)
`arrivals_law` returns None, and the caller stays with its approximation.
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from ..model.distributions import (Const, Distribution, Empirical, Erlang, Exp, Gamma, Hyperexp, Jitter,
                                   Lognormal, Normal, Uniform)
from .queues import Means, little

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
#: Below this the loss 1 - 1 / (pi_0 + rho) has lost digits to cancellation, and
#: is taken from the arrivals' tails beyond the buffer instead (at most MAX_TAILS).
SMALL_LOSS = 1e-6
MAX_TAILS = 1 << 20


def arrivals_law(dist: Distribution, lam: float, capacity: int) -> Optional[Tuple[float, np.ndarray]]:
    """(log a_0, log A_k for k = 0 .. capacity - 1) for Poisson arrivals at rate
    `lam` during one service drawn from `dist`; None when no exact form is known."""
    from scipy import special  # 0.3 s to import: only models that need it pay

    k = np.arange(capacity, dtype=float)
    with np.errstate(divide="ignore"):
        if isinstance(dist, Const):
            return _poisson(special, k, lam * dist.value)
        if isinstance(dist, (Exp, Erlang, Gamma)):
            shape = float(dist.k) if isinstance(dist, Erlang) else 1.0 / dist.scv  # exp: 1, gamma: 1 / cv²
            if shape > CONSTANT_SHAPE:
                return _poisson(special, k, lam * dist.mean)
            return _negative_binomial(special, k, shape, lam * dist.mean / shape)
        if isinstance(dist, Hyperexp):
            phases = dist.compile()
            laws = [_negative_binomial(special, k, 1.0, lam * phases["mean1"]),
                    _negative_binomial(special, k, 1.0, lam * phases["mean2"])]
            return _mixture(laws, [phases["p"], 1.0 - phases["p"]])
        if isinstance(dist, Empirical):
            values, counts = np.unique(np.array(dist.values), return_counts=True)
            return _mixture([_poisson(special, k, lam * v) for v in values], counts / counts.sum())
        if isinstance(dist, (Uniform, Jitter)):
            low, high = dist.compile()["low"], dist.compile()["high"]
            return _uniform(special, k, lam * low, lam * high)
        if isinstance(dist, Lognormal):
            sampling = dist.compile()
            return _lognormal(special, k, lam, sampling["mu"], sampling["sigma"])
        if isinstance(dist, Normal):
            return _normal(special, k, lam, dist.mu, dist.sd)
    return None


def mixture_law(laws: Sequence[Tuple[float, np.ndarray]], weights: Sequence[float]) -> Tuple[float, np.ndarray]:
    """The law of arrivals during a service drawn from a mixture (classes, steps)."""
    return _mixture(laws, weights)


def solve_mg1k(lam: float, mean: float, capacity: int,
               law_of: Callable[[int], Optional[Tuple[float, np.ndarray]]]) -> Optional[Tuple[float, Means]]:
    """(loss probability, means) of M/G/1/K with K = `capacity` >= 1, arrival rate
    `lam` and mean service `mean`; `law_of(n)` gives arrivals_law with n tails.
    The means are at the accepted rate lam (1 - loss). None when the service law
    has no exact form (law_of gives None)."""
    from scipy.special import logsumexp

    law = law_of(capacity)
    if law is None:
        return None
    log_a0, log_tail = law
    log_pi = np.full(capacity, -np.inf)
    log_pi[0] = 0.0
    # A_K (never used: the i = 0 term takes A_j) .. A_0, so that a slice of it is
    # A_{j+1}, A_j, .. A_2 in the order of pi_0 .. pi_{j-1}.
    reversed_tail = np.append(log_tail, -np.inf)[::-1]
    for j in range(1, capacity):
        # pi_0 A_j and pi_i A_{j-i+1} for i = 1 .. j-1 (tails j down to 2).
        terms = log_pi[:j] + reversed_tail[capacity - j - 1:capacity - 1]
        terms[0] = log_tail[j]  # log pi_0 = 0
        top = terms.max()
        log_pi[j] = top + math.log(np.exp(terms - top).sum()) - log_a0 if top > -np.inf else -np.inf
    log_total = logsumexp(log_pi)
    pi = np.exp(log_pi - log_total)
    rho = lam * mean
    excess = pi[0] + rho - 1.0  # sigma: p_K = sigma / (1 + sigma)
    if excess < SMALL_LOSS:  # it cancelled: take it from the tails instead
        excess = _small_excess(log_pi, log_total, capacity, law_of, excess)
    scale = 1.0 + excess  # pi_0 + rho
    p = np.append(pi / scale, excess / scale)
    waiting = float(np.maximum(np.arange(capacity + 1) - 1, 0) @ p)
    throughput = lam / scale  # lam (1 - p_K), without losing it when p_K rounds to 1
    return float(p[-1]), little(throughput, mean, waiting / throughput)


def _small_excess(log_u: np.ndarray, log_total: float, capacity: int,
                  law_of: Callable[[int], Tuple[float, np.ndarray]], fallback: float) -> float:
    """sigma = pi_0 + rho - 1 without cancellation, for when the loss is small.

    Summing the cut equations over j gives, with u the unnormalized pi (u_0 = 1),
    Sigma = sum u and T(m) = sum_{k > m} A_k = E[(A - m)^+]:

        sigma Sigma = T(K-1) + sum_{i=1}^{K-1} u_i T(K-i),

    every term positive. T needs the tails beyond K - 1, taken until the last is
    below 1e-18 of the sum (doubling how many); if they decay too slowly for that,
    the loss is not small enough to have cancelled and `fallback` stands."""
    from scipy.special import logsumexp

    count = 2 * capacity + 64
    while count <= MAX_TAILS:
        law = law_of(count)
        if law is None:  # too many tails to integrate
            break
        _, log_tail = law
        beyond = np.logaddexp.accumulate(log_tail[::-1])[::-1]  # log sum_{k >= m} A_k
        if log_tail[-1] < beyond[capacity] - 41.5:  # e^-41.5 = 1e-18
            t = beyond[1:capacity + 1]  # T(m) = sum_{k >= m+1} A_k, m = 0 .. K-1
            terms = np.concatenate(([t[capacity - 1]], log_u[1:] + t[capacity - 1:0:-1]))
            return float(np.exp(logsumexp(terms) - log_total))
        count *= 2
    return max(fallback, 0.0)


def _poisson(special, k: np.ndarray, x: float) -> Tuple[float, np.ndarray]:
    """Poisson(x): a_0 = e^-x, A_k = P(Gamma(k) <= x), the regularized lower gamma."""
    if x == 0:
        return 0.0, np.where(k == 0, 0.0, -np.inf)
    tail = np.log(special.gammainc(np.maximum(k, 1.0), x))
    return -x, np.where(k == 0, 0.0, tail)


def _negative_binomial(special, k: np.ndarray, shape: float, scale: float) -> Tuple[float, np.ndarray]:
    """Poisson mixed over a gamma of `shape` and `scale` (in arrivals): a negative
    binomial with success probability p = 1 / (1 + scale); a_0 = p^shape and
    A_k = I_{1-p}(k, shape), the regularized incomplete beta."""
    failure = scale / (1.0 + scale)
    tail = np.log(special.betainc(np.maximum(k, 1.0), shape, failure))
    return -shape * math.log1p(scale), np.where(k == 0, 0.0, tail)


def _uniform(special, k: np.ndarray, low: float, high: float):
    """Poisson mixed over a uniform on [low, high] (in arrivals)."""
    if high - low <= 0:
        return _poisson(special, k, low)
    return _by_quadrature(special, k, np.array([low, high]), lambda v: np.full(v.shape, 1.0 / (high - low)))


def _lognormal(special, k: np.ndarray, lam: float, mu: float, sigma: float):
    """Poisson mixed over lam x a lognormal (log-mean mu, log-sd sigma)."""
    if sigma == 0:
        return _poisson(special, k, lam * math.exp(mu))
    log_mu = mu + math.log(lam)

    def density(v):
        z = (np.log(v) - log_mu) / sigma
        return np.exp(-z * z / 2) / (v * sigma * math.sqrt(2 * math.pi))
    return _by_quadrature(special, k, np.exp(log_mu + sigma * SPREAD), density)


def _normal(special, k: np.ndarray, lam: float, mu: float, sd: float):
    """Poisson mixed over lam x a normal truncated at 0."""
    if sd == 0:
        return _poisson(special, k, lam * mu)
    kept = 0.5 * math.erfc(-mu / sd / math.sqrt(2))  # P(X >= 0)

    def density(v):
        z = (v / lam - mu) / sd
        return np.exp(-z * z / 2) / (math.sqrt(2 * math.pi) * sd * kept * lam)
    return _by_quadrature(special, k, np.unique(lam * np.maximum(mu + sd * SPREAD, 0.0)), density)


def _by_quadrature(special, k: np.ndarray, grid: np.ndarray, density):
    """Poisson mixed over arrivals-per-service V of `density`, whose mass lies in
    [grid[0], grid[-1]] and changes shape on the scale of `grid`'s steps: a_0 =
    E[e^-V] and A_k = E[P(Gamma(k) <= V)] by Gauss-Legendre on panels that also
    resolve the Poisson tail (no wider than 1/2, nor than a quarter of the
    Poisson's spread sqrt(v), where the tail turns from 1 to 0). None beyond
    MAX_PANELS, or beyond MAX_EVALUATIONS of the Poisson tail."""
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


def _mixture(laws, weights) -> Tuple[float, np.ndarray]:
    from scipy.special import logsumexp

    log_w = np.log(np.asarray(weights, dtype=float))[:, None]
    a0 = np.array([law[0] for law in laws])[:, None]
    tails = np.array([law[1] for law in laws])
    return float(logsumexp(a0 + log_w)), logsumexp(tails + log_w, axis=0)
