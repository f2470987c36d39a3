"""The stationary distribution of a generator, by scipy's sparse LU for a chain of up
to DIRECT_STATES states, else by GMRES preconditioned by algebraic multigrid (pyamg's
Ruge-Stuben hierarchy), falling back to BiCGSTAB or GMRES preconditioned by an
incomplete LU; its residual checked either way.

Why not LU throughout: a chain of several stations is a lattice in as many dimensions,
whose LU fills in far beyond the generator. An open tandem of three stations truncated
at 37 jobs (9,880 states) takes 1.8 s by LU, 0.3 s by multigrid; at 50 jobs (23,426)
10.4 s against 0.6 s; at 128 jobs (366,000 states) LU ran out of 4 GB and crashed the
process. Why not multigrid throughout: on a small chain LU is as fast, exact and never
fails to converge, and a chain of two dimensions keeps it fast longer (a closed pair of
stations of 39,621 states: 0.6 s by LU, 0.9 s by multigrid, which is the bound's cost).

Why multigrid: an incomplete LU is SuperLU's, whose setup alone took 6 to 9 s on a
closed central-server chain of 91,881 states (80 users), and the solve 10 s more;
the multigrid hierarchy is set up in 0.4 s and its preconditioned GMRES converges in
about 15 cycles, 1.5 s in all (the open tandem of 98,770 states: 41 s before, 1.2 s).
Its coarse levels are built from the matrix alone (no geometry), so any chain walked
gets one; where it does not converge (a chain it coarsens badly), the incomplete LU
still answers, slower.

Which state's weight is fixed matters to the iterations, not to LU: the others are
solved relative to it, so a state of weight 1e-37 (a closed network's 80 customers all
at its fastest station) leaves them to find numbers up to 1e37 to a relative tolerance,
which they do not (80 users of the central-server model: a residual of 3e-3 after
385 s). Fixed at a state near the mode, the same chain solves to 1e-12: the mode is
found by a few hundred steps of the uniformized chain from the uniform law, and where
the solution shows the fixed state far below its mode, fixed there and solved again."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ...errors import BrewputError

#: The most the balance equations may be off, relative to the fastest rate out of a state.
RESIDUAL = 1e-9
#: Chains up to this many states are solved by LU (beyond, a lattice of three dimensions
#: takes seconds by LU and a fraction of one by multigrid).
DIRECT_STATES = 5_000
#: The multigrid's GMRES stops at this residual relative to the right-hand side's: the
#: balance residual checked after it is then 1e-11 or below on the chains measured.
_MULTIGRID_TOLERANCE, _MULTIGRID_CYCLES = 1e-12, 300
#: Its relaxation: a forward Gauss-Seidel sweep, in the walk's order of the states.
_SMOOTHER = ("gauss_seidel", {"sweep": "forward"})
#: The incomplete LU: entries below this (relative) dropped, and at most this many times
#: the generator's entries kept (memory bounded).
_DROP, _FILL = 1e-7, 20
#: GMRES's restarts at most, BiCGSTAB's iterations (their own tolerance is tight: the
#: residual check decides).
_RESTARTS, _BICGSTAB_STEPS = 40, 2000
#: Steps of the uniformized chain that find the state near the mode the iterations fix.
_MODE_STEPS = 300
#: A fixed state below this share of the solution's largest weight is fixed again there.
_FAR_FROM_MODE = 1e-3


def stationary(generator: sp.csr_matrix) -> np.ndarray:
    """pi with pi Q = 0 and sum(pi) = 1 (the chain must have one recurrent class):
    the balance equations of every state but the first, with pi_0 = 1 moved to the
    right-hand side, then scaled. (Replacing an equation by sum(pi) = 1 instead puts
    a dense row into the LU, and its fill-in with it.)"""
    n = generator.shape[0]
    if n == 1:
        return np.ones(1)
    balance = generator.T.tocsc()
    if n <= DIRECT_STATES:
        others, first = balance[1:, 1:].tocsc(), -balance[1:, 0].toarray().ravel()
        pi = np.concatenate([[1.0], np.atleast_1d(spla.spsolve(others, first))])
    else:
        pi = _iterated(generator, balance)
    pi = _normalized(pi)
    residual = _residual(generator, balance, pi)
    if not np.isfinite(residual) or residual > RESIDUAL:
        raise BrewputError(f"the chain's balance equations are off by {residual:.1e} of its fastest rate "
                           f"(more than {RESIDUAL:g}): its solution is not trusted; use brewput simulate")
    return pi


def _normalized(weights: np.ndarray) -> np.ndarray:
    pi = np.maximum(weights, 0.0)  # rounding below 0 on states of no weight
    return pi / pi.sum()


def _residual(generator: sp.csr_matrix, balance: sp.csc_matrix, pi: np.ndarray) -> float:
    """How far pi is from balance, relative to the fastest rate out of a state."""
    return float(np.abs(balance @ pi).max()) / float(np.abs(generator.diagonal()).max())


def _iterated(generator: sp.csr_matrix, balance: sp.csc_matrix) -> np.ndarray:
    """The weights, relative to a state near the mode (fixed again once if it was not),
    by multigrid, or by an incomplete LU where multigrid leaves them off balance."""
    def balanced(weights: np.ndarray) -> bool:
        return _residual(generator, balance, _normalized(weights)) <= RESIDUAL

    fixed = _near_mode(generator)
    for solver in (_by_multigrid, _by_incomplete_lu):
        weights = _pinned(solver, balance, fixed, balanced)
        if weights is not None and balanced(weights):
            break
    return weights


def _pinned(solver, balance: sp.csc_matrix, fixed: int, balanced) -> Optional[np.ndarray]:
    """The weights by `solver` relative to state `fixed`, or to the mode that solution
    shows where `fixed` is far below it or the solution is off balance."""
    weights = solver(*_fixed_at(balance, fixed))
    if weights is None:
        return None
    mode = int(np.argmax(weights))
    if weights[fixed] < _FAR_FROM_MODE * weights[mode] or not balanced(weights):
        weights = solver(*_fixed_at(balance, mode))
    return weights


def _near_mode(generator: sp.csr_matrix) -> int:
    """A state of large weight: the most likely after _MODE_STEPS jumps of the chain
    uniformized (a self-loop making every state's rate out the fastest's) from the uniform law."""
    n = generator.shape[0]
    rate = float(np.abs(generator.diagonal()).max()) * (1 + 1e-4)
    step = (sp.identity(n, format="csr") + generator / rate).T.tocsr()
    law = np.full(n, 1.0 / n)
    for _ in range(_MODE_STEPS):
        law = step @ law
    return int(np.argmax(law))


def _fixed_at(balance: sp.csc_matrix, fixed: int):
    """The balance equations of every state but `fixed` (its weight 1 moved to the right):
    (matrix, right-hand side, fixed)."""
    n = balance.shape[0]
    keep = np.r_[0:fixed, fixed + 1:n]
    return balance[keep][:, keep].tocsr(), -balance[keep, fixed].toarray().ravel(), fixed


def _by_multigrid(matrix: sp.csr_matrix, right: np.ndarray, fixed: int) -> Optional[np.ndarray]:
    """None where the hierarchy cannot be built: coarsening that isolates a state (its
    interpolation divides by zero, a warning) or leaves a coarse level singular."""
    from pyamg import ruge_stuben_solver  # imported here: 0.7 s, paid only by chains this large
    with warnings.catch_warnings():
        # pyamg warns where it coarsens badly (a zero diagonal, a level no smaller): the
        # incomplete LU answers such a chain instead
        warnings.simplefilter("error")
        try:
            hierarchy = ruge_stuben_solver(matrix, max_coarse=300, coarse_solver="splu",
                                           presmoother=_SMOOTHER, postsmoother=_SMOOTHER)
            rest = hierarchy.solve(right, tol=_MULTIGRID_TOLERANCE, accel="gmres", maxiter=_MULTIGRID_CYCLES)
        except (Warning, RuntimeError, ArithmeticError, np.linalg.LinAlgError):
            return None
    return np.insert(rest, fixed, 1.0)


def _by_incomplete_lu(matrix: sp.csr_matrix, right: np.ndarray, fixed: int) -> np.ndarray:
    matrix = matrix.tocsc()
    preconditioner = spla.LinearOperator(matrix.shape, spla.spilu(matrix, drop_tol=_DROP, fill_factor=_FILL).solve)
    rest, broke = spla.bicgstab(matrix, right, M=preconditioner, rtol=1e-13, atol=0.0, maxiter=_BICGSTAB_STEPS)
    if broke or not np.linalg.norm(matrix @ rest - right) <= 1e-10 * np.linalg.norm(right):
        rest, _ = spla.gmres(matrix, right, M=preconditioner, rtol=1e-13, atol=0.0, restart=50, maxiter=_RESTARTS)
    return np.insert(rest, fixed, 1.0)
