"""GI/M/1 exactly: renewal arrivals of any law, one exponential server, FCFS.

An arrival finds n jobs with probability (1 - sigma) sigma^n, where sigma in
(0, 1) is the root of sigma = A*(mu (1 - sigma)), A* the Laplace-Stieltjes
transform of the time between arrivals and mu = 1 / s the service rate
(Kleinrock, Queueing Systems I, 6.4). So an arrival waits with probability
sigma, the wait of one who does is exponential with rate mu (1 - sigma), and
so is the response time:

    Wq = sigma s / (1 - sigma),    P(Wq > t) = sigma exp(-(1 - sigma) t / s),
    P(R > t) = exp(-(1 - sigma) t / s).

With sigma = rho this is M/M/1. The root is found for tau = 1 - sigma, from
tau = 1 - A*(mu tau): 1 - A* is computed as E[1 - exp(-x T)] without taking
it from 1, so that tau keeps its digits at heavy load, where it is small.
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from ..model.distributions import (Const, Distribution, Empirical, Erlang, Exp, Gamma, Hyperexp, Jitter,
                                   Lognormal, Normal, Uniform)
from .queues import Means, little


def complement_transform(dist: Distribution) -> Optional[Callable[[float], float]]:
    """x -> 1 - A*(x) = E[1 - exp(-x T)] for T drawn from `dist`; None when no
    form is known here."""
    if isinstance(dist, Const):
        return lambda x: -math.expm1(-x * dist.value)
    if isinstance(dist, (Exp, Erlang, Gamma)):
        return gamma_complement(float(dist.k) if isinstance(dist, Erlang) else 1.0 / dist.scv, dist.mean)
    if isinstance(dist, Hyperexp):
        phases = dist.compile()
        p, m1, m2 = phases["p"], phases["mean1"], phases["mean2"]
        return lambda x: p * x * m1 / (1 + x * m1) + (1 - p) * x * m2 / (1 + x * m2)
    if isinstance(dist, Empirical):
        values = np.array(dist.values)
        return lambda x: float(np.mean(-np.expm1(-x * values)))
    if isinstance(dist, (Uniform, Jitter)):
        low, high = dist.compile()["low"], dist.compile()["high"]
        return lambda x: _uniform(x * low, x * high)
    if isinstance(dist, Lognormal):
        sampling = dist.compile()
        return lambda x: _lognormal(x, sampling["mu"], sampling["sigma"])
    if isinstance(dist, Normal):
        return lambda x: _truncated_normal(x, dist.mu, dist.sd)
    return None


def gamma_complement(shape: float, mean: float) -> Callable[[float], float]:
    """1 - A* of gamma gaps (exp: shape 1, erlang: k): 1 - (1 + x mean / shape)^-shape."""
    return lambda x: -math.expm1(-shape * math.log1p(x * mean / shape))


def tau(complement: Callable[[float], float], s: float) -> float:
    """1 - sigma for service mean `s`: the root in (0, 1) of
    g(tau) = tau - (1 - A*(tau / s)). g is convex, zero at 0, negative just
    above it (its slope there is 1 - 1 / rho, for rho < 1) and positive at 1
    (1 - A* < 1), so bisection cannot miss; it runs until no float lies
    between its ends, and needs no scipy import."""
    lo, hi = 0.0, 1.0
    while True:
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            return hi
        if mid - complement(mid / s) < 0:
            lo = mid
        else:
            hi = mid


def means(lam: float, s: float, t: float) -> Means:
    """GI/M/1 means at arrival rate `lam`, service mean `s`, tau = 1 - sigma."""
    return little(lam, s, (1.0 - t) * s / t)


def wait_quantile(q: float, s: float, t: float) -> float:
    """The q-quantile of the wait: 0 up to the share who do not wait (1 - sigma = tau)."""
    return 0.0 if q <= t else math.log((1.0 - t) / (1.0 - q)) * s / t


def response_quantile(q: float, s: float, t: float) -> float:
    """The q-quantile of the response time, exponential with rate tau / s."""
    return -math.log1p(-q) * s / t


def _uniform(u: float, v: float) -> float:
    """E[1 - exp(-X)] for X uniform on [u, v]:
    ((v + expm1(-v)) - (u + expm1(-u))) / (v - u)."""
    if v - u <= 1e-12 * max(v, 1e-300):
        return -math.expm1(-u)
    return (_x_plus_expm1(v) - _x_plus_expm1(u)) / (v - u)


def _x_plus_expm1(x: float) -> float:
    """x - (1 - exp(-x)), by its series where the subtraction would cancel."""
    if x < 0.1:  # x²/2 - x³/6 + ...: the terms fall by x / n, 12 of them leave < 1e-17
        term, total = x, 0.0
        for n in range(2, 14):
            term *= -x / n
            total += term
        return -total
    return x + math.expm1(-x)


def _lognormal(x: float, mu: float, sigma: float) -> float:
    """E[1 - exp(-x T)], log T normal (mu, sigma), over the normal's z in
    [-12, 12] (beyond, the density is below 1e-31 and the integrand at most 1)."""
    from scipy import integrate

    def integrand(z: float) -> float:
        return -math.expm1(-x * math.exp(mu + sigma * z)) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    # Split where x T crosses 1, where the integrand turns from x T to 1.
    turn = min(max((-math.log(x) - mu) / sigma, -12.0), 12.0) if sigma > 0 else 0.0
    return math.fsum(integrate.quad(integrand, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0]
                     for a, b in ((-12.0, turn), (turn, 12.0)) if b > a)


def _truncated_normal(x: float, mu: float, sd: float) -> float:
    """E[1 - exp(-x T)] for T normal (mu, sd) truncated at 0 (as sampled):
    log E[exp(-x T)] = -x mu + (x sd)² / 2 + log Phi((mu - x sd²) / sd) - log Phi(mu / sd)."""
    from scipy import special

    if sd == 0:
        return -math.expm1(-x * mu)
    log_transform = (-x * mu + (x * sd) ** 2 / 2 + special.log_ndtr((mu - x * sd * sd) / sd)
                     - special.log_ndtr(mu / sd))
    return -math.expm1(log_transform)
