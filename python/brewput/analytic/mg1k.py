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
a closed form; the others integrate it by quadrature, and give None when that
takes too long (each distribution's poisson_mixture, model/distributions.py,
from mixed_poisson.py's parts); the caller then stays with its approximation.
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Tuple

import numpy as np

from ..model.distributions import Distribution
from .queues import Means, little

#: Below this the loss 1 - 1 / (pi_0 + rho) has lost digits to cancellation, and
#: is taken from the arrivals' tails beyond the buffer instead (at most MAX_TAILS).
SMALL_LOSS = 1e-6
MAX_TAILS = 1 << 20


def arrivals_law(dist: Distribution, lam: float, capacity: int) -> Optional[Tuple[float, np.ndarray]]:
    """(log a_0, log A_k for k = 0 .. capacity - 1) for Poisson arrivals at rate
    `lam` during one service drawn from `dist`; None when no exact form is known."""
    k = np.arange(capacity, dtype=float)
    with np.errstate(divide="ignore"):
        return dist.poisson_mixture(lam, k)


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
