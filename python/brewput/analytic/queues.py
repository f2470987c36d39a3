"""Single-station queueing formulas: pure functions of floats.

Notation: arrival rate `lam`, mean service time `s` (the model language gives
means, so the service rate is mu = 1 / s), `c` servers, offered load a = lam s,
per-server utilization rho = a / c, squared coefficients of variation `ca2`
(between arrivals) and `cs2` (of service). Times are per visit; the numbers of
jobs are time averages. Unless a docstring says otherwise a formula needs a
stable queue (rho < 1) and is exact for Poisson arrivals.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import List, NamedTuple, Sequence, Tuple

import numpy as np


class Means(NamedTuple):
    """The mean figures of one station."""

    wait: float       # Wq: time waiting before service
    response: float   # W: time at the station, Wq + s
    in_queue: float   # Lq: jobs waiting
    in_system: float  # L: jobs present


def little(throughput: float, s: float, wait: float) -> Means:
    """Means from the mean wait, by Little's law (L = X W, Lq = X Wq)."""
    return Means(wait, wait + s, throughput * wait, throughput * (wait + s))


@lru_cache(maxsize=1024)
def erlang_b(c: int, a: float) -> float:
    """Erlang's loss formula B(c, a), exact, by the recursion
    B(k) = a B(k-1) / (k + a B(k-1)), B(0) = 1.

    It never forms a^c or c!, so it neither overflows nor loses precision at
    any c; every step is a ratio in (0, 1]. It takes c steps, so it is cached:
    the percentile root-finds ask for the same station's value many times.
    """
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def erlang_c(c: int, a: float) -> float:
    """Erlang's C formula: the probability that an M/M/c arrival waits, exact.

    From Erlang B (so stable at any c): C = c B / (c - a (1 - B)). Needs a < c.
    """
    b = erlang_b(c, a)
    return c * b / (c - a * (1.0 - b))


def mmc(lam: float, s: float, c: int) -> Means:
    """M/M/c FCFS means, exact: Wq = C(c, a) / (c mu - lam). c = 1 is M/M/1
    (Wq = rho s / (1 - rho)).

    The number present is the same birth-death process under any discipline that
    keeps servers busy and ignores service times, so the means also hold for
    non-preemptive LIFO and random order.
    """
    return little(lam, s, erlang_c(c, lam * s) * s / (c - lam * s))


def mmc_wait_tail(t: float, lam: float, s: float, c: int) -> float:
    """M/M/c FCFS waiting time, exact: P(Wq > t) = C e^{-(c mu - lam) t} for t >= 0."""
    return erlang_c(c, lam * s) * math.exp(-(c - lam * s) / s * t)


def mmc_response_tail(t: float, lam: float, s: float, c: int) -> float:
    """M/M/c FCFS response time, exact: P(Wq + S > t), S ~ Exp(mu) independent of Wq.

    Wq is 0 with probability 1 - C and else Exp(theta), theta = c mu - lam, so
    P(T > t) = (1 - C) e^{-mu t} + C P(Exp(theta) + Exp(mu) > t).
    """
    mu, p_wait = 1.0 / s, erlang_c(c, lam * s)
    theta = c * mu - lam
    return (1.0 - p_wait) * math.exp(-mu * t) + p_wait * _two_exponentials_tail(t, theta, mu)


def _two_exponentials_tail(t: float, x: float, y: float) -> float:
    """P(Exp(x) + Exp(y) > t) = (y e^{-xt} - x e^{-yt}) / (y - x), written as
    e^{-lo t} (1 + lo t phi((hi - lo) t)) with phi(d) = (1 - e^{-d}) / d, so that
    x = y (phi = 1: the Erlang-2 tail (1 + mu t) e^{-mu t}) and x near y lose
    nothing to cancellation, and nothing overflows."""
    lo, hi = min(x, y), max(x, y)
    d = (hi - lo) * t
    phi = 1.0 if d == 0 else -math.expm1(-d) / d
    return math.exp(-lo * t) * (1.0 + lo * t * phi)


def mmc_wait_quantile(q: float, lam: float, s: float, c: int) -> float:
    """The q-quantile of the M/M/c FCFS wait, exact: 0 while q <= 1 - C, else
    ln(C / (1 - q)) / (c mu - lam), inverting mmc_wait_tail."""
    p_wait = erlang_c(c, lam * s)
    return 0.0 if 1.0 - q >= p_wait else s * math.log(p_wait / (1.0 - q)) / (c - lam * s)


def mmc_response_quantile(q: float, lam: float, s: float, c: int) -> float:
    """The q-quantile of the M/M/c FCFS response time, exact, by bisection on
    mmc_response_tail (continuous and decreasing, so bisection cannot miss; it
    is written here because importing scipy.optimize for brentq costs 0.7 s,
    more than `brewput solve` may take in all).

    The bracket needs no search: P(Wq + S > x + y) <= P(Wq > x) + P(S > y), so with
    x, y each quantiles at (1 - q) / 2 the tail is at most 1 - q there.
    """
    half = (1.0 - q) / 2.0
    hi = mmc_wait_quantile(1.0 - half, lam, s, c) + s * math.log(1.0 / half)
    lo = 0.0
    while hi - lo > 1e-15 * hi:
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):  # no float between them: as exact as doubles allow
            break
        lo, hi = (mid, hi) if mmc_response_tail(mid, lam, s, c) > 1.0 - q else (lo, mid)
    return (lo + hi) / 2.0


