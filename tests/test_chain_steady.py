"""The stationary law of a chain too large for LU (analytic/chain/steady.py: GMRES
preconditioned by an incomplete LU beyond DIRECT_STATES) against the product form:
an open tandem of three exponential single servers whose arrivals are turned away while
`JOBS` are in it is a closed Jackson network (the outside a server of rate lambda), so
its law is prod_m rho_m^(n_m) over the states with at most JOBS present."""
import numpy as np
import scipy.sparse as sparse

from brewput.analytic.chain import steady

JOBS = 64  # 47,905 states: a lattice in three dimensions
ARRIVAL, SERVICE = 1.0, np.array([2.0, 1.25, 1.0 / 0.6])


def tandem_generator():
    states = np.array([(a, b, c) for a in range(JOBS + 1) for b in range(JOBS + 1 - a)
                       for c in range(JOBS + 1 - a - b)])
    index = {tuple(s): i for i, s in enumerate(states.tolist())}
    moves = [(np.array([1, 0, 0]), lambda s: np.where(s.sum(axis=1) < JOBS, ARRIVAL, 0.0))]
    moves += [(np.eye(3, dtype=int)[m + 1] - np.eye(3, dtype=int)[m], lambda s, m=m: np.where(s[:, m] > 0, SERVICE[m], 0.0))
              for m in range(2)]
    moves += [(np.array([0, 0, -1]), lambda s: np.where(s[:, 2] > 0, SERVICE[2], 0.0))]
    rows, cols, rates = [], [], []
    for step, rate in moves:
        r = rate(states)
        for i in np.flatnonzero(r):
            rows.append(i)
            cols.append(index[tuple((states[i] + step).tolist())])
            rates.append(r[i])
    q = sparse.coo_matrix((rates, (rows, cols)), shape=(len(states),) * 2).tocsr()
    return q - sparse.diags(np.asarray(q.sum(axis=1)).ravel()), states


def test_a_chain_beyond_lu_is_solved_iteratively_to_the_product_form():
    generator, states = tandem_generator()
    assert generator.shape[0] > steady.DIRECT_STATES
    truth = np.prod((ARRIVAL / SERVICE) ** states, axis=1)
    truth /= truth.sum()
    pi = steady.stationary(generator)
    assert np.max(np.abs(pi - truth)) < 1e-12
    assert np.allclose(states.T @ pi, states.T @ truth, rtol=1e-10, atol=0)
