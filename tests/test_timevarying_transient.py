"""analytic/timevarying/transient.py against independent truths computed here: the same
birth-death chain by dense matrix exponentials (scipy.linalg.expm) and Simpson's rule,
the stationary Erlang C and Erlang A formulas, and the Mt/M/inf Poisson law."""
import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.linalg import expm

from brewput.analytic.abandonment import erlang_a
from brewput.analytic.queues import mmc, mmc_wait_tail
from brewput.analytic.timevarying.transient import solve_transient
from brewput.model.timeline import Constant, Curve, Day, Rota, Steps

SERVICE, PATIENCE, STATES = 1.0, 2.0, 40
EDGES = np.array([0.0, 3.0, 6.0, 9.0])
RATES, SERVERS, AT_START = [1.0, 2.5, 0.5], [1, 2, 1], 2


def generator(lam, c, theta, size=STATES):
    """Q of the number present, blocked at size - 1, built from its rates by hand."""
    q = np.zeros((size, size))
    for n in range(size):
        if n + 1 < size:
            q[n, n + 1] = lam
        if n:
            q[n, n - 1] = min(n, c) / SERVICE + max(n - c, 0) * theta
        q[n, n] = -q[n].sum()
    return q


def tagged(c, theta, killing, size=STATES):
    """The generator of the number ahead of a waiting arrival; the rows below c are 0 (in
    service: a value set there stays, 0 or 1 as the quantity says)."""
    g = np.zeros((size, size))
    for k in range(c, size):
        d = c / SERVICE + (k - c) * theta
        if k >= 1:
            g[k, k - 1] = d
        g[k, k] = -(d + (theta if killing else 0.0))
    return g


def through_service(c, theta, size=STATES):
    """The generator of the number ahead of an arrival who may be handed back when the
    rota falls (off_shift: resume): in service while fewer than c are ahead, where it
    completes at 1 / SERVICE (leaving the chain, served); waiting else, giving up at theta."""
    g = np.zeros((size, size))
    for k in range(size):
        d = min(k, c) / SERVICE + max(k - c, 0) * theta
        if k >= 1:
            g[k, k - 1] = d
        g[k, k] = -(d + (theta if k >= c else 1 / SERVICE))
    return g


def whole_waits(theta, w, b, grid):
    """w and b on each interval's grid for the whole wait (handed back where the rota
    falls, waiting again): back from the day's end (w, b there) under expm of
    [[G, diag(waiting), 0], [0, G, completion], [0, 0, 0]] ds on [w; b; 1]."""
    served, waits = [None] * len(RATES), [None] * len(RATES)
    for i in reversed(range(len(RATES))):
        c = SERVERS[i]
        block = np.zeros((2 * STATES + 1, 2 * STATES + 1))
        block[:STATES, :STATES] = block[STATES:2 * STATES, STATES:2 * STATES] = through_service(c, theta)
        block[:STATES, STATES:2 * STATES] = np.diag((np.arange(STATES) >= c).astype(float))
        block[STATES:2 * STATES, -1] = (np.arange(STATES) < c) / SERVICE
        step = expm(block * (EDGES[i + 1] - EDGES[i]) / (grid - 1))
        values = [np.concatenate([w, b, [1.0]])]
        for _ in range(grid - 1):
            values.append(step @ values[-1])
        values = np.array(values[::-1])
        waits[i], served[i] = values[:, :STATES], values[:, STATES:2 * STATES]
        w, b = waits[i][0], served[i][0]
    return waits, served


