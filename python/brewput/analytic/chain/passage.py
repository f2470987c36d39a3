"""The laws of a class's response and waiting times from its tagged customer's chain
(tagged.py): each the time to absorption of a chain of transient states, a
phase-type law, read by uniformization.

The response time is the passage itself. The waiting time is the time the tagged
customer spends in the waiting states W (queues, outside a full station) before it is
done, possibly over several stations: the chain censored on W (Latouche and Ramaswami,
5.4), the stretches in the other states N taken as instants, of generator
G = Q_WW + Q_WN (-Q_NN)^-1 Q_NW. G is dense where N is large, so it is never formed:
each step multiplies by Q_WW and Q_WN, solves with the LU of Q_NN once factored, and
multiplies by Q_NW. Where the customer waits at one place only (it never waits again
once served), Q_NW is 0 and G = Q_WW.

Uniformization (Tijms, A First Course in Stochastic Models, 4.5): with L the largest
rate out of a state, P(T > t) = sum_m Poisson(m; L t) a_m, a_m = start P^m 1 for the
chain made discrete, P = I + Q / L, the a_m computed once, as far as the largest t
asked needs (or until a_m is below GONE). A chain of very unlike rates needs many steps
(L t): beyond WORK the law gives up (NaN, the results' null) and says so.

Where the tagged customer may give up, the laws are those of the customers who complete,
as simulate times them: P(T <= t | completes) = sum_m Poisson(m; L t) d_m / P(complete),
d_m the mass absorbed by completion within m steps of the discrete chain (each step
absorbs v_m r / L of it, r the rates of completion). For the waiting time the censored
chain's absorption that completes is r_W + Q_WN (-Q_NN)^-1 r_N per waiting state, and
of its start's deficit start_N (-Q_NN)^-1 r_N completes without waiting.
"""
from __future__ import annotations

import math
from typing import Callable, List, Optional, Tuple

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..laws import Law, Laws
from .tagged import Passage

#: Poisson weights beyond this many standard deviations are left out (below 1e-20).
SPREAD = 10.0
#: The most multiply-adds (steps of the discrete chain times the entries each step reads) one law may take.
WORK = 500_000_000
#: The survival of the chain made discrete below which it is taken as ended (P(T > t) is then
#: exact to within it, far below a double's resolution of 1 - P).
GONE = 1e-18


class TooMuchWork(Exception):
    """The law's uniformization needs more than WORK."""


class PhaseTypeLaw:
    """The time to absorption from `start` (its deficit: done at once) of a chain whose
    discrete step (uniformized at rate `fastest`) `step` carries a row vector, each step
    costing about `cost` multiply-adds. With `counts`, the law of the paths absorbed one
    way only: `counts` (ends, done_at_once, total) its rates of absorption per state, the
    part of the start's deficit absorbed that way, and the probability of that way in all."""

    def __init__(self, start: np.ndarray, fastest: float, step: Callable[[np.ndarray], np.ndarray], cost: int,
                 counts: Optional[Tuple[np.ndarray, float, float]] = None):
        self.start = np.asarray(start, dtype=float)
        self.fastest = fastest
        self._step = step
        self._now = self.start.copy()
        self._alive: List[float] = [float(self.start.sum())]
        self._max_steps = WORK // max(cost, 1)
        self._counts = counts
        self._done: List[float] = [counts[1] if counts else 0.0]

    def cdf(self, t: float) -> float:
        """P(T <= t); NaN where it would take more than WORK."""
        if t <= 0 or not self.fastest:
            return self._done[0] / self._counts[2] if self._counts else 1.0 - self._alive[0]
        x = self.fastest * t
        last = int(x + SPREAD * math.sqrt(x) + SPREAD)
        try:
            alive = self._survival(last)
        except TooMuchWork:
            return math.nan
        m = np.arange(len(alive))
        weights = np.exp(m * math.log(x) - x - np.concatenate(([0.0], np.cumsum(np.log(m[1:])))))
        if self._counts:  # past the last step kept (ended), the mass absorbed stays what it was
            done = np.array(self._done[:len(alive)])
            return min(1.0, max(0.0, (weights @ done + max(0.0, 1.0 - weights.sum()) * done[-1]) / self._counts[2]))
        return min(1.0, max(0.0, 1.0 - float(weights @ alive)))

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

    def _survival(self, last: int) -> np.ndarray:
        """a_0 .. a_last, ended early where a_m is GONE (the rest add nothing a double can hold)."""
        while len(self._alive) <= last and self._alive[-1] >= GONE:
            if len(self._alive) > self._max_steps:
                raise TooMuchWork
            if self._counts:
                self._done.append(self._done[-1] + float(self._now @ self._counts[0]) / self.fastest)
            self._now = self._step(self._now)
            self._alive.append(float(self._now.sum()))
        return np.array(self._alive[:last + 1])


