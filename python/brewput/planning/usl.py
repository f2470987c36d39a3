"""The Universal Scalability Law (Gunther) fitted to measured throughput:

    X(N) = λN / (1 + σ(N - 1) + κN(N - 1))

σ is contention (the serial share: Amdahl's law when κ = 0), κ coherency (the
cost of keeping N workers consistent, which makes throughput fall past a peak)
and λ the throughput of one. The fit is bounded nonlinear least squares (scipy;
σ in [0, 1], κ >= 0, λ > 0), its standard errors from the Jacobian at the
optimum (as R's nls and the R `usl` package compute them), its intervals with
the engine's Student-t quantile on n - 3 degrees of freedom.

κ is reported "not determined" when its interval includes 0 or no measurement
lies at or past the peak it implies: then the peak N* is an extrapolation of
curvature alone, and is not given. Likewise σ, when its interval includes 0:
then Amdahl's ceiling λ/σ is any number from the interval's λ/σ_high upward,
infinity included, and is not given either.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence

import numpy as np

from .. import _native
from ..errors import BrewputError
from .intervals import finite, t_critical

#: The fewest measurements at distinct concurrencies: three coefficients, and at least
#: one degree of freedom left for their errors.
MIN_POINTS = 4
LEVEL = _native.CONFIDENCE  # the engine's level, the one home of the 95 %
#: The largest concurrency fitted: N(N - 1) stays far from overflow, and no
#: measurement has more.
MAX_N = 1e9
#: The smallest: an open-loop step's N = X R is often below 1, never near 0 in
#: a measurement that carries information.
MIN_N = 1e-6


@dataclass(frozen=True)
class Coefficient:
    estimate: float
    std_error: float        # nan when the Jacobian is singular at the optimum
    low: float
    high: float

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "std_error": finite(self.std_error),
                "ci": None if math.isnan(self.std_error) else [self.low, self.high]}


@dataclass(frozen=True)
class UslFit:
    n: np.ndarray
    x: np.ndarray
    sigma: Coefficient
    kappa: Coefficient
    lam: Coefficient
    level: float
    residual_sd: float
    df: int
    kappa_note: Optional[str]   # why κ is not determined; None when it is
    sigma_note: Optional[str]   # why σ, so the ceiling, is not determined; None when it is
    scale: float                # the unit the fit ran in: the largest throughput
    covariance: Optional[np.ndarray]   # of (σ, κ, λ / scale); None when singular

    def throughput(self, n) -> np.ndarray:
        return _usl(np.asarray(n, dtype=float), self.sigma.estimate, self.kappa.estimate, self.lam.estimate)

    def response_time(self, n) -> np.ndarray:
        """R(N) = N / X(N): Little's law for N busy customers with no think time."""
        n = np.asarray(n, dtype=float)
        return n / self.throughput(n)

    @property
    def fitted(self) -> np.ndarray:
        return self.throughput(self.n)

    @property
    def residuals(self) -> np.ndarray:
        return self.x - self.fitted

    @property
    def kappa_determined(self) -> bool:
        return self.kappa_note is None

    @property
    def peak_n(self) -> Optional[int]:
        """N* = floor(sqrt((1 - σ) / κ)), the whole concurrency of the peak, when κ is determined."""
        if not self.kappa_determined:
            return None
        return max(1, math.floor(_knee(self.sigma.estimate, self.kappa.estimate)))

    @property
    def peak_throughput(self) -> Optional[float]:
        return None if self.peak_n is None else float(self.throughput(self.peak_n))

    @property
    def ceiling(self) -> Optional[float]:
        """Amdahl's ceiling λ/σ, the most throughput contention allows (none when σ
        is 0 or not determined)."""
        if self.sigma_note is not None or self.sigma.estimate <= 0:
            return None
        return self.lam.estimate / self.sigma.estimate

    def interval(self, n) -> tuple:
        """The fitted curve's confidence band at `n` (the delta method on the
        coefficients' covariance), as (low, high) arrays."""
        n = np.asarray(n, dtype=float)
        fit = self.throughput(n)
        if self.covariance is None:
            return fit, fit
        grad = _jacobian(n, self.sigma.estimate, self.kappa.estimate, self.lam.estimate / self.scale)
        variance = np.einsum("ij,jk,ik->i", grad, self.covariance, grad)
        half = t_critical(self.level, self.df) * np.sqrt(np.maximum(variance, 0)) * self.scale
        return fit - half, fit + half

    def as_dict(self) -> dict:
        """The fit in plain JSON types: what `brewput fit usl --json` prints."""
        return {
            "model": "X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))",
            "level": self.level,
            "sigma": self.sigma.as_dict(), "kappa": self.kappa.as_dict(), "lambda": self.lam.as_dict(),
            "kappa_determined": self.kappa_determined, "kappa_note": self.kappa_note,
            "sigma_determined": self.sigma_note is None, "sigma_note": self.sigma_note,
            "peak": None if self.peak_n is None else {"n": self.peak_n, "throughput": self.peak_throughput},
            "ceiling": self.ceiling,
            "residual_std_error": finite(self.residual_sd), "degrees_of_freedom": self.df,
            "points": [{"n": float(n), "throughput": float(x), "fitted": float(f), "residual": float(x - f),
                        "response_time": float(r)}
                       for n, x, f, r in zip(self.n, self.x, self.fitted, self.response_time(self.n))],
        }


