"""The busiest of M service centres (seed 004, "An Analysis of Load Balancing
Efficiency"): when each centre's utilization is normal(mean, sigma) and the
centres are independent, capacity is planned on the busiest, whose expected
utilization is mean + sigma x E[max of M standard normals].

The seed takes E[max] ~ sqrt(2 ln M) and calls the two "approximately equal for
M >= 4". It is an upper bound, and a loose one: 62 % too high at M = 4, still
15 % at M = 1024 and 8 % at a million (the gap falls only like ln ln M / ln M).
Here E[max] is the integral of x M phi(x) Phi(x)^(M-1), by quadrature, beside
the seed's bound, two close approximations (Blom's plotting position and the
Gumbel limit with its first correction) and a simulation of M normal
utilizations.

Granularity: a centre's load is the sum of the n units (exchanges, requests)
bound to it, each of spread s, so its spread is sqrt(n) s. Splitting every unit
into k finer ones of spread s_k gives sqrt(k n) s_k: finer units help only when
s_k < s / sqrt(k), and then the busiest centre's excess over the mean shrinks by
s / (sqrt(k) s_k). That holds when every centre gets the same number of units;
when a hash picks each unit's centre, the number varies too, and that variation,
which splitting does shrink, is most of the spread.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Tuple

from .. import _native
from ..errors import OptionError

MAX_CENTRES = 1_000_000
# A simulated draw is the max of M normal utilizations; the draws are capped so
# that one run samples at most this many normals (about a second), in blocks of
# at most BLOCK normals (80 MB of float64) so memory stays bounded at any M.
SAMPLE_BUDGET = 50_000_000
BLOCK = 10_000_000
MAX_DRAWS = 10_000
CONFIDENCE = _native.CONFIDENCE  # the engine's level, the one home of the 95 %


def expected_max(centres: int) -> float:
    """E[max of `centres` independent standard normals]: the integral over x of
    x M phi(x) Phi(x)^(M-1), the density of the max, by adaptive quadrature in logs
    (Phi^(M-1) underflows for large M)."""
    from scipy import integrate, special

    def density_times_x(x: float) -> float:
        log_density = math.log(centres) - 0.5 * x * x - 0.5 * math.log(2 * math.pi)
        return x * math.exp(log_density + (centres - 1) * special.log_ndtr(x))

    # The max lies within a few units of sqrt(2 ln M): splitting there keeps quad on the mass.
    peak = math.sqrt(2 * math.log(centres))
    lower, _ = integrate.quad(density_times_x, -math.inf, peak, epsabs=1e-14, epsrel=1e-12, limit=200)
    upper, _ = integrate.quad(density_times_x, peak, math.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    return lower + upper


def seed_bound(centres: int) -> float:
    """The seed's E[max] ~ sqrt(2 ln M): an upper bound for every M (Krishna 1996, p. 371)."""
    return math.sqrt(2 * math.log(centres))


def blom(centres: int) -> float:
    """Blom's (1958) plotting position for the largest of M: Phi^-1((M - 0.375) / (M + 0.25))."""
    from scipy import special

    return float(special.ndtri((centres - 0.375) / (centres + 0.25)))


def gumbel(centres: int) -> float:
    """The extreme-value limit with its first correction: b_M + gamma / a_M, where
    a_M = sqrt(2 ln M) and b_M = a_M - (ln ln M + ln 4 pi) / (2 a_M) (Cramer 1946)."""
    a = math.sqrt(2 * math.log(centres))
    b = a - (math.log(math.log(centres)) + math.log(4 * math.pi)) / (2 * a)
    return b + 0.5772156649015329 / a


APPROXIMATIONS = {"seed: sqrt(2 ln M)": seed_bound, "Blom": blom, "Gumbel + correction": gumbel}


