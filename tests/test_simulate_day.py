"""simulate on a day (docs/model-language.md "Time", docs/results.md "Intervals"):
non-stationary arrivals, rotas and off_shift, figures per interval, each
against a truth computed here."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

import brewput
from brewput.errors import OptionError
from brewput.model import Model
from brewput.model.timeline import Linear


def day_model(day, stations, classes, time_unit="min"):
    return Model.from_dict({"brewput": 1, "name": "day", "time_unit": time_unit, "day": day,
                            "stations": stations, "classes": classes})


def interval_figure(res, kind, name, figure):
    return np.array([i[kind][name][figure] for i in res["intervals"]])


def test_thinned_arrivals_per_interval_follow_the_integrated_rate():
    # A ramp up and down, thinned against each interval's bound: the counts of
    # 400 days per interval against Lambda(t1) - Lambda(t0), by a chi-square test.
    points = [[0, 0.5], [30, 4.0], [60, 1.0]]
    model = day_model({"length": 60, "interval": 7.5}, {"s": {"servers": "inf"}},
                      {"c": {"rate": {"linear": points}, "route": [{"station": "s", "service": "exp(1)"}]}})
    res = brewput.simulate(model, seed=11, replications=400)
    arrivals = interval_figure(res, "classes", "c", "arrivals") * 400  # the days' totals per interval
    rate = Linear(np.array([p[0] for p in points], float), np.array([p[1] for p in points], float), 60.0)
    expected = 400 * np.diff(rate.cumulative(np.arange(0, 61, 7.5)))
    chi2 = float(np.sum((arrivals - expected) ** 2 / expected))
    assert stats.chi2.sf(chi2, len(expected)) > 1e-3, (arrivals, expected)


def test_an_mt_m_inf_station_follows_its_closed_form_mean():
    # lambda(t) = a + b sin(w t), exponential service at rate mu, empty at 0:
    # m' = lambda - mu m gives m(t) = a/mu + b (mu sin wt - w cos wt) / (mu^2 + w^2)
    #                                 + (b w / (mu^2 + w^2) - a/mu) e^{-mu t}.
    a, b, w, mu = 2.0, 1.5, 2 * math.pi / 40, 0.25
    m = lambda t: (a / mu + b * (mu * math.sin(w * t) - w * math.cos(w * t)) / (mu**2 + w**2)
                   + (b * w / (mu**2 + w**2) - a / mu) * math.exp(-mu * t))
    model = day_model({"length": 80, "interval": 10}, {"s": {"servers": "inf"}},
                      {"c": {"rate": {"curve": f"{a} + {b}*sin(2*pi*t/40)"},
                             "route": [{"station": "s", "service": f"exp({1 / mu})"}]}})
    res = brewput.simulate(model, seed=5, replications=60)
    inside = 0
    for interval in res["intervals"]:
        exact = integrate.quad(m, interval["start"], interval["end"])[0] / (interval["end"] - interval["start"])
        low, high = interval["stations"]["s"]["queue_length_ci"]
        inside += low <= exact <= high
    assert inside >= 6, res["intervals"]  # 8 intervals, each 95 %: 6 or more about 99 times in 100


def test_a_constant_rate_and_rota_in_a_long_day_give_the_stationary_m_m_1():
    # rho 0.8: after the first 2000 minutes the queue is in steady state, Lq = rho^2 / (1 - rho) = 3.2.
    model = day_model({"length": 4000, "interval": 2000}, {"s": {"servers": [1, 1]}},
                      {"c": {"rate": 0.8, "route": [{"station": "s", "service": "exp(1)"}]}})
    res = brewput.simulate(model, seed=3, replications=20)
    low, high = res["intervals"][1]["stations"]["s"]["waiting_ci"]
    assert low <= 3.2 <= high
    low, high = res["intervals"][1]["stations"]["s"]["utilization_ci"]
    assert low <= 0.8 <= high and res["intervals"][1]["stations"]["s"]["servers"] == 1


def by_hand(rota, service, off_shift="finish", jobs=3):
    """`jobs` jobs present at 0 and none arriving (a rate far too small to bring one in a day of 20)."""
    station = {"servers": rota, **({"off_shift": off_shift} if off_shift != "finish" else {})}
    return day_model({"length": 20, "interval": 10, "at_start": {"s": jobs}}, {"s": station},
                     {"c": {"rate": [1e-9, 1e-9], "route": [{"station": "s", "service": service}]}})


def test_a_server_coming_on_takes_the_waiting_job_by_hand():
    # One server until 10, two after; services of 6: A 0-6, B 6-12, C waits until 10, 10-16.
    res = brewput.simulate(by_hand([1, 2], "const(6)"), seed=1, replications=2)
    assert res["classes"]["c"]["waiting_time"]["mean"] == pytest.approx((0 + 6 + 10) / 3)
    first, second = res["intervals"]
    assert [first["classes"]["c"]["completions"], second["classes"]["c"]["completions"]] == [1, 2]
    s0, s1 = first["stations"]["s"], second["stations"]["s"]
    assert (s0["servers"], s0["busy_servers"], s0["waiting"]) == (1, pytest.approx(1.0), pytest.approx(1.6))
    assert (s1["servers"], s1["busy_servers"], s1["utilization"]) == (2, pytest.approx(0.8), pytest.approx(0.4))


@pytest.mark.parametrize("off_shift, waits", [
    ("finish", [0, 0, 12]),    # A and B finish at 12 on both servers; C starts then
    ("resume", [0, 2, 14]),    # at 10 B (started last) goes back ahead of C with 2 left: 12-14, C 14-26
    ("restart", [0, 2, 24]),   # B starts its 12 again at 12; C 24-36
])
def test_a_server_going_off_shift_by_hand(off_shift, waits):
    res = brewput.simulate(by_hand([2, 1], "const(12)", off_shift), seed=1, replications=2)
    assert res["classes"]["c"]["waiting_time"]["mean"] == pytest.approx(sum(waits) / 3)
    assert res["classes"]["c"]["waiting_time"]["max"] == pytest.approx(max(waits), rel=1e-3)


def test_a_day_is_the_same_for_any_number_of_threads_and_bins_regroup_it():
    model = day_model({"start": "06:00", "length": "2h", "interval": "15min"},
                      {"bar": {"servers": [1, 2, 3, 3, 2, 2, 1, 1]}},
                      {"c": {"rate": [0.5, 1, 2, 2.5, 2, 1, 0.5, 0.5], "route": [
                          {"station": "bar", "service": "exp(0.8)", "patience": "exp(3)"}]}})
    one = brewput.simulate(model, seed=9, replications=6, threads=1)
    two = brewput.simulate(model, seed=9, replications=6, threads=2)
    assert one == two
    assert [i["label"] for i in one["intervals"]][:3] == ["06:00", "06:15", "06:30"]
    half_hours = brewput.simulate(model, seed=9, replications=6, bins="30min")
    assert [i["label"] for i in half_hours["intervals"]] == ["06:00", "06:30", "07:00", "07:30"]
    quarter = interval_figure(one, "classes", "c", "arrivals")
    assert interval_figure(half_hours, "classes", "c", "arrivals") == pytest.approx(quarter[::2] + quarter[1::2])
    # every arrival is counted once, in the interval it came in, and each left: completed or gave up
    day = one["classes"]["c"]
    assert sum(quarter) * 6 == pytest.approx(day["completed"] + day["lost"])


def test_a_days_run_options_are_refused_in_one_line():
    model = by_hand([1, 2], "const(6)")
    with pytest.raises(OptionError, match="a day runs from its start until its customers have left"):
        brewput.simulate(model, customers=1000)
    with pytest.raises(OptionError, match="bins"):
        brewput.simulate(model, bins="0min")
    steady = Model.from_dict({"brewput": 1, "stations": {"s": {}},
                              "classes": {"c": {"rate": 0.5, "route": [{"station": "s", "service": "exp(1)"}]}}})
    with pytest.raises(OptionError, match="no day"):
        brewput.simulate(steady, customers=100, bins=5)


@pytest.mark.parametrize("rota, service, waits", [
    ([1, 2], "const(6)", [0, 6, 10]),    # a second espresso machine at 10 takes C at once
    ([2, 1], "const(12)", [0, 0, 12]),   # one goes off at 10, finishing its job first; C starts at 12
])
def test_a_rota_of_one_server_type_by_hand(rota, service, waits):
    # The drip station (always on) may not serve these jobs: only the espresso rota counts.
    model = day_model({"length": 20, "interval": 10, "at_start": {"s": 3}},
                      {"s": {"servers": {"espresso": rota, "drip": 1}}},
                      {"c": {"rate": [1e-9, 1e-9],
                             "route": [{"station": "s", "service": service, "served_by": ["espresso"]}]}})
    res = brewput.simulate(model, seed=1, replications=2)
    assert res["classes"]["c"]["waiting_time"]["mean"] == pytest.approx(sum(waits) / 3)
    assert [i["stations"]["s"]["servers"] for i in res["intervals"]] == [rota[0] + 1, rota[1] + 1]


def test_the_intervals_cover_the_exact_transient_about_19_times_in_20():
    # An Mt/M/c+M day whose rota hands jobs back when it falls (off_shift: resume,
    # with exponential service the same as the chain's memoryless servers): solve's
    # exact transient (the forward equations, analytic/timevarying/) per interval
    # against the simulated 95 % intervals of the number waiting, busy and present.
    model = day_model({"length": 240, "interval": 30},
                      {"s": {"servers": [2, 3, 4, 5, 5, 3, 2, 2], "off_shift": "resume"}},
                      {"c": {"rate": [0.5, 1.0, 1.8, 2.6, 2.4, 1.2, 0.6, 0.4],
                             "route": [{"station": "s", "service": "exp(1.6)", "patience": "exp(4)"}]}})
    exact = brewput.solve(model)
    simulated = brewput.simulate(model, seed=17, replications=300)
    inside = []
    for a, s in zip(exact["intervals"], simulated["intervals"]):
        assert a["stations"]["s"]["method"] == "transient" and a["stations"]["s"]["exact"]
        for figure in ("waiting", "busy_servers", "queue_length"):
            low, high = s["stations"]["s"][f"{figure}_ci"]
            inside.append(low <= a["stations"]["s"][figure] <= high)
    assert len(inside) == 24 and sum(inside) >= 20, inside  # 95 % each, three figures of an interval move together
