"""Two-level factorial experiments (seed 004): which factors matter, and how much.

Each factor has a low and a high value, coded -1 and +1. A full design runs
every combination; a fractional one (2^(k-p)) sets p factors from generators,
`D=ABC` (D's column is the product of A's, B's and C's), and pays for its fewer
runs with aliases: effects whose columns are the same (or opposite) cannot be
told apart, and the design says which. Every run is simulated in replications,
each with its own seed (so that the errors are independent, as least squares
assumes, rather than common random numbers), and the response is fitted
by least squares (statsmodels) on the coded factors and their two-way
interactions, one term per alias group; the coefficients, in the shape of R's
`summary(lm(...))` that the seed prints, and the fitted equation in natural units.

The designs are built here, not with pyDOE3: a full design is itertools'
product of -1 and +1, a generated column is a product of columns, and the
aliases are read off the columns themselves, which holds for any generators.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import BrewputError

MAX_FACTORS = 12
MAX_RUNS = 1024
_GENERATOR = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*=\s*(-?)\s*([A-Za-z0-9_.*-]+)\s*$")


@dataclass(frozen=True)
class Factor:
    name: str  # a model param, or a field by its path
    low: float
    high: float

    def natural(self, coded: float) -> float:
        """The level a coded -1 or +1 stands for (whole levels stay whole)."""
        return self.high if coded > 0 else self.low


def letter(index: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index]


def parse_generators(texts: Sequence[str], factors: Sequence[Factor]) -> Dict[str, Tuple[int, List[str]]]:
    """`D=ABC`, `noise=cpus*buffer` or `D=-ABC` -> {generated factor: (sign, base factors)};
    factors are named by their names or by their letters in the order given (A first)."""
    names = [f.name for f in factors]
    by_letter = {letter(i): name for i, name in enumerate(names)}
    generators: Dict[str, Tuple[int, List[str]]] = {}
    for text in texts:
        match = _GENERATOR.match(str(text))
        if not match:
            raise BrewputError(f"--fraction {text}: expected GENERATED=PRODUCT, e.g. D=ABC or noise=cpus*buffer")
        target, minus, product = match.groups()
        target = by_letter.get(target, target)
        if target not in names:
            raise BrewputError(f"--fraction {text}: {target} is not a factor ({', '.join(names)})")
        if target in generators:
            raise BrewputError(f"--fraction {text}: {target} is generated twice")
        parts = product.split("*") if "*" in product else (list(product) if product.isalpha() and product.isupper()
                                                            and all(c in by_letter for c in product) else [product])
        base = [by_letter.get(p, p) if len(p) == 1 else p for p in parts]
        unknown = [p for p in base if p not in names]
        if unknown:
            raise BrewputError(f"--fraction {text}: {unknown[0]} is not a factor ({', '.join(names)})")
        if target in base or len(set(base)) != len(base) or len(base) < 2:
            raise BrewputError(f"--fraction {text}: a generated factor is the product of two or more other "
                               "factors, each once")
        generators[target] = (-1 if minus else 1, base)
    generated = set(generators)
    for target, (_, base) in generators.items():
        if generated & set(base):
            raise BrewputError(f"--fraction {target}: its product names a generated factor; generate from the "
                               "others only")
    if len(generators) >= len(factors) - 1:
        raise BrewputError("--fraction: leave at least two factors that are not generated")
    return generators


def design(factors: Sequence[Factor], generators: Mapping[str, Tuple[int, List[str]]]) -> np.ndarray:
    """The coded design, a run per row and a factor per column (in the order
    given), the base factors in standard order (the first alternating fastest)."""
    names = [f.name for f in factors]
    base = [n for n in names if n not in generators]
    runs = 2 ** len(base)
    if runs > MAX_RUNS:
        raise BrewputError(f"--factor: {len(base)} factors not generated make {runs:,} runs, more than "
                           f"{MAX_RUNS:,}; generate some (--fraction) or drop some")
    rows = [tuple(reversed(combination)) for combination in itertools.product((-1, 1), repeat=len(base))]
    columns = {n: np.array([row[i] for row in rows], dtype=float) for i, n in enumerate(base)}
    for target, (sign, parts) in generators.items():
        columns[target] = sign * np.prod([columns[p] for p in parts], axis=0)
    return np.column_stack([columns[n] for n in names])


def terms(names: Sequence[str]) -> List[Tuple[str, ...]]:
    """The main effects, then the two-way interactions, in order."""
    return [(n,) for n in names] + list(itertools.combinations(names, 2))


def term_column(coded: np.ndarray, names: Sequence[str], term: Tuple[str, ...]) -> np.ndarray:
    return np.prod([coded[:, names.index(n)] for n in term], axis=0)


def alias_groups(coded: np.ndarray, names: Sequence[str]) -> List[List[Tuple[Tuple[str, ...], int]]]:
    """Terms whose columns are equal (+1) or opposite (-1), each group led by its
    first term (main effects before interactions); a term alone is a group of one."""
    groups: List[List[Tuple[Tuple[str, ...], int]]] = []
    leaders: List[np.ndarray] = []
    for term in terms(names):
        column = term_column(coded, names, term)
        for group, leader in zip(groups, leaders):
            if np.array_equal(column, leader) or np.array_equal(column, -leader):
                group.append((term, 1 if np.array_equal(column, leader) else -1))
                break
        else:
            groups.append([(term, 1)])
            leaders.append(column)
    return groups


def term_name(term: Tuple[str, ...]) -> str:
    return ":".join(term)


def analyse(coded: np.ndarray, names: Sequence[str], responses: np.ndarray) -> dict:
    """Least squares of the responses (runs x replications) on the coded terms,
    one per alias group: R's summary of lm() as a dict."""
    import statsmodels.api as sm

    runs, replications = responses.shape
    groups = alias_groups(coded, names)
    leading = [group[0][0] for group in groups]
    x = np.column_stack([np.ones(runs)] + [term_column(coded, names, t) for t in leading])
    # Each replication of a run is an observation: the spread between them is the error.
    fit = sm.OLS(responses.T.reshape(-1), np.tile(x, (replications, 1))).fit()
    residual_dof = int(fit.df_resid)
    coefficients = []
    for i, term in enumerate([("(Intercept)",)] + leading):
        stats = {"term": term_name(term), "estimate": float(fit.params[i])}
        if residual_dof > 0:
            stats.update(std_error=float(fit.bse[i]), t=float(fit.tvalues[i]), p=float(fit.pvalues[i]))
        else:
            stats.update(std_error=None, t=None, p=None)
        coefficients.append(stats)
    return {"coefficients": coefficients,
            "aliases": [[(term_name(t), sign) for t, sign in group] for group in groups if len(group) > 1],
            "residual_std_error": float(np.sqrt(fit.scale)) if residual_dof > 0 else None,
            "residual_dof": residual_dof, "r_squared": float(fit.rsquared),
            "adjusted_r_squared": float(fit.rsquared_adj) if residual_dof > 0 else None,
            "observations": int(runs * replications)}


