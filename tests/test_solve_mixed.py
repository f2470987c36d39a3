"""Mixed networks (brewput.analytic.mixed): the standard reduction against a hand
computation, Erlang C, and a Markov chain of open and closed customers together
(the open count truncated far beyond any probability that matters)."""

import numpy as np
import pytest

import brewput
import theory
from brewput.errors import BrewputError
from brewput.analytic.mixed import solve_mixed
from brewput.analytic.network import network_of


def model(stations, web, batch, web_rate=0.1, users=3):
    """An open class `web` and a closed class `batch` (think exp(10)), each on a route of
    (station, mean exponential service) steps."""
    return network_of(brewput.Model.from_dict({
        "brewput": 1, "name": "mixed", "stations": stations,
        "classes": {
            "web": {"rate": web_rate, "route": [{"station": s, "service": f"exp({t})"} for s, t in web]},
            "batch": {"population": users, "think": "exp(10)",
                      "route": [{"station": s, "service": f"exp({t})"} for s, t in batch]},
        }}))


def test_one_open_and_one_closed_class_by_hand():
    # Open web (0.1/s) and 3 closed batch jobs (think 10) both take exp(2) at cpu and at disk.
    # The open load U = 0.1 x 2 = 0.2 at each stretches batch's demands to 2 / 0.8 = 2.5:
    #   n = 1: R = (2.5, 2.5)              X = 1 / 15     Q = (1/6, 1/6)
    #   n = 2: R = 2.5 x 7/6 = 35/12 each  X = 12/95      Q = 7/19 each
    #   n = 3: R = 2.5 x 26/19 = 65/19     X = 57/320     Q = 195/320 each
    # An open customer then finds 195/320 batch jobs at each: R = 2 (1 + 195/320) / 0.8 = 4.0234375.
    net = model({"cpu": {}, "disk": {}}, [("cpu", 2), ("disk", 2)], [("cpu", 2), ("disk", 2)])
    sol = solve_mixed(net)
    assert sol.method == "mixed-mva-exact" and sol.exact_class.all() and sol.exact_station.all()
    np.testing.assert_allclose(sol.throughput, [0.1, 57 / 320], rtol=1e-14)
    np.testing.assert_allclose(sol.residence_time, [[4.0234375] * 2, [65 / 19] * 2], rtol=1e-14)
    np.testing.assert_allclose(sol.queue_length, [[0.40234375] * 2, [195 / 320] * 2], rtol=1e-14)
    np.testing.assert_allclose(sol.response_time, [8.046875, 130 / 19], rtol=1e-14)
    np.testing.assert_allclose(sol.utilization, [[0.2, 0.2], [57 / 160, 57 / 160]], rtol=1e-14)


def test_a_multiserver_station_of_the_open_class_alone_is_erlang_c():
    net = model({"cpu": {}, "pool": {"servers": 3}}, [("cpu", 2), ("pool", 4)], [("cpu", 2)])
    sol = solve_mixed(net)
    assert sol.exact_class.all() and sol.station_method[1] == "erlang-c"
    assert sol.residence_time[0, 1] == pytest.approx(theory.mmc_response_mean(0.1, 0.25, 3), rel=1e-12)
    assert sol.queue_length[1, 1] == 0


