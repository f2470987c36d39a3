"""How busy each of c identical exponential servers is when one FIFO queue hands
every job to the first free server in a fixed order (the shared dispatch's ties,
`policy: shared`): M/M/c for the customers, but the first servers work more.

The set S of busy servers is a Markov chain while some server is idle: an arrival
(rate lam) takes the lowest idle server, each busy one finishes at mu = 1 / s. Once
all are busy the queue may grow; that block is left only from "all busy, none
waiting", after a time of mean 1 / (c mu - lam) (the M/M/1 busy period of the
excess, at rate c mu), to "all but i" with i uniform. The stationary probability
of a semi-Markov chain depends only on its jumps and mean holding times, so the
block is one state of exit rate c mu - lam. Each server's utilization is the
probability of the sets holding it.

That chain has 2^c sets, but it lumps: for any i, the pair (n, m) of busy servers
among the first i and among the other c - i moves as a Markov chain of its own (an
arrival goes to the first group while one of it is idle, else to the second; each
busy server finishes at mu; the block leaves to the first group with probability
i / c). So E[n] for the first i servers comes from (i + 1)(c - i + 1) states, and
server i's utilization is E[n] for the first i less that for the first i - 1.
"""
from __future__ import annotations

from typing import List

#: The most servers whose split is solved.
MAX_SERVERS = 12


def ordered_utilizations(lam: float, s: float, c: int) -> List[float]:
    """Each server's busy fraction, in the order jobs prefer them (needs lam s < c)."""
    busy_among_first = [0.0] + [_mean_busy_among_first(lam, 1.0 / s, c, i) for i in range(1, c + 1)]
    return [busy_among_first[i] - busy_among_first[i - 1] for i in range(1, c + 1)]


def _mean_busy_among_first(lam: float, mu: float, c: int, first: int) -> float:
    """E[n]: the mean number of busy servers among the `first` ones, from the lumped chain (n, m)."""
    import numpy as np

    others = c - first
    size = (first + 1) * (others + 1)
    q = np.zeros((size, size))
    for n in range(first + 1):
        for m in range(others + 1):
            here = n * (others + 1) + m
            if n == first and m == others:  # all busy: the block, left after the excess's busy period
                leave = c * mu - lam
                if first:
                    q[here, here - (others + 1)] += leave * first / c
                if others:
                    q[here, here - 1] += leave * others / c
                continue
            q[here, here + (others + 1) if n < first else here + 1] += lam  # the lowest idle server
            if n:
                q[here, here - (others + 1)] += n * mu
            if m:
                q[here, here - 1] += m * mu
    generator = (q - np.diag(q.sum(axis=1))).T
    generator[0, :] = 1.0  # replace one balance equation by the normalisation
    probability = np.linalg.solve(generator, np.eye(size)[0])
    return float(np.arange(first + 1) @ probability.reshape(first + 1, others + 1).sum(axis=1))
