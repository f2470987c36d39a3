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
