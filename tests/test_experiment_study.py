"""Study files: the shipped coffee study, validation with one-line errors that name
file, line and field, and a study of two engines checked against each other."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from brewput.errors import BrewputError
from brewput.experiment.executors import InProcess
from brewput.experiment.runner import run
from brewput.experiment.study import load_study
from conftest import widened

ROOT = Path(__file__).resolve().parent.parent
COFFEE_STUDY = ROOT / "examples" / "studies" / "coffee.yaml"
IMPLEMENTATIONS = ["ideal", "locking", "finelocking", "parsteam", "multi-2", "multi-4",
                   "linearpipe-0", "linearpipe-1", "linearpipe-10", "splitpipe-1", "multipipe-2"]


def test_the_coffee_study_names_every_implementation_at_1_to_6_cpus():
    study = load_study(COFFEE_STUDY)
    assert study.title == "The coffee-shop talk"
    assert list(study.models) == IMPLEMENTATIONS
    assert sorted(p.stem for p in (ROOT / "examples" / "coffee").glob("*.yaml")) == sorted(IMPLEMENTATIONS)
    assert study.sweep == {"cpus": [1, 2, 3, 4, 5, 6]}
    assert list(study.engines) == ["simulate"] and study.engines["simulate"]["replications"] > 1
    scenarios = study.scenarios()
    assert len(scenarios) == 11 * 6
    assert [(s.model, s.params["cpus"]) for s in scenarios[:7]] == [("ideal", c) for c in range(1, 7)] + [
        ("locking", 1)]
    noise = yaml.safe_load(COFFEE_STUDY.read_text())["set"]["noise"]  # the study's own `set`
    assert all(s.resolved.params == {"cpus": s.params["cpus"], "noise": noise} for s in scenarios)
    record = study.new_record("brewput run examples/studies/coffee.yaml")
    assert record["study"] == COFFEE_STUDY.read_text()
    ideal = ROOT / "examples" / "coffee" / "ideal.yaml"
    assert record["models"]["ideal"] == {"file": str(ideal), "text": ideal.read_text()}


@pytest.fixture
def study_dir(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mmc.yaml").write_text((ROOT / "examples" / "mmc.yaml").read_text())
    return tmp_path


def write(folder, body):
    path = folder / "s.yaml"
    path.write_text("brewput: 1\n" + body)
    return path


M = "models: {q: models/mmc.yaml}\n"


@pytest.mark.parametrize("body, message", [
    ("models: {}\n", "s.yaml:2 models: expected at least one"),
    ("modelz: {q: models/mmc.yaml}\n", "s.yaml:2 modelz: unknown field (expected one of: brewput, title, models, "
                                       "set, sweep, engines, simulate, solve, load, charts)"),
    ("models: [q]\n", "s.yaml:2 models: expected a mapping, got ['q']"),
    ("models: {q: models/nope.yaml}\n", "s.yaml:2 models.q.file: no model file {dir}/models/nope.yaml"),
    ("models: {q: {file: models/mmc.yaml, sett: 1}}\n", "s.yaml:2 models.q.sett: unknown field (expected one of: "
                                                        "file, set)"),
    ("models: {q: {file: models/mmc.yaml, set: {c: x}}}\n", "s.yaml:2 models.q.set.c: expected a number, got 'x'"),
    (M + "sweep:\n  c: 3..1\n", "s.yaml:4 sweep.c: 3..1 is empty: the end is below the start"),
    (M + "sweep: {c: [3, 3]}\n", "s.yaml:3 sweep.c: a value is listed twice"),
    (M + "sweep:\n  c: 1:9:2\n", "s.yaml:4 sweep.c: quote a start:stop:step of whole numbers (\"1:9:2\"): YAML "
                                 "reads it unquoted as the number 4142"),
    (M + "sweep: {k: 1..2}\n", "s.yaml:3 sweep.k: model q ({dir}/models/mmc.yaml) has no param 'k' "
                               "(its params: c, rate)"),
    (M + "set: {k: 1}\n", "s.yaml:3 set.k: model q ({dir}/models/mmc.yaml) has no param 'k'"),
    (M + "engines: [simulate, lab]\n", "s.yaml:3 engines[1]: expected one of simulate, solve, load, got 'lab'"),
    (M + "engines: [solve, solve]\n", "s.yaml:3 engines[1]: solve is listed twice"),
    (M + "engines: []\n", "s.yaml:3 engines: expected at least one"),
    (M + "simulate:\n  replications: 0\n", "s.yaml:4 simulate.replications: expected a positive integer, "
                                           "got 0"),
    (M + "simulate: {customers: 10, horizon: 5}\n", "s.yaml:3 simulate.customers: customers and horizon: "
                                                    "give one, not both"),
    (M + "simulate: {speed: 3}\n", "s.yaml:3 simulate.speed: unknown field"),
    (M + "simulate: {warmup: .nan}\n", "s.yaml:3 simulate.warmup: expected a number of at least 0, got nan"),
    (M + "simulate: {seed: .inf}\n", "s.yaml:3 simulate.seed: expected an integer from 0 to "
                                      "18,446,744,073,709,551,615, got inf"),
    (M + "simulate: {customers: 1e300}\n", "s.yaml:3 simulate.customers: 1e+300 is too large (at most "
                                            "4,000,000,000)"),
    (M + "simulate: {horizon: -1}\n", "s.yaml:3 simulate.horizon: expected a time from 1e-12 to 1e+12, got -1"),
    (M + "simulate: {customers: 10, warmup: 0.5}\n", "s.yaml:3 simulate.warmup: expected a non-negative integer, "
                                                      "got 0.5 (customers)"),
    (M + "simulate: {horizon: 10, warmup: 1e13}\n", "s.yaml:3 simulate.warmup: expected a time from 0 to 1e+12, "
                                                     "got 10000000000000.0 (model time, as the horizon)"),
    (M + "set: {c: .inf}\n", "s.yaml:3 set.c: expected a number from -9.22337e+18 to 9.22337e+18, got inf"),
    ("models: {q: models/mmc.yaml, r: models/mmc.yaml}\nsweep: {c: .inf}\n", "s.yaml:3 sweep.c: expected numbers"),
    (M + "solve: {method: magic}\n", "s.yaml:3 solve.method: expected one of auto, exact"),
    (M + "charts: [throughput, pie]\n", "s.yaml:3 charts[1]: expected one of throughput, latency, latency_throughput, "
                                        "latency_boxes, utilization, spectrum, lost, measures, got 'pie'"),
    (M + "  bad: indent\n", "s.yaml:3: invalid YAML: expected <block end>"),
    ("", "s.yaml:1 models: missing required field"),
])
def test_a_bad_study_is_one_line_naming_file_line_and_field(study_dir, body, message):
    path = write(study_dir, body)
    with pytest.raises(BrewputError) as e:
        load_study(path)
    assert str(e.value).startswith(f"{study_dir}/{message}".replace("{dir}", str(study_dir))), str(e.value)


def test_a_study_must_say_its_version(study_dir):
    path = study_dir / "s.yaml"
    path.write_text(M)
    with pytest.raises(BrewputError, match=r"s.yaml:1 brewput: missing required field$"):
        load_study(path)
    path.write_text("brewput: 2\n" + M)
    with pytest.raises(BrewputError, match=r"s.yaml:1 brewput: unsupported model language version 2 \(this brewput reads brewput: 1\)"):
        load_study(path)


def test_brewput_run_reports_a_bad_study_in_one_line_and_exit_2(study_dir):
    write(study_dir, M + "sweep: {c: 0..2}\nengines: [solve]\n")
    for study, line in (("s.yaml", "error: s.yaml:3 sweep.c: "), ("missing.yaml", "error: missing.yaml: cannot read "
                                                                                   "the study file: No such file")):
        run = subprocess.run([sys.executable, "-m", "brewput", "run", study], capture_output=True, text=True,
                             cwd=study_dir)
        assert run.returncode == 2
        assert run.stderr.startswith(line) or "servers: expected a positive integer" in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1 and run.stdout == ""


def test_model_variants_two_engines_and_the_engines_agree(study_dir):
    # The same M/M/c file twice, as variants with their own `set`, solved (Erlang C,
    # exact) and simulated: every simulated mean response time must cover the exact one.
    path = write(study_dir, "title: Two desks\n"
                            "models:\n"
                            "  slow: {file: models/mmc.yaml, set: {rate: 1.5}}\n"
                            "  busy: models/mmc.yaml\n"
                            "sweep: {c: 3..5}\n"
                            "engines: [simulate, solve]\n"
                            "simulate: {seed: 3, replications: 10, customers: 50000}\n"
                            "charts: [throughput, latency]\n")
    study = load_study(path)
    record = run(study.new_record(), study.scenarios(), InProcess())
    assert record["title"] == "Two desks" and record["charts"] == ["throughput", "latency"]
    assert len(record["scenarios"]) == 2 * 3 * 2
    by_key = {(s["model"], s["params"]["c"], s["engine"]): s["results"] for s in record["scenarios"]}
    for model, rate in (("slow", 1.5), ("busy", 2.7)):
        for c in (3, 4, 5):
            simulated = by_key[model, c, "simulate"]
            exact = by_key[model, c, "solve"]["classes"]["customer"]
            assert by_key[model, c, "solve"]["params"] == simulated["params"] == {"c": c, "rate": rate}
            assert exact["exact"]
            mean, tol = widened(simulated, ("classes", "customer", "response_time", "mean"))
            assert abs(mean - exact["response_time"]["mean"]) <= tol, (model, c)
            throughput, tol = widened(simulated, ("classes", "customer", "throughput"))
            assert abs(throughput - rate) <= tol, (model, c)


def test_brewput_run_prints_a_table_per_figure_and_writes_the_record(study_dir, tmp_path):
    write(study_dir, M + "sweep: {c: 3..5, rate: '1,2'}\nengines: [solve]\n")
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "brewput", "run", "s.yaml", "-o", out, "--set", "rate=2",
                          "--report", tmp_path / "report"], capture_output=True, text=True, cwd=study_dir)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "report" / "index.html").is_file()
    assert "Throughput (per second)" in run.stdout and "Median latency (s)" in run.stdout
    assert "c=3" in run.stdout and "q rate=1" in run.stdout
    record = json.loads(out.read_text())
    assert record["command"] == f"brewput run s.yaml -o {out} --set rate=2 --report {tmp_path / 'report'}"
    # --set cannot change a swept param: the sweep wins, scenario by scenario
    assert [s["results"]["params"]["rate"] for s in record["scenarios"]] == [1, 2] * 3


def test_brewput_run_overrides_the_study_s_simulation_options(study_dir, tmp_path):
    write(study_dir, M + "sweep: {c: 3..4}\nsimulate: {seed: 1, replications: 5, horizon: 1000, warmup: 100}\n")
    out = tmp_path / "r.json"
    run = subprocess.run([sys.executable, "-m", "brewput", "run", "s.yaml", "-o", out, "--seed", "9",
                          "--replications", "2", "--customers", "3000"], capture_output=True, text=True,
                         cwd=study_dir)
    assert run.returncode == 0, run.stderr
    for scenario in json.loads(out.read_text())["scenarios"]:
        settings = scenario["results"]["settings"]
        # customers replace the study's horizon and its warm-up in model time (10 % of the run instead)
        assert settings == {"seed": 9, "replications": 2, "customers": 3000, "horizon": None,
                            "warmup": {"customers": 300}}
        assert scenario["results"]["classes"]["customer"]["completed"] == 2 * 3000


@pytest.mark.parametrize("args, message", [
    (["--replications", "0"], "error: --replications: expected a number from 1 to 100,000, got 0"),
    (["--customers", "10"], "error: --customers: s.yaml does not simulate (engines: solve)"),
])
def test_brewput_run_overrides_are_checked(study_dir, args, message):
    write(study_dir, M + ("engines: [solve]\n" if "--customers" in args else ""))
    run = subprocess.run([sys.executable, "-m", "brewput", "run", "s.yaml", *args], capture_output=True, text=True,
                         cwd=study_dir)
    assert run.returncode == 2 and run.stderr.strip() == message, run.stderr
