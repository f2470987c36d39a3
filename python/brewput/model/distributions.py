"""Distributions of the model language: each given by its mean (and spread), each
knowing its mean and squared coefficient of variation (for the analytic solvers)
and its compiled form (the sampling parameters the engine wants).

A time is a bare number, in the model's time unit, or a number with its unit
(`exp(4ms)`), converted to the model's unit: the same words mean the same time
in a model file and in `brewput serve --service` (whose unit is the second).
A ratio (`k`, `cv`) takes no unit."""
from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple

from ..errors import FieldError
from ..units import SECONDS, TYPED_SECONDS, split_time
from .limits import MAX_CV, MAX_EMPIRICAL, MAX_PHASES, MAX_TIME, MIN_CV, MIN_TIME
from .params import EXPRESSION_SCHEMA, or_expression
from .source import UnreadableFile, read_text

_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", re.DOTALL)


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FieldError(f"{name} must be a finite number, got {value!r}", name)
    return float(value)


def _require(ok: bool, name: str, problem: str, value: Any) -> None:
    if not ok:
        raise FieldError(f"{name} {problem}, got {value!r}", name)


_TIMES = f"from {MIN_TIME:g} to {MAX_TIME:g}"


def _positive_time(value: float, name: str) -> None:
    _require(MIN_TIME <= value <= MAX_TIME, name, f"must be {_TIMES}", value)


def _time(value: float, name: str) -> None:
    """A time that may also be 0."""
    _require(value == 0 or MIN_TIME <= value <= MAX_TIME, name, f"must be 0 or {_TIMES}", value)


def _cv(value: float, low: float, why: str = "") -> None:
    _require(low <= value <= MAX_CV, "cv", f"must be from {low:g} to {MAX_CV:g}{why}", value)


class EmpiricalBudget:
    """The empirical values a model may still hold: MAX_EMPIRICAL in all its
    distributions together, counted while files are read."""

    def __init__(self) -> None:
        self.left = MAX_EMPIRICAL

    def take(self, count: int) -> None:
        if count > self.left:
            raise FieldError(f"more than {MAX_EMPIRICAL:,} empirical values in the model")
        self.left -= count


class Distribution:
    """Base of the distributions. Subclasses are frozen dataclasses whose fields are
    the model language's parameters, in the order the string form takes them, and
    have `mean`, `scv` (squared coefficient of variation: variance / mean², 0 when
    the mean is 0), `compile()` (the engine's sampling parameters) and what the
    analytic methods need of a law (below). `mean` is not declared here because a
    dataclass would take the inherited attribute for a default value of the
    subclasses' `mean` field.

    A new distribution is a subclass here (and its sampler in crates/sim): the
    solvers ask it, and switch on no class."""

    kind: ClassVar[str]
    scv: float
    #: Whether draws are exponential: the analytic solver's product-form and
    #: Poisson-arrival conditions need the distribution itself, not just its scv
    #: (a lognormal with cv 1 has scv 1 but is not exponential).
    is_exponential: ClassVar[bool] = False

    def compile(self) -> Dict[str, Any]:
        raise NotImplementedError

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.type in ("float", float):
                object.__setattr__(self, f.name, _number(getattr(self, f.name), f.name))
        self._check()

    def _check(self) -> None:
        """Raise FieldError when the parameters are out of range."""

    # What the analytic methods need of a law: GI/M/1 its transform (analytic/gim1.py),
    # M/G/1/K the Poisson arrivals during one draw (analytic/mg1k.py), shortest job
    # first its atoms or its density and partial mean (analytic/sjf.py).

    def laplace_complement(self) -> Callable[[float], float]:
        """x -> 1 - A*(x) = E[1 - exp(-x T)] for T drawn from this law, computed
        without taking it from 1 (GI/M/1's root needs its digits at heavy load)."""
        raise NotImplementedError

    def poisson_mixture(self, lam: float, k: Any) -> Optional[Tuple[float, Any]]:
        """(log a_0, log A_k at each k of the array `k`): the law of Poisson
        arrivals at rate `lam` during one draw (analytic/mixed_poisson.py); None
        when integrating it would take too long."""
        raise NotImplementedError

    def parts(self) -> List[Tuple[float, Distribution]]:
        """This law as (weight, law without mixture) parts."""
        return [(1.0, self)]

    def atoms(self) -> Optional[Tuple[Any, Any]]:
        """(values sorted, probabilities) as numpy arrays for a law that is all
        atoms; None for a law with a density (quantile_law)."""
        if self.scv == 0:  # const, and the others' degenerate cases
            import numpy as np

            return np.array([self.mean]), np.array([1.0])
        return None

    def quantile_law(self) -> Tuple[Any, Callable[[Any], Any]]:
        """(a scipy frozen law, for its quantiles; x -> E[S; S <= x] in closed form)
        for a law with a density."""
        raise TypeError(f"no shortest-job-first law for {type(self).__name__}")


