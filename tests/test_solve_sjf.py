"""M/G/1 shortest job first (brewput.analytic.sjf) against independent truths:
Cobham's priority formula (queues.priority_waits) when the sizes are a few
atoms, the size-conditioned wait integrated over the service density in x
(not in quantiles), and the simulator's 95 % intervals."""
import math

import numpy as np
import pytest
from scipy import integrate, special

import brewput
from brewput.analytic import queues
from brewput.analytic.network import Unsupported, network_of
from brewput.analytic.open import solve_open


def sjf_station(classes, servers=1, **station):
    return brewput.Model.from_dict({
        "brewput": 1, "name": "sjf", "stations": {"s": {"servers": servers, "discipline": "sjf", **station}},
        "classes": {name: {"rate": rate, "route": [{"station": "s", "service": service}]}
                    for name, (rate, service) in classes.items()}})


def test_two_constant_sizes_are_two_priority_levels_by_hand():
    # W0 = (0.3 x 1 + 0.1 x 9) / 2 = 0.6; short jobs: 0.6 / (1 x 0.7); long: 0.6 / (0.7 x 0.4).
    sol = solve_open(network_of(sjf_station({"a": (0.3, 1), "b": (0.1, 3)})))
    assert sol.response_time == pytest.approx([1 + 0.6 / 0.7, 3 + 0.6 / 0.28], rel=1e-12)
    assert sol.station_method == ["sjf"] and sol.exact_class.all()


def test_empirical_sizes_are_cobham_levels():
    # One class of sizes 0.5, 1, 2 (equally likely) at rate 0.5: three priority levels.
    lam, sizes = 0.5, np.array([0.5, 1.0, 2.0])
    loads = lam / 3 * sizes
    w0 = lam * np.mean(sizes**2) / 2
    fcfs = w0 / (1 - loads.sum())  # Cobham's function takes the FCFS wait: W0 / (1 - rho)
    waits = queues.priority_waits(fcfs, loads, -sizes)  # shorter first
    sol = solve_open(network_of(sjf_station({"c": (lam, "empirical([0.5, 1, 2])")})))
    assert sol.response_time[0] == pytest.approx(np.mean(waits) + sizes.mean(), rel=1e-12)


@pytest.mark.parametrize("service, rate, density, partial", [
    ("exp(1)", 0.8, lambda x: math.exp(-x), lambda x: 1 - math.exp(-x) * (1 + x)),
    ("erlang(3, 1)", 0.7, lambda x: 27 * x * x * math.exp(-3 * x) / 2, lambda x: special.gammainc(4, 3 * x)),
    ("uniform(0.5, 1.5)", 0.9, lambda x: 1.0 if 0.5 <= x <= 1.5 else 0.0,
     lambda x: (min(max(x, 0.5), 1.5) ** 2 - 0.25) / 2)])
def test_densities_match_the_conditional_wait_integrated_in_x(service, rate, density, partial):
    sol = solve_open(network_of(sjf_station({"c": (rate, service)})))
    model = sjf_station({"c": (rate, service)})
    dist = model.classes["c"].route[0].service
    w0 = rate * dist.mean**2 * (1 + dist.scv) / 2
    wait = integrate.quad(lambda x: density(x) * w0 / (1 - rate * partial(x)) ** 2, 0, 60, epsabs=0,
                          epsrel=1e-12, limit=500, points=[0.5, 1.5])[0]
    assert sol.response_time[0] == pytest.approx(wait + dist.mean, rel=1e-9)
    assert sol.exact_class.all()


@pytest.mark.parametrize("classes", [
    {"c": (0.8, "exp(1)")},
    {"a": (0.3, "hyperexp(1, 3)"), "b": (0.2, "lognormal(1, 0.5)")},
    {"a": (0.4, "normal(1, 0.5)"), "b": (0.3, 1)},
    {"a": (0.3, "empirical([" + ", ".join(f"{0.1 + 0.037 * i:.3f}" for i in range(50)) + "])"), "b": (0.2, "exp(1)")}])
def test_the_simulator_agrees_within_its_interval(classes):
    model = sjf_station(classes)
    solved = brewput.solve(model)
    simulated = brewput.simulate(model, customers=2_000_000, replications=10, seed=1)
    for name in classes:
        value, ci = solved["classes"][name]["response_time"]["mean"], simulated["classes"][name]["response_time"]["mean_ci"]
        assert ci[0] <= value <= ci[1], (name, value, ci)
        assert solved["classes"][name]["exact"]


@pytest.mark.parametrize("model, where", [
    (sjf_station({"c": (0.5, "exp(1)")}, servers=2), "with more than one server"),
    (sjf_station({"c": (0.5, "exp(1)")}, buffer=3), "with a finite buffer"),
    (brewput.Model.from_dict({"brewput": 1, "name": "sjf", "stations": {"s": {"discipline": "sjf"}, "t": {}},
                              "classes": {"c": {"rate": 0.2, "route": [{"station": "s", "service": 1},
                                                                       {"station": "t", "service": 1}]}}}),
     "inside a network"),
])
def test_sjf_elsewhere_is_refused_saying_where(model, where):
    with pytest.raises(Unsupported, match=f"^station s: shortest job first \\(sjf\\) {where} has no analytic"):
        solve_open(network_of(model))
