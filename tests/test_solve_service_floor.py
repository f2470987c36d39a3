"""solve on the service floor (analytic/floor.py and the files it calls) against
truths computed here from the model language's own words: the Markov chain of
the number present, built from "balks on seeing w waiting" and "reneges when its
exponential patience runs out" (not from the chain abandonment.py builds);
Erlang C and M/M/c/K in closed form; a typed station every class may use as one
M/M/c; preemptive priority's top class as an M/M/c of its own and the work
conserved below it."""
import math

import numpy as np
import pytest
from scipy.linalg import null_space

import brewput
from brewput.analytic import queues
from brewput.analytic.abandonment import chain_states, impatient
from brewput.analytic.network import Unsupported
from brewput.analytic.typed_servers import fcfs_alis
from brewput.model import Model


def model(stations, classes):
    return Model.from_dict({"brewput": 1, "name": "m", "stations": stations, "classes": classes})


def one_class(station, step, rate):
    return model({"s": station}, {"c": {"rate": rate, "route": [{"station": "s", **step}]}})


def chain(lam, s, c, capacity, balk, patience, states):
    """Stationary figures of the station's number present, from a generator
    written from the model language: an arrival finding n present sees
    w = max(n - c, 0) waiting; it is lost as full when n = capacity, else balks
    with balk(w); each waiting job reneges at rate 1 / patience."""
    mu, theta = 1 / s, 0.0 if math.isinf(patience) else 1 / patience
    q = np.zeros((states, states))
    for n in range(states - 1):
        if n < capacity:
            q[n, n + 1] = lam * (1 - balk(max(n - c, 0)))
        q[n + 1, n] = min(n + 1, c) * mu + max(n + 1 - c, 0) * theta
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    n = np.arange(states)
    assert p[-1] < 1e-13  # the truncation holds nothing
    waiting = np.maximum(n - c, 0)
    full = p[n >= capacity].sum()
    balked = sum(p[k] * balk(waiting[k]) for k in range(states) if k < capacity)
    served_rate = mu * p @ np.minimum(n, c)
    return {"full": full, "balked": balked, "reneged": theta * p @ waiting / lam,
            "throughput": served_rate, "present": p @ n, "busy": p @ np.minimum(n, c)}


def threshold(b):
    return lambda w: 1.0 if w >= b else 0.0


def listed(qs):
    return lambda w: qs[min(w, len(qs) - 1)]


GIVING_UP = [
    # station, step fields, rate, (capacity, balk function, patience) of the truth
    ({"servers": 2}, {"balk": 3}, 2.5, (math.inf, threshold(3), math.inf)),
    ({"servers": 1}, {"balk": 0}, 0.5, None),  # nobody ever joins: refused, not answered
    ({"servers": 3, "buffer": 2}, {"balk": 5}, 4.0, (5, threshold(5), math.inf)),  # full before it balks
    ({"servers": 2, "buffer": 4}, {"balk": 2}, 3.0, (6, threshold(2), math.inf)),  # balks before full
    ({"servers": 2}, {"balk": [0, 0.2, 0.5, 0.9, 1]}, 3.0, (math.inf, listed([0, 0.2, 0.5, 0.9, 1]), math.inf)),
    ({"servers": 1}, {"balk": [0.1, 0.3, 0.6]}, 1.5, (math.inf, listed([0.1, 0.3, 0.6]), math.inf)),  # 60 % beyond
    ({"servers": 1}, {"balk": [0.25]}, 1.2, (math.inf, listed([0.25]), math.inf)),  # one value: held for every w
    ({"servers": 3}, {"patience": "exp(2)"}, 4.0, (math.inf, threshold(math.inf), 2.0)),  # Erlang A, overloaded
    ({"servers": 2, "buffer": 3}, {"patience": "exp(1.5)", "balk": [0, 0.5]}, 3.0, (5, listed([0, 0.5]), 1.5)),
]


