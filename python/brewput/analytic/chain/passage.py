"""The laws of a class's response and waiting times from its tagged customer's chain
(tagged.py): each the time to absorption of a chain of transient states, a
phase-type law, read by uniformization.

The response time is the passage itself. The waiting time is the time the tagged
customer spends in the waiting states (queues, outside a full station) before it is
done, possibly over several stations: the chain censored on those states (Latouche and
Ramaswami, 5.4), the time in the others taken as instants, G = Q_WW + Q_WN (-Q_NN)^-1 Q_NW.
Where it waits at one place only (it never waits again once served), Q_NW is 0 and no
solve is needed.

Uniformization (Tijms, A First Course in Stochastic Models, 4.5): with L the largest
rate out of a state, P(T > t) = sum_m Poisson(m; L t) a_m, a_m = start P^m 1 for the
chain made discrete, P = I + Q / L, the a_m computed once, as far as the largest t
asked needs. A chain of very unlike rates needs many steps (L t): beyond WORK the law
gives up (NaN, the results' null) and says so.
"""
from __future__ import annotations

import math
from typing import List, Optional

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..laws import Law, Laws
from .tagged import Passage

#: Poisson weights beyond this many standard deviations are left out (below 1e-20).
SPREAD = 10.0
#: The most multiply-adds (steps of the discrete chain times its nonzero entries) one law may take.
WORK = 500_000_000
#: The largest block (rows x columns) of the censored waiting chain's fill-in.
CENSOR_FILL = 4_000_000


class TooMuchWork(Exception):
    """The law's uniformization needs more than WORK."""


class PhaseTypeLaw:
    """The time to absorption from `start` (its deficit: done at once) under the
    transient generator `generator`."""

    def __init__(self, start: np.ndarray, generator: sp.csr_matrix):
        self.start = np.asarray(start, dtype=float)
        self.fastest = float(max(-generator.diagonal().min(), 0.0)) if generator.shape[0] else 0.0
        step = sp.identity(generator.shape[0], format="csr") + generator / self.fastest if self.fastest else None
        self._step_t = step.T.tocsr() if step is not None else None
        self._now = self.start.copy()
        self._alive: List[float] = [float(self.start.sum())]
        self._max_steps = WORK // max(generator.nnz, 1)

    def cdf(self, t: float) -> float:
        """P(T <= t); NaN where it would take more than WORK."""
        if t <= 0 or self._step_t is None:
            return 1.0 - self._alive[0]
        x = self.fastest * t
        last = int(x + SPREAD * math.sqrt(x) + SPREAD)
        try:
            self._steps(last)
        except TooMuchWork:
            return math.nan
        m = np.arange(last + 1)
        log_weights = m * math.log(x) - x - np.concatenate(([0.0], np.cumsum(np.log(m[1:]))))
        survival = float(np.exp(log_weights) @ np.array(self._alive[:last + 1]))
        return min(1.0, max(0.0, 1.0 - survival))

    def quantile(self, q: float, guess: float) -> float:
        """The least t with P(T <= t) >= q (from `guess`, a scale of the time), by
        bisection to 1e-12 of it; NaN where the law gives up."""
        if self.cdf(0.0) >= q:
            return 0.0
        lo, hi = 0.0, guess if guess > 0 else 1.0 / self.fastest
        while True:
            value = self.cdf(hi)
            if math.isnan(value):
                return math.nan
            if value >= q:
                break
            lo, hi = hi, 2.0 * hi
        while hi - lo > 1e-12 * hi:
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if self.cdf(mid) < q else (lo, mid)
        return (lo + hi) / 2.0

    def _steps(self, last: int) -> None:
        if last > self._max_steps:
            raise TooMuchWork
        while len(self._alive) <= last:
            self._now = self._step_t @ self._now
            self._alive.append(float(self._now.sum()))


def _law(law: PhaseTypeLaw, mean: float) -> Law:
    return Law(cdf=law.cdf, quantile=lambda q: law.quantile(q, mean))


UNKNOWN = Law(cdf=lambda t: math.nan, quantile=lambda q: math.nan)


def response_law(chain: Passage, mean: float) -> Law:
    return _law(PhaseTypeLaw(chain.start, chain.generator), mean)


def waiting_law(chain: Passage, mean: float) -> Optional[Law]:
    """The law of the time spent waiting, or None where the censored chain's fill-in
    is beyond CENSOR_FILL."""
    w, n = np.flatnonzero(chain.waiting), np.flatnonzero(~chain.waiting)
    q = chain.generator
    q_ww, q_wn, q_nw, q_nn = q[w][:, w], q[w][:, n], q[n][:, w], q[n][:, n].tocsc()
    start = chain.start[w]
    if q_nw.nnz:  # it may wait again after a service: the stretches between waits taken as instants
        rows = np.unique(q_wn.nonzero()[0])
        cols = np.unique(q_nw.nonzero()[1])
        if len(rows) * len(cols) > CENSOR_FILL:
            return None
        into = spla.splu(-q_nn).solve(q_nw[:, cols].toarray())  # (N, cols): from each state not waiting, where it waits next
        fill = np.asarray(q_wn[rows] @ into)
        returns = sp.coo_matrix((fill.ravel(), (np.repeat(rows, len(cols)), np.tile(cols, len(rows)))),
                                shape=q_ww.shape)
        q_ww = (q_ww + returns).tocsr()
        start = start.copy()
        start[cols] += chain.start[n] @ into
    return _law(PhaseTypeLaw(start, q_ww), mean)


def passage_laws(chain: Passage, exact: bool, response_mean: float, waiting_mean: float) -> Laws:
    waiting = waiting_law(chain, waiting_mean)
    return Laws(waiting=waiting or UNKNOWN, response=response_law(chain, response_mean), exact=exact,
                method="ctmc")
