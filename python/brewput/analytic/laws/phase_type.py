"""The time to absorption of a pure-death chain of phases: from phase k the
chain moves to phase k - 1 at rate rates[k], and phase 0 ends it at rate
rates[0]; it starts in phase k with probability start[k] (and has ended at
once with the rest). Its law is computed by uniformization: with L the largest
rate, P(T > t) = sum_m Poisson(m; L t) P(not ended after m steps of the chain
made discrete), the latter independent of t, so computed once, as far as the
largest t asked needs (Tijms, A First Course in Stochastic Models, 4.5)."""
from __future__ import annotations

import math
from typing import List

import numpy as np

#: Poisson weights beyond this many standard deviations are left out (below 1e-20).
_SPREAD = 10.0


class DeathChain:
    def __init__(self, rates: np.ndarray, start: np.ndarray):
        self.rates = np.asarray(rates, dtype=float)
        self.start = np.asarray(start, dtype=float)
        self.fastest = float(self.rates.max())
        self._move = self.rates / self.fastest  # the discrete chain's chance to move down a phase
        self._now = self.start.copy()
        self._alive: List[float] = [float(self.start.sum())]

    def mean(self) -> float:
        """E[T]: each phase passed through, once, at its rate."""
        return float(self.start @ np.cumsum(1.0 / self.rates))

    def cdf(self, t: float) -> float:
        """P(T <= t)."""
        if t <= 0:
            return 1.0 - self._alive[0]
        x = self.fastest * t
        last = int(x + _SPREAD * math.sqrt(x) + _SPREAD)
        self._steps(last)
        m = np.arange(last + 1)
        log_weights = m * math.log(x) - x - np.concatenate(([0.0], np.cumsum(np.log(m[1:]))))
        survival = float(np.exp(log_weights) @ np.array(self._alive[:last + 1]))
        return min(1.0, max(0.0, 1.0 - survival))

    def _steps(self, last: int) -> None:
        """The discrete chain's survival after 0..last steps."""
        while len(self._alive) <= last:
            now, moved = self._now, self._now * self._move
            now = now - moved
            now[:-1] += moved[1:]
            self._now = now
            self._alive.append(float(now.sum()))