def infinite_server(lam: float, s: float) -> Means:
    """M/G/inf (a delay station), exact for any service distribution and any
    arrival process: nobody waits, W = s, L = lam s."""
    return little(lam, s, 0.0)


def mmck(lam: float, s: float, c: int, k: int) -> Tuple[float, Means]:
    """M/M/c/K (at most k >= c jobs present), exact: (loss probability, means).

    The number present is a birth-death chain, p_n proportional to
    prod_{j<=n} a / min(j, c), n = 0..k, normalized in log space so that no term
    overflows at any load. An arrival is lost with probability p_k (Poisson
    arrivals see time averages); the means are at the accepted rate lam (1 - p_k).
    Any load is allowed: the buffer keeps the queue stable. With k = c it is
    Erlang's loss system, whose loss p_c = B(c, a) holds for any service
    distribution, and a processor-sharing station's numbers present are
    likewise insensitive.
    """
    n = np.arange(k + 1)
    log_weight = np.concatenate(([0.0], np.cumsum(np.log(lam * s / np.minimum(n[1:], c)))))
    p = np.exp(log_weight - log_weight.max())  # the largest term is 1: nothing overflows
    p /= p.sum()
    loss = float(p[-1])
    throughput = lam * float(p[:-1].sum())  # not lam (1 - loss): at heavy load the loss rounds to 1
    in_queue = float(np.dot(np.maximum(n - c, 0), p))
    return loss, little(throughput, s, in_queue / throughput)


def pollaczek_khinchine(lam: float, s: float, cs2: float) -> Means:
    """M/G/1 FCFS by Pollaczek-Khinchine, exact for the means:
    Wq = lam E[S^2] / (2 (1 - rho)), E[S^2] = s^2 (1 + cs2). cs2 = 0 is M/D/1,
    cs2 = 1 M/M/1. Non-preemptive LIFO has the same means (the work present,
    and so the mean wait, does not depend on an order blind to service times).
    """
    rho = lam * s
    return little(lam, s, rho * s * (1.0 + cs2) / (2.0 * (1.0 - rho)))


def allen_cunneen(lam: float, s: float, c: int, ca2: float, cs2: float) -> Means:
    """G/G/c FCFS by Allen-Cunneen, approximate:
    Wq ~ C(c, a) / (c mu - lam) x (ca2 + cs2) / 2, the exact M/M/c wait scaled by
    the variability of arrivals and service.

    At c = 1 it is Kingman's G/G/1 formula (C = rho); it is exact for M/M/c
    (ca2 = cs2 = 1) and for M/G/1 (ca2 = 1, where it is Pollaczek-Khinchine).
    """
    wait = mmc(lam, s, c).wait * (ca2 + cs2) / 2.0
    return little(lam, s, wait)


def processor_sharing(lam: float, s: float, c: int) -> Means:
    """Processor sharing over c servers (n jobs each served at rate min(1, c/n)),
    exact for any service distribution (a symmetric queue, so insensitive): the
    number present is that of M/M/c, W = L / lam. c = 1: W = s / (1 - rho).

    `wait` here is W - s, the time lost to sharing. Several classes share one
    slowdown: class r's response is s_r W / s, with s the flow-weighted mean.
    """
    return little(lam, s, mmc(lam, s, c).in_system / lam - s)


def priority_waits(fcfs_wait: float, loads: Sequence[float],
                   priorities: Sequence[float]) -> List[float]:
    """Non-preemptive priority waits by Cobham's formula:
    Wq_k = W0 / ((1 - sigma_above) (1 - sigma_through)), where sigma_above is the
    per-server load of classes of higher priority and sigma_through adds the
    load of k's own priority level (served FCFS within a level).

    W0 = (1 - rho) x the FCFS wait of all classes together, which is
    sum lam_i E[S_i^2] / 2 for M/G/1 (by Pollaczek-Khinchine: exact for M/G/1) and
    C(c, a) / (c mu) for M/M/c with one service rate for all classes (exact: while
    all servers are busy they finish jobs at rate c mu, as one fast server
    would). With an approximate FCFS wait (Allen-Cunneen) the result is approximate.
    `loads` are per-server utilizations lam_k s_k / c; higher priority is served first.
    """
    loads = np.asarray(loads, dtype=float)
    priorities = np.asarray(priorities, dtype=float)
    w0 = fcfs_wait * (1.0 - loads.sum())
    return [float(w0 / ((1.0 - loads[priorities > p].sum()) * (1.0 - loads[priorities >= p].sum())))
            for p in priorities]
