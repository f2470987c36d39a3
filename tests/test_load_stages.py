"""`brewput load` with stages (`--step`, a `--ramp` in tenths), each stage
measured on its own (the responses whose intended start fell in it) and, with
`--predict`, set beside the model solved and simulated at the stage's rate.
Against the demo server on 127.0.0.1; every run lasts at most 2 s."""
import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.special import lambertw

from brewput.analytic.queues import mmc
from brewput.loadtest import measure
from brewput.loadtest import options as opt
from brewput.loadtest.predict import beside
from brewput.loadtest.results import to_results
from conftest import student_interval
from load_server import serving

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

STEP = "200x1s,600x1s"


def settings(url, *, step=STEP, arrivals="constant", seed=1):
    schedule = opt.schedule(rate_text=None, arrivals=arrivals, ramp_text=None, step_text=step, duration_text=None,
                            requests_text=None, warmup_text="0s", seed=seed)
    return {"target": opt.http_target(url).settings("GET"), "schedule": schedule, "connections": 16,
            "max_in_flight": 10_000, "timeout_seconds": 10.0}


def run(url, **kwargs):
    s = settings(url, **kwargs)
    return to_results(measure(s), target=url, method="http", settings=s), s


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *args], capture_output=True, text=True, timeout=60)


def model(tmp_path, servers, service_ms):
    """The demo server as a model: M/M/c in ms, its rate set by --predict."""
    path = tmp_path / "server.yaml"
    path.write_text(f"brewput: 1\ntime_unit: ms\nstations:\n  server: {{servers: {servers}}}\nclasses:\n"
                    f"  request:\n    rate: 1\n    route:\n      - {{station: server, service: exp({service_ms})}}\n")
    return str(path)


def test_each_step_holds_its_rate_and_the_stages_add_up_to_the_run():
    with serving("const(1ms)", workers=4) as url:
        results, _ = run(url)
    load, stages = results["load"], results["load"]["stages"]
    assert [s["target_rate"] for s in stages] == [200, 600] and all(s["steady"] for s in stages)
    # Constant arrivals: every request due in a stage is answered, and the
    # stage's rate (answers from its start to its last answer) within 1 %.
    assert [s["answered"] for s in stages] == [200, 600]
    for s in stages:
        assert abs(s["achieved_rate"] / s["target_rate"] - 1) < 0.01, s
        assert s["response_time"]["count"] == s["answered"] and 1.0 <= s["response_time"]["p50"] < 5.0
        assert 1.0 <= s["service_time_mean"] < 5.0
    for key, total in (("measured", "sent"), ("answered", "answered"), ("failed", "failed"), ("dropped", "dropped")):
        assert sum(s[key] for s in stages) == load[total], key
    # Each steady stage's mean has its interval, from the slots inside it; the
    # run as a whole has none (batches across two rates share no one mean), and says so.
    for s in stages:
        low, high = s["response_time"]["mean_ci"]
        assert low <= s["response_time"]["mean"] <= high
    request = results["classes"]["request"]
    assert request["response_time"]["mean_ci"] is None and request["response_time"]["p50_ci"] is None
    assert load["intervals"]["batches"] == 0 and "the stages differ in rate" in load["intervals"]["note"]


def test_each_step_agrees_with_its_prediction(tmp_path):
    # M/M/2 with exp(2 ms) service, Poisson steps of 200/s then 600/s (20 % and
    # 60 % busy). Each stage's prediction is Erlang C at its own rate; the
    # measured mean of each stage agrees with it plus the loopback round trip
    # (measured alone against a zero service time) within the 99.9 %
    # Student-t interval over independent runs, as the constant-rate
    # M/M/c test in test_load_run.py does.
    path = model(tmp_path, 2, 2)

    def means(url, runs):
        rows = []
        for i in range(runs):
            results, s = run(url, arrivals="poisson", seed=100 + i)
            predicted = beside(path, {}, s["schedule"], results)
            for row, rate in zip(predicted["stages"], (200.0, 600.0)):
                assert row["rate"] == rate and row["steady"]
                assert row["engines"]["solve"]["mean"] == pytest.approx(mmc(rate, 0.002, 2).response * 1e3, rel=1e-9)
            rows.append([s["response_time"]["mean"] for s in results["load"]["stages"]])
        return np.array(rows)

    with serving("const(0)", workers=2, seed=5) as url:
        overhead, overhead_half = student_interval(means(url, 3))
    with serving("exp(2ms)", workers=2, seed=7) as url:
        measured, half = student_interval(means(url, 8))
    truth = np.array([mmc(rate, 0.002, 2).response * 1e3 for rate in (200.0, 600.0)]) + overhead
    assert np.all(np.abs(measured - truth) <= half + overhead_half), (measured, truth, half, overhead)