def fit_usl(n: Sequence[float], x: Sequence[float], level: float = LEVEL) -> UslFit:
    """The least-squares USL through the points (n[i], x[i]); `n` and `x` positive
    and finite, at least MIN_POINTS distinct concurrencies (the readers check this
    for files; here it is checked again for callers from Python)."""
    n = np.asarray(n, dtype=float)
    x = np.asarray(x, dtype=float)
    if n.shape != x.shape or n.ndim != 1:
        raise BrewputError(f"expected as many concurrencies as throughputs, got {n.size} and {x.size}")
    if not (np.all(np.isfinite(n)) and np.all(np.isfinite(x)) and np.all(n > 0) and np.all(x > 0)):
        raise BrewputError("every concurrency and throughput must be a positive finite number")
    if np.max(n) > MAX_N or np.min(n) < MIN_N:
        outside = np.max(n) if np.max(n) > MAX_N else np.min(n)
        raise BrewputError(f"N = {outside:g}: the USL is fitted for concurrencies from {MIN_N:g} to {MAX_N:g}")
    if np.unique(n).size < MIN_POINTS:
        raise BrewputError(f"{np.unique(n).size} distinct concurrencies; the USL's three coefficients "
                           f"need at least {MIN_POINTS}")
    # in units of the largest throughput (the fit is the same in any unit): any
    # finite throughput, however large or small, stays clear of overflow
    scale = float(np.max(x))
    with np.errstate(all="ignore"):
        sigma, kappa, lam = _least_squares(n, x / scale)
        df = n.size - 3
        residual = x / scale - _usl(n, sigma, kappa, lam)
        residual_sd = math.sqrt(float(residual @ residual) / df)
        covariance = _covariance(n, sigma, kappa, lam, residual_sd)
    if not all(math.isfinite(v) for v in (sigma, kappa, lam, residual_sd)):
        raise BrewputError("the least-squares search found no finite fit for these points")
    errors = [math.nan] * 3 if covariance is None else [math.sqrt(v) for v in np.diag(covariance)]
    lam, errors[2], residual_sd = lam * scale, errors[2] * scale, residual_sd * scale
    t = t_critical(level, df)
    sigma_c, kappa_c, lam_c = (Coefficient(v, se, v - t * se, v + t * se)
                               for v, se in zip((sigma, kappa, lam), errors))
    return UslFit(n=n, x=x, sigma=sigma_c, kappa=kappa_c, lam=lam_c, level=level, residual_sd=residual_sd,
                  df=df, kappa_note=_kappa_note(n, sigma_c, kappa_c, level), sigma_note=_sigma_note(sigma_c, level),
                  scale=scale, covariance=covariance)


def _usl(n: np.ndarray, sigma: float, kappa: float, lam: float) -> np.ndarray:
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def _jacobian(n: np.ndarray, sigma: float, kappa: float, lam: float) -> np.ndarray:
    """dX/d(σ, κ, λ) at each n, a row per point."""
    denominator = 1 + sigma * (n - 1) + kappa * n * (n - 1)
    scale = lam * n / denominator ** 2
    return np.column_stack((-scale * (n - 1), -scale * n * (n - 1), n / denominator))


