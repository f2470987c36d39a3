"""The coffee study (examples/studies/coffee.yaml) run as an experiment on local
worker processes reproduces the talk's structural numbers, and `brewput demo`
prints them and writes the report.

Tolerances follow conftest.py's rule; the stages are a deterministic 1 ms, so the
CIs are nearly zero and the floor of 0.1 % covers the edges of the measurement
window (as in test_examples.py).
"""
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from brewput.experiment.executors import executor
from brewput.experiment.runner import run
from brewput.experiment.study import load_study
from conftest import check

ROOT = Path(__file__).resolve().parent.parent
FLOOR = 1e-3
LATTES = ("classes", "latte", "throughput")
CPUS = range(1, 7)


@lru_cache(maxsize=None)
def coffee_results():
    study = load_study(ROOT / "examples" / "studies" / "coffee.yaml").with_simulate(
        seed=7, replications=3, customers=20_000)
    record = run(study.new_record(), study.scenarios(), executor("local"))
    assert not record["interrupted"]
    return {(s["model"], s["params"]["cpus"]): s["results"] for s in record["scenarios"]}


@pytest.mark.parametrize("model, lattes_per_ms", [
    ("ideal", lambda cpus: 0.25 * cpus),                  # 250/s per cpu
    ("locking", lambda cpus: 0.25),                       # one big lock: flat at 250/s
    ("finelocking", lambda cpus: min(0.25 * cpus, 1.0)),  # the grinder: 1000/s from 4 cpus
    ("multi-2", lambda cpus: 0.25 * cpus),                # two of each machine: 1500/s at 6 cpus
    ("multi-4", lambda cpus: 0.25 * cpus),
    ("linearpipe-1", lambda cpus: min(0.25 * cpus, 1.0)),
])
def test_the_study_reproduces_the_talk_s_structural_numbers(model, lattes_per_ms):
    results = coffee_results()
    for cpus in CPUS:
        check(results[model, cpus], LATTES, lattes_per_ms(cpus), floor=FLOOR)


def test_every_scenario_used_the_study_s_settings():
    for (model, cpus), res in coffee_results().items():
        assert res["params"] == {"cpus": cpus, "noise": 0}
        assert res["settings"]["seed"] == 7 and res["settings"]["replications"] == 3


def test_demo_prints_the_talk_and_writes_its_report(tmp_path):
    run_ = subprocess.run([sys.executable, "-m", "brewput", "demo", "--report", tmp_path / "report"],
                          capture_output=True, text=True, cwd=ROOT)
    assert run_.returncode == 0, run_.stderr
    assert "Throughput (lattes per second)" in run_.stdout and "Median latency (ms)" in run_.stdout
    assert "The talk: ideal 250/s per cpu" in run_.stdout
    index = tmp_path / "report" / "index.html"
    assert f"report: {index}" in run_.stderr
    assert index.is_file() and "The coffee-shop talk" in index.read_text()