@pytest.mark.parametrize("station, step, rate, truth_of", GIVING_UP)
def test_customers_who_give_up_match_the_chain_written_from_the_language(station, step, rate, truth_of):
    m = one_class(station, {"service": "exp(1)", **step}, rate)
    if truth_of is None:
        with pytest.raises(Unsupported, match=r"route\[0\]\.balk turns every arrival away"):
            brewput.solve(m)
        return
    capacity, balk, patience = truth_of
    truth = chain(rate, 1.0, station["servers"], capacity, balk, patience, 400)
    result = brewput.solve(m)
    c, s = result["classes"]["c"], result["stations"]["s"]
    assert c["exact"] and c["throughput"] == pytest.approx(truth["throughput"], rel=1e-9)
    by = c["loss_probability_by"]
    for reason in ("full", "balked", "reneged"):
        assert by[reason] == pytest.approx(truth[reason], rel=1e-9, abs=1e-12), reason
    assert c["loss_probability"] == pytest.approx(sum(by.values()), rel=1e-12)
    assert c["loss_probability"] + c["throughput"] / rate == pytest.approx(1, rel=1e-12)
    assert s["queue_length"] == pytest.approx(truth["present"], rel=1e-9)
    assert s["busy_servers"] == pytest.approx(truth["busy"], rel=1e-9)
    assert s["throughput"] == pytest.approx(truth["throughput"], rel=1e-9)
    if math.isinf(patience):  # everyone who joins is served: Little's law gives their time there
        joined = rate * (1 - by["full"] - by["balked"])
        assert c["response_time"]["mean"] == pytest.approx(truth["present"] / joined, rel=1e-9)
        assert s["response_time"] == pytest.approx(truth["present"] / joined, rel=1e-9)
    else:  # the served's wait: the tagged customer's, tested against its absorbing chain in the theory
        assert c["response_time"]["mean"] == pytest.approx(s["response_time"])
    assert c["waiting_time"]["mean"] == pytest.approx(c["response_time"]["mean"] - 1.0, abs=1e-12)


@pytest.mark.parametrize("station, step, population, think, balk, patience", [
    ({"servers": 2}, {"balk": 1}, 8, 2.0, threshold(1), math.inf),
    ({"servers": 1}, {"balk": [0, 0.4, 0.7]}, 10, 1.5, listed([0, 0.4, 0.7]), math.inf),
    ({"servers": 3}, {"patience": "exp(0.5)"}, 12, 1.0, threshold(math.inf), 0.5),
    ({"servers": 2, "buffer": 4}, {"patience": "exp(2)", "balk": [0.1, 0.5]}, 6, 0.5, listed([0.1, 0.5]), 2.0),
])
def test_closed_customers_who_give_up_think_again_as_their_chain_says(station, step, population, think, balk,
                                                                      patience):
    # Written from the language: n at the station, the others thinking; each thinker
    # arrives at rate 1 / think, and one who is turned away or reneges thinks again.
    c, capacity = station["servers"], station["servers"] + station.get("buffer", math.inf)
    mu, theta = 1.0, 0.0 if math.isinf(patience) else 1 / patience
    q = np.zeros((population + 1, population + 1))
    for n in range(population):
        if n < capacity:
            q[n, n + 1] = (population - n) / think * (1 - balk(max(n - c, 0)))
        q[n + 1, n] = min(n + 1, c) * mu + max(n + 1 - c, 0) * theta
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    n = np.arange(population + 1)
    arrivals = p * (population - n) / think
    waiting = np.maximum(n - c, 0)
    full = arrivals[n >= capacity].sum() / arrivals.sum()  # 0: solve answers no buffer they can fill
    balked = sum(arrivals[k] * balk(waiting[k]) for k in range(population + 1) if k < capacity) / arrivals.sum()
    result = brewput.solve(model({"s": station}, {"c": {"population": population, "think": f"exp({think})",
                                                        "route": [{"station": "s", "service": "exp(1)", **step}]}}))
    figures = result["classes"]["c"]
    assert figures["exact"] and figures["method"] == "finite-source"
    assert figures["throughput"] == pytest.approx(mu * p @ np.minimum(n, c), rel=1e-9)
    by = figures["loss_probability_by"]
    assert by["full"] == pytest.approx(full, rel=1e-9, abs=1e-12)
    assert by["balked"] == pytest.approx(balked, rel=1e-9, abs=1e-12)
    assert by["reneged"] == pytest.approx(theta * p @ waiting / arrivals.sum(), rel=1e-9, abs=1e-12)
    assert result["stations"]["s"]["queue_length"] == pytest.approx(p @ n, rel=1e-9)
    if math.isinf(patience):  # all who join are served: Little's law over the joining rate
        joined = arrivals.sum() * (1 - by["full"] - by["balked"])
        assert figures["response_time"]["mean"] == pytest.approx(p @ n / joined, rel=1e-9)


def test_a_balking_threshold_is_mmck_and_a_full_buffer_is_lost_as_full():
    loss, means = queues.mmck(2.5, 1.0, 2, 5)
    c = brewput.solve(one_class({"servers": 2}, {"service": "exp(1)", "balk": 3}, 2.5))["classes"]["c"]
    assert c["method"] == "mmck" and c["loss_probability_by"]["balked"] == pytest.approx(loss, rel=1e-12)
    assert c["response_time"]["mean"] == pytest.approx(means.response, rel=1e-12)
    c = brewput.solve(one_class({"servers": 2, "buffer": 3}, {"service": "exp(1)", "balk": 3}, 2.5))["classes"]["c"]
    assert c["loss_probability_by"] == pytest.approx({"full": loss, "balked": 0.0, "reneged": 0.0}, rel=1e-12)


