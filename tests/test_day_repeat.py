"""simulate on a day that repeats (docs/model-language.md "Time"): whole days
run before the one measured, rates and rotas starting again each day; its
figures against the periodic answers of solve, of a chain built here with
scipy, and of Erlang C, with fixed seeds and the simulation's 95 % intervals."""
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import linalg

import brewput
from brewput.errors import OptionError
from brewput.model import Model

RATES = [0.5, 1.0, 1.8, 2.6, 2.4, 1.2, 0.6, 0.4]   # per minute, 30-minute intervals of a 4-hour day
ROTA = [2, 3, 4, 5, 5, 3, 2, 2]
SERVICE_MEAN, PATIENCE_MEAN = 1.6, 4.0


def day_model(day, stations, classes):
    return Model.from_dict({"brewput": 1, "name": "repeat", "time_unit": "min", "day": {"repeat": True, **day},
                            "stations": stations, "classes": classes})


def rush(patience: bool, off_shift: str = "finish", **day):
    station = {"servers": ROTA, **({"off_shift": off_shift} if off_shift != "finish" else {})}
    step = {"station": "s", "service": f"exp({SERVICE_MEAN})", **({"patience": f"exp({PATIENCE_MEAN})"} if patience else {})}
    return day_model({"length": 240, "interval": 30, **day}, {"s": station}, {"c": {"rate": RATES, "route": [step]}})


def covered(simulated, truth, kind, name, figure, key=None):
    """Per interval: whether the simulated 95 % interval holds the truth, and the relative error."""
    inside, errors = [], []
    for s, t in zip(simulated["intervals"], truth):
        got = s[kind][name][figure] if key is None else s[kind][name][figure][key]
        low, high = s[kind][name][f"{figure}_ci"] if key is None else s[kind][name][figure][f"{key}_ci"]
        inside.append(low <= t <= high)
        errors.append(abs(got - t) / max(abs(t), 1e-9))
    return inside, errors


def solved(exact, kind, name, figure, key=None):
    return [i[kind][name][figure] if key is None else i[kind][name][figure][key] for i in exact["intervals"]]


@pytest.mark.parametrize("patience", [False, True])
def test_the_measured_day_covers_solves_periodic_answer_about_19_times_in_20(patience):
    model = rush(patience)
    exact = brewput.solve(model)
    assert exact["intervals"][0]["stations"]["s"]["method"] == "transient"
    simulated = brewput.simulate(model, seed=1, replications=1000)
    assert simulated["notes"] == ["a repeating day: 3 days run before the one measured"]
    assert simulated["settings"]["warmup"] == {"time": 720.0}
    figures = [("stations", "s", "waiting", None), ("classes", "c", "waiting_time", "mean")]
    if patience:
        figures.append(("classes", "c", "abandonment", None))
    inside, errors = [], []
    for kind, name, figure, key in figures:
        i, e = covered(simulated, solved(exact, kind, name, figure, key), kind, name, figure, key)
        inside += i
        errors += e
    assert len(inside) == 8 * len(figures)
    # 95 % each; an interval's figures move together, so more than 5 % of them may miss on a day.
    assert sum(inside) >= 0.85 * len(inside), inside
    assert max(errors) < 0.2 and np.mean(errors) < 0.06, errors


def periodic_chain(rates, rota, width, mu, theta, states=80):
    """The birth-death chain of an Mt/M/ct+M station over a repeating day, built and
    solved here: per interval its generator, the day's transition matrix from
    scipy's expm, the periodic start as its left eigenvector of 1, and each
    interval's time-average number waiting from the integral of exp(Q s) (the
    top right block of exp([[Q, I], [0, 0]] width))."""
    n = np.arange(states)
    generators = []
    for lam, c in zip(rates, rota):
        q = np.zeros((states, states))
        q[n[:-1], n[:-1] + 1] = lam
        q[n[1:], n[1:] - 1] = np.minimum(n[1:], c) * mu + np.maximum(n[1:] - c, 0) * theta
        q[n, n] = -q.sum(axis=1)
        generators.append(q)
    steps = [linalg.expm(q * width) for q in generators]
    day = np.linalg.multi_dot(steps)
    values, vectors = linalg.eig(day.T)
    start = np.real(vectors[:, np.argmin(abs(values - 1))])
    p = start / start.sum()
    waiting = []
    for q, step, c in zip(generators, steps, rota):
        block = np.zeros((2 * states, 2 * states))
        block[:states, :states], block[:states, states:] = q, np.eye(states)
        integral = linalg.expm(block * width)[:states, states:]
        waiting.append(float(p @ integral @ np.maximum(n - c, 0)) / width)
        p = p @ step
    assert abs(p.sum() - 1) < 1e-9 and np.allclose(p, start / start.sum(), atol=1e-9)
    return waiting


def test_the_number_waiting_against_a_periodic_chain_solved_with_scipy():
    # resume hands a job back when the rota falls: with exponential service the chain is exact.
    model = rush(True, off_shift="resume")
    truth = periodic_chain(RATES, ROTA, 30.0, 1 / SERVICE_MEAN, 1 / PATIENCE_MEAN)
    simulated = brewput.simulate(model, seed=4, replications=400)
    inside, errors = covered(simulated, truth, "stations", "s", "waiting")
    assert sum(inside) >= 7, (inside, truth)
    assert np.mean(errors) < 0.05, errors
    # solve agrees with the chain built here
    assert solved(brewput.solve(model), "stations", "s", "waiting") == pytest.approx(truth, rel=1e-4)


def erlang_c_wait(lam, mu, c):
    a = lam / mu
    top = a**c / math.factorial(c) / (1 - a / c)
    delay = top / (sum(a**k / math.factorial(k) for k in range(c)) + top)
    return delay / (c * mu - lam)


