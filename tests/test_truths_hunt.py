"""What tests/hunt_truths.py found untrue, held to independent truths: Markov chains
solved here with numpy (tests/markov.py), closed forms written out again, and the
simulator's confidence intervals at fixed seeds.

Closed forms and chains are held to 1e-9 relative (the chains are small and solved
directly, so they are good to about 1e-12); the simulator to its own 95 % interval
at a fixed seed (deterministic: the same seed gives the same interval on every
machine), each run long enough that the interval is a few per cent wide.
"""
import numpy as np
import pytest

import brewput
from markov import stationary


def closed_at_one_station(population, servers, buffer, mean, think=None):
    """One closed class cycling through one exponential station of `servers` and
    `buffer`: who finds it full waits outside, in arrival order."""
    job = {"population": population, "route": [{"station": "s", "service": f"exp({mean})"}]}
    if think is not None:
        job["think"] = think
    return {"brewput": 1, "name": "outside", "stations": {"s": {"servers": servers, "buffer": buffer}},
            "classes": {"c": job}}


def machine_repairman(population, servers, mean, think):
    """pi over n = customers not thinking (inside or waiting outside), from the
    birth-death generator: n -> n + 1 at (N - n) / think, n -> n - 1 at min(n, c) / mean."""
    rows, cols, rates = [], [], []
    for n in range(population):
        rows += [n, n + 1]
        cols += [n + 1, n]
        rates += [(population - n) / think, min(n + 1, servers) / mean]
    return stationary(rows, cols, rates, population + 1)


def inside_ci(results, kind, name, *path):
    node = results[kind][name]
    for key in path[:-1]:
        node = node[key]
    return node[path[-1] + "_ci"]


# ---- closed customers waiting outside a full station --------------------------------
# The simulator let a customer with no think time, back at its first station in the
# same instant it left it, take the place it had just freed ahead of the customers
# waiting outside for it: those waited for ever, and the class's response time was
# one service (0.5 here, the truth N / X = 1.0). And a wait outside was left out of
# the waiting time, though it is part of the response time before service (0 here,
# the truth 0.5).

def test_no_think_customers_take_their_turn_outside_a_full_station():
    model = closed_at_one_station(population=4, servers=2, buffer=0, mean=0.5, think=0)
    # Every customer is at the station or outside it: both servers always busy,
    # X = c / mean = 4, and by Little R = N / X = 1, of which one service 0.5.
    solved = brewput.solve(model)["classes"]["c"]
    assert solved["throughput"] == pytest.approx(4.0, rel=1e-9)
    assert solved["response_time"]["mean"] == pytest.approx(1.0, rel=1e-9)
    assert solved["waiting_time"]["mean"] == pytest.approx(0.5, rel=1e-9)
    simulated = brewput.simulate(model, customers=100_000, seed=3)
    for path, truth in [(("throughput",), 4.0), (("response_time", "mean"), 1.0),
                        (("waiting_time", "mean"), 0.5)]:
        low, high = inside_ci(simulated, "classes", "c", *path)
        assert low <= truth <= high, (path, truth, low, high)


@pytest.mark.parametrize("population, servers, buffer, think", [
    (9, 3, 2, 2.0),
    (6, 1, 1, 1.0),
    (5, 2, 0, 0.5),
])
def test_the_wait_outside_is_in_the_waiting_time(population, servers, buffer, think):
    mean = 0.5
    pi = machine_repairman(population, servers, mean, think)
    n = np.arange(population + 1)
    busy = float(np.minimum(n, servers) @ pi)
    throughput = busy / mean
    response = float(n @ pi) / throughput           # Little over the customers not thinking
    inside = float(np.minimum(n, servers + buffer) @ pi)
    model = closed_at_one_station(population, servers, buffer, mean, f"exp({think})")
    solved = brewput.solve(model)
    c, s = solved["classes"]["c"], solved["stations"]["s"]
    assert c["throughput"] == pytest.approx(throughput, rel=1e-9)
    assert c["response_time"]["mean"] == pytest.approx(response, rel=1e-9)
    assert c["waiting_time"]["mean"] == pytest.approx(response - mean, rel=1e-9)
    assert s["queue_length"] == pytest.approx(inside, rel=1e-9)  # the station holds only those inside
    simulated = brewput.simulate(model, customers=200_000, seed=4)
    for kind, name, path, truth in [
            ("classes", "c", ("throughput",), throughput),
            ("classes", "c", ("response_time", "mean"), response),
            ("classes", "c", ("waiting_time", "mean"), response - mean),
            ("stations", "s", ("queue_length",), inside)]:
        low, high = inside_ci(simulated, kind, name, *path)
        assert low <= truth <= high, (path, truth, low, high)