def test_endless_patience_is_erlang_c_and_patience_as_long_as_service_a_poisson_number():
    lam, c = 1.5, 2
    result = brewput.solve(one_class({"servers": c}, {"service": "exp(1)", "patience": "exp(1e9)"}, lam))
    assert result["classes"]["c"]["response_time"]["mean"] == pytest.approx(queues.mmc(lam, 1.0, c).response,
                                                                             rel=1e-7)
    result = brewput.solve(one_class({"servers": c}, {"service": "exp(1)", "patience": "exp(1)"}, 5.0))
    assert result["stations"]["s"]["queue_length"] == pytest.approx(5.0, rel=1e-12)  # M/M/inf: mean lam s


def test_classes_sharing_a_station_of_customers_who_give_up_share_its_figures_by_rate():
    both = model({"s": {"servers": 2}}, {
        "a": {"rate": 1.0, "route": [{"station": "s", "service": "exp(1)", "patience": "exp(2)"}]},
        "b": {"rate": 2.0, "route": [{"station": "s", "service": "exp(1)", "patience": "exp(2)"}]}})
    alone = impatient(3.0, 1.0, 2, patience=2.0)
    result = brewput.solve(both)
    for label, rate in (("a", 1.0), ("b", 2.0)):
        figures = result["classes"][label]
        assert figures["throughput"] == pytest.approx(rate * alone.served, rel=1e-12)
        assert figures["loss_probability_by"]["reneged"] == pytest.approx(alone.abandoned, rel=1e-12)
        assert figures["response_time"]["mean"] == pytest.approx(alone.mean_response, rel=1e-12)


def test_an_unbounded_balking_tail_is_cut_where_the_chain_says():
    # 60 % balk beyond the list: the chain has no end, and the cut holds less than 2^-60.
    lam, c, join, beyond = 1.5, 1, [0.9, 0.9, 0.7], 0.4
    states = chain_states(lam, 1.0, c, join_length=len(join), beyond=beyond)
    long = impatient(lam, 1.0, c, join=join + [beyond] * 2000)
    cut = impatient(lam, 1.0, c, join=join, beyond=beyond)
    assert cut.mean_in_system == pytest.approx(long.mean_in_system, rel=1e-13)
    assert cut.balked == pytest.approx(long.balked, rel=1e-12)
    assert 0.5 < states / 80 < 2  # the estimate of its length: r = 0.6, 2^-60 = 0.6^81


def test_typed_servers_every_class_may_use_are_one_mmc():
    # Full flexibility, one rate: FCFS-ALIS is M/M/3 whatever the take, ALIS shares the work evenly.
    for take in ("head", "first_fit"):
        m = model({"bar": {"servers": {"espresso": 2, "drip": 1}, "take": take}}, {
            "latte": {"rate": 1.2, "route": [{"station": "bar", "service": "exp(1)"}]},
            "drip": {"rate": 0.9, "route": [{"station": "bar", "service": "exp(1)"}]}})
        result = brewput.solve(m)
        mmc = queues.mmc(2.1, 1.0, 3)
        for label in ("latte", "drip"):
            assert result["classes"][label]["response_time"]["mean"] == pytest.approx(mmc.response, rel=1e-9)
            assert result["classes"][label]["method"] == "fcfs-alis"
        types = result["stations"]["bar"]["server_types"]
        assert types["espresso"]["utilization"] == pytest.approx(0.7, rel=1e-9)
        assert types["drip"]["utilization"] == pytest.approx(0.7, rel=1e-9)
        assert types["espresso"]["served"]["latte"] + types["drip"]["served"]["latte"] == pytest.approx(1.2)


