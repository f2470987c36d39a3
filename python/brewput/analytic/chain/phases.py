"""Every time law of a compiled model as a phase-type law: the chain's clocks.

Exponential, Erlang and the two-phase hyperexponential are phase-type laws, so
the chain that uses them is exact. Every other law is replaced by a phase-type
law matching its first two moments (Tijms' mixed Erlang for low variability, a
balanced two-phase hyperexponential for high), and a constant by Erlang-k with
the k the caller chooses (more phases, closer to the constant, more states):
the answer is then approximate, and the fit is named.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

#: A phase's way out: to another phase (its index) or out of the law (None), at a rate.
Move = Tuple[Optional[int], float]


@dataclass(frozen=True)
class PhaseType:
    """A law as phases: start in phase i with probability `start[i]`; from phase i
    move by `moves[i]` (each a target phase or None for the end, at its rate)."""
    start: Tuple[float, ...]
    moves: Tuple[Tuple[Move, ...], ...]
    #: Whether this law is the model's law exactly (not a moment fit).
    exact: bool
    #: How the law was replaced ("" when exact), e.g. "const 1 as Erlang-8".
    fit: str = ""

    @property
    def phases(self) -> int:
        return len(self.start)

    @property
    def starts(self) -> Tuple[Tuple[int, float], ...]:
        """(phase, probability) of the phases a draw may start in."""
        return tuple((i, p) for i, p in enumerate(self.start) if p > 0)


def erlang(k: int, mean: float, exact: bool = True, fit: str = "") -> PhaseType:
    rate = k / mean
    moves = tuple(((i + 1 if i + 1 < k else None, rate),) for i in range(k))
    return PhaseType((1.0,) + (0.0,) * (k - 1), moves, exact, fit)


def mixed_erlang(mean: float, scv: float, fit: str) -> PhaseType:
    """Tijms' fit of 0 < scv <= 1: Erlang-(k-1) with probability p, else Erlang-k, one
    rate for all phases, with 1/k <= scv <= 1/(k-1): both moments exactly. As a chain
    of k phases entered at the second with probability p."""
    k = max(1, math.ceil(1 / scv - 1e-12))
    if k == 1:
        return erlang(1, mean, exact=False, fit=fit)
    p = (k * scv - math.sqrt(k * (1 + scv) - k * k * scv)) / (1 + scv)
    p = min(max(p, 0.0), 1.0)
    rate = (k - p) / mean
    moves = tuple(((i + 1 if i + 1 < k else None, rate),) for i in range(k))
    return PhaseType((1 - p, p) + (0.0,) * (k - 2), moves, False, fit)


def hyperexponential(p: float, mean1: float, mean2: float, exact: bool = True, fit: str = "") -> PhaseType:
    return PhaseType((p, 1 - p), (((None, 1 / mean1),), ((None, 1 / mean2),)), exact, fit)


def balanced_hyperexponential(mean: float, scv: float, fit: str) -> PhaseType:
    p = (1 + math.sqrt((scv - 1) / (scv + 1))) / 2
    return hyperexponential(p, mean / (2 * p), mean / (2 * (1 - p)), exact=False, fit=fit)


def moments(law: dict) -> Tuple[float, float]:
    """(mean, scv) of a compiled law (docs/compiled-model.md)."""
    kind = law["kind"]
    if kind == "const":
        return law["value"], 0.0
    if kind == "exp":
        return law["mean"], 1.0
    if kind == "erlang":
        return law["mean"], 1 / law["k"]
    if kind == "gamma":
        return law["shape"] * law["scale"], 1 / law["shape"]
    if kind == "lognormal":
        return math.exp(law["mu"] + law["sigma"] ** 2 / 2), math.expm1(law["sigma"] ** 2)
    if kind == "uniform":
        mean = (law["low"] + law["high"]) / 2
        return mean, ((law["high"] - law["low"]) ** 2 / 12 / mean**2 if mean > 0 else 0.0)
    if kind == "hyperexp":
        p, m1, m2 = law["p"], law["mean1"], law["mean2"]
        mean = p * m1 + (1 - p) * m2
        return mean, (2 * (p * m1 * m1 + (1 - p) * m2 * m2)) / mean**2 - 1
    if kind == "normal":
        from scipy.stats import truncnorm

        if law["sd"] == 0:
            return law["mean"], 0.0
        a = -law["mean"] / law["sd"]
        mean, var = truncnorm.stats(a, math.inf, loc=law["mean"], scale=law["sd"], moments="mv")
        return float(mean), float(var) / float(mean) ** 2
    if kind == "empirical":
        values = law["values"]
        mean = sum(values) / len(values)
        var = sum((v - mean) ** 2 for v in values) / len(values)
        return mean, (var / mean**2 if mean > 0 else 0.0)
    raise ValueError(f"unknown law {kind}")


def phase_type(law: dict, constant_phases: int) -> Optional[PhaseType]:
    """The law as phases, or None for a time of 0 (an instant: no phase at all).
    A constant (and any law of scv below 1/constant_phases) takes
    `constant_phases` Erlang phases."""
    kind = law["kind"]
    if kind == "exp":
        return erlang(1, law["mean"])
    if kind == "erlang":
        return erlang(law["k"], law["mean"])
    if kind == "hyperexp":
        return hyperexponential(law["p"], law["mean1"], law["mean2"])
    mean, scv = moments(law)
    if mean == 0:
        return None
    name = _name(law)
    if scv < 1 / constant_phases:
        return erlang(constant_phases, mean, exact=False,
                      fit=f"{name} as Erlang-{constant_phases} (scv {1 / constant_phases:.3g} for {scv:.3g})")
    if scv <= 1:
        fitted = mixed_erlang(mean, scv, "")
        return PhaseType(fitted.start, fitted.moves, False,
                         f"{name} as a mixture of Erlang-{fitted.phases - 1} and -{fitted.phases} (mean and scv)")
    return balanced_hyperexponential(mean, scv, f"{name} as a two-phase hyperexponential (mean and scv)")


def _name(law: dict) -> str:
    args = ", ".join(f"{v:g}" for k, v in law.items() if k != "kind" and isinstance(v, (int, float)))
    return f"{law['kind']}({args})" if law["kind"] != "empirical" else "empirical"
