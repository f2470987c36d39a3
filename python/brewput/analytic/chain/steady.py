"""The stationary distribution of a generator, by scipy's sparse LU for a chain of up
to DIRECT_STATES states, else by BiCGSTAB or GMRES preconditioned by an incomplete LU;
its residual checked either way.

Why not LU throughout: a chain of several stations is a lattice in as many dimensions,
whose LU fills in far beyond the generator. An open tandem of three stations truncated
at 64 jobs (48,000 states) takes 14 s and 770 MB by LU, 4 s and 110 MB by GMRES; at 128
jobs (366,000 states) LU ran out of 4 GB and crashed the process, GMRES took 67 s and
450 MB, both to a residual below 1e-14. Why not GMRES throughout: on a chain of two
dimensions LU is fast and exact, and GMRES can stall (a closed cycle of 13,000 states
needed a finer incomplete LU than a tandem's).

Which state's weight is fixed matters to the iterations, not to LU: the others are
solved relative to it, so a state of weight 1e-37 (a closed network's 80 customers all
at its fastest station) leaves them to find numbers up to 1e37 to a relative tolerance,
which they do not (80 users of the central-server model: a residual of 3e-3 after
385 s). Fixed at a state near the mode, the same chain solves to 1e-16: the mode is
found by a few hundred steps of the uniformized chain from the uniform law, and where
the solution shows the fixed state far below its mode, fixed there and solved again.
BiCGSTAB first (8 s there, against 41 s for GMRES, whose restarts scipy runs in
Python), GMRES where BiCGSTAB breaks down (an open tandem's truncated lattice does)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ...errors import BrewputError

#: The most the balance equations may be off, relative to the fastest rate out of a state.
RESIDUAL = 1e-9
#: Chains up to this many states are solved by LU.
DIRECT_STATES = 40_000
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
    """The weights, relative to a state near the mode (fixed again once if it was not)."""
    fixed = _near_mode(generator)
    weights = _fixed_at(balance, fixed)
    mode = int(np.argmax(weights))
    if weights[fixed] < _FAR_FROM_MODE * weights[mode] or not _residual(
            generator, balance, _normalized(weights)) <= RESIDUAL:
        weights = _fixed_at(balance, mode)
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


def _fixed_at(balance: sp.csc_matrix, fixed: int) -> np.ndarray:
    """The balance equations of every state but `fixed`, its weight 1 moved to the right."""
    n = balance.shape[0]
    keep = np.r_[0:fixed, fixed + 1:n]
    matrix, right = balance[keep][:, keep].tocsc(), -balance[keep, fixed].toarray().ravel()
    preconditioner = spla.LinearOperator(matrix.shape, spla.spilu(matrix, drop_tol=_DROP, fill_factor=_FILL).solve)
    rest, broke = spla.bicgstab(matrix, right, M=preconditioner, rtol=1e-13, atol=0.0, maxiter=_BICGSTAB_STEPS)
    if broke or not np.linalg.norm(matrix @ rest - right) <= 1e-10 * np.linalg.norm(right):
        rest, _ = spla.gmres(matrix, right, M=preconditioner, rtol=1e-13, atol=0.0, restart=50, maxiter=_RESTARTS)
    return np.insert(rest, fixed, 1.0)
