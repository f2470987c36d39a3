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
Each law gives its own 1 - A* (Distribution.laplace_complement,
model/distributions.py).
"""
from __future__ import annotations

import math
from typing import Callable

from .queues import Means, little


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