class _GammaLaw:
    """What the analytic methods need of exp, erlang and gamma: gamma laws of
    shape `_shape()` (exp 1, erlang k, gamma 1 / cv²)."""

    def _shape(self) -> float:
        return 1.0 / self.scv

    def laplace_complement(self):
        from ..analytic.gim1 import gamma_complement

        return gamma_complement(self._shape(), self.mean)

    def poisson_mixture(self, lam, k):
        from ..analytic import mixed_poisson

        return mixed_poisson.gamma(k, self._shape(), lam * self.mean)

    def quantile_law(self):
        from scipy import special, stats  # 0.7 s: only laws with a density need its quantiles

        shape = self._shape()
        scale, mean = self.mean / shape, self.mean
        return stats.gamma(shape, scale=scale), lambda x: mean * special.gammainc(shape + 1.0, x / scale)


class _UniformLaw:
    """What the analytic methods need of uniform and jitter: uniform laws on
    the `low`, `high` they compile to."""

    def _bounds(self) -> Tuple[float, float]:
        return self.compile()["low"], self.compile()["high"]

    def laplace_complement(self):
        low, high = self._bounds()
        return lambda x: _uniform_complement(x * low, x * high)

    def poisson_mixture(self, lam, k):
        import numpy as np

        from ..analytic import mixed_poisson

        low, high = (lam * bound for bound in self._bounds())
        if high - low <= 0:
            return mixed_poisson.poisson(k, low)
        return mixed_poisson.by_quadrature(k, np.array([low, high]), lambda v: np.full(v.shape, 1.0 / (high - low)))

    def quantile_law(self):
        import numpy as np
        from scipy import stats

        low, high = self._bounds()
        return stats.uniform(low, high - low), lambda x: (np.clip(x, low, high) ** 2 - low**2) / (2.0 * (high - low))


@dataclass(frozen=True)
class Const(Distribution):
    value: float
    kind: ClassVar[str] = "const"

    def _check(self):
        _time(self.value, "value")

    mean = property(lambda self: self.value)
    scv = property(lambda self: 0.0)

    def compile(self):
        return {"kind": "const", "value": self.value}

    def laplace_complement(self):
        return lambda x: -math.expm1(-x * self.value)

    def poisson_mixture(self, lam, k):
        from ..analytic import mixed_poisson

        return mixed_poisson.poisson(k, lam * self.value)


@dataclass(frozen=True)
class Exp(_GammaLaw, Distribution):
    mean: float
    kind: ClassVar[str] = "exp"
    is_exponential: ClassVar[bool] = True

    def _check(self):
        _positive_time(self.mean, "mean")

    scv = property(lambda self: 1.0)

    def compile(self):
        return {"kind": "exp", "mean": self.mean}


@dataclass(frozen=True)
class Erlang(_GammaLaw, Distribution):
    k: int
    mean: float
    kind: ClassVar[str] = "erlang"

    def __post_init__(self):
        k = self.k
        whole = (isinstance(k, (int, float)) and not isinstance(k, bool)
                 and math.isfinite(k) and k == int(k))
        _require(whole and 1 <= k <= MAX_PHASES, "k", f"must be a positive integer (at most {MAX_PHASES})", k)
        object.__setattr__(self, "k", int(k))
        super().__post_init__()

    def _check(self):
        _positive_time(self.mean, "mean")

    scv = property(lambda self: 1.0 / self.k)
    is_exponential = property(lambda self: self.k == 1)

    def compile(self):
        return {"kind": "erlang", "k": self.k, "mean": self.mean}

    def _shape(self):
        return float(self.k)