def independent_day(theta, x, grid=1201):
    """Per interval: law at the end, mean present, mean wait and P(wait <= x) of arrivals,
    by expm steps on a grid and Simpson's rule. The rota falls (2 to 1 at 6) and the
    one in service may be handed back (off_shift: resume): the mean wait and the share
    served are of the whole wait; P(wait <= x) is of the first wait, of those who start."""
    count = len(RATES)
    # the state law on each interval's grid
    laws, p = [], np.zeros(STATES)
    p[AT_START] = 1.0
    for i in range(count):
        s = np.linspace(EDGES[i], EDGES[i + 1], grid)
        step = expm(generator(RATES[i], SERVERS[i], theta) * (s[1] - s[0]))
        law = [p]
        for _ in s[1:]:
            law.append(law[-1] @ step)
        laws.append(np.array(law))
        p = law[-1]
    # of those served (one who gives up is not timed): b_k(s) = P(served | k ahead at s)
    # and w_k(s) = E[wait; served]. After the day, the last servers forever: b by its
    # recursion, w by a linear solve of 0 = b + G w; then back through each interval
    # with [w; b] under expm([[G, diag(waiting)], [0, G]] ds), b = 1 for k < c.
    c_end = SERVERS[-1]
    g = tagged(c_end, theta, killing=True)
    b = np.ones(STATES)
    for k in range(c_end, STATES):
        d = c_end / SERVICE + (k - c_end) * theta
        b[k] = d * b[k - 1] / (d + theta)
    w = np.zeros(STATES)
    w[c_end:] = np.linalg.solve(-g[c_end:, c_end:], b[c_end:])
    whole, completed = whole_waits(theta, w, b, grid)
    served, waits = [None] * count, [None] * count
    for i in reversed(range(count)):
        c = SERVERS[i]
        w, b = w.copy(), b.copy()
        w[:c], b[:c] = 0.0, 1.0
        g = tagged(c, theta, killing=True)
        block = np.zeros((2 * STATES, 2 * STATES))
        block[:STATES, :STATES], block[STATES:, STATES:] = g, g
        block[:STATES, STATES:] = np.diag((np.arange(STATES) >= c).astype(float))
        ds = (EDGES[i + 1] - EDGES[i]) / (grid - 1)
        step = expm(block * ds)
        values = [np.concatenate([w, b])]
        for _ in range(grid - 1):
            values.append(step @ values[-1])
        values = np.array(values[::-1])
        waits[i], served[i] = values[:, :STATES], values[:, STATES:]
        w, b = waits[i][0], served[i][0]

    def served_within(t):
        """P(served within x | k ahead) at arrival time t: expm of each piece of the window."""
        cuts = [t] + [e for e in EDGES[1:-1] if t < e < t + x] + [t + x]
        value = (np.arange(STATES) < server_count(cuts[-1])).astype(float)
        for a, b in reversed(list(zip(cuts[:-1], cuts[1:]))):
            c = server_count(a)
            value[:c] = 1.0
            value = expm(tagged(c, theta, killing=True) * (b - a)) @ value
        return value

    results = []
    for i in range(count):
        s = np.linspace(EDGES[i], EDGES[i + 1], grid)
        width = EDGES[i + 1] - EDGES[i]
        present = integrate.simpson(laws[i] @ np.arange(STATES), x=s) / width
        served_share = integrate.simpson(np.sum(laws[i] * served[i], axis=1), x=s)
        completed_share = integrate.simpson(np.sum(laws[i] * completed[i], axis=1), x=s)
        wait = integrate.simpson(np.sum(laws[i] * whole[i], axis=1), x=s) / completed_share
        # Simpson on each side of b - x, where a window starts to cross the rota's change:
        # one who arrives just after b - x with fewer than the new count ahead is served at
        # b, just before it waits on, and at b itself the count changes (the integrand
        # jumps at both; x = 200 grid steps of 0.0025 before b; each side's last point is
        # read as its left limit)
        split = (grid - 1) - int(round(x / (width / (grid - 1))))
        within = 0.0
        for part, nudge in ((slice(0, split + 1, 5), -1e-12), (slice(split, grid, 5), -1e-12)):
            t = s[part].copy()
            t[-1] += nudge
            within += integrate.simpson([law @ served_within(at) for law, at in zip(laws[i][part], t)], x=t)
        results.append((laws[i][-1], present, wait, within / served_share, 1 - completed_share / width))
    return results


def server_count(t):
    return SERVERS[min(int(np.searchsorted(EDGES, t, side="right")) - 1, len(SERVERS) - 1)]


@pytest.mark.parametrize("patience", [math.inf, PATIENCE])
def test_forward_and_backward_equations_against_dense_exponentials(patience):
    theta = 0.0 if math.isinf(patience) else 1 / patience
    x = 0.5
    mine = solve_transient(Steps(EDGES, RATES), SERVICE, Rota(EDGES, SERVERS), patience=patience,
                           at_start=AT_START, targets=[x], states=STATES)
    truth = independent_day(theta, x)
    for i, (law_end, present, wait, level, abandoned) in enumerate(truth):
        assert np.allclose(mine.details["law_at_edges"][:, i + 1], law_end, atol=1e-8)
        assert mine.mean_in_system[i] == pytest.approx(present, rel=1e-7)
        assert mine.mean_wait[i] == pytest.approx(wait, rel=1e-7)
        assert mine.service_level[x][i] == pytest.approx(level, rel=1e-6), i
        assert mine.abandoned[i] == pytest.approx(abandoned, rel=1e-7, abs=1e-12)
    assert mine.arrivals.tolist() == [3.0, 7.5, 1.5]


