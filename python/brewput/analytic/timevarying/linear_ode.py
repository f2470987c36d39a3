"""Linear differential equations y' = A(t) y + b(t) over pieces of time: the Kolmogorov
forward equations of any continuous-time Markov chain (y = p, A = Q(t) transposed,
b = 0) and the backward equations of its expected rewards (y = rewards, A = the
generator, b = the reward rates, in reversed time).

A piece is a span of time over which A is a smooth function of t: a sum of constant
sparse matrices, each times a scalar function of t (`LinearSystem`). Between pieces A
may jump (a rota's count changes, a rate steps), so each piece starts afresh from
where the last ended. A piece is solved by

- uniformization, where A is constant and Metzler (off-diagonal >= 0, as a generator's
  transpose is): with q >= max |A_ii| and P = I + A / q >= 0,
      y(u) = sum_k Pois(k; q u) P^k y0 + (1 / q) sum_k P(Pois(q u) > k) P^k b,
  all terms positive for a chain, cut where the Poisson tail is below UNIFORM_TAIL (a
  bound on the error in probability); chosen while q * duration <= UNIFORM_STEPS (or
  the system's own `uniform_steps`: a large chain, whose implicit steps cost far more
  than products by A), for its cost is that many products by A (a long piece in parts
  of at most UNIFORM_PART, fewer for a large chain: at most UNIFORM_VALUES values kept);
- else an implicit integrator (stiffness is the rule): LSODA with a banded Jacobian
  when A is banded (a birth-death chain), else BDF with the sparse Jacobian.

The answer is y at the times asked for (and at the end), never an interpolant.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np
import scipy.sparse as sparse
from scipy import special
from scipy.integrate import ode, solve_ivp

RTOL = 1e-9  # the implicit integrator's tolerances: relative ...
ATOL = 1e-13  # ... and absolute (probabilities below this do not steer its step)
UNIFORM_TAIL = 1e-14
UNIFORM_STEPS = 256
UNIFORM_PART = 1024  # products by A in one part of a piece (memory: that many vectors kept) ...
UNIFORM_VALUES = 1 << 23  # ... and fewer where they would hold more values than this (64 MB)
# Bands wider than this use the sparse solver (a banded solve costs n band**2).
_WIDEST_BAND = 8
# Up to this many states uniformization multiplies by a dense jump matrix, ...
_DENSE_STATES = 192
# ... and an implicit integrator's derivative by a dense A (beyond, a banded product's
# few slices cost less than n**2 products).
_DENSE_PRODUCT_STATES = 200

Scalar = Callable[[float], float]


@dataclass
class LinearSystem:
    """y' = sum_k f_k(t) A_k y + sum_j g_j(t) b_j over one piece of time; an f or g given
    as a number (or None, for 1) is a constant, folded in once."""

    terms: Sequence[Tuple[Union[None, float, Scalar], sparse.spmatrix]]
    sources: Sequence[Tuple[Union[None, float, Scalar], np.ndarray]] = ()
    uniform_steps: float = UNIFORM_STEPS

    def __post_init__(self):
        steady = sum(sparse.csr_matrix(a) * (1.0 if f is None else f) for f, a in self.terms if not callable(f))
        self.terms = [(f, sparse.csr_matrix(a)) for f, a in self.terms if callable(f)]
        if not isinstance(steady, int):
            self.terms.insert(0, (None, steady.tocsr()))
        self.size = self.terms[0][1].shape[0]
        self._source = sum(b * (1.0 if g is None else g) for g, b in self.sources if not callable(g))
        self.sources = [(g, b) for g, b in self.sources if callable(g)]
        lower = upper = 0
        for _, a in self.terms:
            coo = a.tocoo()
            if coo.nnz:
                lower = max(lower, int(np.max(coo.row - coo.col)))
                upper = max(upper, int(np.max(coo.col - coo.row)))
        self.bands = (lower, upper)
        # A banded matrix times y by its diagonals: numpy slices, no sparse dispatch per call
        # (a solver calls this thousands of times).
        self._diagonals = [[(k, a.diagonal(k)) for k in range(-lower, upper + 1) if a.diagonal(k).any()]
                           for _, a in self.terms] if max(lower, upper) <= _WIDEST_BAND else None
        # A small constant A as an array: one BLAS call a product, where a sparse product's
        # dispatch costs more than the product (a solver calls this thousands of times).
        self._dense = self.terms[0][1].toarray() if self.constant and self.size <= _DENSE_PRODUCT_STATES else None

    @property
    def constant(self) -> bool:
        return len(self.terms) == 1 and self.terms[0][0] is None and not self.sources

    def matrix(self, t: float, y: Optional[np.ndarray] = None) -> sparse.csr_matrix:
        """A(t) (y is ignored: the system is linear; solvers pass it)."""
        return sum((a if f is None else f(t) * a) for f, a in self.terms)

    def _product(self, i: int, y: np.ndarray) -> np.ndarray:
        if self._diagonals is None:
            return self.terms[i][1] @ y
        part = np.zeros_like(y)
        for k, d in self._diagonals[i]:
            if k > 0:
                part[:-k] += d * y[k:]
            elif k < 0:
                part[-k:] += d * y[:k]
            else:
                part += d * y
        return part

    def derivative(self, t: float, y: np.ndarray) -> np.ndarray:
        if self._dense is not None:
            return self._dense @ y + self._source
        if self.constant and self._diagonals is None:
            return self.terms[0][1] @ y + self._source
        out = np.zeros_like(y)
        for i, (f, _) in enumerate(self.terms):
            part = self._product(i, y)
            out += part if f is None else f(t) * part
        out += self._source
        for g, b in self.sources:
            out += g(t) * b
        return out

    def banded_jacobian(self, t: float, y: Optional[np.ndarray] = None) -> np.ndarray:
        """A(t) in LSODA's packed form: entry (i, j) at [upper + i - j, j]; a constant
        A's built once (a solver asks for it at every new step size)."""
        return self._constant_jacobian if self.constant else self._packed(t)

    def _packed(self, t: float) -> np.ndarray:
        lower, upper = self.bands
        coo = self.matrix(t).tocoo()
        packed = np.zeros((lower + upper + 1, self.size))
        np.add.at(packed, (upper + coo.row - coo.col, coo.col), coo.data)
        return packed

    @functools.cached_property
    def _constant_jacobian(self) -> np.ndarray:
        return self._packed(0.0)

    def uniformizable(self, duration: float) -> Optional[float]:
        """q for uniformization over `duration`, or None where it does not apply (A not
        constant, or not Metzler, or a source that moves) or would cost too much."""
        if not self.constant:
            return None
        q = self._uniform_rate
        return q if q * duration <= self.uniform_steps else None

    @functools.cached_property
    def _uniform_rate(self) -> float:
        """A constant A's q, the fastest rate out of a state; nan where A is not Metzler."""
        a = self.terms[0][1]
        off = a - sparse.diags(a.diagonal())
        return math.nan if off.nnz and off.data.min() < 0 else max(float(np.max(-a.diagonal())), 1e-300)

    @functools.cached_property
    def jump(self) -> np.ndarray:
        """A constant A's uniformized jump matrix I + A / q, as an array (for small systems)."""
        return np.eye(self.size) + self.terms[0][1].toarray() / self._uniform_rate