def test_an_n_model_matches_fcfs_alis_and_conserves_its_work():
    # Lattes only on the espresso machines; drip anywhere, slower on the machines' type rate.
    m = model({"bar": {"servers": {"espresso": 2, "drip": 1}, "take": "first_fit"}}, {
        "latte": {"rate": 1.0, "route": [{"station": "bar", "service": "exp(1)", "served_by": ["espresso"]}]},
        "filter": {"rate": 1.5, "route": [{"station": "bar", "served_by": {"espresso": "exp(1)",
                                                                            "drip": "exp(0.5)"}}]}})
    truth = fcfs_alis({"latte": 1.0, "filter": 1.5}, {"espresso": 2, "drip": 1}, {"espresso": 1.0, "drip": 2.0},
                      {"latte": ["espresso"], "filter": ["espresso", "drip"]})
    result = brewput.solve(m)
    for label in ("latte", "filter"):
        figures = result["classes"][label]
        assert figures["response_time"]["mean"] == pytest.approx(truth.response[label], rel=1e-12)
        assert figures["waiting_time"]["mean"] == pytest.approx(truth.wait[label], rel=1e-9)
    bar = result["stations"]["bar"]
    served = {t: sum(f["served"].values()) for t, f in bar["server_types"].items()}
    assert sum(served.values()) == pytest.approx(2.5, rel=1e-9)  # every arrival served by some type
    # Each type is busy its completions x its mean, over its servers.
    assert bar["server_types"]["espresso"]["utilization"] == pytest.approx(served["espresso"] * 1.0 / 2, rel=1e-9)
    assert bar["server_types"]["drip"]["utilization"] == pytest.approx(served["drip"] * 0.5 / 1, rel=1e-9)
    assert bar["server_types"]["drip"]["served"]["latte"] == 0.0
    assert bar["busy_servers"] == pytest.approx(served["espresso"] + served["drip"] * 0.5, rel=1e-9)
    assert bar["queue_length"] == pytest.approx(sum(rate * result["classes"][label]["response_time"]["mean"]
                                                    for label, rate in (("latte", 1.0), ("filter", 1.5))))


def test_preemptive_priority_top_class_is_alone_and_the_work_is_conserved():
    # M/M/2, one rate: the top class sees an M/M/2 of its own; both together the M/M/2 of all.
    lam_hi, lam_lo, c = 0.6, 0.8, 2
    for preempt in ("resume", "restart"):
        m = model({"cpu": {"servers": c, "discipline": "priority", "preempt": preempt}}, {
            "hi": {"rate": lam_hi, "priority": 1, "route": [{"station": "cpu", "service": "exp(1)"}]},
            "lo": {"rate": lam_lo, "route": [{"station": "cpu", "service": "exp(1)"}]}})
        result = brewput.solve(m)
        hi, lo = (result["classes"][k]["response_time"]["mean"] for k in ("hi", "lo"))
        assert hi == pytest.approx(queues.mmc(lam_hi, 1.0, c).response, rel=1e-12)
        assert lam_hi * hi + lam_lo * lo == pytest.approx(queues.mmc(lam_hi + lam_lo, 1.0, c).in_system, rel=1e-12)
        assert result["stations"]["cpu"]["utilization"] == pytest.approx((lam_hi + lam_lo) / c)


def test_preemptive_resume_at_one_server_takes_any_service_law():
    # M/G/1: the top class is an M/G/1 of its own (Pollaczek-Khinchine), the lower waits out all the work.
    m = model({"cpu": {"discipline": "priority", "preempt": "resume"}}, {
        "hi": {"rate": 0.3, "priority": 2, "route": [{"station": "cpu", "service": "erlang(3, 1)"}]},
        "lo": {"rate": 0.2, "route": [{"station": "cpu", "service": "uniform(0, 3)"}]}})
    result = brewput.solve(m)
    hi = result["classes"]["hi"]["response_time"]["mean"]
    assert hi == pytest.approx(queues.pollaczek_khinchine(0.3, 1.0, 1 / 3).response, rel=1e-12)
    # Lower class: the work of both present when it arrives plus its own, stretched by top arrivals.
    residual = (0.3 * (1 + 1 / 3) + 0.2 * 3.0) / 2  # sum lam E[S^2] / 2; uniform(0,3): E[S^2] = 3
    lo = 1.5 / (1 - 0.3) + residual / ((1 - 0.3) * (1 - 0.6))
    assert result["classes"]["lo"]["response_time"]["mean"] == pytest.approx(lo, rel=1e-12)


def test_a_measure_from_arrived_to_done_is_the_response_time():
    m = model({"s": {"servers": 2}}, {"c": {"rate": 1.5, "measures": {"total": ["arrived", "done"],
                                                                       "to_paid": ["arrived", "paid"]},
                                            "route": [{"station": "s", "service": "exp(1)", "mark": "paid"}]}})
    c = brewput.solve(m)["classes"]["c"]
    assert c["measures"] == {"total": c["response_time"], "to_paid": c["response_time"]}
    assert c["response_time"]["mean"] == pytest.approx(queues.mmc(1.5, 1.0, 2).response)
    assert c["measures"]["total"]["p99"] == pytest.approx(queues.mmc_response_quantile(0.99, 1.5, 1.0, 2))


