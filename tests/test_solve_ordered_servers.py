"""analytic/ordered_servers.py: each server's share of an M/M/c whose idle servers
are taken in a fixed order, from its lumped chains, against scipy's sparse solve of all 2^c sets."""
import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import spsolve

from brewput.analytic.ordered_servers import MAX_SERVERS, ordered_utilizations


def by_scipy(lam: float, s: float, c: int) -> list:
    """The same chain built and solved independently, sparse, by scipy."""
    mu, full = 1.0 / s, (1 << c) - 1
    q = sparse.lil_matrix((full + 1, full + 1))
    for busy in range(full):
        q[busy, busy | 1 << next(i for i in range(c) if not busy >> i & 1)] += lam
        for i in range(c):
            if busy >> i & 1:
                q[busy, busy & ~(1 << i)] += mu
    for i in range(c):  # all busy: left after the excess's busy period, to "all but i"
        q[full, full & ~(1 << i)] += (c * mu - lam) / c
    q = q.tocsr()
    generator = (q - sparse.diags(np.asarray(q.sum(axis=1)).ravel())).T.tolil()
    generator[0, :] = 1.0
    p = spsolve(generator.tocsc(), np.eye(full + 1)[0])
    return [float(p[[b for b in range(full + 1) if b >> i & 1]].sum()) for i in range(c)]


@pytest.mark.parametrize("c", [1, 2, 3, 5, 10, 11, MAX_SERVERS])
@pytest.mark.parametrize("load", [0.1, 0.6, 0.95])
def test_each_servers_share_as_scipy_solves_it_and_all_of_them_the_offered_load(c, load):
    s = 0.5
    lam = load * c / s  # each server busy `load` of the time on average
    shares = ordered_utilizations(lam, s, c)
    assert shares == pytest.approx(by_scipy(lam, s, c), rel=1e-12, abs=1e-14)
    assert sum(shares) == pytest.approx(lam * s, rel=1e-12)  # busy servers = offered load
    assert all(a >= b for a, b in zip(shares, shares[1:]))  # the first servers work more
    if c == 1:
        assert shares == pytest.approx([load], rel=1e-12)