@dataclass(frozen=True)
class Gamma(_GammaLaw, Distribution):
    mean: float
    cv: float
    kind: ClassVar[str] = "gamma"

    def _check(self):
        _positive_time(self.mean, "mean")
        _cv(self.cv, MIN_CV, " (use const for no variation)")

    scv = property(lambda self: self.cv**2)
    is_exponential = property(lambda self: self.cv == 1)

    def compile(self):
        return {"kind": "gamma", "shape": 1 / self.cv**2, "scale": self.mean * self.cv**2}


@dataclass(frozen=True)
class Lognormal(Distribution):
    mean: float
    cv: float
    kind: ClassVar[str] = "lognormal"

    def _check(self):
        _positive_time(self.mean, "mean")
        _cv(self.cv, 0)

    scv = property(lambda self: self.cv**2)

    def compile(self):
        sigma2 = math.log1p(self.cv**2)
        return {"kind": "lognormal", "mu": math.log(self.mean) - sigma2 / 2, "sigma": math.sqrt(sigma2)}

    def laplace_complement(self):
        sampling = self.compile()
        return lambda x: _lognormal_complement(x, sampling["mu"], sampling["sigma"])

    def poisson_mixture(self, lam, k):
        """Poisson mixed over lam x this lognormal (log-mean mu, log-sd sigma)."""
        import numpy as np

        from ..analytic import mixed_poisson

        sampling = self.compile()
        mu, sigma = sampling["mu"], sampling["sigma"]
        if sigma == 0:
            return mixed_poisson.poisson(k, lam * math.exp(mu))
        log_mu = mu + math.log(lam)

        def density(v):
            z = (np.log(v) - log_mu) / sigma
            return np.exp(-z * z / 2) / (v * sigma * math.sqrt(2 * math.pi))
        return mixed_poisson.by_quadrature(k, np.exp(log_mu + sigma * mixed_poisson.SPREAD), density)

    def quantile_law(self):
        import numpy as np
        from scipy import special, stats

        mu, sigma = self.compile()["mu"], self.compile()["sigma"]
        mean = self.mean
        return (stats.lognorm(sigma, scale=math.exp(mu)),
                lambda x: mean * special.ndtr((np.log(np.maximum(x, 1e-300)) - mu - sigma**2) / sigma))


@dataclass(frozen=True)
class Uniform(_UniformLaw, Distribution):
    a: float
    b: float
    kind: ClassVar[str] = "uniform"

    def _check(self):
        _time(self.a, "a")
        _time(self.b, "b")
        _require(self.b >= self.a, "b", f"must be >= a ({self.a!r})", self.b)

    mean = property(lambda self: (self.a + self.b) / 2)
    scv = property(lambda self: _scv(self.mean, (self.b - self.a) ** 2 / 12))

    def compile(self):
        return {"kind": "uniform", "low": self.a, "high": self.b}


