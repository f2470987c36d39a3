"""The chain's walk (crates/chain, through analytic/chain/generate.py) against chains
built here by hand with numpy: an M/M/1/K, an open tandem truncated at a number of
jobs (a lattice in three dimensions), a closed cycle with a think time; the states in
the order the simulator's moves find them; the counts per state read from the states
themselves; the starts of placed jobs drawing their first phase; and its refusals
(too many states, no room) as brewput's errors, never a panic."""
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from brewput.analytic.chain.floor import floor_of
from brewput.analytic.chain.generate import OUTSIDE, NoRoom, TooManyStates, generate, generate_placed
from brewput.errors import BrewputError
from brewput.model import as_model


def floor(model: dict, **changes):
    return replace(floor_of(as_model(model).compile(), "test", constant_phases=1), **changes)


def one_station(lam, mu, servers=1, buffer=None, service=None):
    station = {"servers": servers} if buffer is None else {"servers": servers, "buffer": buffer}
    return {"brewput": 1, "name": "m", "stations": {"s": station},
            "classes": {"c": {"rate": lam, "route": [{"station": "s", "service": service or f"exp({1 / mu})"}]}}}


def permuted(q: sp.csr_matrix, order) -> np.ndarray:
    """The dense generator with its states in `order` (order[i]: the hand-built index of walked state i)."""
    dense = np.zeros(q.shape)
    dense[np.ix_(order, order)] = q.toarray()
    return dense


def test_an_mm1k_is_the_birth_death_chain_in_the_order_found():
    lam, mu, k = 0.7, 1.3, 4
    chain = generate(floor(one_station(lam, mu, buffer=k - 1)), 100)
    truth = np.diag([lam] * k, 1) + np.diag([mu] * k, -1)
    truth -= np.diag(truth.sum(axis=1))
    assert np.array_equal(chain.generator.toarray(), truth)
    # the walk finds 0, 1, ... k jobs in turn: the first in service, the rest waiting
    assert chain.states[0] == (((),), (), ((),), ((),))
    assert chain.states[2] == (((),), ((0, 0, 0),), (((0, 0, 0),),), ((),))
    assert np.array_equal(chain.completions[:, 0], [0] + [mu] * k)
    assert np.array_equal(chain.losses[:, 0], [0] * k + [lam])
    assert not chain.truncated.any()


def test_an_open_tandem_truncated_at_jobs_is_its_lattice_built_by_hand():
    jobs, arrival, service = 6, 1.0, np.array([2.0, 1.25, 1.0 / 0.6])
    model = {"brewput": 1, "name": "tandem", "stations": {"a": {"servers": 1}, "b": {"servers": 1}, "c": {"servers": 1}},
             "classes": {"job": {"rate": arrival, "route": [{"station": m, "service": f"exp({1 / s})"}
                                                            for m, s in zip("abc", service)]}}}
    chain = generate(floor(model, open_limit=jobs), 10_000)
    lattice = [(a, b, c) for a in range(jobs + 1) for b in range(jobs + 1 - a) for c in range(jobs + 1 - a - b)]
    index = {s: i for i, s in enumerate(lattice)}
    truth = np.zeros((len(lattice),) * 2)
    for (a, b, c), i in index.items():
        if a + b + c < jobs:
            truth[i, index[a + 1, b, c]] += arrival
        for m, step in enumerate([(-1, 1, 0), (0, -1, 1), (0, 0, -1)]):
            if (a, b, c)[m]:
                truth[i, index[tuple(np.add((a, b, c), step))]] += service[m]
    truth -= np.diag(truth.sum(axis=1))
    present = chain.by_station(chain.waiting) + chain.by_station(chain.busy)
    order = [index[tuple(int(n) for n in row)] for row in present]
    assert len(set(order)) == len(lattice) == len(chain.states)
    assert np.allclose(permuted(chain.generator, order), truth, rtol=1e-15, atol=0)
    full = np.array([sum(s) == jobs for s in lattice])[order]
    assert np.array_equal(chain.truncated[:, 0], np.where(full, arrival, 0.0))


