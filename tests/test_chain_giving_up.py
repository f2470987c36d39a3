"""Customers who give up in the state-space engine (`solve --method ctmc`): balking
and exponential patience against the one-station formulas (analytic/abandonment.py,
giving_up.py: Erlang A, M/M/c/K, balking chances, the finite source) to 1e-9, chains
written by hand here where no formula answers, and the simulator's 99 % intervals
where the times of those who complete are not Little's law on all present (their means,
the laws of those who complete, the stations' figures of the visits they serve)."""
import subprocess
import sys

import numpy as np
import pytest

import brewput
from brewput.analytic.abandonment import impatient
from brewput.compare import compare_results
from markov import stationary


def model(stations, classes, name="m"):
    return {"brewput": 1, "name": name, "stations": stations, "classes": classes}


def close(a, b, rel):
    return a == pytest.approx(b, rel=rel, abs=rel * 1e-3)


def one_station(servers, step, rate=2.5, buffer=None, population=None):
    station = {"servers": servers} if buffer is None else {"servers": servers, "buffer": buffer}
    source = {"rate": rate} if population is None else {"population": population, "think": "exp(2)"}
    return model({"s": station}, {"c": {**source, "route": [{"station": "s", "service": "exp(1)", **step}]}})


FORMULAS = {
    "erlang-a": one_station(2, {"patience": "exp(3)"}),
    "mmck": one_station(2, {"balk": 3}),
    "birth-death": one_station(2, {"balk": [0.1, 0.3, 0.6], "patience": "exp(4)"}),
    "balking chances": one_station(1, {"balk": [0, 0.2, 0.5]}, rate=0.8),
    # more work offered than the servers do, but those who join beyond a queue bring less
    "balking chances, overloaded": one_station(2, {"balk": [0, 0.5]}, rate=3.0),
    "finite-source": one_station(1, {"patience": "exp(3)", "balk": [0, 0.5]}, population=5),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_one_station_is_the_formulas_to_1e9(name):
    m = FORMULAS[name]
    chain, formula = brewput.solve(m, method="ctmc"), brewput.solve(m)
    assert formula["method"] != "ctmc" and chain["method"] == "ctmc"
    c, f = chain["classes"]["c"], formula["classes"]["c"]
    assert c["exact"]
    for figure in ("throughput", "loss_probability"):
        assert close(c[figure], f[figure], 1e-9), figure
    for reason in ("full", "balked", "reneged"):
        assert close(c["loss_probability_by"][reason], f["loss_probability_by"][reason], 1e-9), reason
    for times in ("response_time", "waiting_time"):
        assert close(c[times]["mean"], f[times]["mean"], 1e-9), times
    for figure in ("queue_length", "utilization"):
        assert close(chain["stations"]["s"][figure], formula["stations"]["s"][figure], 1e-9), figure


def test_erlang_a_is_impatient_by_its_own_numbers():
    res = brewput.solve(FORMULAS["erlang-a"], method="ctmc")["classes"]["c"]
    truth = impatient(2.5, 1.0, 2, patience=3.0)
    assert close(res["throughput"], truth.throughput, 1e-9)
    assert close(res["loss_probability_by"]["reneged"], truth.abandoned, 1e-9)
    assert close(res["response_time"]["mean"], truth.mean_response, 1e-9)
    assert close(res["waiting_time"]["mean"], truth.mean_wait_served, 1e-9)


def priority_by_hand(lam, mu, theta, capacity):
    """Two open classes at one server (non-preemptive priority, class 0 first), at most
    `capacity` present, each waiting job leaving at its class's theta: states (class in
    service or None, waiting of class 0, waiting of class 1)."""
    states = [(s, a, b) for s in (None, 0, 1) for a in range(capacity) for b in range(capacity)
              if (s is None and a == b == 0) or (s is not None and 1 + a + b <= capacity)]
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []

    def move(s, t, rate):
        rows.append(index[s]), cols.append(index[t]), rates.append(rate)

    for s, a, b in states:
        present = (s is not None) + a + b
        for k in (0, 1):
            if present < capacity:
                move((s, a, b), (k, 0, 0) if s is None else (s, a + (k == 0), b + (k == 1)), lam[k])
        if s is not None:
            move((s, a, b), (0, a - 1, b) if a else (1, a, b - 1) if b else (None, 0, 0), mu[s])
        if a:
            move((s, a, b), (s, a - 1, b), a * theta[0])
        if b:
            move((s, a, b), (s, a, b - 1), b * theta[1])
    pi = dict(zip(states, stationary(rows, cols, rates, len(states))))
    full = sum(p for (s, a, b), p in pi.items() if (s is not None) + a + b == capacity)
    return {
        "throughput": [sum(p * mu[k] for (s, _, _), p in pi.items() if s == k) for k in (0, 1)],
        "full": [full, full],
        "reneged": [sum(p * a * theta[0] for (_, a, _), p in pi.items()) / lam[0],
                    sum(p * b * theta[1] for (_, _, b), p in pi.items()) / lam[1]],
        "waiting": sum(p * (a + b) for (_, a, b), p in pi.items()),
        "present": sum(p * ((s is not None) + a + b) for (s, a, b), p in pi.items()),
    }


def test_two_classes_by_priority_with_their_own_patience_are_the_chain_by_hand():
    m = model({"s": {"servers": 1, "buffer": 4, "discipline": "priority"}}, {
        "hi": {"rate": 0.7, "priority": 1, "route": [{"station": "s", "service": "exp(0.8)", "patience": "exp(2)"}]},
        "lo": {"rate": 0.9, "route": [{"station": "s", "service": "exp(0.5)", "patience": "exp(5)"}]}})
    res = brewput.solve(m, method="ctmc")
    truth = priority_by_hand((0.7, 0.9), (1 / 0.8, 1 / 0.5), (1 / 2, 1 / 5), 5)
    for k, name in enumerate(("hi", "lo")):
        figures = res["classes"][name]
        assert close(figures["throughput"], truth["throughput"][k], 1e-9)
        assert close(figures["loss_probability_by"]["full"], truth["full"][k], 1e-9)
        assert close(figures["loss_probability_by"]["reneged"], truth["reneged"][k], 1e-9)
        assert figures["loss_probability_by"]["balked"] == 0.0
    assert close(res["stations"]["s"]["waiting"], truth["waiting"], 1e-9)
    assert close(res["stations"]["s"]["queue_length"], truth["present"], 1e-9)


def closed_reneging_by_hand(population, think, mu, theta):
    """`population` customers thinking exp(think), one server of rate mu, each waiting job
    leaving at theta and thinking again: states (jobs present). The wait of those served:
    an arrival (seeing n present with weight pi_n (population - n), the arrival theorem)
    at place i in line moves up at mu + (i - 1) theta, gives up at theta, and spends
    1 / (mu + i theta) there whatever ends it (FCFS: those behind never pass it)."""
    states = list(range(population + 1))
    rows, cols, rates = [], [], []
    for n in states:
        if n < population:
            rows.append(n), cols.append(n + 1), rates.append((population - n) / think)
        if n:
            rows.append(n), cols.append(n - 1), rates.append(mu + (n - 1) * theta)
    pi = stationary(rows, cols, rates, len(states))
    served = mu * (1 - pi[0])
    reneged = sum(pi[n] * (n - 1) * theta for n in states if n)
    weight, wait = 0.0, 0.0
    for n in range(population):
        places = range(1, n + 1)  # n present: n - 1 wait ahead, it waits at places n .. 1
        p_served = np.prod([(mu + (i - 1) * theta) / (mu + i * theta) for i in places])
        arriving = pi[n] * (population - n) * p_served
        weight += arriving
        wait += arriving * sum(1 / (mu + i * theta) for i in places)
    return served, reneged / (served + reneged), wait / weight


def test_closed_customers_who_renege_think_again_as_the_chain_by_hand():
    m = one_station(1, {"patience": "exp(3)"}, population=4)
    res = brewput.solve(m, method="ctmc")["classes"]["c"]
    served, reneged, wait = closed_reneging_by_hand(4, 2.0, 1.0, 1 / 3)
    assert close(res["throughput"], served, 1e-9)
    assert close(res["loss_probability_by"]["reneged"], reneged, 1e-9)
    assert close(res["waiting_time"]["mean"], wait, 1e-9)
    assert close(res["response_time"]["mean"], wait + 1.0, 1e-9)


def within(res, sim):
    """Every figure of the chain inside the simulation's 99 % interval, percentiles too."""
    rows = [row for row in compare_results(res, sim, level=0.99) if row.ci is not None]
    outside = [(row.figure, row.analytic, row.ci) for row in rows if not row.inside]
    assert rows and not outside, outside
    return {row.figure for row in rows}


@pytest.mark.parametrize("step", [{"patience": "exp(2)"}, {"balk": [0, 0.5]}])
def test_a_tandem_giving_up_at_its_second_station_is_inside_the_simulators_intervals(step):
    m = model({"a": {"servers": 1}, "b": {"servers": 1}},
              {"c": {"rate": 1.0, "route": [{"station": "a", "service": "exp(0.6)"},
                                            {"station": "b", "service": "exp(0.8)", **step}]}})
    res = brewput.solve(m, method="ctmc", quantiles=[50, 90, 99])
    little = res["stations"]["a"]["queue_length"] + res["stations"]["b"]["queue_length"]
    # those who complete are timed, not everyone present: Little's law on all would be far off
    assert abs(res["classes"]["c"]["response_time"]["mean"] - little / res["classes"]["c"]["throughput"]) > 0.05
    figures = within(res, brewput.simulate(m, seed=3, replications=5, customers=200_000))
    assert {"c response time p99", "c waiting time p90", "b response time", "b throughput"} <= figures


def test_tokens_priorities_buffers_and_phases_with_giving_up_are_inside_the_simulators_intervals():
    # closed classes by priority sharing a token, reneging at a, balking by chance at b's finite buffer
    m = {"brewput": 1, "name": "m", "resources": {"r": 1},
         "stations": {"a": {"servers": 2, "discipline": "priority"}, "b": {"servers": 1, "buffer": 2}},
         "classes": {"hi": {"population": 3, "think": "exp(2)", "priority": 2, "route": [
                         {"station": "a", "service": "exp(0.5)", "uses": ["r"], "patience": "exp(1)"},
                         {"station": "b", "service": "exp(0.4)", "balk": [0, 0.3]}]},
                     "lo": {"population": 2, "think": "exp(1)", "route": [
                         {"station": "a", "service": "erlang(2, 0.6)", "uses": ["r"], "patience": "exp(2)"}]}}}
    res = brewput.solve(m, quantiles=[50, 90])
    assert res["method"] == "ctmc" and res["classes"]["lo"]["exact"]
    assert res["classes"]["hi"]["loss_probability_by"]["balked"] > 0
    figures = within(res, brewput.simulate(m, seed=12, replications=5, customers=400_000))
    assert {"hi response time p90", "lo waiting time mean", "a hi response time", "hi loss probability balked"} <= figures


def test_the_cli_prints_the_reasons_and_auto_answers_patience_across_two_stations(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("""brewput: 1
name: m
stations: {a: {servers: 1}, b: {servers: 1}}
classes:
  c:
    population: 3
    think: exp(2)
    route:
      - {station: a, service: exp(0.5)}
      - {station: b, service: exp(0.7), patience: exp(1)}
""")
    done = subprocess.run([sys.executable, "-m", "brewput", "solve", str(path), "--method", "ctmc"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "reneged" in done.stdout
    auto = brewput.solve(str(path))
    assert auto["method"] == "ctmc" and auto["classes"]["c"]["loss_probability_by"]["reneged"] > 0


AUTO_BY_THE_CHAIN = {
    # the formulas' refusals of tests/test_corpus_solve_floor.py (its FORMULAS cases), answered by auto's chain
    "closed, no think": model({"s": {}}, {"c": {"population": 3, "route": [
        {"station": "s", "service": "exp(1)", "patience": "exp(2)"}]}}),
    "closed, constant think": model({"s": {}}, {"c": {"population": 3, "think": "const(2)", "route": [
        {"station": "s", "service": "exp(1)", "balk": 1}]}}),
    "closed beside open": model({"s": {"buffer": 2}}, {
        "c": {"population": 3, "think": "exp(2)", "route": [{"station": "s", "service": "exp(1)", "balk": 1}]},
        "d": {"rate": 0.1, "route": [{"station": "s", "service": "exp(1)", "balk": 1}]}}),
    "closed at a buffer": model({"s": {"buffer": 1}}, {"c": {"population": 5, "think": "exp(2)", "route": [
        {"station": "s", "service": "exp(1)", "patience": "exp(1)"}]}}),
    "two classes, their own patience, a buffer": model({"s": {"servers": 2, "buffer": 3}}, {
        "a": {"rate": 0.5, "route": [{"station": "s", "service": "exp(1)", "patience": "exp(1)"}]},
        "b": {"rate": 0.5, "route": [{"station": "s", "service": "exp(2)", "patience": "exp(2)"}]}}),
}


@pytest.mark.parametrize("name", sorted(AUTO_BY_THE_CHAIN))
def test_auto_answers_by_the_chain_what_the_formulas_refuse(name):
    res = brewput.solve(AUTO_BY_THE_CHAIN[name])
    assert res["method"] == "ctmc"
    for figures in res["classes"].values():
        by = figures["loss_probability_by"]
        assert figures["loss_probability"] == pytest.approx(sum(by.values()), rel=1e-12)
        assert by["balked"] + by["reneged"] > 0 and figures["throughput"] > 0


def test_a_patience_that_is_not_exponential_is_refused_by_field():
    m = one_station(1, {"patience": "uniform(1, 5)"}, rate=0.5)
    with pytest.raises(brewput.BrewputError, match=r"classes\.c\.route\[0\]\.patience: a patience other than "
                                                   r"exponential"):
        brewput.solve(m, method="ctmc")


def test_the_laws_of_those_who_complete_are_erlang_a_s_to_1e9():
    chain = brewput.solve(FORMULAS["erlang-a"], method="ctmc", quantiles=[50, 80, 95], within=[0.5, 2])
    formula = brewput.solve(FORMULAS["erlang-a"], quantiles=[50, 80, 95], within=[0.5, 2])
    assert formula["method"] == "erlang-a"
    for times in ("response_time", "waiting_time"):
        c, f = chain["classes"]["c"][times], formula["classes"]["c"][times]
        for key in ("p50", "p80", "p95"):
            assert close(c[key], f[key], 1e-9), (times, key)
        for (t, share), (_, truth) in zip(c["within"], f["within"]):
            assert close(share, truth, 1e-9), (times, t)


def test_a_model_where_everyone_balks_is_refused_as_the_formulas_and_simulate_refuse_it():
    with pytest.raises(brewput.BrewputError, match=r"classes\.c\.route\[0\]\.balk turns every arrival away"):
        brewput.solve(one_station(1, {"balk": 0}, rate=0.5), method="ctmc")
