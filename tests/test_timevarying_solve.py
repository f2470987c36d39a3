"""brewput solve on a model with a day: the per-interval answers are the solvers' own,
each method named and marked, and what it cannot solve is refused in one line."""
import subprocess
import sys

import numpy as np
import pytest
import yaml

import brewput
from brewput.analytic.abandonment import erlang_a
from brewput.analytic.timevarying.offered_load import mean_present
from brewput.analytic.timevarying.stationary_approximations import approximate
from brewput.analytic.timevarying.transient import solve_transient
from brewput.errors import BrewputError
from brewput.model.distributions import Exp
from brewput.model.timeline import Day, Steps

RATES = [0.5, 1.0, 2.2, 1.6, 0.8, 0.5]
ROTA = [2, 3, 5, 4, 2, 2]
COFFEE = {
    "brewput": 1, "name": "morning", "time_unit": "min",
    "day": {"start": "07:00", "length": "90min", "interval": "15min", "at_start": {"bar": 3}},
    "stations": {"bar": {"servers": ROTA, "off_shift": "resume"}},
    "classes": {"customer": {"rate": RATES, "route": [{"station": "bar", "service": "exp(2)",
                                                       "patience": "exp(5)"}]}},
}


def test_solve_answers_per_interval_with_the_exact_transient():
    res = brewput.solve(COFFEE, within=[1.0])
    day = Day(90, 15, "07:00", time_unit="min")
    truth = solve_transient(Steps(day.edges, RATES), 2.0, day.rota(ROTA), patience=5.0, at_start=3, targets=[1.0])
    assert [i["label"] for i in res["intervals"]] == ["07:00", "07:15", "07:30", "07:45", "08:00", "08:15"]
    for i, interval in enumerate(res["intervals"]):
        customer, bar = interval["classes"]["customer"], interval["stations"]["bar"]
        # Arrivals before the rota's last fall (08:00) may be handed back to wait again,
        # which the transient does not time; the numbers present stay exact.
        assert customer["exact"] is (i >= 4) and bar["exact"] is True and customer["method"] == "transient"
        assert customer["waiting_time"]["mean"] == truth.mean_wait[i]
        assert customer["waiting_time"]["within"] == [[1.0, truth.service_level[1.0][i]]]
        assert customer["abandonment"] == truth.abandoned[i]
        assert customer["arrivals"] == pytest.approx(RATES[i] * 15)
        assert bar["servers"] == ROTA[i] and bar["waiting"] == truth.mean_in_queue[i]


@pytest.mark.parametrize("method, name", [("sipp", "sipp"), ("lag-sipp", "lag-sipp"), ("psa", "psa"),
                                          ("mol", "mol")])
def test_each_approximation_is_named_and_marked(method, name):
    res = brewput.solve(COFFEE, method=method)
    day = Day(90, 15, "07:00", time_unit="min")
    truth = approximate(name, Steps(day.edges, RATES), 2.0, day.rota(ROTA), patience=5.0)
    assert res["method"] == name
    for i, interval in enumerate(res["intervals"]):
        assert interval["classes"]["customer"]["exact"] is False
        assert interval["classes"]["customer"]["waiting_time"]["mean"] == truth.mean_wait[i]
    assert any("ignores the 3 jobs present at the start" in note for note in res["notes"])


def test_a_steady_day_gives_erlang_a():
    steady = dict(COFFEE, day={"length": "10h", "interval": "1h"},
                  stations={"bar": {"servers": 4}},
                  classes={"customer": {"rate": 3.5, "route": [{"station": "bar", "service": "exp(1.5)",
                                                                "patience": "exp(2)"}]}})
    last = brewput.solve(steady)["intervals"][-1]
    assert last["classes"]["customer"]["waiting_time"]["mean"] == pytest.approx(
        erlang_a(3.5, 1.5, 4, 2.0).mean_wait_served, rel=1e-7)


def test_a_delay_station_is_the_offered_load():
    delay = dict(COFFEE, stations={"bar": {"servers": "inf"}},
                 classes={"customer": {"rate": RATES, "route": [{"station": "bar", "service": "exp(2)"}]}})
    res = brewput.solve(delay)
    day = Day(90, 15, time_unit="min")
    present = mean_present(Steps(day.edges, RATES), Exp(2.0), day.edges, at_start=3)
    got = [i["stations"]["bar"]["queue_length"] for i in res["intervals"]]
    assert np.allclose(got, present, rtol=1e-12)
    assert res["intervals"][0]["classes"]["customer"]["method"] == "offered-load"


