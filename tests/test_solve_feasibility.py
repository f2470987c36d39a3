"""Runs that could never end (brewput.analytic.feasibility), and solve at the
edges of what a double holds: bounds worked by hand and checked against the
simulator's counts, refusals before the engine runs, and answers that scale
exactly with the time unit."""
import math

import pytest

import brewput
from brewput.analytic.feasibility import check_run_ends, most_throughput, zero_time_class
from brewput.cli.common import option_name
from brewput.errors import BrewputError, OptionError


def model(stations, classes, resources=None):
    return brewput.Model.from_dict({"brewput": 1, "name": "m", "stations": stations, "classes": classes,
                                    **({"resources": resources} if resources else {})})


CENTRAL = model(
    {"cpu": {"servers": 2}, "disk": {}, "desk": {"servers": "inf"}},
    {"user": {"population": 10, "think": "exp(5)", "route": [
        {"id": "cpu", "station": "cpu", "service": "exp(0.5)", "next": {"disk": 0.8, "exit": 0.2}},
        {"id": "disk", "station": "disk", "service": "exp(0.25)", "next": "cpu"}]},
     "batch": {"rate": 0.1, "route": [{"station": "desk", "service": 3}]}})


def test_most_throughput_by_hand():
    # user: 5 cpu visits x 0.5 on 2 servers (1.25 each), 4 disk visits x 0.25 (1 per
    # customer on one server), cycle 5 + 2.5 + 1 = 8.5: min(10 / 8.5, 2 / 2.5, 1 / 1) = 0.8.
    assert most_throughput(CENTRAL) == pytest.approx({"user": 0.8, "batch": 0.1}, rel=1e-12)


def test_resources_bound_a_class_too():
    m = model({"s": {"servers": 8}}, {"c": {"population": 100, "route": [
        {"station": "s", "service": 2, "uses": ["cpu"]}]}}, resources={"cpu": 3})
    assert most_throughput(m) == pytest.approx({"c": 1.5}, rel=1e-12)  # 3 tokens / 2


def test_a_horizon_run_completes_no_more_than_the_bound():
    # The bound is on the mean rate: an open class's arrivals are its rate (within
    # the interval), a closed class's completions are below its bound.
    run = brewput.simulate(CENTRAL, horizon=20_000, warmup=0, replications=4, seed=4)["classes"]
    bound = most_throughput(CENTRAL)
    assert run["batch"]["throughput_ci"][0] <= bound["batch"] <= run["batch"]["throughput_ci"][1]
    assert run["user"]["throughput_ci"][1] <= bound["user"]


def test_zero_time_classes():
    assert zero_time_class(CENTRAL) is None
    zero = model({"s": {"servers": 1}}, {
        "fine": {"population": 2, "route": [{"station": "s", "service": 1}]},
        "spin": {"population": 2, "think": "empirical([0, 0])", "route": [{"station": "s", "service": 0}]}})
    assert zero_time_class(zero) == "spin"
    with pytest.raises(BrewputError, match=r"^m: classes.spin: its think and every service take no time"):
        check_run_ends(zero, None, None, 100)
    with pytest.raises(BrewputError, match=r"^m: classes.spin: "):
        brewput.solve(zero)


@pytest.mark.parametrize("horizon, warmup, field", [(5e9, 0.0, "horizon"), (10.0, 5e9, "warmup")])
def test_horizon_runs_beyond_the_count_are_refused_naming_the_field(horizon, warmup, field):
    with pytest.raises(OptionError, match=rf"^{field}: .* up to 4.5e\+09 customers per replication \(class "
                                          rf"user alone up to 0.8 per time unit\), beyond the 4,000,000,000 .*; "
                                          rf"shorten {field}$") as e:
        brewput.simulate(CENTRAL, horizon=horizon, warmup=warmup)
    assert e.value.fields == (field,)
    assert e.value.worded(option_name).startswith(f"--{field}: ")
    assert e.value.worded(option_name).endswith(f"; shorten --{field}")
    check_run_ends(CENTRAL, 4.4e9, 0.0, 4 * 10**9)  # just within


# ---- solve at the edges ---------------------------------------------------------------

def one_station(servers, rate, service, buffer=None):
    station = {"servers": servers, **({"buffer": buffer} if buffer is not None else {})}
    return model({"s": station}, {"c": {"rate": rate, "route": [{"station": "s", "service": service}]}})


@pytest.mark.parametrize("scale", [1e-11, 1e11])  # within the model language's bounds
@pytest.mark.parametrize("servers, rate, service, buffer", [
    (1, 0.9, "exp(1)", None), (3, 2.5, "gamma(1, 0.5)", None), (1, 0.9, 1, 4), (2, 3.0, "exp(1)", 2),
    (1, 0.5, "uniform(0.5, 1.5)", 6)])
def test_answers_scale_exactly_with_the_time_unit(scale, servers, rate, service, buffer):
    # Times x scale and rates / scale: the same queue in another unit.
    scaled = service * scale if isinstance(service, (int, float)) else service.replace(
        "(1", f"({scale:g}").replace("(0.5, 1.5)", f"({0.5 * scale:g}, {1.5 * scale:g})")
    base = brewput.solve(one_station(servers, rate, service, buffer))["classes"]["c"]
    other = brewput.solve(one_station(servers, rate / scale, scaled, buffer))["classes"]["c"]
    assert other["response_time"]["mean"] == pytest.approx(base["response_time"]["mean"] * scale, rel=1e-9)
    assert other["throughput"] == pytest.approx(base["throughput"] / scale, rel=1e-9)
    assert other.get("loss_probability", 0.0) == pytest.approx(base.get("loss_probability", 0.0), rel=1e-9)


def test_ten_million_servers_near_saturation_stay_finite_and_exact():
    # M/M/c at a = c - 1: C from the Erlang B recursion; the wait C s / (c - a) = C.
    res = brewput.solve(one_station(10_000_000, 9_999_999, "exp(1)"))["classes"]["c"]
    assert math.isfinite(res["response_time"]["mean"]) and res["exact"]
    from brewput.analytic.queues import erlang_c
    assert res["waiting_time"]["mean"] == pytest.approx(erlang_c(10_000_000, 9_999_999.0), rel=1e-12)
    assert 0 < res["waiting_time"]["mean"] < 1


def test_utilization_a_rounding_below_one_is_answered():
    # lam s = 1 - 2^-53 x 2: W = s / (1 - rho), finite and huge, not inf.
    res = brewput.solve(one_station(1, 0.9999999999999998, "exp(1)"))["classes"]["c"]
    assert res["response_time"]["mean"] == pytest.approx(1 / (1 - 0.9999999999999998), rel=1e-9)


def test_approximations_never_ask_a_station_for_more_than_its_servers():
    # Seidmann's stand-in near saturation overshot c / S by 5e-10 before the scaling.
    m = model({"s": {"servers": 5_000_000}}, {"c": {"population": 10_000_000, "route": [
        {"station": "s", "service": "exp(1)"}]}})
    res = brewput.solve(m, method="linearizer")
    c, s = res["classes"]["c"], res["stations"]["s"]
    assert s["utilization"] <= 1 + 1e-15 and c["throughput"] <= 5_000_000 * (1 + 1e-15)
    assert not c["exact"]