def test_constant_rate_and_rota_give_erlang_c():
    lam, c = 2.0, 4
    day = Day(600, 15)
    mine = solve_transient(Constant(lam), 1.5, day.rota([c] * day.intervals), targets=[0.5])
    stationary = mmc(lam, 1.5, c)
    assert mine.mean_wait[-1] == pytest.approx(stationary.wait, rel=1e-7)
    assert mine.mean_in_queue[-1] == pytest.approx(stationary.in_queue, rel=1e-7)
    assert mine.mean_in_system[-1] == pytest.approx(stationary.in_system, rel=1e-7)
    assert mine.utilization[-1] == pytest.approx(lam * 1.5 / c, rel=1e-7)
    assert mine.service_level[0.5][-1] == pytest.approx(1 - mmc_wait_tail(0.5, lam, 1.5, c), rel=1e-7)
    assert mine.details["lost"] < 1e-9


def test_constant_rate_and_rota_give_erlang_a():
    lam, c = 3.5, 4  # overloaded without patience: Erlang A still has a steady state
    day = Day(300, 15)
    mine = solve_transient(Constant(lam), 1.5, day.rota([c] * day.intervals), patience=PATIENCE)
    stationary = erlang_a(lam, 1.5, c, PATIENCE)
    assert mine.mean_wait[-1] == pytest.approx(stationary.mean_wait_served, rel=1e-7)
    assert mine.abandoned[-1] == pytest.approx(stationary.abandoned, rel=1e-7)
    assert mine.mean_in_system[-1] == pytest.approx(stationary.mean_in_system, rel=1e-7)
    assert mine.utilization[-1] == pytest.approx(stationary.utilization, rel=1e-7)


def test_a_repeating_constant_day_is_stationary_from_its_start():
    lam, c = 2.0, 3
    day = Day(60, 15, repeat=True)
    mine = solve_transient(Constant(lam), 1.0, Rota(day.edges, [c] * 4, repeat=True))
    stationary = mmc(lam, 1.0, c)
    assert np.allclose(mine.mean_in_system, stationary.in_system, rtol=1e-7)
    assert np.allclose(mine.mean_wait, stationary.wait, rtol=1e-7)


@pytest.mark.parametrize("patience", [math.inf, 3.0])
def test_a_repeating_day_settles_into_the_law_it_starts_from(patience):
    # A call centre's 24 hours in quarter hours, staffed by the square-root rule: stable
    # every day. Each day's integration loses ~1e-12 of the law's mass, which once kept
    # the day from ever "settling" and refused it as overloaded.
    day = Day(1440, 15, repeat=True)
    calls = 3 + 2.5 * np.sin(2 * np.pi * (day.edges[:-1] + 7.5 - 600) / 1440)
    agents = np.ceil(4 * calls + 2 * np.sqrt(4 * calls)).astype(int)
    mine = solve_transient(day.steps(calls), 4.0, day.rota(agents), patience=patience)
    start = mine.details["law_at_edges"][:, 0]
    size = start.size
    theta = 0.0 if math.isinf(patience) else 1 / patience
    n = np.arange(size)
    law = start.copy()
    for lam, c in zip(calls, agents):  # the day again, by dense exponentials of its birth-death chain
        q = np.diag(np.where(n < size - 1, lam, 0.0)[:-1], 1)
        q += np.diag((np.minimum(n, c) / 4.0 + theta * np.maximum(n - c, 0))[1:], -1)
        np.fill_diagonal(q, -q.sum(axis=1))
        law = law @ expm(q * 15)
    assert np.abs(law - start).sum() < 1e-8
    assert np.abs(mine.details["law_at_edges"][:, -1] - start).sum() < 1e-8


def test_many_servers_give_the_infinite_server_poisson_law():
    # Mt/M/inf from empty with lambda = a + b sin(w t): m' = lambda - mu m, m(0) = 0
    a, b, w, mu = 6.0, 4.0, 2 * math.pi / 60, 1.0 / 2.0
    curve = Curve("6 + 4*sin(2*pi*t/60)", 60)
    servers = 60  # more than can ever be present (lost is checked below)
    mine = solve_transient(curve, 1 / mu, Rota([0, 15, 30, 45, 60], [servers] * 4))

    def m(t):
        periodic = a / mu + b * (mu * np.sin(w * t) - w * np.cos(w * t)) / (mu**2 + w**2)
        return periodic - (a / mu - b * w / (mu**2 + w**2)) * np.exp(-mu * t)

    size = mine.details["states"]
    assert mine.details["lost"] < 1e-9
    for j, t in enumerate([15.0, 30.0, 45.0]):
        law = mine.details["law_at_edges"][:, j + 1]
        assert np.allclose(law, stats.poisson.pmf(np.arange(size), m(t)), atol=1e-8)
    assert np.allclose(mine.mean_wait, 0.0, atol=1e-9)


def test_bad_input_is_one_clear_line():
    day = Day(60, 15)
    with pytest.raises(ValueError, match="patience must be positive"):
        solve_transient(Constant(1.0), 1.0, day.rota([1] * 4), patience=0)
    with pytest.raises(ValueError, match="mean service time"):
        solve_transient(Constant(1.0), -1.0, day.rota([1] * 4))
