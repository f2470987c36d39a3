"""The `brewput` command end to end: tables, JSON, overrides and one-line errors."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BREWPUT = [sys.executable, "-m", "brewput"]


def brewput(*args, cwd=ROOT):
    return subprocess.run([*BREWPUT, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_table_shows_classes_stations_and_resources():
    run = brewput("simulate", "examples/coffee/finelocking.yaml", "--set", "cpus=6", "--customers", "20000")
    assert run.returncode == 0, run.stderr
    for word in ("latte", "grinder", "espresso", "counter", "cpu", "1000"):
        assert word in run.stdout


def test_json_follows_the_results_schema():
    run = brewput("simulate", "examples/mmc.yaml", "--customers", "20000", "--replications", "3", "--json")
    assert run.returncode == 0, run.stderr
    res = json.loads(run.stdout)
    assert (res["engine"], res["method"], res["time_unit"]) == ("simulate", "des", "s")
    assert res["settings"] == {"seed": 1, "replications": 3, "customers": 20000, "horizon": None,
                               "warmup": {"customers": 2000}}
    (cls,) = res["classes"].values()
    assert set(cls["response_time"]) >= {"mean", "p50", "p90", "p95", "p99", "p999", "max", "p99_ci"}
    lo, hi = cls["throughput_ci"]
    assert lo <= cls["throughput"] <= hi
    (station,) = res["stations"].values()
    assert 0 < station["utilization"] < 1


def test_set_overrides_a_param_and_shows_in_the_results():
    run = brewput("simulate", "examples/coffee/locking.yaml", "--set", "cpus=3", "--customers", "3000", "--json")
    res = json.loads(run.stdout)
    assert res["params"]["cpus"] == 3
    assert res["classes"]["latte"]["response_time"]["p50"] == pytest.approx(12.0)


def test_horizon_stops_by_model_time():
    run = brewput("simulate", "examples/mmc.yaml", "--horizon", "5000", "--replications", "2", "--json")
    res = json.loads(run.stdout)
    assert res["settings"]["horizon"] == 5000 and res["settings"]["warmup"] == {"time": 500.0}
    # 2.7 arrivals per second for 5000 s in each of 2 replications.
    assert res["classes"]["customer"]["completed"] == pytest.approx(2 * 2.7 * 5000, rel=0.03)


def test_unstable_open_model_runs_with_a_warning(tmp_path):
    model = tmp_path / "over.yaml"
    model.write_text("brewput: 1\nname: overloaded\nstations: {desk: {servers: 1}}\n"
                     "classes: {c: {rate: 1.2, route: [{station: desk, service: exp(1)}]}}\n")
    run = brewput("simulate", model, "--customers", "2000", "--replications", "2")
    assert run.returncode == 0, run.stderr
    assert "warning: station desk: open arrivals offer utilization 1.2 >= 1" in run.stderr


@pytest.mark.parametrize("args, message", [
    (["simulate", "missing.yaml"], "missing.yaml"),
    (["simulate", "examples/mmc.yaml", "--set", "c"], "--set c: expected name=value"),
    (["simulate", "examples/mmc.yaml", "--set", "nosuch=3"], "nosuch"),
    (["simulate", "examples/mmc.yaml", "--customers", "0"], "--customers: expected a number from 1"),
    (["simulate", "examples/mmc.yaml", "--replications", "0"], "--replications: expected a number from 1"),
    (["simulate", "examples/mmc.yaml", "--customers", "10", "--horizon", "5"], "give one, not both"),
    (["simulate", "examples/mmc.yaml", "--horizon", "-1"], "--horizon: expected a positive"),
    (["simulate", "examples/mmc.yaml", "--warmup", "1.5"], "--warmup: expected a whole number"),
    (["simulate", "examples/mmc.yaml", "--set", "c=0"], "servers"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    run = brewput(*args)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert "Traceback" not in run.stderr


def test_deadlock_is_an_error_not_a_hang(tmp_path):
    model = tmp_path / "deadlock.yaml"
    model.write_text(
        "brewput: 1\nname: ring\nstations: {a: {buffer: 0}, b: {buffer: 0}}\n"
        "classes: {c: {population: 2, route: [{id: x, station: a, service: exp(1)},"
        " {station: b, service: exp(1), next: {x: 0.5, exit: 0.5}}]}}\n")
    run = brewput("simulate", model, "--customers", "1000")
    assert run.returncode == 2
    assert "deadlock.yaml: the model deadlocked" in run.stderr


def demo_throughput(*args):
    """The demo's first table: lattes per second at 1..6 cpus, per implementation."""
    run = brewput("demo", *args)
    assert run.returncode == 0, run.stderr
    throughput = {}
    for line in run.stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 7 and cells[0] not in throughput:
            throughput[cells[0]] = [float(c) for c in cells[1:]]
    return throughput


def test_demo_reproduces_the_talk():
    throughput = demo_throughput("--noise", "0")      # exact stages: the structural numbers exactly
    assert throughput["ideal"] == [250, 500, 750, 1000, 1250, 1500]
    assert throughput["locking"] == [250] * 6
    assert throughput["finelocking"] == [250, 500, 750, 1000, 1000, 1000]
    assert throughput["multi-2"] == [250, 500, 750, 1000, 1250, 1500]


def test_demo_with_noise_shows_what_buffering_buys():
    throughput = demo_throughput("--noise", "0.5")
    # The unbuffered pipeline falls behind the buffered ones once the grinder saturates.
    assert throughput["linearpipe-0"][5] < 0.95 * throughput["linearpipe-1"][5]
    assert throughput["ideal"] == [250, 500, 750, 1000, 1250, 1500]
