"""M/G/1 shortest job first, non-preemptive, exactly: one server, Poisson
arrivals, each job served in order of the service time it drew (ties first come
first served), as the simulator does.

A job of size x waits for the work in progress and then for every job at least
as short that is there or comes before it starts (Phipps 1956; Cobham's priority
formula with the sizes as levels):

    W(x) = W0 / ((1 - rho(x-)) (1 - rho(x))),   W0 = lam E[S^2] / 2,
    rho(x) = lam E[S; S <= x],   rho(x-) = lam E[S; S < x]

(for a size with no atom the two are equal). A class's mean wait is E[W(S)] over
its own service law; the station's service law is the flow-weighted mixture of
every class's steps there. Atoms (const, empirical) are summed; densities are
integrated over their quantiles (W is bounded and monotone there) with the other
laws' atoms as break points.
"""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ..model.distributions import Distribution

#: Quadrature's relative tolerance for the laws with a density.
TOLERANCE = 1e-11


class _Law:
    """One service law without mixture: atoms, or a density (a scipy frozen law
    for its quantiles) with its partial first moment E[S; S <= x] in closed form,
    as the distribution gives them (Distribution.atoms, .quantile_law)."""

    def __init__(self, dist: Distribution):
        self.atoms: Tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0))  # values, probabilities
        self.frozen = None
        self._partial = None
        self.converged = True  # whether every integral met its tolerance
        atoms = dist.atoms()
        if atoms is not None:
            self.atoms = atoms
        else:
            self.frozen, self._partial = dist.quantile_law()

    def partial(self, x, strict: bool = False):
        """E[S; S <= x], or E[S; S < x] with `strict`, at every x (an array or a float)."""
        values, probabilities = self.atoms
        cumulative = np.concatenate(([0.0], np.cumsum(probabilities * values)))  # values are sorted
        total = cumulative[np.searchsorted(values, x, side="left" if strict else "right")]
        return total + (self._partial(x) if self._partial is not None else 0.0)

    def expect(self, g, breaks: Sequence[float]) -> float:
        """E[g(S)], over the quantiles for a density, `breaks` (other laws' atoms)
        marking where g jumps."""
        from scipy import integrate

        values, probabilities = self.atoms
        total = float(probabilities @ g(values)) if len(values) else 0.0
        if self.frozen is None:
            return total
        edges = np.unique(np.concatenate(([0.0, 1.0], self.frozen.cdf(np.asarray(breaks, dtype=float)))))

        def quad(low: float, high: float) -> float:
            if high - low < 1e-12:  # a sliver of probability: its midpoint is as good as any rule
                return (high - low) * float(g(self.frozen.ppf((low + high) / 2)))
            found = integrate.quad(lambda u: float(g(self.frozen.ppf(u))), low, high, epsabs=0.0,
                                   epsrel=TOLERANCE, limit=400, full_output=1)
            if len(found) == 4 and found[1] > 1e-9 * abs(found[0]):  # quadpack's warning, and it shows
                self.converged = False
            return found[0]
        if len(edges) == 2:
            return total + quad(0.0, 1.0)
        # Between two jumps of g the integrand is smooth: Gauss-Legendre, all at once;
        # the two end pieces hold the quantile function's singularities: adaptive.
        nodes, weights = np.polynomial.legendre.leggauss(32)
        inner = edges[1:-1]
        half = np.diff(inner)[:, None] / 2
        u = (inner[:-1, None] + half + half * nodes).ravel()
        middle = float((half * weights).ravel() @ g(self.frozen.ppf(u))) if len(u) else 0.0
        return total + quad(0.0, edges[1]) + middle + quad(edges[-2], 1.0)


def sjf_waits(lam: float, second_moment: float, components: Sequence[Tuple[int, float, Distribution]],
              classes: int) -> Tuple[List[float], bool]:
    """Mean wait per class at an M/G/1 SJF station fed at total rate `lam`, whose
    service is the mixture of `components` (class, weight, distribution) with
    weights summing to 1, and E[S^2] = `second_moment`; needs rho < 1. Also
    whether every integral met its tolerance."""
    laws = [(r, w * part, _Law(law)) for r, w, dist in components for part, law in dist.parts()]
    breaks = sorted({float(v) for _, _, law in laws for v in law.atoms[0]})
    w0 = lam * second_moment / 2.0

    def load(x, strict: bool):
        return lam * sum(w * law.partial(x, strict) for _, w, law in laws)

    def wait(x):
        return w0 / ((1.0 - load(x, True)) * (1.0 - load(x, False)))

    total = np.zeros(classes)
    weight = np.zeros(classes)
    for r, w, law in laws:
        total[r] += w * law.expect(wait, breaks)
        weight[r] += w
    waits = [float(t / w) if w > 0 else 0.0 for t, w in zip(total, weight)]
    return waits, all(law.converged for _, _, law in laws)