# ---- bounds that were not bounds --------------------------------------------------------
# solve printed, for every closed class alone, the pessimistic asymptotic bounds and the
# balanced job bounds, which hold for product-form networks only. At a FIFO station of
# non-exponential service an arriving customer finds the one in service with E[S^2] / 2 E[S]
# left, more than its mean: two customers at hyperexp(1, 10) with think exp(5) had "bounds"
# R in [1.167, 1.286] against a true 1.53. And a closed class whose customers balk thinks
# again without completing, so Little's law N = X (R + Z) does not hold: 10 customers who
# balk with 0.9 at a queue had R in [9, 10] against the exact 2.73 (their chain).

def test_bounds_off_product_form_are_only_the_sure_ones():
    model = {"brewput": 1, "name": "b", "stations": {"s": {}},
             "classes": {"c": {"population": 2, "think": "exp(5)",
                               "route": [{"station": "s", "service": "hyperexp(1, 10)"}]}}}
    bounds = brewput.solve(model)["bounds"]["c"]
    assert bounds["balanced_throughput"] is None and bounds["balanced_response_time"] is None
    assert bounds["throughput"][0] is None and bounds["response_time"][1] is None
    simulated = brewput.simulate(model, customers=400_000, seed=2)["classes"]["c"]
    # the sure bounds hold: X <= min(N / (D + Z), 1 / D_max), R >= N / X_max - Z
    assert simulated["throughput_ci"][1] <= bounds["throughput"][1]
    assert simulated["response_time"]["mean_ci"][0] >= bounds["response_time"][0]
    # and the balanced job bounds it printed before would not have: R <= 1.2857
    assert simulated["response_time"]["mean_ci"][0] > 1.2857


def finite_source_balking(population, think, mean, balk):
    """The machine-repairman chain whose arrivals seeing w waiting balk with balk[w]
    (the last held beyond): (throughput, mean response of the served)."""
    rows, cols, rates = [], [], []
    for n in range(population):
        joins = 1 - balk[min(max(n - 1, 0), len(balk) - 1)]
        rows += [n, n + 1]
        cols += [n + 1, n]
        rates += [(population - n) / think * joins, 1 / mean]
    pi = stationary(rows, cols, rates, population + 1)
    n = np.arange(population + 1)
    throughput = (1 - pi[0]) / mean
    return throughput, float(n @ pi) / throughput


def test_bounds_of_customers_who_balk_hold():
    model = {"brewput": 1, "name": "b", "stations": {"s": {}},
             "classes": {"c": {"population": 10, "think": "exp(1)",
                               "route": [{"station": "s", "service": "exp(1)", "balk": [0.9]}]}}}
    throughput, response = finite_source_balking(10, 1.0, 1.0, [0.9])
    solved = brewput.solve(model)
    c, bounds = solved["classes"]["c"], solved["bounds"]["c"]
    assert c["throughput"] == pytest.approx(throughput, rel=1e-9)
    assert c["response_time"]["mean"] == pytest.approx(response, rel=1e-9)
    low_x, high_x = bounds["throughput"]
    low_r, high_r = bounds["response_time"]
    assert (low_x is None or low_x <= throughput) and throughput <= high_x
    assert low_r <= response and (high_r is None or response <= high_r)
    assert bounds["balanced_throughput"] is None


# ---- Little's law at a station where jobs renege ----------------------------------------
# docs/results.md said every station row keeps L = throughput x response_time. Jobs who
# renege are in L while they wait but are served nowhere, and both engines count only
# the served in throughput and response time (as the docs now say). The truth: the
# Erlang A chain (M/M/1+M), and a tagged arrival's wait until it is served.