def solve_at(y0: np.ndarray, pieces: Sequence[Tuple[float, float, LinearSystem]], times: Sequence[float],
             entering: Optional[Callable[[int, np.ndarray], np.ndarray]] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(y at each of `times`, a column each; y at the end). The pieces follow one another
    forward in time, each starting where the one before ended, through `entering(i, y)`
    when given (what a jump between pieces does to y). A time on the edge between two
    pieces is read at the start of the later one (after `entering`)."""
    times = np.asarray(times, dtype=float)
    y = np.asarray(y0, dtype=float).copy()
    out = np.full((y.size, times.size), np.nan)
    for i, (t0, t1, system) in enumerate(pieces):
        if entering is not None:
            y = entering(i, y.copy())
        last = i == len(pieces) - 1
        inside = (times >= t0) & ((times <= t1) if last else (times < t1))
        at = times[inside] - t0
        values, y = _piece(y, system, t1 - t0, at)
        out[:, inside] = values
    return out, y


def _piece(y0: np.ndarray, system: LinearSystem, duration: float, at: np.ndarray):
    """y at the offsets `at` in the piece, and at its end."""
    q = system.uniformizable(duration)
    if q is not None:
        parts = max(1, math.ceil(q * duration / min(UNIFORM_PART, max(16, UNIFORM_VALUES // y0.size))))
        if parts == 1:
            return _uniformized(y0, system, q, duration, at)
        found, y = np.empty((y0.size, at.size)), y0
        for j in range(parts):
            start, end = duration * j / parts, duration * (j + 1) / parts
            inside = (at >= start) & ((at <= end) if j == parts - 1 else (at < end))
            found[:, inside], y = _uniformized(y, system, q, end - start, at[inside] - start)
        return found, y
    if duration <= 0:
        return np.repeat(y0[:, None], at.size, axis=1), y0
    lower, upper = system.bands
    if max(lower, upper) <= _WIDEST_BAND:
        return _banded_bdf(y0, system, duration, at)
    ends = np.unique(np.concatenate([at, [duration]]))
    solved = solve_ivp(system.derivative, (0.0, duration), y0, t_eval=ends, rtol=RTOL, atol=ATOL,
                       method="BDF", jac=system.matrix)
    if not solved.success:
        raise ArithmeticError(f"the equations could not be integrated: {solved.message}")
    return solved.y[:, np.searchsorted(ends, at)], solved.y[:, -1]


def _banded_bdf(y0: np.ndarray, system: LinearSystem, duration: float, at: np.ndarray):
    """VODE's BDF with a banded Jacobian, from the first step (LSODA would start each
    piece with non-stiff steps, hundreds of them, before it finds the problem stiff)."""
    lower, upper = system.bands
    solver = ode(system.derivative, system.banded_jacobian)
    solver.set_integrator("vode", method="bdf", rtol=RTOL, atol=ATOL, lband=lower, uband=upper,
                          nsteps=1_000_000, order=5)
    solver.set_initial_value(y0, 0.0)
    found = np.empty((y0.size, at.size))
    for i in np.argsort(at, kind="stable"):
        found[:, i] = solver.integrate(at[i]) if at[i] > solver.t else solver.y  # solver.y: y at solver.t
        if not solver.successful():
            raise ArithmeticError(f"the equations could not be integrated (VODE code {solver.get_return_code()})")
    end = solver.integrate(duration) if duration > solver.t else solver.y
    if not solver.successful():
        raise ArithmeticError(f"the equations could not be integrated (VODE code {solver.get_return_code()})")
    return found, np.array(end)


def _poisson_terms(mean: float) -> int:
    """The K with P(Pois(mean) >= K) <= UNIFORM_TAIL, by the bound P(X >= k) <=
    pmf(k) (k + 1) / (k + 1 - mean) for k + 1 > mean (the tail's ratios fall below
    mean / (k + 1)). Not scipy.stats.poisson.isf: its call costs 50 us, more than the
    whole uniformization of a short piece, and pieces are solved by the thousand."""
    if mean <= 0:
        return 1
    span = math.ceil(mean + 12 * math.sqrt(mean) + 40)
    while True:
        k = np.arange(math.floor(mean), span + 1)
        log_pmf = k * math.log(mean) - mean - special.gammaln(k + 1)
        bound = log_pmf + np.log((k + 1) / (k + 1 - mean))
        below = np.flatnonzero(bound <= math.log(UNIFORM_TAIL))
        if below.size:
            return int(k[below[0]])
        span *= 2


def _uniformized(y0: np.ndarray, system: LinearSystem, q: float, duration: float, at: np.ndarray):
    offsets = np.concatenate([at, [duration]])
    terms = _poisson_terms(q * duration)
    source = np.broadcast_to(np.asarray(system._source, dtype=float), y0.shape)
    has_source = bool(np.any(source))
    powers = _powers(system, q, y0, terms)
    sourced = _powers(system, q, source, terms) if has_source else None
    weights = _poisson_weights(q * offsets, terms)
    values = weights @ powers
    if has_source:
        # integral_0^u e^{A w} b dw = (1 / q) sum_k P(Pois(q u) > k) P^k b
        tails = np.clip(1.0 - np.cumsum(weights, axis=1), 0.0, None)
        tails = np.where(np.cumsum(weights, axis=1) > 0.5, np.flip(np.cumsum(np.flip(weights, axis=1), axis=1), axis=1) - weights, tails)
        values = values + (tails @ sourced) / q
    return values[:-1].T, values[-1]


def _poisson_weights(means: np.ndarray, terms: int) -> np.ndarray:
    """Pois(k; mean) for k < terms, a row per mean, from their logarithms (no overflow)."""
    k = np.arange(terms)[None, :]
    mean = np.asarray(means, dtype=float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = np.where(mean > 0, k * np.log(mean) - mean - special.gammaln(k + 1), np.where(k == 0, 0.0, -np.inf))
    return np.exp(log_pmf)


def solve_columns(ys: np.ndarray, system: LinearSystem, durations: np.ndarray) -> np.ndarray:
    """Column j of `ys` carried over durations[j] by a constant source-free system: many
    short solves at once (a service level's windows, one per arrival time), where one
    at a time their calls would cost more than their products. Uniformized on all the
    columns together (a product by the jump matrix per term, each column weighed by its
    own Poisson weights) when the powers fit in UNIFORM_VALUES; else column by column."""
    durations = np.asarray(durations, dtype=float)
    longest = float(durations.max(initial=0.0))
    q = system.uniformizable(longest)
    terms = _poisson_terms(q * longest) if q is not None else 0
    if q is None or terms * ys.size > UNIFORM_VALUES:
        return np.column_stack([_piece(ys[:, j], system, d, np.zeros(0))[1] for j, d in enumerate(durations)]) \
            if durations.size else ys.copy()
    return np.einsum("jk,knj->nj", _poisson_weights(q * durations, terms), _powers(system, q, ys, terms))


def _powers(system: LinearSystem, q: float, first: np.ndarray, terms: int) -> np.ndarray:
    """P^k first for k < terms (first a vector or columns), P = I + A / q: by the jump
    matrix held as an array for a small system (one BLAS call a term: the loop's own
    cost is the limit), else P^k v = v + A v / q by A's diagonals or sparse product."""
    powers = np.empty((terms, *first.shape))
    powers[0] = first
    if first.shape[0] <= _DENSE_STATES:
        jump = system.jump
        for k in range(1, terms):
            np.dot(jump, powers[k - 1], out=powers[k])
    else:
        matrix = system.terms[0][1]
        product = (lambda y: system._product(0, y)) if first.ndim == 1 else (lambda y: matrix @ y)
        for k in range(1, terms):
            powers[k] = powers[k - 1] + product(powers[k - 1]) / q
    return powers
