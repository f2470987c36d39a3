"""The exact transient with off_shift: finish (finishing.py) against truths computed here:
a chain on (n, h), h the jobs holding a server, built by hand as the simulator runs it
(service/pool.rs: no job starts while h >= c; a rise starts waiting jobs at once) and
solved by scipy's expm; the tagged arrival's wait by expm of its own chain run forward
(into absorbing 'served' and 'gave up'); and simulate on the rush whose rota falls."""
import math

import numpy as np
import pytest
from conftest import check
from scipy.linalg import expm

import brewput
from brewput.analytic.timevarying.transient import solve_transient
from brewput.model.timeline import Day, Steps

LENGTH, INTERVAL = 8.0, 2.0
RATES = [1.0, 3.0, 1.0, 1.5]
SERVERS = [2, 5, 1, 3]      # falls 5 -> 1 (up to four servers finishing), then rises while some still are
MU, THETA = 1.0, 0.5        # exp(1) service, exp(2) patience
TOP = 30                    # jobs present kept by the hand-built chain (arrivals beyond are turned away)
X = 0.5                     # P(wait <= X)


def states():
    return [(n, h) for n in range(TOP + 1) for h in range(min(n, max(SERVERS)) + 1)]


STATES = states()
INDEX = {s: i for i, s in enumerate(STATES)}


def generator(lam, c):
    """Q on (n, h): arrivals start at once where a server is free (h < c); a service ends
    at h mu, and the freed server takes the next waiting job only if then h - 1 < c;
    each of the n - h waiting gives up at theta."""
    q = np.zeros((len(STATES), len(STATES)))
    for (n, h), i in INDEX.items():
        if n < TOP:
            q[i, INDEX[(n + 1, h + 1 if h < c else h)]] += lam
        if h > 0:
            starts = h - 1 < c and n - 1 > h - 1
            q[i, INDEX[(n - 1, h if starts else h - 1)]] += h * MU
        if n > h:
            q[i, INDEX[(n - 1, h)]] += (n - h) * THETA
    np.fill_diagonal(q, -q.sum(axis=1))
    return q


def change(c):
    """The rota moves to c servers: those holding a job keep it; free ones take waiting jobs."""
    move = np.zeros((len(STATES), len(STATES)))
    for (n, h), i in INDEX.items():
        move[i, INDEX[(n, h if h >= c else min(n, c))]] = 1.0
    return move


def by_hand():
    """Per interval: mean present, mean waiting, mean busy; the law of n at the day's end."""
    p = np.zeros(len(STATES))
    p[INDEX[(0, 0)]] = 1.0
    n = np.array([s[0] for s in STATES], dtype=float)
    h = np.array([s[1] for s in STATES], dtype=float)
    present, waiting, busy, laws = [], [], [], []
    for lam, c in zip(RATES, SERVERS):
        p = p @ change(c)
        laws.append(p)
        q = generator(lam, c)
        size = len(STATES)
        # d/dt [p, integral of p] = [p Q, p]: one expm gives both
        block = np.zeros((2 * size, 2 * size))
        block[:size, :size] = q
        block[:size, size:] = np.eye(size)
        e = expm(block * INTERVAL)
        area = p @ e[:size, size:]
        p = p @ e[:size, :size]
        present.append(area @ n / INTERVAL)
        waiting.append(area @ (n - h) / INTERVAL)
        busy.append(area @ h / INTERVAL)
    at_end = np.bincount([s[0] for s in STATES], weights=p, minlength=TOP + 1)
    return np.array(present), np.array(waiting), np.array(busy), at_end, laws


AHEAD = 20                  # jobs ahead kept for the tagged arrival (more are found with probability < 1e-9)
AFTER = 70.0                # the tagged's chain is run to this time (the rota holds its last count after the day)
WAITING = [(k, h) for k in range(AHEAD + 1) for h in range(min(k, max(SERVERS)) + 1)]
AT = {s: i for i, s in enumerate(WAITING)}
SERVED, GONE = len(WAITING), len(WAITING) + 1


def tagged_chain(c):
    """The tagged arrival's generator with c servers on: k ahead, h of them holding a server."""
    g = np.zeros((len(WAITING) + 2, len(WAITING) + 2))
    for (k, h), i in AT.items():
        if h > 0:  # a service ends ahead: the freed server takes the next job if h - 1 < c
            if h - 1 < c:
                g[i, SERVED if k - 1 < h else AT[(k - 1, h)]] += h * MU
            else:
                g[i, AT[(k - 1, h - 1)]] += h * MU
        if k > h:
            g[i, AT[(k - 1, h)]] += (k - h) * THETA
        g[i, GONE] += THETA
    np.fill_diagonal(g, -g.sum(axis=1))
    return g