def branches(count, **station):
    return {f"b{i}": [{"station": f"s{i}", "service": "exp(1)"}] for i in range(count)}


def branched(step, count, rate):
    return model({f"s{i}": {} for i in range(count)}, {"c": {"rate": rate, "route": [step]}})


def test_a_fork_of_two_is_flatto_hahn_and_its_branches_mm1():
    lam, mu = 0.6, 1.0
    result = brewput.solve(branched({"fork": branches(2)}, 2, lam))
    c, rho = result["classes"]["c"], lam / mu
    both = (12 - rho) / 8 / (mu - lam)  # Nelson and Tantawi 1988, eq. 3 at K = 2
    assert c["exact"] and c["method"] == "flatto-hahn"
    assert c["response_time"]["mean"] == pytest.approx(both, rel=1e-12)
    assert c["waiting_time"]["mean"] == 0.0  # the branches' queues overlap the customer's time: not counted
    for station in result["stations"].values():
        assert station["utilization"] == pytest.approx(rho) and station["throughput"] == pytest.approx(lam)
        assert station["response_time"] == pytest.approx(1 / (mu - lam), rel=1e-12)
    first = brewput.solve(branched({"fork": branches(2), "join": "any"}, 2, lam))["classes"]["c"]
    assert first["exact"]  # min + max = T_1 + T_2, each branch M/M/1
    assert first["response_time"]["mean"] + both == pytest.approx(2 / (mu - lam), rel=1e-12)


def test_a_fork_of_more_branches_is_marked_approximate_within_its_exact_bounds():
    lam = 0.5
    result = brewput.solve(branched({"fork": branches(4)}, 4, lam))
    c = result["classes"]["c"]
    assert not c["exact"] and c["method"] == "nelson-tantawi"
    assert "approximate" in result["notes"][0] and "Nelson and Tantawi" in result["notes"][0]
    h4 = 1 + 1 / 2 + 1 / 3 + 1 / 4
    two = (12 - lam) / 8 / (1 - lam)
    assert two < c["response_time"]["mean"] < h4 / (1 - lam)  # the max of 2 <= R_4 <= K independent branches
    assert all(s["exact"] and s["response_time"] == pytest.approx(1 / (1 - lam)) for s in result["stations"].values())


def test_a_random_dispatch_is_routing_each_branch_its_own_mm1():
    step = {"dispatch": branches(2), "weights": {"b0": 0.7, "b1": 0.3}}
    result = brewput.solve(branched(step, 2, 1.0))
    response = 0.7 / (1 - 0.7) + 0.3 / (1 - 0.3)  # per branch M/M/1 at its share, weighted
    assert result["classes"]["c"]["exact"]
    assert result["classes"]["c"]["response_time"]["mean"] == pytest.approx(response, rel=1e-12)
    assert result["stations"]["s0"]["utilization"] == pytest.approx(0.7)


def erlang_gm1_chain(lam, mu, phases, states=400):
    """One station fed every `phases`-th arrival of a Poisson stream: the chain
    of (arrival phase, jobs present); its mean present over its rate (Little)."""
    index = {(k, n): k + phases * n for n in range(states) for k in range(phases)}
    q = np.zeros((len(index), len(index)))
    for (k, n), i in index.items():
        if k + 1 < phases:
            q[i, index[(k + 1, n)]] += lam
        elif n + 1 < states:
            q[i, index[(0, n + 1)]] += lam
        if n > 0:
            q[i, index[(k, n - 1)]] += mu
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    present = sum(p[i] * n for (k, n), i in index.items())
    return present / (lam / phases)


def test_round_robin_is_erlang_gaps_into_each_branch():
    lam = 1.4
    result = brewput.solve(branched({"dispatch": branches(2), "policy": "round_robin"}, 2, lam))
    c = result["classes"]["c"]
    assert c["exact"] and c["method"] == "erlang-gm1"
    assert c["response_time"]["mean"] == pytest.approx(erlang_gm1_chain(lam, 1.0, 2), rel=1e-9)
    assert result["stations"]["s1"]["utilization"] == pytest.approx(0.7)


