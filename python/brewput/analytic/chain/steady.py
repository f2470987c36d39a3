"""The stationary distribution of a generator, by scipy's sparse LU for a chain of up
to DIRECT_STATES states, else by GMRES preconditioned by an incomplete LU; its residual
checked either way.

Why not LU throughout: a chain of several stations is a lattice in as many dimensions,
whose LU fills in far beyond the generator. An open tandem of three stations truncated
at 64 jobs (48,000 states) takes 14 s and 770 MB by LU, 4 s and 110 MB by GMRES; at 128
jobs (366,000 states) LU ran out of 4 GB and crashed the process, GMRES took 67 s and
450 MB, both to a residual below 1e-14. Why not GMRES throughout: on a chain of two
dimensions LU is fast and exact, and GMRES can stall (a closed cycle of 13,000 states
needed a finer incomplete LU than a tandem's)."""
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
#: GMRES's restarts at most (its own tolerance is tight: the residual check decides).
_RESTARTS = 40


def stationary(generator: sp.csr_matrix) -> np.ndarray:
    """pi with pi Q = 0 and sum(pi) = 1 (the chain must have one recurrent class):
    the balance equations of every state but the first, with pi_0 = 1 moved to the
    right-hand side, then scaled. (Replacing an equation by sum(pi) = 1 instead puts
    a dense row into the LU, and its fill-in with it.)"""
    n = generator.shape[0]
    if n == 1:
        return np.ones(1)
    balance = generator.T.tocsc()
    others, first = balance[1:, 1:].tocsc(), -balance[1:, 0].toarray().ravel()
    rest = spla.spsolve(others, first) if n <= DIRECT_STATES else _iterated(others, first)
    pi = np.maximum(np.concatenate([[1.0], np.atleast_1d(rest)]), 0.0)  # rounding below 0 on states of no weight
    pi /= pi.sum()
    scale = float(np.abs(generator.diagonal()).max())
    residual = float(np.abs(balance @ pi).max()) / scale
    if not np.isfinite(residual) or residual > RESIDUAL:
        raise BrewputError(f"the chain's balance equations are off by {residual:.1e} of its fastest rate "
                           f"(more than {RESIDUAL:g}): its solution is not trusted; use brewput simulate")
    return pi


def _iterated(matrix: sp.csc_matrix, right: np.ndarray) -> np.ndarray:
    preconditioner = spla.spilu(matrix, drop_tol=_DROP, fill_factor=_FILL)
    solution, _ = spla.gmres(matrix, right, M=spla.LinearOperator(matrix.shape, preconditioner.solve),
                             rtol=1e-13, atol=0.0, restart=50, maxiter=_RESTARTS)
    return solution
