"""Bounds (brewput.analytic.bounds): they must contain the exact solution (itself
checked against Markov chains in test_solve_closed.py) at every population."""
import math

import pytest

import brewput
from brewput.analytic.bounds import class_bounds, network_bounds
from brewput.analytic.closed import solve_closed
from brewput.analytic.network import network_of
from conftest import EXAMPLES
from test_solve_closed import network

SLACK = 1e-12  # floating point

NETWORKS = {
    "central-server": ([20.0, 18.0, 15.0], [1, 1, 1], 100.0),
    "no-think": ([1.0, 2.0, 0.5, 2.0], [1, 1, 1, 1], 0.0),
    "delay-station": ([0.3, 1.0, 4.0], [1, 1, math.inf], 2.0),
    "one-queue": ([1.0], [1], 5.0),
}


def within(interval, value):
    low, high = interval
    return (low is None or low <= value * (1 + SLACK)) and (high is None or value <= high * (1 + SLACK))


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_bounds_contain_exact_mva(name):
    demand, servers, think = NETWORKS[name]
    for n in range(1, 51):
        net = network([demand], servers, [think], [n])
        exact = solve_closed(net, "mva-exact")
        x, r = exact.throughput[0], exact.response_time[0]
        b = class_bounds(net, 0)
        assert within(b.throughput, x) and within(b.response_time, r), n
        assert within(b.balanced_throughput, x) and within(b.balanced_response_time, r), n
        # balanced job bounds are the tighter ones
        assert b.balanced_throughput[0] >= b.throughput[0] * (1 - SLACK)
        assert b.balanced_throughput[1] <= b.throughput[1] * (1 + SLACK)


def test_asymptotic_bounds_contain_a_multiserver_network():
    for n in range(1, 51):
        net = network([[4.0, 1.0]], [3, 1], [6.0], [n])
        x = solve_closed(net, "convolution").throughput[0]
        b = class_bounds(net, 0)
        assert within(b.throughput, x), n
        assert b.balanced_throughput is None  # balanced job bounds assume single servers
    assert b.bottleneck == "s0" and b.max_demand == pytest.approx(4 / 3) and b.max_throughput == 0.75


def test_central_server_example():
    (name, figures), = network_bounds(network_of(brewput.load(EXAMPLES / "central-server.yaml"))).items()
    assert name == "job" and figures["bottleneck"] == "cpu"
    assert figures["max_demand"] == 20.0 and figures["demand"] == 53.0 and figures["delay"] == 100.0
    assert figures["max_throughput"] == 0.05
    assert figures["saturation_population"] == pytest.approx(153 / 20)  # (D + Z) / D_max
    assert figures["throughput"] == (10 / 630, 0.05)  # N / (N D + Z), min(N / (D + Z), 1 / D_max)


def test_open_class_bottleneck_and_most_arrivals():
    b = network_bounds(network_of(brewput.load(EXAMPLES / "mmc.yaml")))["customer"]
    assert b["bottleneck"] == "desk" and b["max_throughput"] == pytest.approx(3.0)
    assert b["saturation_population"] is None and b["throughput"] is None


def test_several_classes_keep_only_the_bounds_that_stay_true():
    net = network([[1.0, 0.5], [0.2, 2.0]], [1, 1], [3.0, 1.0], [4, 6])
    exact = solve_closed(net)
    for r in range(2):
        b = class_bounds(net, r)
        assert b.throughput[0] is None and b.response_time[1] is None and b.balanced_throughput is None
        assert within(b.throughput, exact.throughput[r]) and within(b.response_time, exact.response_time[r])


def test_a_class_at_delay_stations_only_has_no_bounds():
    net = network([[1.0, 0.0], [0.0, 2.0]], [math.inf, 1], [1.0, 1.0], [2, 2])
    assert class_bounds(net, 0) is None and list(network_bounds(net)) == ["c1"]


def test_a_class_at_typed_servers_is_bounded_by_the_servers_it_may_use():
    # Espresso drinks (1 min) only on the 2 espresso machines: at most 2 a minute, not
    # 3 (every server). Drip (0.3 min) on the drip station or any machine: 3 servers.
    model = brewput.Model.from_dict({
        "brewput": 1, "stations": {"bar": {"servers": {"espresso_machine": 2, "drip_station": 1}}},
        "classes": {
            "espresso": {"rate": 1, "route": [{"station": "bar", "service": "exp(1)",
                                                "served_by": ["espresso_machine"]}]},
            "drip": {"rate": 1, "route": [{"station": "bar", "service": "exp(0.3)"}]}}})
    bounds = network_bounds(network_of(model))
    assert bounds["espresso"]["max_throughput"] == pytest.approx(2.0)
    assert bounds["drip"]["max_throughput"] == pytest.approx(3 / 0.3)


FORKING = """\
brewput: 1
time_unit: s
stations:
  a: {servers: 1}
  b: {servers: 1}
classes:
  job:
    population: 1
    think: exp(1)
    route:
      - fork:
          left: [{station: a, service: exp(1)}]
          right: [{station: b, service: exp(1)}]
"""


def test_a_forking_class_is_bounded_by_its_bottleneck_only(tmp_path):
    """One customer thinks exp(1), then two exp(1) branches at once: a cycle of
    1 + E[max of two exp(1)] = 2.5, so X = 0.4, above the serial N / (D + Z) = 1/3
    that bounds a class whose steps run one after another."""
    from brewput.experiment.bounds import model_bounds

    path = tmp_path / "fork.yaml"
    path.write_text(FORKING)
    model = brewput.load(path)
    (bounds,) = model_bounds(model).values()
    assert bounds["max_throughput"] == 1.0 and bounds["bottleneck"] == "a"
    assert bounds["throughput"] is None and bounds["response_time"] is None
    assert bounds["saturation_population"] is None
    simulated = brewput.simulate(model, seed=2, customers=100_000, replications=5)["classes"]["job"]
    low, high = simulated["throughput_ci"]
    assert low < 0.4 < high and high < bounds["max_throughput"]