def mixed_chain(lam, open_rate, closed_rate, servers, users, think, most=80):
    """Open customers (Poisson lam) visit station 0 once; `users` closed customers
    think (mean `think`), then visit station 0 and station 1 in turn. Station k has
    servers[k], shared by processor sharing; rates are per customer. The open count
    stops at `most`. Returns (open customers at 0, closed throughput, closed
    customers at stations 0 and 1)."""
    states = [(j, a, b) for j in range(most + 1) for a in range(users + 1) for b in range(users + 1 - a)]
    index = {s: i for i, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for i, (j, a, b) in enumerate(states):
        share0 = min(1.0, servers[0] / (j + a)) if j + a else 0.0
        share1 = min(1.0, servers[1] / b) if b else 0.0
        moves = [((j + 1, a, b), lam if j < most else 0.0),
                 ((j - 1, a, b), open_rate * j * share0),
                 ((j, a + 1, b), (users - a - b) / think),
                 ((j, a - 1, b + 1), closed_rate[0] * a * share0),
                 ((j, a, b - 1), closed_rate[1] * b * share1)]
        for target, rate in moves:
            if rate > 0:
                q[i, index[target]] += rate
    np.fill_diagonal(q, -q.sum(axis=1))
    pi = np.linalg.lstsq(np.vstack([q.T, np.ones(len(states))]), np.r_[np.zeros(len(states)), 1.0],
                         rcond=None)[0]
    s = np.array(states, dtype=float)
    return pi @ s[:, 0], pi @ (users - s[:, 1] - s[:, 2]) / think, pi @ s[:, 1], pi @ s[:, 2]


def test_a_multiserver_station_of_the_closed_class_alone_is_exact_vs_chain():
    # web (0.3/s) at cpu exp(1); batch (2 users) at cpu exp(1.5), then at a 2-server pool exp(4).
    net = model({"cpu": {"discipline": "ps"}, "pool": {"servers": 2}}, [("cpu", 1)],
                [("cpu", 1.5), ("pool", 4)], web_rate=0.3, users=2)
    sol = solve_mixed(net)
    assert sol.method == "mixed-convolution" and sol.exact_class.all() and sol.exact_station.all()
    web_at_cpu, x, batch_at_cpu, batch_at_pool = mixed_chain(0.3, 1.0, [1 / 1.5, 1 / 4], [1, 2], 2, 10.0)
    assert sol.throughput[1] == pytest.approx(x, rel=1e-9)
    np.testing.assert_allclose(sol.queue_length[1], [batch_at_cpu, batch_at_pool], rtol=1e-9)
    assert sol.queue_length[0, 0] == pytest.approx(web_at_cpu, rel=1e-9)


def test_a_multiserver_station_both_share_is_seidmann_and_marked():
    net = model({"pool": {"servers": 2}, "disk": {}}, [("pool", 3)], [("pool", 3), ("disk", 2)],
                web_rate=0.2, users=2)
    sol = solve_mixed(net)
    assert sol.station_method[0] == "seidmann" and not sol.exact_station[0] and not sol.exact_class.any()
    assert any("Seidmann" in note for note in sol.notes)
    web_at_pool, x, _, _ = mixed_chain(0.2, 1 / 3, [1 / 3, 1 / 2], [2, 1], 2, 10.0)
    assert sol.throughput[1] == pytest.approx(x, rel=0.1)
    assert sol.queue_length[0, 0] == pytest.approx(web_at_pool, rel=0.2)


def test_open_load_of_one_or_more_is_unstable():
    net = model({"cpu": {}}, [("cpu", 10)], [("cpu", 1)], web_rate=0.1)
    with pytest.raises(BrewputError, match=r"^station cpu: the open classes alone load it to 1 >= 1"):
        solve_mixed(net)


def test_not_product_form_is_marked():
    net = network_of(brewput.Model.from_dict({
        "brewput": 1, "name": "mixed", "stations": {"cpu": {}},
        "classes": {"web": {"rate": 0.1, "route": [{"station": "cpu", "service": 2}]},
                    "batch": {"population": 2, "think": 5, "route": [{"station": "cpu", "service": 2}]}}}))
    sol = solve_mixed(net)
    assert not sol.exact_class.any() and "not product-form" in sol.notes[0]


def test_every_method_applies_to_the_closed_classes():
    net = model({"cpu": {}, "disk": {}}, [("cpu", 2), ("disk", 2)], [("cpu", 2), ("disk", 2)])
    exact = solve_mixed(net)
    for method in ("bard-schweitzer", "linearizer"):
        sol = solve_mixed(net, method)
        assert sol.method == f"mixed-{method}" and not sol.exact_class.any()
        np.testing.assert_allclose(sol.throughput, exact.throughput, rtol=0.05)