def test_a_station_where_jobs_renege_holds_them_in_l_not_in_x_or_r():
    lam, mean, patience = 2.4464520480424827, 0.5, 3.0
    top = 400
    rows, cols, rates = [], [], []
    for n in range(top):
        rows += [n, n + 1]
        cols += [n + 1, n]
        rates += [lam, 1 / mean + n / patience]  # from n + 1 present: one in service, n waiting
    pi = stationary(rows, cols, rates, top + 1)
    n = np.arange(top + 1)
    present, waiting = float(n @ pi), float(np.maximum(n - 1, 0) @ pi)
    served = (1 - pi[0]) / mean
    # a tagged arrival (PASTA) finding n present has j = n - 1 ahead in line (none, and the
    # server free, at n = 0); the line moves at 1/mean + j/patience, it reneges at 1/patience
    theta = 1 / patience
    p_served, t_served = [1.0], [0.0]  # index j + 1; j = -1: the server is free
    for j in range(top):
        move = 1 / mean + j * theta
        p_served.append(move / (move + theta) * p_served[-1])
        t_served.append(p_served[-1] / (move + theta) + move / (move + theta) * t_served[-1])
    ahead = np.maximum(n - 1, -1) + 1
    wait_served = float(pi @ np.array(t_served)[ahead]) / float(pi @ np.array(p_served)[ahead])
    model = {"brewput": 1, "name": "renege", "stations": {"s": {}}, "classes": {"c": {
        "rate": lam, "route": [{"station": "s", "service": f"exp({mean})", "patience": f"exp({patience})"}]}}}
    station = brewput.solve(model)["stations"]["s"]
    assert station["queue_length"] == pytest.approx(present, rel=1e-9)
    assert station["waiting"] == pytest.approx(waiting, rel=1e-9)
    assert station["throughput"] == pytest.approx(served, rel=1e-9)
    assert station["response_time"] == pytest.approx(wait_served + mean, rel=1e-9)
    assert station["queue_length"] > 1.1 * station["throughput"] * station["response_time"]
    simulated = brewput.simulate(model, customers=200_000, seed=1)["stations"]["s"]
    for figure, truth in [("queue_length", present), ("waiting", waiting), ("throughput", served),
                          ("response_time", wait_served + mean)]:
        low, high = simulated[figure + "_ci"]
        assert low <= truth <= high, (figure, truth, low, high)


# ---- the most a forking class can complete -----------------------------------------------
# The check that keeps a `--horizon` run within what a replication can count bounds a
# closed class's throughput by N over its cycle with no waiting. It summed every step,
# a fork's branches too, though they run at once: 10 customers forking into const(1) and
# const(1) + const(2) cycle in 3 time units, not 4, and complete 10/3 a time unit, not
# at most 2.5. The bound is now the longest branch (a join of all), and nothing (a join
# of fewer: the mean of a min is below every branch's mean).

def test_most_throughput_takes_a_forks_branches_at_once():
    from brewput.analytic.feasibility import most_throughput

    def forking(join):
        return brewput.Model.from_dict({
            "brewput": 1, "name": "f", "stations": {"a": {"servers": "inf"}, "b": {"servers": "inf"}},
            "classes": {"c": {"population": 10, "route": [
                {"station": "a", "service": 1},
                {"fork": {"x": [{"station": "a", "service": "const(1)"}],
                          "y": [{"station": "b", "service": "const(1)"}, {"station": "b", "service": "const(2)"}]},
                 "join": join}]}}})

    # every time is a constant: the cycle is exactly 1 + max(1, 1 + 2) = 4 (join all), 1 + 1 (any)
    assert most_throughput(forking("all"))["c"] == pytest.approx(10 / 4, rel=1e-12)
    assert most_throughput(forking("any"))["c"] == pytest.approx(10 / 1, rel=1e-12)
    for join, cycle in (("all", 4.0), ("any", 2.0)):
        simulated = brewput.simulate(forking(join), customers=100_000, seed=1)["classes"]["c"]["throughput"]
        assert simulated == pytest.approx(10 / cycle, rel=1e-6)
        assert simulated <= most_throughput(forking(join))["c"] * (1 + 1e-9)



# ---- a dispatch's branch does not block after service ------------------------------------
# The model language said every job that finds its next station full blocks its server.
# At the end of a dispatch's branch the engine lets the job go, and it waits outside
# the next station holding nothing: what docs/model-language.md now says. Each version
# against the chain of its own words: 6 closed customers, no think, a random dispatch
# to station a or b (exp(1) each), then a rendezvous station z (exp(0.5), no room).