@dataclass(frozen=True)
class Normal(Distribution):
    """Normal truncated at 0 (negative draws are redrawn), so `mean` and `scv`
    are those of the truncated distribution, not the raw `mu` and `sd`."""

    mu: float
    sd: float
    kind: ClassVar[str] = "normal"

    def _check(self):
        # A positive mu keeps at least half the draws, so redrawing ends quickly.
        _positive_time(self.mu, "mean")
        _time(self.sd, "sd")

    def _truncated(self) -> Tuple[float, float]:
        if self.sd == 0:
            return self.mu, 0.0
        alpha = -self.mu / self.sd
        kept = 0.5 * math.erfc(alpha / math.sqrt(2))  # P(X >= 0)
        hazard = math.exp(-alpha * alpha / 2) / math.sqrt(2 * math.pi) / kept
        mean = self.mu + self.sd * hazard
        return mean, self.sd**2 * (1 + alpha * hazard - hazard**2)

    mean = property(lambda self: self._truncated()[0])
    scv = property(lambda self: _scv(*self._truncated()))

    def compile(self):
        return {"kind": "normal", "mean": self.mu, "sd": self.sd}

    def laplace_complement(self):
        return lambda x: _truncated_normal_complement(x, self.mu, self.sd)

    def poisson_mixture(self, lam, k):
        """Poisson mixed over lam x this normal truncated at 0."""
        import numpy as np

        from ..analytic import mixed_poisson

        mu, sd = self.mu, self.sd
        if sd == 0:
            return mixed_poisson.poisson(k, lam * mu)
        kept = 0.5 * math.erfc(-mu / sd / math.sqrt(2))  # P(X >= 0)

        def density(v):
            z = (v / lam - mu) / sd
            return np.exp(-z * z / 2) / (math.sqrt(2 * math.pi) * sd * kept * lam)
        return mixed_poisson.by_quadrature(k, np.unique(lam * np.maximum(mu + sd * mixed_poisson.SPREAD, 0.0)), density)

    def quantile_law(self):
        import numpy as np
        from scipy import special, stats

        mu, sd = self.mu, self.sd
        kept = special.ndtr(mu / sd)

        def partial(x):
            z0, zx = -mu / sd, (np.maximum(x, 0.0) - mu) / sd
            density = lambda z: np.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
            return (mu * (special.ndtr(zx) - special.ndtr(z0)) + sd * (density(z0) - density(zx))) / kept
        return stats.truncnorm(-mu / sd, np.inf, loc=mu, scale=sd), partial


@dataclass(frozen=True)
class Hyperexp(Distribution):
    """Two exponential phases with balanced means (p·mean1 = (1-p)·mean2)."""

    mean: float
    cv: float
    kind: ClassVar[str] = "hyperexp"

    def _check(self):
        _positive_time(self.mean, "mean")
        _cv(self.cv, 1, " (a hyperexponential varies at least as much as an exponential; "
                        "use gamma or lognormal below 1)")

    scv = property(lambda self: self.cv**2)
    is_exponential = property(lambda self: self.cv == 1)  # both phases then have the mean

    def compile(self):
        c2 = self.cv**2
        p = (1 + math.sqrt((c2 - 1) / (c2 + 1))) / 2
        return {"kind": "hyperexp", "p": p, "mean1": self.mean / (2 * p),
                "mean2": self.mean / (2 * (1 - p))}

    def laplace_complement(self):
        phases = self.compile()
        p, m1, m2 = phases["p"], phases["mean1"], phases["mean2"]
        return lambda x: p * x * m1 / (1 + x * m1) + (1 - p) * x * m2 / (1 + x * m2)

    def poisson_mixture(self, lam, k):
        from ..analytic import mixed_poisson

        phases = self.compile()
        laws = [mixed_poisson.negative_binomial(k, 1.0, lam * phases["mean1"]),
                mixed_poisson.negative_binomial(k, 1.0, lam * phases["mean2"])]
        return mixed_poisson.mixture(laws, [phases["p"], 1.0 - phases["p"]])

    def parts(self):
        """Two exponentials."""
        phases = self.compile()
        return [(phases["p"], Exp(phases["mean1"])), (1.0 - phases["p"], Exp(phases["mean2"]))]


@dataclass(frozen=True)
class Jitter(_UniformLaw, Distribution):
    """Uniform on mean ± width/2: a fixed time with bounded noise."""

    mean: float
    width: float
    kind: ClassVar[str] = "jitter"

    def _check(self):
        _positive_time(self.mean, "mean")
        _require(0 <= self.width <= 2 * self.mean, "width",
                 f"must be between 0 and 2*mean ({2 * self.mean!r}) so no time is negative", self.width)

    scv = property(lambda self: _scv(self.mean, self.width**2 / 12))

    def compile(self):
        return {"kind": "uniform", "low": self.mean - self.width / 2, "high": self.mean + self.width / 2}


