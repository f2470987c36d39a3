"""The stationary distribution of a generator, by scipy's sparse LU, its residual checked."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ...errors import BrewputError

#: The most the balance equations may be off, relative to the fastest rate out of a state.
RESIDUAL = 1e-9


def stationary(generator: sp.csr_matrix) -> np.ndarray:
    """pi with pi Q = 0 and sum(pi) = 1 (the chain must have one recurrent class):
    the balance equations of every state but the first, with pi_0 = 1 moved to the
    right-hand side, then scaled. (Replacing an equation by sum(pi) = 1 instead puts
    a dense row into the LU, and its fill-in with it.)"""
    n = generator.shape[0]
    if n == 1:
        return np.ones(1)
    balance = generator.T.tocsc()
    rest = spla.spsolve(balance[1:, 1:].tocsc(), -balance[1:, 0].toarray().ravel())
    pi = np.maximum(np.concatenate([[1.0], np.atleast_1d(rest)]), 0.0)  # rounding below 0 on states of no weight
    pi /= pi.sum()
    scale = float(np.abs(generator.diagonal()).max())
    residual = float(np.abs(balance @ pi).max()) / scale
    if not np.isfinite(residual) or residual > RESIDUAL:
        raise BrewputError(f"the chain's balance equations are off by {residual:.1e} of its fastest rate "
                           f"(more than {RESIDUAL:g}): its solution is not trusted; use brewput simulate")
    return pi
