"""Stationary distributions of small continuous-time Markov chains, for the theory
tests: pi Q = 0 with sum(pi) = 1, solved directly (scipy's sparse LU)."""
import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve


def stationary(rows, cols, rates, size):
    """pi of the chain with a transition rows[i] -> cols[i] at rates[i] (repeats add up)."""
    q = sparse.coo_matrix((rates, (rows, cols)), shape=(size, size)).tocsr()
    q = (q - sparse.diags(np.asarray(q.sum(axis=1)).ravel())).T.tocoo()
    kept = q.row != 0  # the first balance equation is replaced by sum(pi) = 1
    system = sparse.coo_matrix((np.concatenate([q.data[kept], np.ones(size)]),
                                (np.concatenate([q.row[kept], np.zeros(size, int)]),
                                 np.concatenate([q.col[kept], np.arange(size)]))), shape=(size, size))
    rhs = np.zeros(size)
    rhs[0] = 1.0
    # Minimum degree on A^T + A: far less fill-in than the default COLAMD on these chains.
    return spsolve(system.tocsc(), rhs, permc_spec="MMD_AT_PLUS_A")
