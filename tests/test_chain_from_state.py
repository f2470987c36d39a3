"""solve from a given state (analytic/chain/from_state.py): the model's chain started with
jobs placed at its stations, followed over [0, T], against truths computed here: closed
forms of a pure death process (no arrivals: a rate of 1e-12, as a model needs one), and
birth-death and tandem chains built by hand with numpy and scipy.linalg.expm."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg as la
from scipy import stats

import brewput
from brewput.errors import BrewputError

#: A rate that adds nothing a double can see over these spans: a pure death process.
NO_ARRIVALS = 1e-12


def queue(rate, servers, mean, buffer=None):
    desk = {"servers": servers, **({} if buffer is None else {"buffer": buffer})}
    return {"brewput": 1, "name": "q", "time_unit": "min", "stations": {"desk": desk},
            "classes": {"call": {"rate": rate, "route": [{"station": "desk", "service": f"exp({mean})"}]}}}


def birth_death(rate, servers, mu, most):
    """The generator of an M/M/c queue holding at most `most` jobs."""
    q = np.zeros((most + 1, most + 1))
    for k in range(most + 1):
        if k < most:
            q[k, k + 1] = rate
        if k > 0:
            q[k, k - 1] = min(k, servers) * mu
        q[k, k] = -q[k].sum()
    return q


def hand_curves(q, start, times):
    """p(t) at evenly spaced times, a step of exp(Q dt) at a time."""
    p = np.zeros(len(q))
    p[start] = 1.0
    step = la.expm(q * (times[1] - times[0]))
    out = [p]
    for _ in times[1:]:
        out.append(out[-1] @ step)
    return np.array(out)


def hand_clearing(q, start, empty):
    """The mean time to reach `empty` from `start`: (-Q_TT) m = 1 over the other states."""
    rest = [s for s in range(len(q)) if s not in empty]
    m = np.linalg.solve(-q[np.ix_(rest, rest)], np.ones(len(rest)))
    return m[rest.index(start)]


def curve(res, *keys):
    out = []
    for point in res["from"]["points"]:
        value = point
        for key in keys:
            value = value[key]
        out.append(value)
    return np.array(out)


def test_mm1_with_no_arrivals_is_a_pure_death_process():
    n, mu = 12, 1.0
    res = brewput.solve(queue(NO_ARRIVALS, 1, 1 / mu), from_state={"desk": n}, over=30, bins=1.5)
    times = curve(res, "time")
    assert times == pytest.approx(np.arange(21) * 1.5, abs=1e-12)
    # N(t) = max(n - K, 0), K ~ Poisson(mu t) completions while someone is there.
    k = np.arange(n + 1)
    expected = np.array([((n - k) * stats.poisson.pmf(k, mu * t)).sum() for t in times])
    assert curve(res, "number") == pytest.approx(expected, rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "desk", "queue_length") == pytest.approx(expected, rel=1e-9, abs=1e-10)
    empty = np.array([stats.poisson.sf(n - 1, mu * t) for t in times])  # n completions by t
    assert curve(res, "empty") == pytest.approx(empty, rel=1e-9, abs=1e-10)
    assert curve(res, "throughput") == pytest.approx(mu * (1 - empty), rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "desk", "utilization") == pytest.approx(1 - empty, rel=1e-9, abs=1e-10)
    assert curve(res, "completions") == pytest.approx(n - expected, rel=1e-9, abs=1e-9)
    clears = res["from"]["clears"]
    assert clears["mean"] == pytest.approx(n / mu, rel=1e-9)  # Erlang(n, mu)
    for q in (50, 90, 99):
        assert clears[f"p{q}"] == pytest.approx(stats.gamma.ppf(q / 100, n, scale=1 / mu), rel=1e-8)
    assert clears["waiting"]["mean"] == pytest.approx((n - 1) / mu, rel=1e-9)  # until one is left, in service
    assert clears["waiting"]["p90"] == pytest.approx(stats.gamma.ppf(0.9, n - 1, scale=1 / mu), rel=1e-8)
    assert res["from"]["state"] == {"desk": n} and res["from"]["over"] == 30


def test_mmc_with_no_arrivals_clears_in_the_sum_of_its_death_times():
    n, c, mu = 10, 3, 0.5
    res = brewput.solve(queue(NO_ARRIVALS, c, 1 / mu), from_state={"desk": n}, over=20)
    assert len(res["from"]["points"]) == 21  # 20 steps by default
    assert res["from"]["clears"]["mean"] == pytest.approx(sum(1 / (min(k, c) * mu) for k in range(1, n + 1)),
                                                          rel=1e-9)
    times = curve(res, "time")
    p = hand_curves(birth_death(0.0, c, mu, n), n, times)
    k = np.arange(n + 1)
    assert curve(res, "number") == pytest.approx(p @ k, rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "desk", "busy_servers") == pytest.approx(p @ np.minimum(k, c), rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "desk", "waiting") == pytest.approx(p @ np.maximum(k - c, 0), rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "desk", "utilization") == pytest.approx(p @ np.minimum(k, c) / c, rel=1e-9,
                                                                          abs=1e-10)


@pytest.mark.parametrize("servers", [1, 3])
def test_mmc_with_arrivals_is_the_birth_death_chain(servers):
    rate, mu, n, most = 0.8 * servers, 1.0, 15, 150
    res = brewput.solve(queue(rate, servers, 1 / mu), from_state={"desk": n}, over=40, bins=2)
    q = birth_death(rate, servers, mu, most)
    times = curve(res, "time")
    p = hand_curves(q, n, times)
    k = np.arange(most + 1)
    assert curve(res, "number") == pytest.approx(p @ k, rel=1e-9, abs=1e-10)
    assert curve(res, "empty") == pytest.approx(p[:, 0], rel=1e-9, abs=1e-12)
    assert curve(res, "throughput") == pytest.approx(p @ (np.minimum(k, servers) * mu), rel=1e-9, abs=1e-10)
    clears = hand_clearing(q, n, {0})
    assert res["from"]["clears"]["mean"] == pytest.approx(clears, rel=1e-9)
    if servers == 1:
        assert clears == pytest.approx(n / (mu - rate), rel=1e-9)  # n busy periods' worth of 1 / (mu - rate)
    # No one waits any more: the first time at most `servers` jobs are there.
    waiting = hand_clearing(q, n, set(range(servers + 1)))
    assert res["from"]["clears"]["waiting"]["mean"] == pytest.approx(waiting, rel=1e-9)
    assert waiting == pytest.approx((n - servers) / (servers * mu - rate), rel=1e-9)


def test_a_finite_buffer_is_followed_and_refuses_more_than_it_holds():
    rate, mu = 2.0, 1.0
    res = brewput.solve(queue(rate, 2, 1 / mu, buffer=3), from_state={"desk": 5}, over=10, bins=0.5)
    q = birth_death(rate, 2, mu, 5)
    p = hand_curves(q, 5, curve(res, "time"))
    assert curve(res, "number") == pytest.approx(p @ np.arange(6), rel=1e-9, abs=1e-10)
    assert res["from"]["clears"]["mean"] == pytest.approx(hand_clearing(q, 5, {0}), rel=1e-9)
    with pytest.raises(BrewputError, match=r"^from_state desk=6: station 'desk' holds at most 5 jobs"):
        brewput.solve(queue(rate, 2, 1 / mu, buffer=3), from_state={"desk": 6}, over=10)


TANDEM = {"brewput": 1, "name": "tandem", "time_unit": "s",
          "stations": {"a": {"servers": 1}, "b": {"servers": 1}},
          "classes": {"job": {"rate": 0.5, "route": [{"station": "a", "service": "exp(1)"},
                                                    {"station": "b", "service": "exp(1.25)"}]}}}


def tandem_generator(rate, mu_a, mu_b, most):
    states = [(i, j) for i in range(most + 1) for j in range(most + 1 - i)]
    index = {s: k for k, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for (i, j), k in index.items():
        if i + j < most:
            q[k, index[i + 1, j]] += rate
        if i:
            q[k, index[i - 1, j + 1]] += mu_a
        if j:
            q[k, index[i, j - 1]] += mu_b
        q[k, k] = -q[k].sum()
    return states, index, q


def test_a_tandem_is_its_chain_built_by_hand():
    states, index, q = tandem_generator(0.5, 1.0, 0.8, 60)
    res = brewput.solve(TANDEM, from_state={"a": 4, "b": 3}, over=30, bins=3)
    p = hand_curves(q, index[4, 3], curve(res, "time"))
    a = np.array([i for i, _ in states])
    b = np.array([j for _, j in states])
    assert curve(res, "stations", "a", "queue_length") == pytest.approx(p @ a, rel=1e-9, abs=1e-10)
    assert curve(res, "stations", "b", "queue_length") == pytest.approx(p @ b, rel=1e-9, abs=1e-10)
    assert curve(res, "throughput") == pytest.approx(p @ (0.8 * (b > 0)), rel=1e-9, abs=1e-10)
    assert curve(res, "empty") == pytest.approx(p[:, index[0, 0]], rel=1e-9, abs=1e-12)
    assert res["from"]["clears"]["mean"] == pytest.approx(hand_clearing(q, index[4, 3], {index[0, 0]}), rel=1e-9)


def test_a_long_span_ends_in_the_steady_state():
    res = brewput.solve(TANDEM, from_state={"a": 10}, over=1000)
    last = res["from"]["points"][-1]
    for name in ("a", "b"):
        assert last["stations"][name]["queue_length"] == pytest.approx(res["stations"][name]["queue_length"],
                                                                       rel=1e-7)
        assert last["stations"][name]["utilization"] == pytest.approx(res["stations"][name]["utilization"], rel=1e-7)
    assert last["throughput"] == pytest.approx(res["classes"]["job"]["throughput"], rel=1e-7)
    assert last["empty"] == pytest.approx((1 - 0.5) * (1 - 0.625), rel=1e-7)  # Jackson: product of (1 - rho)


def test_numpy_counts_are_whole_numbers_too():
    res = brewput.solve(TANDEM, from_state={"a": np.int64(2), "b": np.float64(1.0)}, over=np.int64(1))
    assert res["from"]["state"] == {"a": 2, "b": 1} and res["from"]["points"][0]["number"] == 3


def test_no_jobs_placed_is_the_empty_start():
    res = brewput.solve(TANDEM, from_state={"a": 0}, over="1min")
    assert res["from"]["over"] == 60 and res["from"]["points"][0]["number"] == 0
    none = {"mean": 0.0, "p50": 0.0, "p90": 0.0, "p99": 0.0}
    assert res["from"]["clears"] == {**none, "waiting": none}


@pytest.mark.parametrize("kwargs, message", [
    (dict(from_state={"nope": 3}, over=10), r"^from_state nope=3: unknown station 'nope' \(stations: desk\)$"),
    (dict(from_state={"desk": -1}, over=10), r"^from_state desk=-1: expected jobs of at least 0 at 'desk', got -1$"),
    (dict(from_state={"desk": 1.5}, over=10), r"^from_state desk=1.5: expected a whole number of jobs at 'desk'"),
    (dict(from_state={"desk": True}, over=10), r"expected a whole number of jobs at 'desk', got True"),
    (dict(from_state={}, over=10), r"^from_state {}: expected jobs per station"),
    (dict(from_state={"desk": 3}), r"^over: how long to follow the model"),
    (dict(over=10), r"^from_state: needed with over"),
    (dict(bins=1), r"^bins 1: is for a model followed from a given state \(from_state and over\)$"),
    (dict(from_state={"desk": 3}, over=0), r"^over 0: expected a positive time"),
    (dict(from_state={"desk": 3}, over=-5), r"^over -5: expected a positive time"),
    (dict(from_state={"desk": 3}, over="soon"), r"^over soon: expected a positive time"),
    (dict(from_state={"desk": 3}, over=10, bins=3), r"^bins 3: the span followed \(10 min\) must be a whole number"),
    (dict(from_state={"desk": 3}, over=10, method="mva"), r"^method mva: the model is followed from a given state"),
])
def test_bad_input_is_one_clear_line(kwargs, message):
    with pytest.raises(BrewputError, match=message):
        brewput.solve(queue(0.5, 1, 1.0), **kwargs)


@pytest.mark.parametrize("rate", [NO_ARRIVALS, 0.5])
def test_a_constant_service_is_fitted_and_marked_and_its_busy_period_is_exact(rate):
    """M/D/1 from n jobs: the time until it is first empty is n busy periods, each of mean
    D / (1 - rho) whatever the service law, so the Erlang-k fit keeps it exactly."""
    n, d = 5, 1.0
    constant = queue(rate, 1, d)
    constant["classes"]["call"]["route"][0]["service"] = d
    res = brewput.solve(constant, from_state={"desk": n}, over=10)
    assert res["from"]["exact"] is False and res["from"]["method"] == "ctmc"
    assert res["from"]["clears"]["mean"] == pytest.approx(n * d / (1 - rate * d), rel=1e-9)
    notes = [note for note in res["notes"] if note.startswith("--from:")]
    assert "--from: approximate, times replaced by phase-type laws: const(1) as Erlang-64" in notes[0]
    assert notes[1].startswith("--from: from Erlang-32 to Erlang-64: first empty ")  # its mean stays
    if rate == NO_ARRIVALS:  # n - floor(t / d) jobs, in the middle of each service nearly so at Erlang-64
        middle = [p for p in res["from"]["points"] if p["time"] % 1 == 0.5]
        assert [p["number"] for p in middle] == pytest.approx([5, 4, 3, 2, 1, 0, 0, 0, 0, 0], abs=0.05)


def test_an_erlang_service_is_exact():
    res = brewput.solve({**queue(0.5, 1, 1.0), "classes": {"call": {"rate": 0.5, "route": [
        {"station": "desk", "service": "erlang(3, 1)"}]}}}, from_state={"desk": 4}, over=10)
    assert res["from"]["exact"] is True and res["from"]["clears"]["mean"] == pytest.approx(4 / 0.5, rel=1e-9)


def test_models_the_chain_cannot_follow_are_refused():
    with pytest.raises(BrewputError, match=r"^from_state desk=4: 4 jobs of class 'machine' placed, more than its "
                                           r"population of 3$"):
        brewput.solve(repairman(3, 5.0, 1.0), from_state={"desk": 4}, over=10)
    patience = queue(0.5, 1, 1.0)
    patience["classes"]["call"]["route"][0]["patience"] = "uniform(1, 5)"
    with pytest.raises(BrewputError, match=r"patience: a patience other than exponential \(uniform\) is not in the "
                                           r"state-space engine"):
        brewput.solve(patience, from_state={"desk": 2}, over=10)
    # the steady state's, first; found by the walk (a truncation's bound counts far beyond what it reaches)
    with pytest.raises(BrewputError, match=r"^tandem: its Markov chain has more than 20 states \(found while building "
                                           r"it\), beyond --max-states 20 "):
        brewput.solve(TANDEM, from_state={"a": 3}, over=10, max_states=20)
    with pytest.raises(BrewputError, match=r"^q: its Markov chain has more than 100 states \(found while building "
                                           r"it\), beyond --max-states 100 \(large by the open arrivals "
                                           r"\(truncated at 128 jobs\)\)"):
        brewput.solve(queue(0.1, 1, 1.0), from_state={"desk": 60}, over=10, max_states=100)
    with pytest.raises(BrewputError, match=r"^from_state: from 3,000 jobs its Markov chain has more than 3,000 "
                                           r"states, beyond max_states 1,000; "):
        brewput.solve(queue(0.1, 1, 1.0), from_state={"desk": 3000}, over=10, max_states=1000)  # at once
    with pytest.raises(BrewputError, match=r"^from_state: from 99,999,999,999 jobs: the state-space engine follows at most "
                                           r"4,000 \(its memory grows as their square\); use brewput simulate"):
        brewput.solve(queue(0.1, 1, 1.0), from_state={"desk": 99_999_999_999}, over=10)  # at once


def test_infinite_servers_with_no_arrivals_clear_in_the_harmonic_sum():
    n, mu = 8, 0.25
    res = brewput.solve(queue(NO_ARRIVALS, "inf", 1 / mu), from_state={"desk": n}, over=12, bins=1)
    times = curve(res, "time")
    assert curve(res, "number") == pytest.approx(n * np.exp(-mu * times), rel=1e-9)  # each gone at rate mu
    assert curve(res, "empty") == pytest.approx((1 - np.exp(-mu * times)) ** n, rel=1e-9, abs=1e-15)
    assert all(u is None for u in curve(res, "stations", "desk", "utilization"))  # as the steady state's
    assert res["from"]["clears"]["mean"] == pytest.approx(sum(1 / (k * mu) for k in range(1, n + 1)), rel=1e-9)
    assert res["from"]["clears"]["waiting"]["mean"] == 0.0  # nobody waits at a delay


def repairman(machines, up, repair):
    return {"brewput": 1, "name": "r", "stations": {"desk": {"servers": 1}},
            "classes": {"machine": {"population": machines, "think": f"exp({up})",
                                    "route": [{"station": "desk", "service": f"exp({repair})"}]}}}


def test_a_closed_class_is_placed_out_of_its_population():
    """The machine-repair model: N machines, each up for exp(Z), one repairer. From all
    broken, against its birth-death chain built by hand; the others begin their cycle."""
    machines, up, repair = 4, 5.0, 1.0
    q = np.zeros((machines + 1, machines + 1))
    for n in range(machines + 1):
        if n < machines:
            q[n, n + 1] = (machines - n) / up
        if n:
            q[n, n - 1] = 1 / repair
        q[n, n] = -q[n].sum()
    for placed in (machines, 2):
        res = brewput.solve(repairman(machines, up, repair), from_state={"desk": placed}, over=20, bins=2)
        p = hand_curves(q, placed, curve(res, "time"))
        assert curve(res, "number") == pytest.approx(p @ np.arange(machines + 1), rel=1e-9, abs=1e-12)
        assert curve(res, "empty") == pytest.approx(p[:, 0], rel=1e-9, abs=1e-12)
        assert res["from"]["clears"]["mean"] == pytest.approx(hand_clearing(q, placed, {0}), rel=1e-9)
        assert res["from"]["clears"]["waiting"]["mean"] == pytest.approx(hand_clearing(q, placed, {0, 1}), rel=1e-9)
    # none placed: every machine begins its cycle, up, as the simulator starts them
    assert brewput.solve(repairman(machines, up, repair), from_state={"desk": 0}, over=5)["from"]["points"][0][
        "number"] == 0


def test_a_system_that_is_never_empty_says_so():
    """Two closed customers with no think time between two one-server stations: the system
    is never empty (null), and no one waits once they are one at each."""
    ring = {"brewput": 1, "name": "ring", "stations": {"a": {"servers": 1}, "b": {"servers": 1}},
            "classes": {"job": {"population": 2, "route": [{"station": "a", "service": "exp(1)"},
                                                          {"station": "b", "service": "exp(0.5)"}]}}}
    res = brewput.solve(ring, from_state={"a": 2}, over=5)
    assert res["from"]["clears"]["mean"] is None and res["from"]["clears"]["p90"] is None
    assert res["from"]["clears"]["waiting"]["mean"] == pytest.approx(1.0, rel=1e-9)  # a's first service
    assert all(point["empty"] == 0 for point in res["from"]["points"])


def test_an_overloaded_model_is_followed_over_the_span_with_no_steady_state():
    """More arrive than are served: no steady state (solve alone refuses it), but the next
    hours from a backlog are the birth-death chain's, built by hand large enough."""
    rate, mu, n = 1.25, 1.0, 5
    with pytest.raises(BrewputError, match="unstable; no steady state exists"):
        brewput.solve(queue(rate, 1, 1 / mu), method="ctmc")
    res = brewput.solve(queue(rate, 1, 1 / mu), from_state={"desk": n}, over=20)
    assert res["classes"] == {} and res["stations"] == {}
    assert res["notes"][0].startswith("station desk: utilization 1.25 >= 1, the open model is unstable; no steady "
                                      "state exists: its figures are those from the given state over the span")
    p = hand_curves(birth_death(rate, 1, mu, 200), n, curve(res, "time"))
    assert curve(res, "number") == pytest.approx(p @ np.arange(201), rel=1e-9, abs=1e-10)
    assert curve(res, "empty") == pytest.approx(p[:, 0], rel=1e-9, abs=1e-12)
    none = {"mean": None, "p50": None, "p90": None, "p99": None}
    assert res["from"]["clears"] == {**none, "waiting": none}  # it may never empty


def test_a_span_too_long_for_the_chain_is_refused_before_the_steady_state_is_solved(monkeypatch):
    from brewput.engine import solve as engine

    def steady_state_solved(*args, **kwargs):
        raise AssertionError("the steady state was solved before the span was refused")

    monkeypatch.setattr(engine, "_solve_chain", steady_state_solved)
    with pytest.raises(BrewputError, match=r"the chain's fastest events come about .* times over the span"):
        brewput.solve(queue(0.5, 1, 1.0, buffer=2), from_state={"desk": 2}, over=1e9)
