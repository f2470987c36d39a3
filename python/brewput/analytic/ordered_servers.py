"""How busy each of c identical exponential servers is when one FIFO queue hands
every job to the first free server in a fixed order (the shared dispatch's ties,
`policy: shared`): M/M/c for the customers, but the first servers work more.

The set S of busy servers is a Markov chain while some server is idle: an arrival
(rate lam) takes the lowest idle server, each busy one finishes at mu = 1 / s. Once
all are busy the queue may grow; that block is left only from "all busy, none
waiting", after a time of mean 1 / (c mu - lam) (the M/M/1 busy period of the
excess, at rate c mu), to "all but i" with i uniform. The stationary probability
of a semi-Markov chain depends only on its jumps and mean holding times, so the
block is one state of exit rate c mu - lam: 2^c states in all, solved as a linear
system. Each server's utilization is the probability of the sets holding it.
"""
from __future__ import annotations

from typing import List

#: The most servers whose split is solved: the sparse solve's fill-in grows fast
#: (12 servers, 4,096 sets: 0.9 s; 14: 49 s).
MAX_SERVERS = 12
#: Up to this many sets (10 servers) the system is solved dense: 30 ms at 1,024,
#: where importing scipy for the sparse solve would cost 0.15 s of `brewput solve`.
DENSE_SETS = 1 << 10


def ordered_utilizations(lam: float, s: float, c: int) -> List[float]:
    """Each server's busy fraction, in the order jobs prefer them (needs lam s < c)."""
    import numpy as np

    mu, full = 1.0 / s, (1 << c) - 1
    rows, cols, rates = [], [], []
    for busy in range(full + 1):
        if busy == full:
            for i in range(c):
                rows.append(busy), cols.append(busy & ~(1 << i)), rates.append((c * mu - lam) / c)
            continue
        first_idle = next(i for i in range(c) if not busy >> i & 1)
        rows.append(busy), cols.append(busy | 1 << first_idle), rates.append(lam)
        for i in range(c):
            if busy >> i & 1:
                rows.append(busy), cols.append(busy & ~(1 << i)), rates.append(mu)
    size = full + 1
    right = np.zeros(size)
    right[0] = 1.0
    if size <= DENSE_SETS:
        q = np.zeros((size, size))
        np.add.at(q, (rows, cols), rates)
        generator = (q - np.diag(q.sum(axis=1))).T
        generator[0, :] = 1.0  # replace one balance equation by the normalisation
        p = np.linalg.solve(generator, right)
    else:
        from scipy import sparse
        from scipy.sparse.linalg import spsolve

        q = sparse.csr_matrix((rates, (rows, cols)), shape=(size, size))
        generator = (q - sparse.diags(np.asarray(q.sum(axis=1)).ravel())).T.tolil()
        generator[0, :] = 1.0
        p = spsolve(generator.tocsc(), right)
    sets = np.arange(size)
    return [float(p[(sets >> i & 1).astype(bool)].sum()) for i in range(c)]