def _law(law: PhaseTypeLaw, mean: float) -> Law:
    return Law(cdf=law.cdf, quantile=lambda q: law.quantile(q, mean))


def _fastest(generator: sp.spmatrix) -> float:
    return float(-generator.diagonal().min()) if generator.shape[0] else 0.0


def _completes(chain: Passage) -> float:
    """P(complete) = alpha N r, N = (-T)^-1."""
    return float(spla.splu((-chain.generator).tocsc()).solve(chain.completing.astype(float)) @ chain.start)


def response_law(chain: Passage, mean: float) -> Law:
    q, fastest = chain.generator, _fastest(chain.generator)
    moves = q.T.tocsr()
    counts = (chain.completing, 0.0, _completes(chain)) if chain.gives_up else None
    return _law(PhaseTypeLaw(chain.start, fastest, lambda v: v + moves @ v / fastest, q.nnz, counts), mean)


def waiting_law(chain: Passage, mean: float) -> Law:
    """The law of the time spent waiting: the chain censored on its waiting states. Its
    rates out of a state are at most Q_WW's (a return through N only adds to its own
    diagonal), so Q_WW's fastest uniformizes it."""
    w, n = np.flatnonzero(chain.waiting), np.flatnonzero(~chain.waiting)
    q = chain.generator
    q_ww, fastest = q[w][:, w], _fastest(q[w][:, w])
    start = chain.start[w].copy()
    stays = q_ww.T.tocsr()
    q_nw = q[n][:, w]
    if not (q_nw.nnz or chain.gives_up):  # it never waits again once served
        return _law(PhaseTypeLaw(start, fastest, lambda v: v + stays @ v / fastest, q_ww.nnz), mean)
    leaves, returns = q[w][:, n].T.tocsr(), q_nw.T.tocsr()
    lu = spla.splu((-q[n][:, n]).T.tocsc())  # row vector x (-Q_NN)^-1 as a solve with the transpose
    counts = None
    if chain.gives_up:  # from N, P(it completes before it waits again): (-Q_NN)^-1 r_N
        ahead = lu.solve(chain.completing[n].astype(float), trans="T")
        ends = chain.completing[w] + q[w][:, n] @ ahead
        counts = (np.asarray(ends, dtype=float).ravel(), float(chain.start[n] @ ahead), _completes(chain))

    def through(x: np.ndarray) -> np.ndarray:  # from N, where it next waits (x (-Q_NN)^-1 Q_NW)
        return returns @ lu.solve(x)

    start += through(chain.start[n])
    cost = q_ww.nnz + leaves.nnz + returns.nnz + lu.L.nnz + lu.U.nnz
    step = (lambda v: v + (stays @ v + through(leaves @ v)) / fastest) if q_nw.nnz else \
        (lambda v: v + stays @ v / fastest)
    return _law(PhaseTypeLaw(start, fastest, step, cost, counts), mean)


def passage_laws(chain: Passage, exact: bool, response_mean: float, waiting_mean: float) -> Laws:
    return Laws(waiting=waiting_law(chain, waiting_mean), response=response_law(chain, response_mean), exact=exact,
                method="ctmc")
