"""How a dispatch breaks ties (`tie: first | random`), against the Markov chain of two
servers under join the shortest queue built here: (jobs at s0, jobs at s1), an arrival
joining the shorter, a tie going to s0 (`first`) or to either with probability 1/2
(`random`), truncated at 60 jobs a server (the mass beyond is below 1e-12 at 70 % load)."""
import itertools

import pytest
import yaml

import brewput
import markov

RATE, CAP = 1.4, 60  # two exp(1) servers at 70 % load


def utilization_of_the_first(tie: str) -> float:
    """P(s0 busy) in the chain of JSQ over two exp(1) servers with the given tie rule."""
    states = list(itertools.product(range(CAP + 1), repeat=2))
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []

    def move(x, y, rate):
        if y in index and rate > 0:
            rows.append(index[x]), cols.append(index[y]), rates.append(rate)

    for n0, n1 in states:
        to_first = 1.0 if n0 < n1 else 0.0 if n0 > n1 else (1.0 if tie == "first" else 0.5)
        move((n0, n1), (n0 + 1, n1), RATE * to_first)
        move((n0, n1), (n0, n1 + 1), RATE * (1 - to_first))
        move((n0, n1), (n0 - 1, n1), 1.0 if n0 else 0.0)
        move((n0, n1), (n0, n1 - 1), 1.0 if n1 else 0.0)
    pi = markov.stationary(rows, cols, rates, len(states))
    return float(sum(p for (n0, _), p in zip(states, pi) if n0 > 0))


def model(tie: str) -> brewput.Model:
    return brewput.Model.from_dict({
        "brewput": 1, "stations": {"s0": {}, "s1": {}},
        "classes": {"job": {"rate": RATE, "route": [{
            "dispatch": {"a": [{"station": "s0", "service": "exp(1)"}],
                         "b": [{"station": "s1", "service": "exp(1)"}]},
            "policy": "shortest_queue", "tie": tie}]}}})


@pytest.mark.parametrize("tie", ["first", "random"])
def test_each_servers_share_is_the_chains(tie):
    exact = utilization_of_the_first(tie)
    if tie == "random":
        assert exact == pytest.approx(RATE / 2, abs=1e-9)  # symmetric: each does half the work
    else:
        assert exact > RATE / 2 + 0.05  # the first takes every tie
    stations = brewput.simulate(model(tie), customers=200_000, seed=5, replications=10)["stations"]
    low, high = stations["s0"]["utilization_ci"]
    assert low <= exact <= high
    low, high = stations["s1"]["utilization_ci"]
    assert low <= RATE - exact <= high


def test_tie_first_is_the_default():
    # a model without tie: gives the same results, bit for bit, as one with tie: first
    without = model("first").to_yaml().replace("tie: first\n", "")
    assert "tie" not in without
    assert brewput.simulate(brewput.Model.from_dict(yaml.safe_load(without)), customers=5_000, seed=2) == \
        brewput.simulate(model("first"), customers=5_000, seed=2)