@dataclass(frozen=True)
class Empirical(Distribution):
    """Each of `values` with equal probability."""

    values: Tuple[float, ...]
    kind: ClassVar[str] = "empirical"

    def __post_init__(self):
        values = self.values
        if not isinstance(values, (list, tuple)) or not values:
            raise FieldError(f"values must be a non-empty list of numbers, got {values!r}", "values")
        if len(values) > MAX_EMPIRICAL:
            raise FieldError(f"values: at most {MAX_EMPIRICAL:,} allowed, got {len(values):,}", "values")
        numbers = tuple(_number(v, "values") for v in values)
        for v in numbers:
            _time(v, "values")
        object.__setattr__(self, "values", numbers)

    mean = property(lambda self: math.fsum(self.values) / len(self.values))

    @property
    def scv(self):
        mean = self.mean
        return _scv(mean, math.fsum((v - mean) ** 2 for v in self.values) / len(self.values))

    def compile(self):
        return {"kind": "empirical", "values": list(self.values)}

    def laplace_complement(self):
        import numpy as np

        values = np.array(self.values)
        return lambda x: float(np.mean(-np.expm1(-x * values)))

    def poisson_mixture(self, lam, k):
        from ..analytic import mixed_poisson

        values, probabilities = self.atoms()
        return mixed_poisson.mixture([mixed_poisson.poisson(k, lam * v) for v in values], probabilities)

    def atoms(self):
        import numpy as np

        values, counts = np.unique(np.array(self.values), return_counts=True)
        return values, counts / counts.sum()


def _scv(mean: float, variance: float) -> float:
    return variance / mean**2 if mean > 0 else 0.0


def _uniform_complement(u: float, v: float) -> float:
    """E[1 - exp(-X)] for X uniform on [u, v]:
    ((v + expm1(-v)) - (u + expm1(-u))) / (v - u)."""
    if v - u <= 1e-12 * max(v, 1e-300):
        return -math.expm1(-u)
    return (_x_plus_expm1(v) - _x_plus_expm1(u)) / (v - u)


def _x_plus_expm1(x: float) -> float:
    """x - (1 - exp(-x)), by its series where the subtraction would cancel."""
    if x < 0.1:  # x²/2 - x³/6 + ...: the terms fall by x / n, 12 of them leave < 1e-17
        term, total = x, 0.0
        for n in range(2, 14):
            term *= -x / n
            total += term
        return -total
    return x + math.expm1(-x)


def _lognormal_complement(x: float, mu: float, sigma: float) -> float:
    """E[1 - exp(-x T)], log T normal (mu, sigma), over the normal's z in
    [-12, 12] (beyond, the density is below 1e-31 and the integrand at most 1)."""
    from scipy import integrate

    def integrand(z: float) -> float:
        return -math.expm1(-x * math.exp(mu + sigma * z)) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    # Split where x T crosses 1, where the integrand turns from x T to 1.
    turn = min(max((-math.log(x) - mu) / sigma, -12.0), 12.0) if sigma > 0 else 0.0
    return math.fsum(integrate.quad(integrand, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0]
                     for a, b in ((-12.0, turn), (turn, 12.0)) if b > a)


def _truncated_normal_complement(x: float, mu: float, sd: float) -> float:
    """E[1 - exp(-x T)] for T normal (mu, sd) truncated at 0 (as sampled):
    log E[exp(-x T)] = -x mu + (x sd)² / 2 + log Phi((mu - x sd²) / sd) - log Phi(mu / sd)."""
    from scipy import special

    if sd == 0:
        return -math.expm1(-x * mu)
    log_transform = (-x * mu + (x * sd) ** 2 / 2 + special.log_ndtr((mu - x * sd * sd) / sd)
                     - special.log_ndtr(mu / sd))
    return -math.expm1(log_transform)


KINDS = {cls.kind: cls for cls in (Const, Exp, Erlang, Gamma, Lognormal, Uniform, Normal,
                                   Hyperexp, Jitter, Empirical)}
# The model language's names for each kind's parameters, in the string form's order
# (normal's field is `mu` because its `mean` property is the truncated mean).
PARAMETERS = {kind: tuple("mean" if f.name == "mu" else f.name for f in fields(cls))
              for kind, cls in KINDS.items()}


# The parameters that are no times, so take no unit: a count of phases, a ratio.
RATIOS = ("k", "cv")
_UNITS = ", ".join(TYPED_SECONDS)
_TYPED_TIME_SCHEMA = {"type": "string", "pattern": rf"^\s*[0-9.eE+-]+\s*({'|'.join(TYPED_SECONDS)})\s*$",
                      "description": "a time with its unit, such as 4ms or 2min"}


