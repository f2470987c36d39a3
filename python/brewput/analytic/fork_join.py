"""Fork/join of K homogeneous exponential branches: each job splits into K tasks,
one to each of K M/M/1 stations (service rate mu each, all fed by the same
Poisson stream of rate lam), and leaves when its tasks are joined.

- K = 2, join all: exact. Flatto and Hahn (1984, SIAM J. Appl. Math. 44(5)) found
  the joint queue lengths; Nelson and Tantawi (1985, 1988) the mean response
  R_2 = (12 - rho) / 8 / (mu - lam).
- K = 2, first of two: exact, since min + max = T_1 + T_2 and each branch alone
  is M/M/1: R_min = 2 / (mu - lam) - R_2 = (4 + rho) / 8 / (mu - lam).
- K > 2, join all: Nelson and Tantawi's scaling approximation (1988, IEEE Trans.
  Computers 37(6); as eq. (3) of Thomasian 2014, ACM Comput. Surv. 47(2)),
      R_K ~ [H_K / H_2 + (1 - H_K / H_2) 4 rho / 11] R_2,
  H_K the K-th harmonic number, fitted to simulation for 2 <= K <= 32 and
  reported there within about 5 % of it: approximate.
  It comes with bounds that hold exactly: the branches' response times are
  associated (they share arrivals), so their maximum is at most that of K
  independent Exp(mu - lam) variables, H_K / (mu - lam); it is at least the
  maximum of any two (R_2) and at least the mean largest of K service times, H_K / mu.

Any other k of K is not covered: no exact result or published approximation exists.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import BrewputError

#: The branch counts Nelson and Tantawi fitted and checked their approximation on.
NELSON_TANTAWI_MAX_BRANCHES = 32


@dataclass(frozen=True)
class ForkJoin:
    """Mean response of a fork/join job, fork to join."""

    response: float  # mean time from fork to the join releasing the job
    lower: float     # a lower bound on `response` that holds exactly
    upper: float     # an upper bound on `response` that holds exactly
    exact: bool
    method: str      # "flatto-hahn", "flatto-hahn-min" or "nelson-tantawi"


def _integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def harmonic(k: int) -> float:
    """H_k = 1 + 1/2 + ... + 1/k."""
    return sum(1.0 / i for i in range(1, k + 1))


def fork_join(lam: float, mu: float, branches: int, needed: int = 0) -> ForkJoin:
    """Mean fork-to-join response of `branches` M/M/1 branches that share one
    Poisson stream; the job leaves when `needed` of them finish (0: all of them)."""
    if not (_integer(branches) and branches >= 2):
        raise BrewputError(f"fork/join: branches must be an integer of at least 2, got {branches!r}")
    needed = needed or branches
    if not (_integer(needed) and 1 <= needed <= branches):
        raise BrewputError(f"fork/join: needed must be an integer between 1 and branches ({branches}), got {needed!r}")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0
               for x in (lam, mu)):
        raise BrewputError(f"fork/join: the arrival rate and the service rate must be positive numbers, "
                           f"got {lam!r} and {mu!r}")
    rho = lam / mu
    if rho >= 1:
        raise BrewputError(f"fork/join: each branch is loaded to {rho:.4g} >= 1, unstable; no steady state exists")
    branch = 1.0 / (mu - lam)  # one M/M/1 branch's mean response
    two = (12.0 - rho) / 8.0 * branch
    if branches == 2 and needed == 1:
        # min = T_1 + T_2 - max; the min of two is at most a branch and at least half of one.
        return ForkJoin(2.0 * branch - two, 0.5 * branch, branch, True, "flatto-hahn-min")
    if needed != branches:
        raise BrewputError(f"fork/join: joining {needed} of {branches} branches has no exact result or "
                           "published approximation here (only all branches, or 1 of 2); use brewput simulate")
    h = harmonic(branches)
    upper = h * branch
    if branches == 2:
        return ForkJoin(two, two, two, True, "flatto-hahn")
    if branches > NELSON_TANTAWI_MAX_BRANCHES:
        raise BrewputError(f"fork/join: {branches} branches is beyond the {NELSON_TANTAWI_MAX_BRANCHES} the "
                           "Nelson-Tantawi approximation was fitted on; use brewput simulate")
    ratio = h / harmonic(2)
    approx = (ratio + (1.0 - ratio) * 4.0 * rho / 11.0) * two
    return ForkJoin(approx, max(two, h / mu), upper, False, "nelson-tantawi")