def test_a_shared_queue_is_mmc_its_ties_going_to_the_first_free_branch():
    lam, c = 2.1, 3
    result = brewput.solve(branched({"dispatch": branches(c), "policy": "shared"}, c, lam))
    figures = result["classes"]["c"]
    mmc = queues.mmc(lam, 1.0, c)
    assert figures["exact"] and figures["response_time"]["mean"] == pytest.approx(mmc.response, rel=1e-12)
    assert figures["waiting_time"]["mean"] == pytest.approx(mmc.wait, rel=1e-12)
    # The response time of M/M/c FCFS: the wait (Erlang C's atom at 0, then exponential at c mu - lam)
    # plus an exponential service; its 99th percentile solves P(T > t) = 0.01.
    t, pw, a = figures["response_time"]["p99"], queues.erlang_c(c, lam), c - lam  # a != 1 here
    tail = (1 - pw) * math.exp(-t) + pw * (a * math.exp(-t) - math.exp(-a * t)) / (a - 1)
    assert tail == pytest.approx(0.01, rel=1e-6)
    # The chain of (busy servers, jobs waiting), truncated, written here: arrivals take the first idle.
    line = 300
    index = {}
    for busy in range(1 << c):
        for waiting in range(line if busy == (1 << c) - 1 else 1):
            index[(busy, waiting)] = len(index)
    q = np.zeros((len(index), len(index)))
    for (busy, waiting), i in index.items():
        full = busy == (1 << c) - 1
        if not full:
            first = next(k for k in range(c) if not busy >> k & 1)
            q[i, index[(busy | 1 << first, 0)]] += lam
        elif waiting + 1 < line:
            q[i, index[(busy, waiting + 1)]] += lam
        for k in range(c):
            if busy >> k & 1:
                q[i, index[(busy, waiting - 1) if full and waiting else (busy & ~(1 << k), 0)]] += 1.0
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    for k in range(c):
        truth = sum(p[i] for (busy, _), i in index.items() if busy >> k & 1)
        station = result["stations"][f"s{k}"]
        assert station["utilization"] == pytest.approx(truth, rel=1e-9) and station["exact"]
        assert station["throughput"] == pytest.approx(truth, rel=1e-9)  # one server of mean 1: busy = done
        assert station["response_time"] == pytest.approx(1.0, rel=1e-9)  # nobody waits at a branch
    assert result["stations"]["s0"]["utilization"] > result["stations"]["s2"]["utilization"]


def test_power_of_d_is_the_supermarket_limit_marked_approximate():
    lam, count = 3.2, 4
    result = brewput.solve(branched({"dispatch": branches(count), "policy": "power_of_d"}, count, lam))
    c, rho = result["classes"]["c"], lam / count
    per_station = sum(rho ** (2**i - 1) for i in range(1, 40))  # Mitzenmacher: P(>= i) = rho^(2^i - 1)
    assert not c["exact"] and "large-system limit" in result["notes"][0]
    assert c["response_time"]["mean"] == pytest.approx(per_station * count / lam, rel=1e-12)
    assert result["stations"]["s0"]["utilization"] == pytest.approx(rho)


def test_compare_sets_the_floors_figures_beside_the_simulations_intervals():
    from brewput.compare import compare_results

    given_up = brewput.solve(model({"s": {"servers": 2}}, {"c": {
        "rate": 2.0, "measures": {"all": ["arrived", "done"]},
        "route": [{"station": "s", "service": "exp(1)", "balk": 2}]}}))
    simulated = {"settings": {"replications": 5}, "stations": {"s": {}}, "classes": {"c": {
        "throughput": 1.5, "response_time": {}, "waiting_time": {},
        "loss_probability_by": {"full": 0.0, "balked": 0.2}, "loss_probability_by_ci": {"balked": [0.1, 0.3]},
        "measures": {"all": {"mean": 1.4, "mean_ci": [1.3, 1.5]}}}}}
    rows = {row.figure: row for row in compare_results(given_up, simulated)}
    balked = rows["c loss probability balked"]
    assert balked.analytic == given_up["classes"]["c"]["loss_probability_by"]["balked"] and balked.ci == pytest.approx((0.1, 0.3))
    assert rows["c loss probability full"].ci is None and "c loss probability reneged" not in rows
    measure = rows["c measure all mean"]
    assert measure.analytic == given_up["classes"]["c"]["response_time"]["mean"] and measure.ci == pytest.approx((1.3, 1.5))

    typed = brewput.solve(model({"bar": {"servers": {"espresso": 2, "drip": 1}}}, {
        "c": {"rate": 1.0, "route": [{"station": "bar", "service": "exp(1)"}]}}))
    simulated = {"settings": {"replications": 5}, "classes": {"c": {"response_time": {}, "waiting_time": {}}},
                 "stations": {"bar": {"server_types": {"drip": {"utilization": 0.3, "utilization_ci": [0.2, 0.4],
                                                                "served": {"c": 0.3}, "served_ci": {"c": [0.2, 0.4]}}}}}}
    rows = {row.figure: row for row in compare_results(typed, simulated)}
    assert rows["bar drip utilization"].analytic == pytest.approx(1 / 3) and rows["bar drip utilization"].inside
    assert rows["bar drip served c"].analytic == pytest.approx(1 / 3) and rows["bar drip served c"].inside
    assert "bar espresso utilization" not in rows  # nothing simulated to set it beside