def dispatch_into_rendezvous(blocking):
    """Throughput from the chain. Without blocking: (at a, at b, z busy, waiting outside
    z); with it: (at a, at b, z busy, a's job done and blocked, b's, which blocked first)."""
    n = 6
    if not blocking:
        states = [(a, b, z, n - a - b - z) for a in range(n + 1) for b in range(n + 1 - a) for z in (0, 1)
                  if n - a - b - z >= 0 and (z or n - a - b - z == 0)]
    else:
        states = [(a, b, 1 if (ba or bb) else z, ba, bb, first)
                  for a in range(n + 1) for b in range(n + 1 - a) for z in (0, 1) if a + b + z == n
                  for ba in (0, 1) for bb in (0, 1) for first in (0, 1)
                  if ba <= (a > 0) and bb <= (b > 0) and (z or not (ba or bb)) and (first == 0 or (ba and bb))]
        states = sorted(set(states))
    index = {state: i for i, state in enumerate(states)}
    rows, cols, rates = [], [], []

    def go(frm, to, rate):
        rows.append(index[frm]); cols.append(index[to]); rates.append(rate)
    for st in states:
        if not blocking:
            a, b, z, out = st
            for i, count in ((0, a), (1, b)):  # a or b finishes a job
                if count:
                    left = [a, b]
                    left[i] -= 1
                    go(st, (*left, 1, out) if not z else (*left, 1, out + 1), 1.0)
            if z:  # z finishes: its customer goes back to a or b; the first outside comes in
                for i in (0, 1):
                    back = [a, b]
                    back[i] += 1
                    go(st, (*back, 1, out - 1) if out else (*back, 0, 0), 1.0)
        else:
            a, b, z, ba, bb, first = st  # first: 1 when a blocked before b (both blocked)
            for i, count, blocked in ((0, a, ba), (1, b, bb)):
                if count and not blocked:
                    if not z:
                        left = [a, b]
                        left[i] -= 1
                        go(st, (*left, 1, 0, 0, 0), 1.0)
                    elif i == 0:
                        go(st, (a, b, 1, 1, bb, 0 if not bb else 0), 1.0)  # b blocked first
                    else:
                        go(st, (a, b, 1, ba, 1, 1 if ba else 0), 1.0)  # a blocked first
            if z:
                for i in (0, 1):
                    back = [a, b]
                    back[i] += 1
                    if ba and bb:
                        moved = 0 if first else 1
                        back[moved] -= 1
                        go(st, (*back, 1, 0 if moved == 0 else 1, 0 if moved == 1 else 1, 0), 1.0)
                    elif ba or bb:
                        back[0 if ba else 1] -= 1
                        go(st, (*back, 1, 0, 0, 0), 1.0)
                    else:
                        go(st, (*back, 0, 0, 0, 0), 1.0)
    # every rate above is per unit mean: a and b finish at 1, z at 2 (split 1 + 1 over a, b)
    pi = stationary(rows, cols, rates, len(states))
    return 2.0 * float(sum(p for p, st in zip(pi, states) if st[2]))


def test_a_dispatch_branch_ends_without_blocking_its_server():
    branch = lambda station: [{"station": station, "service": "exp(1)"}]
    dispatched = {"brewput": 1, "name": "d", "stations": {"a": {}, "b": {}, "z": {"buffer": 0}},
                  "classes": {"c": {"population": 6, "route": [
                      {"dispatch": {"x": branch("a"), "y": branch("b")}, "policy": "random"},
                      {"station": "z", "service": "exp(0.5)"}]}}}
    routed = {"brewput": 1, "name": "n", "stations": {"pick": {"servers": "inf"}, "a": {}, "b": {},
                                                      "z": {"buffer": 0}},
              "classes": {"c": {"population": 6, "route": [
                  {"station": "pick", "service": 0, "next": {"ta": 0.5, "tb": 0.5}},
                  {"id": "ta", "station": "a", "service": "exp(1)", "next": "tz"},
                  {"id": "tb", "station": "b", "service": "exp(1)", "next": "tz"},
                  {"id": "tz", "station": "z", "service": "exp(0.5)"}]}}}
    for model, blocking in ((dispatched, False), (routed, True)):
        truth = dispatch_into_rendezvous(blocking)
        low, high = brewput.simulate(model, customers=300_000, seed=1)["classes"]["c"]["throughput_ci"]
        assert low <= truth <= high, (blocking, truth, low, high)
    assert dispatch_into_rendezvous(False) > 1.1 * dispatch_into_rendezvous(True)