def test_a_stage_beyond_capacity_drifts_and_solve_refuses_it(tmp_path):
    # One exp(5 ms) worker holds 200/s: 100/s is half its load, 400/s twice
    # it, so the second stage's queue grows throughout (not settled) and
    # solve refuses its rate as unstable, as for a constant rate.
    path = model(tmp_path, 1, 5)
    with serving("exp(5ms)", workers=1, seed=3) as url:
        done = brewput("load", url, "--step", "100x1s,400x1s", "--arrivals", "constant", "--predict", path, "--json")
        table = brewput("load", url, "--step", "100x1s,400x0.5s", "--arrivals", "constant", "--predict", path)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    stages, rows = results["load"]["stages"], results["predicted"]["stages"]
    assert stages[1]["settled"] is False
    assert stages[1]["response_time"]["mean"] > 10 * stages[0]["response_time"]["mean"]
    assert "unstable" in rows[1]["engines"]["solve"]["refused"]
    assert any("unstable" in w for w in rows[1]["engines"]["simulate"]["warnings"])
    # The first stage: D/M/1 at 50 % (constant arrivals), exact: R = s / (1 - sigma),
    # sigma = -rho W0(-exp(-1 / rho) / rho); its relative errors those of its own measurement.
    sigma = float(np.real(-0.5 * lambertw(-2 * np.exp(-2.0))))
    solve = rows[0]["engines"]["solve"]
    assert solve["mean"] == pytest.approx(5 / (1 - sigma), rel=1e-9)
    measured = stages[0]["response_time"]
    for figure in ("mean", "p50", "p90", "p99"):  # R is exponential: p = -ln(1 - q) s / (1 - sigma)
        if figure != "mean":
            q = int(figure[1:]) / 100
            assert solve[figure] == pytest.approx(-np.log1p(-q) * 5 / (1 - sigma), rel=1e-9)
        assert solve["relative_error"][figure] == pytest.approx((measured[figure] - solve[figure]) / solve[figure])
    assert table.returncode == 0, table.stderr
    assert "drifting" in table.stdout and "refused" in table.stdout
    assert "stage 1-1.5 s: solve:" in table.stdout and "unstable" in table.stdout


def test_a_ramp_is_predicted_tenth_by_tenth_and_not_as_a_steady_state(tmp_path):
    path = model(tmp_path, 2, 2)
    with serving("const(1ms)", workers=4) as url:
        done = brewput("load", url, "--ramp", "100..300", "--duration", "1s", "--arrivals", "constant",
                       "--predict", path, "--json")
        table = brewput("load", url, "--ramp", "100..300", "--duration", "1s", "--predict", path)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    stages, rows = results["load"]["stages"], results["predicted"]["stages"]
    rates = [110.0 + 20 * k for k in range(10)]  # each tenth's mean rate
    assert [s["target_rate"] for s in stages] == pytest.approx(rates)
    assert [r["rate"] for r in rows] == pytest.approx(rates)
    assert not any(s["steady"] for s in stages) and not any(r["steady"] for r in rows)
    # ∫ of the rate over each tenth: 11, 13, ... 29 requests due, every one answered.
    assert [s["answered"] for s in stages] == [11 + 2 * k for k in range(10)]
    assert sum(s["answered"] for s in stages) == results["load"]["answered"] == 200
    # Constant arrivals are offered as const(1/rate): D/M/2, which solve
    # approximates by halving M/M/2's wait (Allen-Cunneen).
    for row in rows:
        erlang = mmc(row["rate"], 0.002, 2).response * 1e3
        assert row["engines"]["solve"]["mean"] == pytest.approx(2 + (erlang - 2) / 2, rel=1e-9)
    assert table.returncode == 0, table.stderr
    assert table.stdout.count("ramp slice") == 10
