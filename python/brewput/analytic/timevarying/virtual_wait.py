"""The wait of one arrival at an M/M/c(t)+M FIFO station, given how many are ahead of it.

An arrival at time s finding k present (all ahead of it, FIFO) starts service as soon
as fewer than c(t) are ahead; until then those ahead leave at d_k(t) = c(t)/s_mean +
(k - c(t)) theta (a service ends, or one of those waiting gives up) and it gives up
itself at theta (theta = 1 / mean patience, 0 without patience). Those behind it do not
matter, so the number ahead is a pure-death chain, killed when the arrival gives up:
exact for exponential service and patience, servers on a rota (a server going off shift
hands its job back to the head of the queue: `off_shift: resume` or `restart`, the same
for exponential service).

Waits are those of the customers served, as simulate times them (one who gives up is
lost, not timed) and as solve's steady-state laws say (analytic/laws/erlang_a.py). The
chain's backward equations (-u' = r + G u, G its generator) give, per k ahead at s,
    b_k(s)  the probability of being served (1 once in service);
    w_k(s)  the expected wait times that indicator, E[W; served] (reward rate b);
and over the window [s, s + x], piece by piece where c(t) changes,
    P(served within x | k, s) = [exp(x G) 1{k < c}]_k, 1 set again for k < c at each
    piece's end (a server is free by then).

Where the rota falls, a customer in service may be handed back and wait again
(simulate's rota.rs: the one handed back is the most recently started, back at the
head of the queue, so the first min(n, c) by arrival are always the ones in service):
its whole wait then follows the chain on k through its service (`through_service`):
in service while k < c(t), where it completes at 1 / s_mean (b's source) and those
ahead at k / s_mean; waiting while k >= c(t) as above (w's reward rate b). Its total
wait's law (P(wait <= x)) is not this chain's: the first wait's stays as above.
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
import scipy.sparse as sparse

from .linear_ode import LinearSystem
from .windows import Window, solve_windows


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


def through_service(size: int, servers: int, service_mean: float, theta: float) -> sparse.csr_matrix:
    """G on k = 0..size-1 ahead of a customer who may be handed back: in service (k < c)
    it leaves the chain at 1 / s_mean (served), waiting at theta (gone); those ahead
    leave at d_k either way."""
    d = departure_rates(size, servers, service_mean, theta)
    waiting = np.arange(size) >= servers
    diagonal = -(d + np.where(waiting, theta, 1.0 / service_mean))
    return sparse.diags([diagonal, d[1:]], [0, -1], format="csr")


def stationary_rewards(size: int, servers: int, service_mean: float, theta: float):
    """(w, b) where the servers never change again: -u' = 0 gives, from k = c up,
    b_k = d_k b_{k-1} / (d_k + theta) (b = 1 below c) and w_k = (b_k + d_k w_{k-1}) /
    (d_k + theta); w is inf where nobody ever leaves (c = 0 and no patience)."""
    d = departure_rates(size, servers, service_mean, theta)
    wait, served = np.zeros(size), np.ones(size)
    for k in range(servers, size):
        leave = d[k] + theta
        before_w, before_b = (wait[k - 1], served[k - 1]) if k else (0.0, 1.0)
        if leave == 0:
            wait[k], served[k] = np.inf, 1.0
        else:
            served[k] = d[k] * before_b / leave
            wait[k] = (served[k] + d[k] * before_w) / leave
    return wait, served


@functools.lru_cache(maxsize=256)
def _waiting_system(size: int, servers: int, service_mean: float, theta: float) -> LinearSystem:
    """u' = G u while the tagged arrival waits (killed as it gives up): built once for
    the many windows of a day's service levels (building costs more than a short solve)."""
    return LinearSystem([(None, generator(size, servers, service_mean, theta, killing=True))])


def served_within(size: int, windows: Sequence[Window], service_mean: float, theta: float) -> np.ndarray:
    """P(served within x | k ahead) for k = 0..size-1 (rows), a column per window
    [(duration, servers), ...] in time order (its pieces of constant servers, durations
    summing to x): from the window's end back to its start, in reversed time."""

    def entering(servers, later, value):
        value[:servers] = 1.0  # fewer than c ahead at the piece's end: in service by then
        return value

    def system_of(servers):
        return _waiting_system(size, servers, service_mean, theta)

    return np.clip(solve_windows(np.zeros(size), windows, system_of, entering), 0.0, 1.0)