def equation(factors: Sequence[Factor], coefficients: Sequence[dict], precision: int = 5) -> str:
    """The fit in natural units, as the seed writes it: each coded factor as
    (value - centre) / half range."""
    by_name = {f.name: f for f in factors}

    def coded(name: str) -> str:
        f = by_name[name]
        centre, half = (f.high + f.low) / 2, (f.high - f.low) / 2
        return f"({name} - {centre:.{precision}g})/{half:.{precision}g}"

    parts = [f"{coefficients[0]['estimate']:.{precision}g}"]
    for c in coefficients[1:]:
        sign = "-" if c["estimate"] < 0 else "+"
        factors_of = c["term"].split(":")
        parts.append(f"{sign} {abs(c['estimate']):.{precision}g}·" + "·".join(coded(n) for n in factors_of))
    return " ".join(parts)


#: One observation: the results (the results schema) of the run at these factor
#: values, the k-th observation of the experiment (0, 1, ... in run order).
Measure = Callable[[Dict[str, float], int], dict]


def simulated(model, customers: int, seed: int) -> Measure:
    """Each observation one simulation of the model at the run's values, with a
    seed of its own (`seed` + k)."""
    from ..engine.simulate import simulate
    from .plan import variant

    return lambda values, k: simulate(variant(model, values), seed=seed + k, customers=customers, replications=1)