def json_schema() -> Dict[str, Any]:
    """What a JSON Schema says of a distribution in a model file."""
    number = or_expression({"type": "number", "minimum": 0})
    time = {"anyOf": [*number["anyOf"], _TYPED_TIME_SCHEMA]}
    return {"anyOf": [
        number["anyOf"][0],
        _TYPED_TIME_SCHEMA,
        {"type": "string", "pattern": rf"^\s*({'|'.join(KINDS)})\s*\(.*\)\s*$",
         "description": "a distribution call such as exp(2), exp(4ms) or gamma(2, 0.5)"},
        EXPRESSION_SCHEMA,
        {"type": "object", "required": ["dist"], "additionalProperties": False,
         "properties": {"dist": {"enum": list(KINDS)},
                        **{name: number if name in RATIOS else time
                           for name in sorted({n for names in PARAMETERS.values() for n in names})
                           if name != "values"},
                        "values": {"type": "array", "items": time, "minItems": 1},
                        "file": {"type": "string", "minLength": 1}}},
    ]}


def typed_time(text: str, time_unit: str) -> Optional[float]:
    """`4ms` in a model counting in `time_unit` (0.004 in seconds, 4 in ms); None
    when `text` is not a number with a unit of time."""
    typed = split_time(text)
    if typed is None or typed[1] not in TYPED_SECONDS:
        return None
    return typed[0] * TYPED_SECONDS[typed[1]] / SECONDS[time_unit]


def parse_distribution(value: Any, base_dir: Path = Path("."),
                       budget: Optional[EmpiricalBudget] = None, time_unit: str = "s") -> Distribution:
    """A number, a string like `gamma(2, 0.5)` or `exp(4ms)`, a mapping like `{dist:
    gamma, mean: 2, cv: 0.5}`, or a Distribution, with its times in `time_unit` (a
    time typed with its unit is converted to it). Relative empirical files are read
    from `base_dir`; empirical values are counted against `budget` (the model's,
    shared by its distributions)."""
    if not (isinstance(time_unit, str) and time_unit in SECONDS):  # the time_unit: field names its own problem
        time_unit = "s"
    budget = budget or EmpiricalBudget()
    if isinstance(value, Distribution):
        if isinstance(value, Empirical):
            budget.take(len(value.values))
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not (math.isfinite(value) and value >= 0):
            raise FieldError(f"expected a time >= 0, got {value!r}")
        return Const(value)
    if isinstance(value, str):
        return _parse_string(value, base_dir, budget, time_unit)
    if isinstance(value, dict):
        return _parse_mapping(value, base_dir, budget, time_unit)
    raise FieldError(f"expected a number, a distribution like exp(2) or a mapping with dist:, got {value!r}")


def _parse_string(text: str, base_dir: Path, budget: EmpiricalBudget, time_unit: str) -> Distribution:
    constant = typed_time(text, time_unit)
    if constant is not None:
        return _make("const", {"value": constant}, base_dir, budget)
    call = _CALL.match(text)
    if not call:
        raise FieldError(f"expected a number, a time like 4ms or a distribution like exp(2), got {text!r}")
    kind, inner = call.group(1), call.group(2).strip()
    names = _names(kind)
    if kind == "empirical":
        if inner.startswith("["):
            if not inner.endswith("]"):
                raise FieldError(f"{text}: unclosed [")
            args = {"values": [_arg(a, text, "values", time_unit) for a in inner[1:-1].split(",") if a.strip()]}
        else:
            args = {"file": inner.strip("'\"")}
    else:
        parts = inner.split(",") if inner else []
        if len(parts) != len(names):
            raise FieldError(f"{text}: {kind} takes {len(names)} argument{'s' * (len(names) > 1)} "
                             f"({', '.join(names)}), got {len(parts)}")
        args = {name: _arg(a, text, name, time_unit) for name, a in zip(names, parts)}
    try:
        return _make(kind, args, base_dir, budget)
    except FieldError as e:
        raise FieldError(f"{text}: {e}") from None