def _knee(sigma: float, kappa: float) -> float:
    return math.sqrt((1 - sigma) / kappa) if kappa > 0 else math.inf


def _starts(n: np.ndarray, x: np.ndarray) -> List[np.ndarray]:
    """Where the search starts: the R package's start (λ the best throughput per
    worker, σ 0.01, κ 0.0001), and the linearised fit (Gunther's: with λ from the
    smallest N, N/C(N) - 1 = σ(N - 1) + κN(N - 1) is linear in σ and κ)."""
    starts = [np.array([0.01, 1e-4, float(np.max(x / n))])]
    first = int(np.argmin(n))
    lam = float(x[first] / n[first])
    design = np.column_stack((n - 1, n * (n - 1)))
    target = n * lam / x - 1
    (sigma, kappa), *_ = np.linalg.lstsq(design, target, rcond=None)
    starts.append(np.array([min(max(sigma, 0.0), 1.0), max(kappa, 0.0), lam]))
    return starts


def _least_squares(n: np.ndarray, x: np.ndarray) -> tuple:
    from scipy.optimize import least_squares  # 0.3 s: only a fit pays it

    best = None
    for start in _starts(n, x):
        found = least_squares(lambda p: _usl(n, *p) - x, start, jac=lambda p: _jacobian(n, *p),
                              bounds=([0.0, 0.0, 0.0], [1.0, np.inf, np.inf]), x_scale="jac",
                              ftol=1e-15, xtol=1e-15, gtol=1e-15, max_nfev=10_000)
        if best is None or found.cost < best.cost:
            best = found
    sigma, kappa, lam = (float(v) for v in best.x)
    # A term that adds under 1e-12 to the denominator at every measured N is the
    # search stopping next to its bound: it is the bound.
    top = float(np.max(n))
    sigma = 0.0 if sigma * top < 1e-12 else sigma
    kappa = 0.0 if kappa * top * top < 1e-12 else kappa
    if not lam > 0:
        raise BrewputError("the fit found no positive throughput of one worker (λ); the data do not scale")
    return sigma, kappa, lam


def _covariance(n: np.ndarray, sigma: float, kappa: float, lam: float, residual_sd: float) -> Optional[np.ndarray]:
    """The coefficients' covariance, (J'J)^-1 s^2 with J the Jacobian at the optimum
    (as R's nls); None when J'J is singular or the result is not a covariance."""
    grad = _jacobian(n, sigma, kappa, lam)
    try:
        covariance = np.linalg.inv(grad.T @ grad) * residual_sd ** 2
    except np.linalg.LinAlgError:
        return None
    if not (np.all(np.isfinite(covariance)) and np.all(np.diag(covariance) >= 0)):
        return None
    return covariance


def _kappa_note(n: np.ndarray, sigma: Coefficient, kappa: Coefficient, level: float) -> Optional[str]:
    share = f"{level * 100:g} %"
    if math.isnan(kappa.std_error):
        return "κ not determined: the points do not separate it from σ (a singular fit)"
    if kappa.low <= 0:
        return (f"κ not determined: its {share} interval {_g(kappa.low)} .. {_g(kappa.high)} includes 0, "
                f"so no peak follows from these points")
    knee = _knee(sigma.estimate, kappa.estimate)
    if float(np.max(n)) < knee:
        return (f"κ not determined: no point lies past the knee (the fit's peak would be at N = {_g(knee)}, "
                f"beyond the largest N measured, {_g(float(np.max(n)))})")
    return None


def _sigma_note(sigma: Coefficient, level: float) -> Optional[str]:
    """Why σ is not determined (None when it is): only a σ the fit put above 0 can
    be undetermined; σ = 0 is the bound, reported as no contention measured."""
    if sigma.estimate <= 0:
        return None
    if math.isnan(sigma.std_error):
        return "σ not determined: the points do not separate it from κ (a singular fit), so no Amdahl ceiling"
    if sigma.low <= 0:
        return (f"σ not determined: its {level * 100:g} % interval {_g(sigma.low)} .. {_g(sigma.high)} "
                f"includes 0, so no Amdahl ceiling follows from these points")
    return None


def _g(value: float) -> str:
    return f"{value:.4g}"