def test_what_solve_cannot_take_through_a_day_is_one_line(tmp_path):
    shared = dict(COFFEE, classes={
        "a": {"rate": RATES, "route": [{"station": "bar", "service": "exp(2)"}]},
        "b": {"rate": 1.0, "route": [{"station": "bar", "service": "exp(3)"}]}})
    with pytest.raises(BrewputError, match="classes a and b share station 'bar' with different service or patience"):
        brewput.solve(shared)
    not_exponential = dict(COFFEE, classes={"customer": {"rate": RATES, "route": [
        {"station": "bar", "service": "const(2)"}]}})
    path = tmp_path / "const.yaml"
    path.write_text(yaml.safe_dump(not_exponential))
    done = subprocess.run([sys.executable, "-m", "brewput", "solve", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "exponential service" in done.stderr
    with pytest.raises(BrewputError, match="a day is solved by one of"):
        brewput.solve(COFFEE, method="mva")


def test_compare_sets_every_method_side_by_side_per_interval(tmp_path):
    path = tmp_path / "morning.yaml"
    path.write_text(yaml.safe_dump(COFFEE))
    done = subprocess.run([sys.executable, "-m", "brewput", "compare", str(path), "--within", "1", "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    import json

    both = json.loads(done.stdout)
    assert list(both["solve"]) == ["transient", "psa", "sipp", "lag-sipp", "mol"]
    exact = both["solve"]["transient"]["intervals"]
    alone = brewput.solve(COFFEE)["intervals"][2]["classes"]["customer"]["waiting_time"]["mean"]
    # asking P(wait <= 1) cuts the quadrature at 1 before each change: the same to 1e-6
    assert exact[2]["classes"]["customer"]["waiting_time"]["mean"] == pytest.approx(alone, rel=1e-6)
    shown = subprocess.run([sys.executable, "-m", "brewput", "compare", str(path)], capture_output=True, text=True)
    assert shown.returncode == 0 and "sipp ≈" in shown.stdout and "07:30" in shown.stdout


def test_a_curve_on_a_repeating_day_is_the_transients_periodic_answer():
    from brewput.model.timeline import Curve

    curve = dict(COFFEE, day={"length": "2h", "interval": "30min", "repeat": True},
                 stations={"bar": {"servers": [3, 4, 4, 3], "off_shift": "resume"}},
                 classes={"customer": {"rate": {"curve": "1 + 0.5*sin(2*pi*t/2h)"}, "route": [
                     {"station": "bar", "service": "exp(2)", "patience": "exp(5)"}]}})
    res = brewput.solve(curve)
    day = Day(120, 30, repeat=True, time_unit="min")
    truth = solve_transient(Curve("1 + 0.5*sin(2*pi*t/120)", 120, repeat=True), 2.0, day.rota([3, 4, 4, 3]),
                            patience=5.0)
    got = [i["classes"]["customer"]["waiting_time"]["mean"] for i in res["intervals"]]
    assert got == truth.mean_wait.tolist()
    # periodic: the state at the day's end is the state at its start
    law = truth.details["law_at_edges"]
    assert np.allclose(law[:, 0], law[:, -1], atol=1e-9)


def test_classes_sharing_a_station_are_one_stream_with_their_own_arrivals():
    from brewput.model.timeline import Constant, Total

    shared = dict(COFFEE, classes={
        "a": {"rate": RATES, "route": [{"station": "bar", "service": "exp(2)", "patience": "exp(5)"}]},
        "b": {"rate": 0.25, "route": [{"station": "bar", "service": "exp(2)", "patience": "exp(5)"}]}})
    res = brewput.solve(shared)
    day = Day(90, 15, "07:00", time_unit="min")
    both = Total([Steps(day.edges, RATES), Constant(0.25, length=90)])
    truth = solve_transient(both, 2.0, day.rota(ROTA), patience=5.0, at_start=3)
    for i, interval in enumerate(res["intervals"]):
        a, b = interval["classes"]["a"], interval["classes"]["b"]
        assert a["waiting_time"]["mean"] == b["waiting_time"]["mean"] == truth.mean_wait[i]
        assert a["arrivals"] == pytest.approx(RATES[i] * 15) and b["arrivals"] == pytest.approx(0.25 * 15)
        assert interval["stations"]["bar"]["waiting"] == truth.mean_in_queue[i]


def test_nobody_gives_up_without_patience_exactly():
    # 1 - served / arrived read -2.2e-14 here (rounding): shown as a share who gave up
    day = {"brewput": 1, "name": "rush", "time_unit": "min",
           "day": {"start": "08:00", "length": "60min", "interval": "15min"},
           "stations": {"bar": {"servers": [1, 1, 1, 1]}},
           "classes": {"customer": {"rate": [0.5, 2.0, 0.5, 0.5], "route": [{"station": "bar", "service": "exp(5)"}]}}}
    res = brewput.solve(day)
    assert [i["classes"]["customer"]["abandonment"] for i in res["intervals"]] == [0.0] * 4
    assert res["classes"]["customer"]["abandoned"] == 0.0