def _parse_mapping(mapping: Dict[str, Any], base_dir: Path, budget: EmpiricalBudget,
                   time_unit: str) -> Distribution:
    if "dist" not in mapping:
        raise FieldError(f"a distribution mapping needs dist: (one of {', '.join(KINDS)})")
    kind = mapping["dist"]
    names = _names(kind, "dist")
    args = {k: v for k, v in mapping.items() if k != "dist"}
    allowed = ("values", "file") if kind == "empirical" else names
    for key in args:
        if key not in allowed:
            raise FieldError(f"unknown field '{key}' for {kind} (expected: {', '.join(allowed)})", key)
    for key, value in args.items():
        if isinstance(value, str) and key != "file":
            args[key] = _typed(value, key, time_unit, key)
        elif key == "values" and isinstance(value, (list, tuple)):
            args[key] = [_typed(v, key, time_unit, key) if isinstance(v, str) else v for v in value]
    return _make(kind, args, base_dir, budget)


def _names(kind: Any, *path: str) -> Tuple[str, ...]:
    if not isinstance(kind, str) or kind not in PARAMETERS:
        raise FieldError(f"unknown distribution {kind!r} (known: {', '.join(KINDS)})", *path)
    return PARAMETERS[kind]


def _arg(text: str, call: str, name: str, time_unit: str) -> float:
    """An argument of a call: a number, or for a time a number with its unit."""
    text = text.strip()
    for kind in (int, float):  # int first, so errors show `k ... got 0`, not 0.0
        try:
            return kind(text)
        except ValueError:
            pass
    if text.isidentifier():
        raise FieldError(f"{call}: {text!r} is not a number (write ${{{text}}} to use a param)")
    return _typed(text, name, time_unit, call)


def _typed(text: str, name: str, time_unit: str, where: str) -> float:
    """A time typed with its unit, in `time_unit`; a ratio with a unit, or no time at
    all, is refused saying what to write."""
    typed = split_time(text)
    if typed is None:
        raise FieldError(f"{where}: {text!r} is not a number")
    if typed[1] not in TYPED_SECONDS:
        raise FieldError(f"{where}: {text!r} has no unit of time: write one of {_UNITS}, e.g. 4ms")
    if name in RATIOS:
        raise FieldError(f"{where}: {name} is a {'count' if name == 'k' else 'ratio'} and takes no unit, "
                         f"got {text!r}")
    return typed_time(text, time_unit)


def _make(kind: str, args: Dict[str, Any], base_dir: Path, budget: EmpiricalBudget) -> Distribution:
    """Build from the model language's parameter names (in any order)."""
    if kind == "empirical":
        if ("values" in args) == ("file" in args):
            raise FieldError("empirical needs either values (a list) or file (a CSV)")
        if "file" in args:
            return Empirical(_read_column(args["file"], base_dir, budget))
        if isinstance(args["values"], (list, tuple)):
            budget.take(len(args["values"]))
    missing = [name for name in PARAMETERS[kind] if name not in args]
    if missing:
        raise FieldError(f"{kind} needs {', '.join(missing)}")
    return KINDS[kind](*(args[name] for name in PARAMETERS[kind]))


def _read_column(name: Any, base_dir: Path, budget: EmpiricalBudget) -> Tuple[float, ...]:
    """The first column of a CSV (or one number per line); a header line is skipped."""
    if not isinstance(name, str) or not name:
        raise FieldError(f"file must be a file name, got {name!r}", "file")
    try:
        text = read_text(base_dir / name)
    except UnreadableFile as e:
        raise FieldError(f"cannot read the empirical file '{name}': {e}") from None
    values, header = [], False
    try:
        rows = csv.reader(io.StringIO(text, newline=""))
        for row in rows:
            if not row or not row[0].strip():
                continue
            try:
                values.append(float(row[0]))
            except ValueError:
                if values or header:
                    raise FieldError(f"empirical file '{name}', line {rows.line_num}: {row[0]!r} "
                                     "is not a number") from None
                header = True
            if len(values) > budget.left:
                budget.take(len(values))
    except csv.Error as e:
        raise FieldError(f"cannot read the empirical file '{name}': {e}") from None
    if not values:
        raise FieldError(f"empirical file '{name}' has no numbers")
    budget.take(len(values))
    return tuple(values)