def test_a_closed_cycle_with_a_think_time_is_its_chain_built_by_hand():
    # n customers think (infinite server, rate theta each), then queue at one server (mu)
    n, theta, mu = 5, 0.4, 1.5
    model = {"brewput": 1, "name": "repair", "stations": {"s": {"servers": 1}},
             "classes": {"c": {"population": n, "think": f"exp({1 / theta})",
                               "route": [{"station": "s", "service": f"exp({1 / mu})"}]}}}
    chain = generate(floor(model), 100)
    at_server = [sum(len(e) for e in chain.states[i][2]) + len(chain.states[i][1]) for i in range(len(chain.states))]
    assert at_server == list(range(n + 1))  # every customer thinks first, then one more at a time
    truth = np.diag([theta * (n - k) for k in range(n)], 1) + np.diag([mu] * n, -1)
    truth -= np.diag(truth.sum(axis=1))
    assert np.allclose(chain.generator.toarray(), truth, rtol=1e-15, atol=0)
    assert np.array_equal(chain.completions[:, 0], [0] + [mu] * n)


def test_the_counts_per_state_are_those_its_jobs_say():
    """Blocking, tokens, priorities, two classes: every count row read from the state's tuples."""
    model = {"brewput": 1, "name": "floor", "resources": {"till": 1},
             "stations": {"a": {"servers": 2, "buffer": 1}, "b": {"servers": 1, "buffer": 0, "discipline": "priority"}},
             "classes": {"walk_in": {"rate": 0.8, "priority": 1,
                                     "route": [{"station": "a", "service": "exp(1)", "uses": ["till"]},
                                               {"station": "b", "service": "exp(0.7)"}]},
                         "staff": {"population": 2, "think": "erlang(2, 3)", "priority": 2,
                                   "route": [{"station": "b", "service": "exp(0.5)"},
                                             {"station": "a", "service": "hyperexp(1, 2)"}]}}}
    f = floor(model)
    chain = generate(f, 10_000)
    n, classes, stations = len(chain.states), len(f.classes), len(f.stations)
    assert n > 50
    waiting, busy, blocked = (np.zeros((n, classes, stations)) for _ in range(3))
    outside, in_use = np.zeros((n, classes)), np.zeros((n, len(f.tokens)))
    for s in range(n):
        thinking, queue, serving, lines = chain.states[s]
        for m, c, _ in queue:
            waiting[s, c, m] += 1
        for m, entries in enumerate(serving):
            for c, step, _ in entries:
                busy[s, c, m] += 1
                for r in f.classes[c].steps[step].uses:
                    in_use[s, r] += 1
        for line in lines:
            for source, c, _ in line:
                if source == OUTSIDE:
                    outside[s, c] += 1
                else:
                    blocked[s, c, source] += 1
    assert blocked.any() and in_use.any() and waiting.any()
    for mine, truth in [(chain.waiting, waiting), (chain.busy, busy), (chain.blocked, blocked)]:
        assert np.array_equal(mine.toarray(), truth.reshape(n, -1))
    assert np.array_equal(chain.outside.toarray(), outside)
    assert np.array_equal(chain.in_use.toarray(), in_use)
    assert np.allclose(np.asarray(chain.generator.sum(axis=1)).ravel(), 0.0, atol=1e-12)
    assert len(set(chain.states[s] for s in range(n))) == n  # each state once


def test_placed_jobs_start_in_each_first_phase_with_its_probability():
    # two jobs placed at two servers of hyperexponential service: each draws phase 0 with p
    f = floor(one_station(0.5, None, servers=2, service="hyperexp(1, 2)"), open_limit=8)
    p, q = f.classes[0].steps[0].service.start
    chain = generate_placed(f, [(0, 0, 2)], 10_000)
    starts = [chain.states[i] for i in range(len(chain.start))]
    assert starts == [(((),), (), (((0, 0, 0), (0, 0, 0)),), ((),)), (((),), (), (((0, 0, 0), (0, 0, 1)),), ((),)),
                      (((),), (), (((0, 0, 1), (0, 0, 1)),), ((),))]
    assert chain.start == pytest.approx([p * p, 2 * p * q, q * q], rel=1e-15)


def test_too_many_states_and_no_room_are_brewputs_errors_naming_the_limit_and_station():
    big = floor(one_station(0.5, 1.0), open_limit=100_000)
    with pytest.raises(TooManyStates, match=r"^more than 1,000 states$") as refused:
        generate(big, 1_000)
    assert isinstance(refused.value, BrewputError)
    small = floor(one_station(0.5, 1.0, servers=2, buffer=1))
    with pytest.raises(NoRoom) as room:
        generate_placed(small, [(0, 0, 4)], 1_000)
    assert room.value.args == (0,)


def test_a_state_out_of_range_is_an_index_error():
    chain = generate(floor(one_station(0.5, 1.0, buffer=1)), 10)
    assert len(chain.states) == 3
    with pytest.raises(IndexError):
        chain.states[3]
