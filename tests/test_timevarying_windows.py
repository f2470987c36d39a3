"""Many service-level windows solved at once (timevarying/windows.py and
linear_ode.solve_columns) against dense matrix exponentials built here, window by
window: windows of one, two and four pieces (a window longer than the rota's
intervals), with and without patience."""
import math

import numpy as np
import pytest
import scipy.sparse as sparse
from scipy.linalg import expm

from brewput.analytic.timevarying import virtual_wait
from brewput.analytic.timevarying.linear_ode import LinearSystem, solve_columns

SIZE, SERVICE_MEAN = 40, 2.0


def killed_pure_death(servers: int, theta: float) -> np.ndarray:
    """The tagged arrival's generator on k ahead, written out: absorbed in service below
    `servers`; waiting, those ahead leave at c mu + (k - c) theta and it gives up at theta."""
    g = np.zeros((SIZE, SIZE))
    for k in range(servers, SIZE):
        down = servers / SERVICE_MEAN + (k - servers) * theta
        if k > 0:
            g[k, k - 1] = down
        g[k, k] = -(down + theta)
    return g


def by_exponentials(window, theta: float) -> np.ndarray:
    value = np.zeros(SIZE)
    for duration, servers in reversed(window):
        value[:servers] = 1.0
        value = expm(killed_pure_death(servers, theta) * duration) @ value
    return value


@pytest.mark.parametrize("patience", [math.inf, 3.0])
def test_windows_of_several_pieces_are_the_products_of_exponentials(patience):
    theta = 0.0 if math.isinf(patience) else 1 / patience
    windows = [((0.5, 3),), ((0.2, 3), (0.3, 5)), ((0.05, 3), (0.45, 5)), ((0.1, 5), (0.4, 1)),
               ((0.3, 2), (1.0, 4), (1.0, 1), (0.7, 6)), ((0.6, 2), (1.0, 4), (1.0, 1), (0.4, 6)),
               ((0.0, 4), (0.5, 2))]
    mine = virtual_wait.served_within(SIZE, windows, SERVICE_MEAN, theta)
    assert mine.shape == (SIZE, len(windows))
    for j, window in enumerate(windows):
        assert np.allclose(mine[:, j], by_exponentials(window, theta), rtol=0, atol=1e-12), window


def test_columns_carried_each_over_its_own_time():
    rng = np.random.default_rng(7)
    for states in (30, 300):  # a dense jump matrix, and sparse products
        rates = rng.random((states, states)) * (rng.random((states, states)) < 0.05)
        np.fill_diagonal(rates, 0.0)
        forward = rates.T - np.diag(rates.sum(axis=1))
        ys, durations = rng.random((states, 6)), np.array([0.0, 0.1, 0.7, 1.3, 0.7, 2.0])
        mine = solve_columns(ys, LinearSystem([(None, sparse.csr_matrix(forward))]), durations)
        for j, duration in enumerate(durations):
            assert np.allclose(mine[:, j], expm(forward * duration) @ ys[:, j], rtol=0, atol=1e-12)
