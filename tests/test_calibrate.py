"""`brewput calibrate`: a single-station model from a measured sweep over the rate.

Truths: records that brewput simulates from known M/M/1, M/M/2 and M/G/1 queues
(fixed seeds) give back their service time (and M/G/1's squared coefficient of
variation) within the calibration's 95 % interval, by the utilization law and by
the response-time fit; exact (solved) records give it back to rounding; the model
file written is one `brewput solve` reads, and its predictions are Erlang C's.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import brewput
from brewput.analytic.queues import mmc
from brewput.planning.calibrate import calibrate

ROOT = Path(__file__).resolve().parent.parent
RATES = [0.2, 0.5, 0.8, 1.1, 1.4, 1.6, 1.8]   # per time unit, for a 0.5 service at one server


def station(service, servers=1):
    return {"brewput": 1, "params": {"rate": 1.0}, "stations": {"desk": {"servers": servers}},
            "classes": {"c": {"rate": "${rate}", "route": [{"station": "desk", "service": service}]}}}


def sweep_record(tmp_path, model, rates, engine="simulate", name="r.json", **options):
    if engine == "simulate":
        options = {"customers": 50_000, "replications": 5, "seed": 11, **options}
    record = brewput.sweep(model, {"rate": rates}, engine=engine, workers=1, **options)
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return path


@pytest.fixture(scope="module")
def mm1(tmp_path_factory):
    return sweep_record(tmp_path_factory.mktemp("mm1"), station("exp(0.5)"), RATES)


@pytest.fixture(scope="module")
def mm2(tmp_path_factory):
    return sweep_record(tmp_path_factory.mktemp("mm2"), station("exp(0.5)", servers=2), [2 * r for r in RATES])


@pytest.mark.parametrize("utilization", [True, False])
def test_mm1_gives_back_its_service_time(mm1, utilization):
    c = calibrate(mm1, use_utilization=utilization)
    assert c.method == ("utilization law" if utilization else "response-time fit")
    assert c.service.low < 0.5 < c.service.high, c.service
    assert c.service.high - c.service.low < 0.05      # and says something: within 5 %
    assert c.service_law.startswith("exp(")


@pytest.mark.parametrize("utilization", [True, False])
def test_mm2_gives_back_its_service_time(mm2, utilization):
    c = calibrate(mm2, servers=2, use_utilization=utilization)
    assert c.service.low < 0.5 < c.service.high, c.service
    assert c.service.high - c.service.low < 0.05


def test_mg1_gives_back_its_mean_and_variability(tmp_path):
    """gamma(0.5, 0.5): mean 0.5, squared coefficient of variation 0.25 (Pollaczek-Khinchine's)."""
    path = sweep_record(tmp_path, station("gamma(0.5, 0.5)"), RATES, customers=100_000, replications=8)
    c = calibrate(path, kind="mg1")
    assert c.service.low < 0.5 < c.service.high, c.service
    assert c.scv.low < 0.25 < c.scv.high, c.scv
    assert c.service_law.startswith("gamma(")


def test_exact_records_give_it_back_to_rounding(tmp_path):
    path = sweep_record(tmp_path, station("exp(0.5)", servers=2), [2 * r for r in RATES], engine="solve")
    c = calibrate(path, servers=2, use_utilization=False)
    assert c.service.value == pytest.approx(0.5, rel=1e-8)
    c = calibrate(path, servers=2)
    assert c.method == "utilization law" and c.service.value == pytest.approx(0.5, rel=1e-12)
    path = sweep_record(tmp_path, station("gamma(0.5, 0.5)"), RATES, engine="solve", name="g.json")
    c = calibrate(path, kind="mg1")
    assert (c.service.value, c.scv.value) == (pytest.approx(0.5, rel=1e-7), pytest.approx(0.25, rel=1e-6))


def test_fitted_on_low_load_predicts_high_load(mm2):
    """Calibrated on the steps up to 55 % busy, it predicts the busier ones (the model's
    mean response against the measured, at the measured throughput)."""
    c = calibrate(mm2, servers=2, upto=2.2, use_utilization=False)
    assert c.fitted == [s.throughput <= 2.2 for s in c.steps] and not all(c.fitted) and any(c.fitted)
    for row in c.predictions():
        written = float(f"{c.service.value:.6g}")   # the model file's service time
        assert row["predicted_response"] == pytest.approx(mmc(row["throughput"], written, 2).response, rel=1e-12)
        assert abs(row["response_error"]) < 0.05, row


def test_cli_writes_a_model_that_solve_reads(mm1, tmp_path):
    out = tmp_path / "model.yaml"
    run = subprocess.run([sys.executable, "-m", "brewput", "calibrate", str(mm1), "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    printed = " ".join(run.stdout.split())
    assert "by the utilization law" in printed and "predicted R" in printed
    c = calibrate(mm1)
    solved = brewput.solve(str(out), params={"rate": 1.0})
    assert solved["classes"]["request"]["response_time"]["mean"] == pytest.approx(
        mmc(1.0, float(f"{c.service.value:.6g}"), 1).response, rel=1e-12)
    run = subprocess.run([sys.executable, "-m", "brewput", "calibrate", str(mm1), "--json", "--no-utilization"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["method"] == "response-time fit" and len(result["predictions"]) == len(RATES)
    assert result["service_time"]["ci"][0] < 0.5 < result["service_time"]["ci"][1]