def test_a_constant_repeating_day_gives_the_stationary_m_m_c():
    lam, c = 2.4, 3   # service exp(1): rho 0.8, Wq = C(3, 2.4) / 0.6
    # A constant rate is a renewal source, which runs through the warm-up days too.
    model = day_model({"length": 240, "interval": 30}, {"s": {"servers": c}},
                      {"c": {"rate": lam, "route": [{"station": "s", "service": "exp(1)"}]}})
    wq = erlang_c_wait(lam, 1.0, c)
    res = brewput.simulate(model, seed=8, replications=1000)
    for figure, truth in (("waiting", lam * wq), ("utilization", lam / c)):
        inside = [low <= truth <= high for low, high in (i["stations"]["s"][f"{figure}_ci"] for i in res["intervals"])]
        assert sum(inside) >= 6, (figure, inside)
    low, high = res["classes"]["c"]["waiting_time"]["mean_ci"]  # the day's customers, followed to the end
    assert low <= wq <= high, (low, wq, high)


def test_a_curve_is_taken_in_each_days_own_time():
    # 1 + sin(2 pi t / 60) over a day of 120: the measured day's arrivals per 15 minutes
    # are the curve's integral there (and not the curve's at t + 3 days).
    model = day_model({"length": 120, "interval": 15}, {"s": {"servers": "inf"}},
                      {"c": {"rate": {"curve": "1 + sin(2*pi*t/50)"}, "route": [{"station": "s", "service": "exp(1)"}]}})
    res = brewput.simulate(model, seed=6, replications=400)
    integral = lambda t: t - 50 / (2 * math.pi) * np.cos(2 * math.pi * t / 50)
    edges = np.arange(0, 121, 15.0)
    want = np.diff(integral(edges))
    got = np.array([i["classes"]["c"]["arrivals"] for i in res["intervals"]])
    half = np.array([(i["classes"]["c"]["arrivals_ci"][1] - i["classes"]["c"]["arrivals_ci"][0]) / 2
                     for i in res["intervals"]])
    assert np.all(abs(got - want) <= 2 * half), (got, want)


def test_a_heavily_loaded_start_is_forgotten_after_the_warm_up():
    loaded = rush(False, at_start={"s": 60})
    plain = brewput.simulate(rush(False), seed=2, replications=200)
    forgotten = brewput.simulate(loaded, seed=3, replications=200)
    agree = []
    for a, b in zip(plain["intervals"], forgotten["intervals"]):
        x, y = a["stations"]["s"], b["stations"]["s"]
        half = lambda ci: (ci[1] - ci[0]) / 2
        agree.append(abs(x["waiting"] - y["waiting"]) <= math.hypot(half(x["waiting_ci"]), half(y["waiting_ci"])))
    assert sum(agree) >= 7, agree
    # Measured from the start instead, the sixty waiting at 0 show: the check above has the power to see them.
    first = brewput.simulate(loaded, seed=3, replications=200, warmup=0)["intervals"][0]["stations"]["s"]
    assert first["waiting_ci"][0] > 10 * plain["intervals"][0]["stations"]["s"]["waiting_ci"][1]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "brewput", "simulate", *map(str, args)], capture_output=True, text=True)


def test_warm_up_days_are_whole_and_bad_ones_refused_in_one_line(tmp_path):
    model = tmp_path / "periodic.yaml"
    model.write_text("brewput: 1\ntime_unit: min\nday:\n  length: 60\n  interval: 30\n  repeat: true\n"
                     "stations: {s: {servers: [1, 2]}}\n"
                     "classes: {c: {rate: 0.5, route: [{station: s, service: exp(1)}]}}\n")
    for bad, says in (("2.5", "--warmup: expected a whole number"), ("-1", "--warmup"),
                      ("5000", "--warmup: on a day that repeats, the whole days run before the one measured")):
        run = run_cli(model, "--warmup", bad)
        assert run.returncode == 2 and run.stdout == "", run
        assert run.stderr.startswith(f"error: {says}") and run.stderr.count("\n") == 1, run.stderr
    run = run_cli(model, "--horizon", "100")
    assert run.returncode == 2 and "--horizon: a day runs from its start" in run.stderr
    run = run_cli(model, "--warmup", "1", "--replications", "3")
    assert run.returncode == 0, run.stderr
    assert "note: a repeating day: 1 day run before the one measured" in run.stdout
    compared = subprocess.run([sys.executable, "-m", "brewput", "compare", str(model),
                               "--replications", "3"], capture_output=True, text=True)
    assert compared.returncode == 0, compared.stderr
    assert "note: simulate: a repeating day: 3 days run before the one measured" in compared.stdout
    with pytest.raises(OptionError, match="warmup"):
        brewput.simulate(model, warmup=1.5)
    assert brewput.simulate(model, warmup=0)["settings"]["warmup"] == {"time": 0.0}


def test_a_day_that_does_not_repeat_still_takes_no_warm_up():
    once = Model.from_dict({"brewput": 1, "time_unit": "min", "day": {"length": 240, "interval": 30},
                            "stations": {"s": {"servers": ROTA}},
                            "classes": {"c": {"rate": RATES, "route": [{"station": "s", "service": "exp(1)"}]}}})
    with pytest.raises(OptionError, match="a day runs from its start until its customers have left"):
        brewput.simulate(once, warmup=1)
    assert "notes" not in brewput.simulate(once, replications=2)


def test_same_seed_same_numbers_at_any_threads():
    model = rush(True, off_shift="restart")
    one = brewput.simulate(model, seed=9, replications=6, threads=1)
    two = brewput.simulate(model, seed=9, replications=6, threads=2)
    assert one == two
