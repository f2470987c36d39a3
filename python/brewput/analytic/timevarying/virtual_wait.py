"""The wait of one arrival at an M/M/c(t)+M FIFO station, given how many are ahead of it.

An arrival at time s finding k present (all ahead of it, FIFO) starts service as soon
as fewer than c(t) are ahead; until then those ahead leave at d_k(t) = c(t)/s_mean +
(k - c(t)) theta (a service ends, or one of those waiting gives up) and it gives up
itself at theta (theta = 1 / mean patience, 0 without patience). Those behind it do not
matter, so the number ahead is a pure-death chain: exact for exponential service and
patience, servers on a rota (a server going off shift hands its job back to the head of
the queue: `off_shift: resume` or `restart`, the same for exponential service).

Its expected rewards solve backward equations (-u' = r + G u, G the chain's generator
with the arrival's own abandonment as killing):
    h_k(s)  mean time waiting (until service or giving up), reward 1;
    a_k(s)  probability of giving up, reward theta;
and its offered wait V (the wait were it infinitely patient) has survival
P(V > x | k, s) = [exp(x G0) 1{k >= c}]_k over the window [s, s + x], piece by piece
where c(t) changes. The wait is W = min(V, patience): P(W > x) = P(V > x) e^{-theta x}.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sparse

from .linear_ode import LinearSystem, solve_at


def departure_rates(size: int, servers: int, service_mean: float, theta: float) -> np.ndarray:
    """d_k for k = 0..size-1 ahead: min(k, c) mu + max(k - c, 0) theta."""
    k = np.arange(size)
    return np.minimum(k, servers) / service_mean + np.maximum(k - servers, 0) * theta


def generator(size: int, servers: int, service_mean: float, theta: float, killing: bool) -> sparse.csr_matrix:
    """G on k = 0..size-1 ahead; rows below `servers` are zero (in service: absorbed).
    With `killing`, the arrival's own abandonment (rate theta) leaves the chain."""
    d = departure_rates(size, servers, service_mean, theta)
    waiting = np.arange(size) >= servers
    down = np.where(waiting, d, 0.0)
    diagonal = -(down + (theta if killing else 0.0) * waiting)
    return sparse.diags([diagonal, down[1:]], [0, -1], format="csr")


def stationary_rewards(size: int, servers: int, service_mean: float, theta: float):
    """(h, a) where the servers never change again: -u' = 0 gives u_k = (r + d_k
    u_{k-1}) / (d_k + theta) from k = c up; inf where nobody ever leaves (c = 0 and
    no patience)."""
    d = departure_rates(size, servers, service_mean, theta)
    h, a = np.zeros(size), np.zeros(size)
    for k in range(servers, size):
        leave = d[k] + theta
        before_h = h[k - 1] if k else 0.0
        before_a = a[k - 1] if k else 0.0
        if leave == 0:
            h[k], a[k] = np.inf, 0.0
        else:
            h[k] = (1.0 + d[k] * before_h) / leave
            a[k] = (theta + d[k] * before_a) / leave
    return h, a


def survival(size: int, window, service_mean: float, theta: float) -> np.ndarray:
    """P(V > x | k ahead) for k = 0..size-1 over a window given as [(duration, servers),
    ...] in time order (its pieces of constant servers, durations summing to x): from
    the window's end (still waiting: k >= c) back to its start, in reversed time."""
    pieces, tau = [], 0.0
    for duration, servers in reversed(window):
        pieces.append((tau, tau + duration, LinearSystem([(None, generator(size, servers, service_mean, theta,
                                                                             killing=False))])))
        tau += duration
    cutoffs = [servers for _, servers in reversed(window)]

    def entering(i, value):
        value[:cutoffs[i]] = 0.0  # fewer than c ahead at the piece's end: in service by then
        return value

    _, value = solve_at(np.ones(size), pieces, [], entering=entering)
    return np.clip(value, 0.0, 1.0)