def tagged_moved(c):
    """The rota moves to c: free servers take the jobs ahead, then the tagged."""
    m = np.zeros((len(WAITING) + 2, len(WAITING) + 2))
    m[SERVED, SERVED] = m[GONE, GONE] = 1.0
    for (k, h), i in AT.items():
        m[i, AT[(k, h)] if h >= c else (SERVED if k < c else AT[(k, min(k, c))])] = 1.0
    return m


_STEPS = {}


def tagged_step(c, duration):
    """(the transition matrix over `duration`, its integral), by one expm of a block matrix."""
    key = (c, round(duration, 12))
    if key not in _STEPS:
        size = len(WAITING) + 2
        block = np.zeros((2 * size, 2 * size))
        block[:size, :size] = tagged_chain(c)
        block[:size, size:] = np.eye(size)
        e = expm(block * duration)
        _STEPS[key] = e[:size, :size], e[:size, size:]
    return _STEPS[key]


def tagged(found_at):
    """For an arrival at `found_at`, per state (n, h) it finds (n <= AHEAD): (P(served),
    E[W; served], P(served within X)), by its own chain run forward to AFTER: E[W; served]
    is the integral of P(served, not yet by u) = P(served by AFTER) - P(served by u)."""
    c0 = SERVERS[int(found_at // INTERVAL)]
    found = [(n, h) for (n, h) in STATES if n <= AHEAD]
    p = np.zeros((len(found), len(WAITING) + 2))
    for row, (n, h) in enumerate(found):
        p[row, SERVED if h < c0 else AT[(n, h)]] = 1.0
    changes = [e for e in np.arange(1, len(SERVERS)) * INTERVAL if e > found_at]
    marks = sorted({found_at, found_at + X, AFTER, *changes})
    area, within = np.zeros(len(found)), None
    for a, b in zip(marks[:-1], marks[1:]):
        c = SERVERS[min(int(a // INTERVAL), len(SERVERS) - 1)]
        if a in changes:
            p = p @ tagged_moved(c)
        step, integral = tagged_step(c, b - a)
        area += (p @ integral)[:, SERVED]
        p = p @ step
        if b == found_at + X:
            within = p[:, SERVED].copy()
    served = p[:, SERVED]
    return served, served * (AFTER - found_at) - area, within


@pytest.fixture(scope="module")
def solved():
    day = Day(LENGTH, INTERVAL, time_unit="min")
    return solve_transient(Steps(day.edges, RATES), 1 / MU, day.rota(SERVERS), patience=1 / THETA,
                           targets=[X], off_shift="finish")


def test_the_numbers_present_are_the_hand_built_chains(solved):
    present, waiting, busy, at_end, _ = by_hand()
    assert solved.details["finishing"] == 4 and solved.details["lost"] < 1e-9
    assert np.allclose(solved.mean_in_system, present, rtol=1e-7, atol=1e-10)
    assert np.allclose(solved.mean_in_queue, waiting, rtol=1e-7, atol=1e-10)
    assert np.allclose(solved.utilization * np.array(SERVERS), busy, rtol=1e-7, atol=1e-10)
    law = solved.details["law_at_edges"][:, -1]
    kept = min(law.size, TOP + 1)
    assert np.allclose(law[:kept], at_end[:kept], atol=1e-9) and at_end[kept:].sum() < 1e-9


def test_the_waits_are_the_tagged_chains_run_forward(solved):
    """Per interval, the arrivals' share served, mean wait of those served and P(wait <= X)
    by Gauss-Legendre over arrival times (16 points on each side of where s + X crosses
    a change), each from the law found (the hand-built chain) and the tagged's chain."""
    _, _, _, _, laws = by_hand()
    nodes, weights = np.polynomial.legendre.leggauss(16)
    for i in range(len(SERVERS)):
        a, b = i * INTERVAL, (i + 1) * INTERVAL
        cuts = sorted({a, b, *(e - X for e in (b,) if a < e - X < b)})
        served = waited = within = arrived = 0.0
        q = generator(RATES[i], SERVERS[i])
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            for u, w in zip((lo + hi) / 2 + (hi - lo) / 2 * nodes, (hi - lo) / 2 * weights):
                p = (laws[i] @ expm(q * (u - a)))[[n <= AHEAD for n, _ in STATES]]
                b_, w_, x_ = tagged(u)
                served += w * p @ b_
                waited += w * p @ w_
                within += w * p @ x_
                arrived += w
        assert solved.abandoned[i] == pytest.approx(1 - served / arrived, abs=1e-6)
        assert solved.mean_wait[i] == pytest.approx(waited / served, rel=1e-5, abs=1e-7)
        assert solved.service_level[X][i] == pytest.approx(within / served, abs=1e-6)


def test_a_rota_that_never_falls_is_the_chain_of_n_alone():
    day = Day(LENGTH, INTERVAL, time_unit="min")
    rising = day.rota([2, 3, 3, 5])
    finish = solve_transient(Steps(day.edges, RATES), 1.0, rising, patience=2.0, targets=[X], off_shift="finish")
    resume = solve_transient(Steps(day.edges, RATES), 1.0, rising, patience=2.0, targets=[X], off_shift="resume")
    assert "finishing" not in finish.details
    assert finish.mean_wait.tolist() == resume.mean_wait.tolist()
    assert finish.service_level[X].tolist() == resume.service_level[X].tolist()


RUSH = {"brewput": 1, "name": "rush", "time_unit": "min",
        "day": {"start": "08:00", "length": "60min", "interval": "15min"},
        "stations": {"bar": {"servers": [5, 14, 5, 5]}},  # off_shift: finish, the default
        "classes": {"customer": {"rate": [0.5, 2.0, 0.5, 0.5], "route": [{"station": "bar", "service": "exp(5)"}]}}}


@pytest.fixture(scope="module")
def rush():
    return brewput.solve(RUSH, within=[0.5]), brewput.simulate(RUSH, seed=11, replications=400, within=[0.5])


@pytest.mark.parametrize("i", range(4))
def test_a_rota_that_falls_sharply_is_exact_beside_simulate(rush, i):
    # 14 servers falling to 5 behind 5-minute services: those on at 08:30 finish their
    # jobs, and no job starts until fewer than 5 hold one
    solved, simulated = rush
    exact = solved["intervals"][i]
    customer = exact["classes"]["customer"]
    assert customer["exact"] is True and exact["stations"]["bar"]["exact"] is True
    at = ("intervals", i)
    check(simulated, at + ("classes", "customer", "waiting_time", "mean"), customer["waiting_time"]["mean"])
    check(simulated, at + ("stations", "bar", "waiting"), exact["stations"]["bar"]["waiting"])
    check(simulated, at + ("stations", "bar", "utilization"), exact["stations"]["bar"]["utilization"])
    waits = simulated["intervals"][i]["classes"]["customer"]["waiting_time"]
    (_, share), (low, high) = waits["within"][0], waits["within_ci"][0]
    check({"settings": simulated["settings"], "share": share, "share_ci": [low, high]}, ("share",),
          customer["waiting_time"]["within"][0][1])


def test_a_repeating_day_is_the_long_days_settled_cycle():
    # a rota that falls twice a cycle, to none at all, under a rate that is a curve (the
    # implicit integrator, not uniformization): the repeating day's state at its end is
    # its state at its start, and its waits are those of the fourth of four days in a row
    day = {"brewput": 1, "name": "cycle", "time_unit": "min",
           "day": {"length": "2h", "interval": "30min", "repeat": True},
           "stations": {"bar": {"servers": [6, 2, 0, 4]}},
           "classes": {"customer": {"rate": {"curve": "1 + 0.5*sin(2*pi*t/2h)"}, "route": [
               {"station": "bar", "service": "exp(2)", "patience": "exp(5)"}]}}}
    cycle = brewput.solve(day)["intervals"]
    long = dict(day, day={"length": "8h", "interval": "30min"},
                stations={"bar": {"servers": [6, 2, 0, 4] * 4}})
    days = brewput.solve(long)["intervals"]
    for i in range(3):  # the last interval of the long day has no day after it
        assert cycle[i]["classes"]["customer"]["exact"] is True
        assert cycle[i]["classes"]["customer"]["waiting_time"]["mean"] == pytest.approx(
            days[12 + i]["classes"]["customer"]["waiting_time"]["mean"], rel=1e-5)
        assert cycle[i]["stations"]["bar"]["waiting"] == pytest.approx(days[12 + i]["stations"]["bar"]["waiting"],
                                                                       rel=1e-5)