@pytest.mark.parametrize("source", [{"rate": 0.8}, {"population": 6, "think": "exp(2)"}])
def test_a_random_dispatch_of_routes_is_the_same_network_written_with_next(source):
    stations = {"till": {}, "a1": {}, "a2": {"servers": 2}, "b1": {}}
    dispatched = model(stations, {"c": {**source, "route": [
        {"station": "till", "service": "exp(0.5)"},
        {"dispatch": {"a": [{"station": "a1", "service": "exp(0.4)"}, {"station": "a2", "service": "exp(1.5)"}],
                      "b": [{"station": "b1", "service": "exp(0.9)"}]}, "weights": {"a": 0.35, "b": 0.65}}]}})
    routed = model(stations, {"c": {**source, "route": [
        {"station": "till", "service": "exp(0.5)", "next": {"a": 0.35, "b": 0.65}},
        {"id": "a", "station": "a1", "service": "exp(0.4)"}, {"station": "a2", "service": "exp(1.5)", "next": "exit"},
        {"id": "b", "station": "b1", "service": "exp(0.9)"}]}})
    one, other = brewput.solve(dispatched), brewput.solve(routed)
    assert one["method"] == other["method"] and one["classes"]["c"]["exact"]
    assert one["classes"]["c"]["throughput"] == pytest.approx(other["classes"]["c"]["throughput"], rel=1e-12)
    assert one["classes"]["c"]["response_time"]["mean"] == pytest.approx(
        other["classes"]["c"]["response_time"]["mean"], rel=1e-12)
    for name in stations:
        assert one["stations"][name]["queue_length"] == pytest.approx(other["stations"][name]["queue_length"],
                                                                      rel=1e-12)


SIMULATED = {  # one model per feature the engine simulates, solved exactly here
    "balk-threshold": one_class({"servers": 2}, {"service": "exp(1)", "balk": 3}, 2.5),
    "balk-probabilities": one_class({"servers": 1, "buffer": 4}, {"service": "exp(1)", "balk": [0, 0.3, 0.6]}, 1.2),
    "patience": one_class({"servers": 3}, {"service": "exp(1)", "patience": "exp(2)"}, 3.5),
    "preempt-resume": model({"cpu": {"servers": 2, "discipline": "priority", "preempt": "resume"}}, {
        "hi": {"rate": 0.6, "priority": 1, "route": [{"station": "cpu", "service": "exp(1)"}]},
        "lo": {"rate": 0.8, "route": [{"station": "cpu", "service": "exp(1)"}]}}),
    "preempt-resume-mg1": model({"cpu": {"discipline": "priority", "preempt": "resume"}}, {
        "hi": {"rate": 0.3, "priority": 2, "route": [{"station": "cpu", "service": "erlang(3, 1)"}]},
        "lo": {"rate": 0.2, "route": [{"station": "cpu", "service": "uniform(0, 3)"}]}}),
    "preempt-restart": model({"cpu": {"discipline": "priority", "preempt": "restart"}}, {
        "hi": {"rate": 0.3, "priority": 1, "route": [{"station": "cpu", "service": "exp(1)"}]},
        "lo": {"rate": 0.4, "route": [{"station": "cpu", "service": "exp(1)"}]}}),
    "fork-join": branched({"fork": branches(2)}, 2, 0.6),
    "partial-join": branched({"fork": branches(2), "join": "any"}, 2, 0.6),
    "dispatch-random": branched({"dispatch": branches(2), "weights": {"b0": 0.7, "b1": 0.3}}, 2, 1.0),
    "dispatch-round-robin": branched({"dispatch": branches(2), "policy": "round_robin"}, 2, 1.4),
    "dispatch-shared": branched({"dispatch": branches(3), "policy": "shared"}, 3, 2.1),
    "closed-patience": model({"s": {"servers": 2}}, {"c": {
        "population": 8, "think": "exp(2)",
        "route": [{"station": "s", "service": "exp(1)", "balk": [0, 0.3], "patience": "exp(1.5)"}]}}),
    "typed-servers": model({"bar": {"servers": {"espresso": 2, "drip": 1}, "take": "first_fit"}}, {
        "latte": {"rate": 1.0, "route": [{"station": "bar", "service": "exp(1)", "served_by": ["espresso"]}]},
        "filter": {"rate": 1.5, "route": [{"station": "bar", "served_by": {"espresso": "exp(1)",
                                                                            "drip": "exp(0.5)"}}]}}),
    "measures": model({"s": {"servers": 2}}, {"c": {
        "rate": 1.6, "measures": {"all": ["arrived", "done"], "to_paid": ["arrived", "paid"]},
        "route": [{"station": "s", "service": "exp(1)", "patience": "exp(3)", "mark": "paid"}]}}),
}