def run_design(factors: Sequence[Factor], coded: np.ndarray, measure: Measure, respond: Callable[[dict], float], *,
               replications: int, progress: Optional[Callable[[int, int], None]] = None) -> np.ndarray:
    """The response of every run (rows) in every replication (columns)."""
    total = coded.shape[0] * replications
    responses = np.empty((coded.shape[0], replications))
    for run, row in enumerate(coded):
        values = {f.name: f.natural(c) for f, c in zip(factors, row)}
        for r in range(replications):
            k = run * replications + r
            responses[run, r] = respond(measure(values, k))
            if progress is not None:
                progress(k + 1, total)
    return responses


def pareto_chart(analysis: dict, response: str, unit: str):
    """Each term's size (|estimate|: half the change from its low to its high
    level) in falling order, with its 95 % interval: the factors that matter
    stand out on the left, those whose interval reaches 0 do not matter."""
    from scipy import stats

    from ..report.spec import Bars, Chart, Panel, color

    rows = sorted(analysis["coefficients"][1:], key=lambda c: -abs(c["estimate"]))
    half = [0.0 if c["std_error"] is None else float(stats.t.ppf(0.975, analysis["residual_dof"])) * c["std_error"]
            for c in rows]
    sizes = [abs(c["estimate"]) for c in rows]
    bars = Bars(label="", categories=[c["term"] for c in rows], y=sizes, colors=[color(0)] * len(rows),
                low=[max(0.0, s - h) for s, h in zip(sizes, half)], high=[s + h for s, h in zip(sizes, half)])
    panel = Panel(f"effects on {response}", "term (factors coded -1 low, +1 high)",
                  f"|estimate| ({unit})" if unit else "|estimate|", [bars])
    return Chart("effects", f"Which factors matter: {response}",
                 "Each term's |estimate| (half its effect from low to high), largest first, with its 95 % "
                 "interval; a term whose interval reaches 0 does not matter at 5 %.", [panel])


def parse_factor_texts(texts: Sequence[str], check: Callable[[str, float, str], None],
                       example: str = "cpus=1,4") -> List[Factor]:
    """`--factor NAME=LOW,HIGH` options as Factors, two or more, each name once and
    its two levels different; `check(name, level, text)` refuses what the engine
    would (`text`: the option as typed, for its message)."""
    from ..experiment.sweep import number

    factors: List[Factor] = []
    for text in texts:
        name, sep, levels = str(text).partition("=")
        name = name.strip()
        parts = [p.strip() for p in levels.split(",")]
        try:
            low, high = (number(p) for p in parts) if len(parts) == 2 else (None, None)
        except ValueError:
            low = high = None
        if not (sep and name) or low is None:
            raise BrewputError(f"--factor {text}: expected NAME=LOW,HIGH, e.g. {example}")
        if low == high:
            raise BrewputError(f"--factor {text}: the two levels are the same")
        if any(f.name == name for f in factors):
            raise BrewputError(f"--factor {text}: {name} is a factor twice")
        for level in (low, high):
            check(name, level, text)
        factors.append(Factor(name, low, high))
    if len(factors) < 2:
        raise BrewputError(f"--factor: name two or more factors, e.g. --factor {example} --factor noise=0,0.5")
    return factors


def parse_factors(texts: Sequence[str], model) -> List[Factor]:
    """`cpus=1,4` -> Factor("cpus", 1, 4), each level checked to make a valid model."""
    from .plan import variant

    def check(name: str, level: float, text: str) -> None:
        if "." not in name and name not in model.params:
            raise BrewputError(f"--factor {text}: {model.missing_param(name)}; a field is named by its path")
        try:
            variant(model, {name: level})
        except BrewputError as e:
            raise BrewputError(f"--factor {name}={level}: {e}") from None

    return parse_factor_texts(texts, check)
