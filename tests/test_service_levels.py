"""Service levels P(time <= t) and any quantile, in both engines (issue 24 item 1).

solve reads them off the time laws it knows exactly (analytic/laws/): each is
tested here against a truth computed in the test on its own: M/M/c's
P(W <= t) = 1 - C e^{-(c mu - lam) t} with C from the Erlang B recursion
written out; Erlang A's from the tagged customer's chain (absorbed when served
or when it gives up) built with numpy and integrated by scipy's expm, on the
stationary law of a birth-death generator solved by linear algebra; GI/M/1's
geometric-exponential law with its root found by scipy's brentq. simulate
reads them off its histograms: its intervals cover those truths, and the same
seed gives the same numbers at any thread count.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, linalg, optimize

from brewput.engine.simulate import simulate
from brewput.engine.solve import solve
from brewput.errors import OptionError
from brewput.model import Model
from brewput.percentiles import NAMED, name, parse_percents, parse_times, percent_of


def one_station(servers, step, rate, arrivals=None):
    cls = {"rate": rate, "route": [{"station": "s", **step}]}
    if arrivals is not None:
        cls = {"arrivals": arrivals, "route": cls["route"]}
    return Model.from_dict({"brewput": 1, "name": "m", "time_unit": "s", "stations": {"s": {"servers": servers}},
                            "classes": {"c": cls}})


# -- names ---------------------------------------------------------------------------------------------------

def test_the_fixed_list_follows_the_naming_rule():
    for key, percent in NAMED:
        assert name(percent) == key and percent_of(key) == percent


@pytest.mark.parametrize("percent, key", [(80, "p80"), (97.5, "p975"), (5, "p05"), (99.99, "p9999"),
                                          (0.1, "p001"), (99.9999, "p999999")])
def test_any_percent_has_one_name_and_back(percent, key):
    assert name(percent) == key and percent_of(key) == percent


def test_options_parse_percents_and_times():
    assert parse_percents(["80,97.5", "p99", "80"]) == [80.0, 97.5, 99.0]
    assert parse_times(["20s,1min", "0.5"], "min") == [20 / 60, 1.0, 0.5]
    for bad in ("100", "0", "p100", "abc", "99.12345678"):
        with pytest.raises(OptionError):
            parse_percents([bad])
    with pytest.raises(OptionError):
        parse_times(["-1s"], "s")


# -- solve: exact laws against independent truths ------------------------------------------------------------

def erlang_c(c, a):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return c * b / (c - a * (1 - b))


def test_mmc_service_levels_and_quantiles_are_the_closed_form():
    lam, s, c, t = 2.5, 1.0, 3, 0.7
    res = solve(one_station(c, {"service": f"exp({s})"}, lam), quantiles=[80, 97.5], within=[t, 0.0])
    waiting, response = res["classes"]["c"]["waiting_time"], res["classes"]["c"]["response_time"]
    C, theta, mu = erlang_c(c, lam * s), c / s - lam, 1 / s
    assert waiting["within"][0] == [t, pytest.approx(1 - C * math.exp(-theta * t), rel=1e-12)]
    assert waiting["within"][1] == [0.0, pytest.approx(1 - C, rel=1e-12)]
    assert waiting["p80"] == pytest.approx(math.log(C / 0.2) / theta, rel=1e-12)
    assert waiting["p975"] == pytest.approx(math.log(C / 0.025) / theta, rel=1e-12)
    # the response: the wait plus an independent Exp(mu) service, convolved numerically
    density = lambda x: C * theta * math.exp(-theta * x)  # noqa: E731
    truth = (1 - C) * (1 - math.exp(-mu * t)) + integrate.quad(lambda x: density(x) * (1 - math.exp(-mu * (t - x))),
                                                                0, t)[0]
    assert response["within"][0][1] == pytest.approx(truth, rel=1e-9)
    cdf = lambda x: (1 - C) * (1 - math.exp(-mu * x)) + integrate.quad(  # noqa: E731
        lambda y: density(y) * (1 - math.exp(-mu * (x - y))), 0, x)[0]
    assert cdf(response["p80"]) == pytest.approx(0.8, abs=1e-9)
    assert res["classes"]["c"]["law"] == {"exact": True, "method": "erlang-c"}
    assert res["asked"] == {"quantiles": [80.0, 97.5], "within": [t, 0.0]}


def erlang_a_truth(lam, s, c, patience, ts, join=lambda n: 1.0, states=200):
    """P(W <= t | served) from the birth-death chain's generator and the tagged
    customer's chain, both built here: the stationary law by solving pi Q = 0,
    the wait of the served by expm of the tagged chain with two absorbing
    states (served, gave up). An arrival finding n joins with `join(n)`."""
    mu, theta = 1 / s, 0.0 if math.isinf(patience) else 1 / patience
    Q = np.zeros((states, states))
    for n in range(states - 1):
        Q[n, n + 1] = lam * join(n)
        Q[n + 1, n] = min(n + 1, c) * mu + max(n + 1 - c, 0) * theta
    np.fill_diagonal(Q, -Q.sum(axis=1))
    A = np.vstack([Q.T, np.ones(states)])
    pi = np.linalg.lstsq(A, np.concatenate([np.zeros(states), [1.0]]), rcond=None)[0]
    joined = pi * np.array([join(n) if n < states - 1 else 0.0 for n in range(states)])
    ahead = states - c  # the tagged customer with j = 0..ahead-1 ahead, then served (ahead), gave up (ahead + 1)
    G = np.zeros((ahead + 2, ahead + 2))
    for j in range(ahead):
        G[j, j - 1 if j else ahead] = c * mu + j * theta  # one ahead leaves (or, at the head, a server frees)
        G[j, ahead + 1] = theta
        G[j, j] = -(c * mu + j * theta + theta)
    start = np.zeros(ahead + 2)
    start[:ahead] = joined[c:states]
    at_once = joined[:c].sum()
    served = at_once + (start @ linalg.expm(G * 1e4))[ahead]
    return [(at_once + (start @ linalg.expm(G * t))[ahead]) / served for t in ts]


@pytest.mark.parametrize("station, step, lam, join, states, method", [
    ({"servers": 2, "buffer": 3}, {}, 3.0, lambda n: 1.0 if n < 5 else 0.0, 6, "mmck"),
    ({"servers": 2}, {"balk": [0.2, 0.5, 1.0]}, 3.0, lambda n: 1 - [0.2, 0.5, 1.0][min(max(n - 2, 0), 2)], 6,
     "birth-death"),
    ({"servers": 2}, {"balk": [0.1, 0.3], "patience": "exp(3)"}, 4.0,
     lambda n: 1 - [0.1, 0.3][min(max(n - 2, 0), 1)], 120, "birth-death"),
])
def test_balking_and_full_buffers_keep_the_tagged_chains_law(station, step, lam, join, states, method):
    ts = [0.0, 0.2, 0.7, 1.5]
    m = Model.from_dict({"brewput": 1, "name": "m", "time_unit": "s", "stations": {"s": station},
                         "classes": {"c": {"rate": lam, "route": [{"station": "s", "service": "exp(1)", **step}]}}})
    klass = solve(m, within=ts, quantiles=[90])["classes"]["c"]
    assert klass["law"] == {"exact": True, "method": method}
    patience = 3.0 if "patience" in step else math.inf
    truth = erlang_a_truth(lam, 1.0, 2, patience, ts, join=join, states=states)
    for (t, got), want in zip(klass["waiting_time"]["within"], truth):
        assert got == pytest.approx(want, abs=1e-10), t
    assert erlang_a_truth(lam, 1.0, 2, patience, [klass["waiting_time"]["p90"]], join=join,
                          states=states)[0] == pytest.approx(0.9, abs=1e-9)


@pytest.mark.parametrize("lam, s, c, patience", [(4.0, 1.0, 3, 2.0), (1.5, 1.0, 1, 0.5), (12.0, 1.0, 10, 5.0)])
def test_erlang_a_wait_of_the_served_is_its_tagged_chain(lam, s, c, patience):
    ts = [0.0, 0.1, 0.5, 1.0, 2.5]
    res = solve(one_station(c, {"service": f"exp({s})", "patience": f"exp({patience})"}, lam), within=ts,
                quantiles=[80])
    klass = res["classes"]["c"]
    assert klass["law"] == {"exact": True, "method": "erlang-a"}
    truth = erlang_a_truth(lam, s, c, patience, ts)
    for (t, got), want in zip(klass["waiting_time"]["within"], truth):
        assert got == pytest.approx(want, abs=1e-10), t
    q80 = klass["waiting_time"]["p80"]
    if q80 > 0:
        assert erlang_a_truth(lam, s, c, patience, [q80])[0] == pytest.approx(0.8, abs=1e-9)
    # the response adds an exponential service: its law's mean is the mean the chain gives (abandonment.py)
    from brewput.analytic.laws.erlang_a import erlang_a_laws
    law = erlang_a_laws(lam, s, c, patience).response
    law_mean = integrate.quad(lambda t: 1 - law.cdf(t), 0, 80 * s, limit=200)[0]
    assert law_mean == pytest.approx(klass["response_time"]["mean"], rel=1e-7)


@pytest.mark.parametrize("k", [2, 4])
def test_gim1_is_geometric_exponential(k):
    """E_k/M/1: sigma solves sigma = A*(mu (1 - sigma)), A* the Erlang-k transform; P(W > t) = sigma e^{-mu (1 - sigma) t}."""
    lam, s, t = 0.8, 1.0, 1.3
    mu = 1 / s
    laplace = lambda x: (k * lam / (k * lam + x)) ** k  # noqa: E731
    sigma = optimize.brentq(lambda x: x - laplace(mu * (1 - x)), 1e-12, 1 - 1e-12)
    res = solve(one_station(1, {"service": f"exp({s})"}, lam, arrivals=f"erlang({k}, {1 / lam})"),
                within=[t], quantiles=[90])
    klass = res["classes"]["c"]
    assert klass["law"] == {"exact": True, "method": "gi-m-1"}
    assert klass["waiting_time"]["within"][0][1] == pytest.approx(1 - sigma * math.exp(-mu * (1 - sigma) * t),
                                                                  rel=1e-9)
    assert klass["response_time"]["within"][0][1] == pytest.approx(1 - math.exp(-mu * (1 - sigma) * t), rel=1e-9)
    assert klass["waiting_time"]["p90"] == pytest.approx(math.log(sigma / 0.1) / (mu * (1 - sigma)), rel=1e-9)


def test_unknown_laws_say_so():
    tandem = Model.from_dict({"brewput": 1, "name": "m", "time_unit": "s",
                              "stations": {"a": {"servers": 1}, "b": {"servers": 1}},
                              "classes": {"c": {"rate": 0.5, "route": [{"station": "a", "service": "exp(1)"},
                                                                       {"station": "b", "service": "exp(1)"}]}}})
    klass = solve(tandem, quantiles=[80], within=[1.0])["classes"]["c"]
    assert klass["law"] is None and klass["waiting_time"]["p80"] is None
    assert klass["waiting_time"]["within"] == [[1.0, None]]
    assert "law" not in solve(tandem)["classes"]["c"], "nothing asked, nothing added"


@pytest.mark.parametrize("servers, service", [(1, "gamma(1, 0.5)"), (2, "uniform(0.5, 1.5)"), (3, "const(1)")])
def test_approximate_laws_are_marked_and_keep_solves_means(servers, service):
    """M/G/c: the wait approximated as 0 with Erlang C's probability (rho exactly at one server)
    and else exponential; its mean is solve's mean wait, the response's adds the service mean."""
    m = one_station(servers, {"service": service}, 0.7 * servers)
    res = solve(m, quantiles=[80], within=[0.0, 1.0])
    klass = res["classes"]["c"]
    assert klass["law"] == {"exact": False, "method": "exponential-wait"}
    from brewput.analytic.laws.approximate import exponential_wait_laws
    from brewput.analytic.network import network_of
    laws = exponential_wait_laws(0.7 * servers, 1.0, servers, klass["waiting_time"]["mean"],
                                 network_of(m).steps[0][0][2])
    wait_mean = integrate.quad(lambda t: 1 - laws.waiting.cdf(t), 0, math.inf)[0]
    assert wait_mean == pytest.approx(klass["waiting_time"]["mean"], rel=1e-8)
    assert klass["waiting_time"]["within"][0][1] == pytest.approx(1 - erlang_c(servers, 0.7 * servers), rel=1e-12)
    if servers == 1:
        assert klass["waiting_time"]["within"][0][1] == pytest.approx(0.3, rel=1e-12)  # M/G/1: P(W = 0) = 1 - rho
    if service.startswith("const"):  # a law with no density: no convolution, so no response figures
        assert klass["response_time"]["p80"] is None
    else:
        response_mean = integrate.quad(lambda t: 1 - laws.response.cdf(t), 0, 60, limit=200, points=(0.5, 1.5))[0]
        assert response_mean == pytest.approx(klass["response_time"]["mean"], rel=1e-6)
        assert laws.response.cdf(klass["response_time"]["p80"]) == pytest.approx(0.8, abs=1e-9)


# -- simulate: from its histograms ---------------------------------------------------------------------------

def test_simulated_service_levels_cover_the_mmc_truth_and_do_not_depend_on_threads():
    lam, s, c, t = 2.5, 1.0, 3, 0.7
    m = one_station(c, {"service": f"exp({s})"}, lam)
    res = simulate(m, customers=100_000, replications=10, seed=3, quantiles=[80, 97.5], within=[t], threads=1)
    C, theta = erlang_c(c, lam * s), c / s - lam
    waiting = res["classes"]["c"]["waiting_time"]
    share, ci = waiting["within"][0][1], waiting["within_ci"][0]
    assert ci[0] <= 1 - C * math.exp(-theta * t) <= ci[1], (share, ci)
    for key, q in (("p80", 0.8), ("p975", 0.975)):
        truth = math.log(C / (1 - q)) / theta
        low, high = waiting[f"{key}_ci"]
        assert low * (1 - 2e-3) <= truth <= high * (1 + 2e-3), (key, waiting[key], waiting[f"{key}_ci"])
    again = simulate(m, customers=100_000, replications=10, seed=3, quantiles=[80, 97.5], within=[t], threads=4)
    assert again["classes"] == res["classes"]


def test_asking_changes_nothing_else():
    m = one_station(2, {"service": "gamma(2, 0.7)"}, 2.0)
    plain = simulate(m, customers=20_000, replications=3, seed=5)
    asked = simulate(m, customers=20_000, replications=3, seed=5, quantiles=[50, 80], within=[1.0])
    for klass in ("waiting_time", "response_time"):
        block = asked["classes"]["c"][klass]
        assert block["p50"] == plain["classes"]["c"][klass]["p50"]
        rest = {k: v for k, v in block.items() if k not in ("p80", "p80_ci", "within", "within_ci")}
        assert rest == plain["classes"]["c"][klass]
    assert {k: v for k, v in asked.items() if k not in ("classes", "asked")} == \
        {k: v for k, v in plain.items() if k != "classes"}


def test_the_top_class_of_preemptive_priority_is_an_mmc_of_its_own():
    """Preemptive priority at 2 servers: the urgent class never waits for a routine job, so its
    wait is M/M/2's at its own rate (C by the Erlang B recursion here); the routine class has no
    known law. The simulation's interval covers the urgent class's truth."""
    m = Model.from_dict({"brewput": 1, "name": "m", "time_unit": "s",
                         "stations": {"s": {"servers": 2, "discipline": "priority", "preempt": "resume"}},
                         "classes": {"urgent": {"rate": 0.6, "priority": 1,
                                                "route": [{"station": "s", "service": "exp(1)"}]},
                                     "routine": {"rate": 0.9, "route": [{"station": "s", "service": "exp(1)"}]}}})
    t = 0.5
    res = solve(m, within=[t], quantiles=[90])
    urgent, routine = res["classes"]["urgent"], res["classes"]["routine"]
    C, theta = erlang_c(2, 0.6), 2 - 0.6
    truth = 1 - C * math.exp(-theta * t)
    assert urgent["law"] == {"exact": True, "method": "erlang-c-top-priority"}
    assert urgent["waiting_time"]["within"][0][1] == pytest.approx(truth, rel=1e-12)
    assert urgent["waiting_time"]["p90"] == (0.0 if C <= 0.1 else pytest.approx(math.log(C / 0.1) / theta))
    assert routine["law"] is None and routine["waiting_time"]["within"] == [[t, None]]
    simulated = simulate(m, customers=100_000, replications=10, seed=5, within=[t])["classes"]["urgent"]
    low, high = simulated["waiting_time"]["within_ci"][0]
    assert low <= truth <= high, (truth, low, high)


@pytest.mark.parametrize("engine, options", [("solve", {}), ("simulate", {"customers": 20_000, "replications": 3})])
def test_a_sweep_asks_every_scenario(engine, options):
    import brewput

    record = brewput.sweep(_mmc_with_param(), {"c": [3, 4]}, engine, quantiles=[80], within=[0.7], **options)
    for scenario, c in zip(record["scenarios"], (3, 4)):
        waiting = scenario["results"]["classes"]["c"]["waiting_time"]
        truth = 1 - erlang_c(c, 2.5) * math.exp(-(c - 2.5) * 0.7)
        share = waiting["within"][0][1]
        if engine == "solve":
            assert share == pytest.approx(truth, rel=1e-12) and waiting["p80"] is not None
        else:
            low, high = waiting["within_ci"][0]
            assert low <= truth <= high, (c, share, low, high)


def _mmc_with_param():
    return Model.from_dict({"brewput": 1, "name": "m", "time_unit": "s", "params": {"c": 3},
                            "stations": {"s": {"servers": "${c}"}},
                            "classes": {"c": {"rate": 2.5, "route": [{"station": "s", "service": "exp(1)"}]}}})


@pytest.mark.parametrize("command", ["simulate", "solve", "compare"])
@pytest.mark.parametrize("option, says", [("--quantile=100", "--quantile 100: expected percents"),
                                          ("--within=-1s", "--within -1s: expected times of at least 0")])
def test_bad_asks_are_one_line_and_exit_2(command, option, says):
    import subprocess
    import sys
    from pathlib import Path

    mmc = Path(__file__).resolve().parent.parent / "examples" / "mmc.yaml"
    done = subprocess.run([sys.executable, "-m", "brewput", command, str(mmc), option], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert says in done.stderr
