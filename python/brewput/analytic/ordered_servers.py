"""How busy each of c identical exponential servers is when one FIFO queue hands
every job to the first free server in a fixed order (the shared dispatch's ties,
`policy: shared`): M/M/c for the customers, but the first servers work more.

The set S of busy servers is a Markov chain while some server is idle: an arrival
(rate lam) takes the lowest idle server, each busy one finishes at mu = 1 / s. Once
all are busy the queue may grow; that block is left only from "all busy, none
waiting", after a time of mean 1 / (c mu - lam) (the M/M/1 busy period of the
excess, at rate c mu), to "all but i" with i uniform. The stationary probability
of a semi-Markov chain depends only on its jumps and mean holding times, so the
block is one state of exit rate c mu - lam: 2^c states in all. Each server's
utilization is the probability of the sets holding it.

Every jump adds or removes one server, so the chain is block tridiagonal in the
number k of busy servers, and linear level reduction solves it (Latouche and
Ramaswami 1999, ch. 10): with U_k the arrivals from level k to k + 1, D_k the
departures from level k to k - 1 and N_k the diagonal of the rates of leaving,
pi_{k+1} = pi_k R_k where R_{c-1} = U_{c-1} N_c^-1 and
R_{k-1} = U_{k-1} (N_k - R_k D_{k+1})^-1; the largest block has C(c, c/2) sets
(924 at 12 servers), and numpy alone solves it (no scipy import for `brewput solve`).
"""
from __future__ import annotations

from typing import List

#: The most servers whose split is solved (12 servers: 4,096 sets, blocks of 924).
MAX_SERVERS = 12


def ordered_utilizations(lam: float, s: float, c: int) -> List[float]:
    """Each server's busy fraction, in the order jobs prefer them (needs lam s < c)."""
    import numpy as np

    mu, full = 1.0 / s, (1 << c) - 1
    levels: List[List[int]] = [[] for _ in range(c + 1)]
    for busy in range(full + 1):
        levels[bin(busy).count("1")].append(busy)
    place = {busy: j for sets in levels for j, busy in enumerate(sets)}

    def arrivals(k: int):  # U_k: an arrival takes the lowest idle server
        block = np.zeros((len(levels[k]), len(levels[k + 1])))
        for j, busy in enumerate(levels[k]):
            block[j, place[busy | 1 << next(i for i in range(c) if not busy >> i & 1)]] = lam
        return block

    def departures(k: int):  # D_k: any busy server finishes (from all busy: the excess's busy period ends)
        rate = (c * mu - lam) / c if k == c else mu
        block = np.zeros((len(levels[k]), len(levels[k - 1])))
        for j, busy in enumerate(levels[k]):
            for i in range(c):
                if busy >> i & 1:
                    block[j, place[busy & ~(1 << i)]] = rate
        return block

    leaving = [lam + k * mu for k in range(c)] + [c * mu - lam]  # N_k's diagonal, the same for every set
    rates = [None] * c  # R_k
    below = np.diag(np.full(1, leaving[c]))
    for k in range(c - 1, -1, -1):
        rates[k] = np.linalg.solve(below.T, arrivals(k).T).T
        if k:
            below = np.diag(np.full(len(levels[k]), leaving[k])) - rates[k] @ departures(k + 1)
    level = np.ones(1)  # pi_0 up to normalisation
    probabilities = {0: 1.0}
    for k in range(c):
        level = level @ rates[k]
        probabilities.update(zip(levels[k + 1], level))
    total = sum(probabilities.values())
    return [sum(p for busy, p in probabilities.items() if busy >> i & 1) / total for i in range(c)]
