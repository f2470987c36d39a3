"""A fork enters all its branches at once: when the station a branch starts at is
full, the job stays on its server (blocking after service, as before any full
station) until every branch has room, so a full branch throttles what feeds it.
Checked against the Markov chain of a small all-exponential case."""
import itertools

import brewput
from conftest import assert_close, widened
from markov import stationary

RATE, FRONT, SLOW, QUICK = 2.0, 10.0, 1.0, 10.0  # arrivals; service rates
FRONT_CAPACITY = 3  # one server and a buffer of 2: arrivals that find it full are lost

MODEL = {
    "brewput": 1,
    "stations": {"front": {"servers": 1, "buffer": FRONT_CAPACITY - 1},
                 "slow": {"servers": 1, "buffer": 0}, "quick": {"servers": "inf"}},
    "classes": {"job": {"rate": RATE, "route": [
        {"station": "front", "service": f"exp({1 / FRONT})"},
        {"fork": {"a": [{"station": "slow", "service": f"exp({1 / SLOW})"}],
                  "b": [{"station": "quick", "service": f"exp({1 / QUICK})"}]}},
    ]}},
}


def chain():
    """Throughput and the fraction of arrivals lost. State: (jobs at the front,
    waiting, in service or blocked; whether the slow branch's server is busy;
    whether the front's job has finished and waits for it). The quick branch has
    infinitely many servers and never blocks, so it drops out."""
    states = [(n, busy, blocked) for n, busy, blocked in itertools.product(range(FRONT_CAPACITY + 1), (0, 1), (0, 1))
              if not (blocked and (n == 0 or not busy))]
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []

    def move(a, b, rate):
        rows.append(index[a]), cols.append(index[b]), rates.append(rate)

    for n, busy, blocked in states:
        if n < FRONT_CAPACITY:
            move((n, busy, blocked), (n + 1, busy, blocked), RATE)
        if n and not blocked:  # the front's job finishes: into the fork, or blocked
            move((n, busy, blocked), (n - 1, 1, 0) if not busy else (n, 1, 1), FRONT)
        if busy:  # the slow branch ends: the blocked job (if any) takes its place
            move((n, busy, blocked), (n - 1, 1, 0) if blocked else (n, 0, 0), SLOW)
    pi = stationary(rows, cols, rates, len(states))
    busy = sum(p for (n, b, _), p in zip(states, pi) if b)
    full = sum(p for (n, _, _), p in zip(states, pi) if n == FRONT_CAPACITY)
    return SLOW * busy, full


def test_a_full_branch_blocks_the_fork_and_what_feeds_it():
    throughput, lost = chain()
    res = brewput.simulate(brewput.Model.from_dict(MODEL), seed=5, replications=10, customers=100_000)
    value, tol = widened(res, ("classes", "job", "throughput"))
    assert_close(value, throughput, tol, what="throughput")
    value, tol = widened(res, ("classes", "job", "loss_probability"))
    assert_close(value, lost, tol, what="loss probability")
    # the slow station never holds more than the one it serves: nobody waits outside it
    assert res["stations"]["slow"]["queue_length"] <= 1.0