def draws_for(centres: int) -> int:
    """How many maxima of `centres` normals the simulation draws."""
    return max(100, min(MAX_DRAWS, SAMPLE_BUDGET // centres))


def simulated_max(centres: int, seed: int) -> Tuple[float, float, int]:
    """E[max of `centres` standard normals] by drawing them: (mean of the maxima,
    95 % half-width, draws), with numpy's PCG64 from `seed`."""
    import numpy as np
    from scipy import stats

    draws = draws_for(centres)
    rng = np.random.default_rng(seed)
    rows = max(1, BLOCK // centres)
    maxima = np.concatenate([rng.standard_normal((min(rows, draws - start), centres)).max(axis=1)
                             for start in range(0, draws, rows)])
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, draws - 1) * maxima.std(ddof=1) / math.sqrt(draws)
    return float(maxima.mean()), float(half), draws


@dataclass(frozen=True)
class Busiest:
    """The busiest of `centres` centres whose utilizations are normal(mean, sigma)."""

    centres: int
    mean: float
    sigma: float
    exact: float                         # E[max of M standard normals]
    approximations: Dict[str, float]     # name -> its E[max]
    simulated: float
    simulated_half_width: float
    draws: int
    seed: int

    def utilization(self, e_max: float) -> float:
        """The busiest centre's expected utilization for a value of E[max]."""
        return self.mean + self.sigma * e_max

    def row(self, e_max: float) -> dict:
        """One estimate of E[max]: itself, the busiest utilization it gives, its error against the exact."""
        return {"e_max": e_max, "busiest_utilization": self.utilization(e_max), "relative_error": e_max / self.exact - 1}

    @classmethod
    def from_dict(cls, saved: dict) -> "Busiest":
        """The figures to_dict gave (`balance --json`, its page's record.json)."""
        simulated = saved["simulated"]
        return cls(saved["centres"], saved["mean"], saved["sigma"], saved["exact"]["e_max"],
                   {name: row["e_max"] for name, row in saved["approximations"].items()}, simulated["e_max"],
                   simulated["half_width"], simulated["draws"], simulated["seed"])

    def to_dict(self) -> dict:
        row = self.row
        return {"centres": self.centres, "mean": self.mean, "sigma": self.sigma,
                "exact": row(self.exact),
                "approximations": {name: row(value) for name, value in self.approximations.items()},
                "simulated": {**row(self.simulated), "half_width": self.simulated_half_width,
                              "busiest_utilization_half_width": self.sigma * self.simulated_half_width,
                              "draws": self.draws, "seed": self.seed}}


def busiest(centres: int, mean: float = 0.5, sigma: float = 0.1, seed: int = 1) -> Busiest:
    """The busiest-centre figures, every input checked first (OptionError names it)."""
    check_inputs(centres, mean, sigma, seed)
    simulated, half, draws = simulated_max(centres, seed)
    return Busiest(centres, float(mean), float(sigma), expected_max(centres),
                   {name: f(centres) for name, f in APPROXIMATIONS.items()}, simulated, half, draws, seed)


def check_inputs(centres, mean, sigma, seed) -> None:
    if not (isinstance(centres, int) and not isinstance(centres, bool) and 2 <= centres <= MAX_CENTRES):
        raise OptionError("centres", f"expected a whole number of centres from 2 to {MAX_CENTRES:,} "
                                     f"(the busiest of one is itself), got {centres!r}")
    if not (isinstance(mean, (int, float)) and math.isfinite(mean) and 0 <= mean <= 1):
        raise OptionError("mean", f"expected a utilization from 0 to 1, got {mean!r}")
    if not (isinstance(sigma, (int, float)) and math.isfinite(sigma) and 0 <= sigma <= 1):
        raise OptionError("sigma", f"expected a standard deviation of utilization from 0 to 1, got {sigma!r}")
    if not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64):
        raise OptionError("seed", f"expected a whole number from 0 to 2^64 - 1, got {seed!r}")


# ---- granularity: when do finer units balance better? -------------------------------

@dataclass(frozen=True)
class Split:
    """Coarse units of spread `coarse_sd` split into `k` = coarse_mean / fine_mean finer
    units of spread `fine_sd`, a fixed number of units bound to each centre."""

    coarse_mean: float
    coarse_sd: float
    fine_mean: float
    fine_sd: float

    @property
    def k(self) -> float:
        return self.coarse_mean / self.fine_mean

    @property
    def break_even_sd(self) -> float:
        """The finer units' spread at which splitting changes nothing: coarse_sd / sqrt(k)."""
        return self.coarse_sd / math.sqrt(self.k)

    @property
    def gain(self) -> float:
        """How many times smaller the busiest centre's excess over the mean becomes
        (the ratio of the centres' spreads, coarse over fine)."""
        return self.break_even_sd / self.fine_sd

    def gain_when_hashed(self, centres: int) -> float:
        """The same ratio when each unit goes to a centre drawn at random (a hash), so
        that how many units a centre gets varies too: a centre's load then has variance
        n (sd^2 + mean^2 (1 - 1/M)) for n units on average, and the count's share,
        mean^2, falls by k on splitting while the spread's may not."""
        share = 1 - 1 / centres
        coarse = self.coarse_sd**2 + self.coarse_mean**2 * share
        fine = self.k * (self.fine_sd**2 + self.fine_mean**2 * share)
        return math.sqrt(coarse / fine)

    @property
    def seed_threshold(self) -> float:
        """The seed's criterion, coarse_sd / k (too strict by sqrt(k) against its own equation 8)."""
        return self.coarse_sd / self.k


# The seed's fibre-channel capture (bytes): exchanges of 20,270 +- 1,586, frames of 1,861 +- 6.
FIBRE_CHANNEL = Split(coarse_mean=20_270, coarse_sd=1_586, fine_mean=1_861, fine_sd=6)