@pytest.mark.parametrize("feature", sorted(SIMULATED))
def test_simulate_agrees_with_solve_within_its_99_percent_intervals(feature):
    from brewput.compare import compare_results

    m = SIMULATED[feature]
    rows = compare_results(brewput.solve(m), brewput.simulate(m, seed=11, customers=200_000, replications=5),
                           level=0.99)
    exact = [row for row in rows if row.exact and row.ci is not None]
    assert len(exact) >= 6, [row.figure for row in rows]
    outside = [(row.figure, row.analytic, row.ci) for row in exact if not row.inside]
    assert not outside


def floor_model(rng):
    """A random valid model around one station using the floor's features, often
    answerable, sometimes not, with rates and means over twelve decades."""
    def mean():
        return float(f"{10 ** rng.uniform(-4, 4):.3g}")

    def law():
        return rng.choice([f"exp({mean()})", f"exp({mean()})", f"erlang(2, {mean()})", f"const({mean()})"])

    kind = rng.choice(["give-up", "typed", "preempt", "fork", "dispatch"])
    count = rng.randint(2, 4)
    if kind in ("fork", "dispatch"):
        service = rng.choice(["exp(1)", "exp(1)", law()])
        step = {kind: {f"b{i}": [{"station": f"s{i}", "service": rng.choice([service] * 4 + [law()])}]
                       for i in range(count)}}
        if kind == "fork":
            step["join"] = rng.choice(["all", "all", "any", 1, count])
        else:
            step["policy"] = rng.choice(["random", "round_robin", "shared", "power_of_d", "shortest_queue"])
        stations = {f"s{i}": {"servers": rng.choice([1, 1, 1, 2])} for i in range(count)}
        return {"brewput": 1, "name": "fuzz", "stations": stations,
                "classes": {"c": {"rate": mean() / 100, "route": [step]}}}
    station = {"servers": rng.choice([1, 2, 7, 10_000_000])}
    if kind == "typed":
        station = {"servers": {f"t{i}": rng.choice([1, 2, 30]) for i in range(count)},
                   "take": rng.choice(["head", "first_fit"])}
    elif kind == "preempt":
        station.update(discipline="priority", preempt=rng.choice(["resume", "restart"]))
    if rng.random() < 0.2:
        station["buffer"] = rng.choice([0, 2, 1000])
    classes = {}
    service = rng.choice(["exp(1)", "exp(1)", law()])

    def giving_up():
        return rng.choice([{"balk": rng.choice([0, 1, 40])}, {"patience": rng.choice(["exp(2)", law()])},
                           {"balk": [round(rng.random(), 2) for _ in range(rng.randint(1, 5))]}])

    shared = giving_up()
    for c in range(rng.randint(1, 3)):
        step = {"station": "s", "service": rng.choice([service] * 4 + [law()])}
        if kind == "give-up":
            step.update(rng.choice([shared] * 4 + [giving_up()]))
        if kind == "typed" and rng.random() < 0.5:
            step["served_by"] = rng.sample(list(station["servers"]), rng.randint(1, count))
        source = ({"population": rng.choice([1, 5, 300]), "think": rng.choice(["exp(1)", law()])}
                  if rng.random() < 0.1 else {"rate": mean() / 10})
        classes[f"c{c}"] = {**source, "priority": rng.randint(0, 2), "route": [step]}
    return {"brewput": 1, "name": "fuzz", "stations": {"s": station}, "classes": classes}


@pytest.mark.parametrize("seed", range(3))
def test_random_floor_models_are_answered_in_finite_numbers_or_refused_in_one_error(seed):
    import json
    import random
    import warnings

    from brewput.errors import BrewputError

    rng = random.Random(seed)
    answered = refused = 0
    for _ in range(80):
        spec = floor_model(rng)
        try:
            m = Model.from_dict(spec)
        except BrewputError:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                result = brewput.solve(m)
            except BrewputError:
                refused += 1
                continue
            except Exception as e:  # noqa: BLE001 - the point: nothing else may escape
                pytest.fail(f"{type(e).__name__}: {e} on {json.dumps(spec)}")
        json.dumps(result, allow_nan=False)  # ValueError on any inf or nan
        answered += 1
    assert answered > 10 and refused > 10  # both kinds met
