"""`brewput lab` end to end: the talk's table measured beside the model, the
experiment record it writes, the pool table, and one-line errors with exit 2."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

ROOT = Path(__file__).resolve().parent.parent
QUICK = ("--dur", "100ms", "--warmup", "20ms", "--repetitions", "1")
MACHINE_CPUS = len(os.sched_getaffinity(0))


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True, cwd=ROOT)


def test_coffee_prints_measured_beside_predicted(tmp_path):
    run = brewput("lab", "coffee", "--impl", "ideal,locking", "--cpus", "1", *QUICK, "--predict",
                  "-o", tmp_path / "lab.json")
    assert run.returncode == 0, run.stderr
    for words in ("Throughput (lattes per second)", "Median latency (ms)", "ideal", "locking",
                  "/ 250 (", "measured ± 95 % interval / predicted by the model"):
        assert words in " ".join(run.stdout.split())  # the caption may wrap
    record = json.loads((tmp_path / "lab.json").read_text())
    assert record["brewput"] == "experiment" and record["sweep"] == {"cpus": [1]}
    pairs = [(s["model"], s["engine"], s["params"]["cpus"]) for s in record["scenarios"]]
    assert pairs == [("ideal", "lab", 1), ("ideal", "simulate", 1), ("locking", "lab", 1), ("locking", "simulate", 1)]
    assert record["models"]["ideal"]["text"] == (ROOT / "examples/coffee/ideal.yaml").read_text()


def test_json_is_the_record_and_cpus_above_the_machine_cap_with_a_warning():
    run = brewput("lab", "coffee", "--impl", "multi-2", "--cpus", MACHINE_CPUS + 2, *QUICK, "--json")
    assert run.returncode == 0, run.stderr
    assert f"this machine lets brewput use {MACHINE_CPUS} CPU" in run.stderr
    record = json.loads(run.stdout)
    (scenario,) = record["scenarios"]
    assert scenario["params"]["cpus"] == MACHINE_CPUS
    assert scenario["results"]["settings"]["cpus_used"] == MACHINE_CPUS


def test_par_sets_the_customers_and_the_models_population():
    run = brewput("lab", "coffee", "--impl", "locking", "--cpus", "1", "--par", "3", *QUICK, "--predict", "--json")
    assert run.returncode == 0, run.stderr
    lab, sim = json.loads(run.stdout)["scenarios"]
    assert lab["results"]["params"] == {"cpus": 1, "par": 3}
    # Three customers at a whole-kitchen lock: each waits for the other two.
    assert sim["results"]["classes"]["latte"]["response_time"]["mean"] == pytest.approx(12, rel=1e-3)


def test_both_runtimes_side_by_side_share_one_prediction():
    run = brewput("lab", "coffee", "--impl", "linearpipe-1", "--cpus", "1", "--runtime", "tasks,threads", *QUICK,
                  "--predict", "--json")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["sweep"] == {"cpus": [1], "runtime": ["tasks", "threads"]}
    measured = {s["params"]["runtime"]: s["results"] for s in record["scenarios"] if s["engine"] == "lab"}
    assert {runtime: res["settings"]["runtime"] for runtime, res in measured.items()} == {"tasks": "tasks",
                                                                                         "threads": "threads"}
    predicted = [s["results"] for s in record["scenarios"] if s["engine"] == "simulate"]
    assert len(predicted) == 2 and predicted[0] == predicted[1]  # the model knows no runtime
    table = brewput("lab", "coffee", "--impl", "ideal", "--cpus", "1", "--runtime", "threads,tasks", *QUICK)
    assert table.returncode == 0, table.stderr
    assert "ideal runtime=threads" in table.stdout and "ideal runtime=tasks" in table.stdout
    # The thread runtime's figures are measured beside a model that is their upper bound, and the table says so.
    flat = " ".join(table.stdout.split())
    assert "The thread runtime pays a kernel wake-up per hand-off" in flat and "upper bound" in flat
    assert "with 1 CPU (tasks and threads runtimes)" in flat
    tasks_only = brewput("lab", "coffee", "--impl", "ideal", "--cpus", "1", *QUICK)
    assert tasks_only.returncode == 0 and "kernel wake-up" not in tasks_only.stdout
    assert "with 1 CPU (tasks runtime)" in " ".join(tasks_only.stdout.split())


def test_pool_shows_the_seeds_table():
    run = brewput("lab", "pool", "--tasks", "8", "--work", "1ms", "--threads", "1,2", "--cpus", "1",
                  "--repetitions", "1")
    assert run.returncode == 0, run.stderr
    # The conclusion opens with "Not trusted: ..." on a busy machine, its "fastest measured" then in lower case.
    for words in ("Thread-pool sizing: 8 tasks of 1 ms on 1 CPUs", "8 (one per task)", "astest measured",
                  "/ 8 ("):  # 8 tasks of 1 ms on one CPU: every shape's predicted makespan is 8 ms
        assert words in run.stdout


@pytest.mark.parametrize("args, message", [
    (("coffee", "--impl", "espresso"), "--impl espresso: unknown implementation"),
    (("coffee", "--cpus", "0"), "--cpus 0: expected whole numbers from 1 to 4,096"),
    (("coffee", "--cpus", "two"), "--cpus two: expected whole numbers like 2, 1..6 or 1,2,4"),
    (("coffee", "--dur", "5"), "--dur 5: expected a time with a unit"),
    (("coffee", "--jitter", "5ms"), "--jitter 5ms: at most twice the shortest stage"),
    (("coffee", "--grind", "2ms", "--predict"), "--predict: the coffee models have four equal stages"),
    (("coffee", "--rate", "-1"), "--rate -1: expected a rate from 0.001 to 10,000,000 per second"),
    (("coffee", "--arrivals", "bursty", "--rate", "10"), "--arrivals bursty: expected poisson or constant"),
    (("coffee", "--nice", "-40"), "--nice -40: expected a whole number from -20 to 19"),
    (("coffee", "-o", "out.txt"), "out.txt: expected a file ending in .json, .csv, .parquet"),
    (("pool", "--tasks", "0"), "--tasks 0: expected a whole number from 1 to 10,000"),
    (("pool", "--work", "0ms"), "--work 0ms: expected a time from 1us to 10s"),
])
def test_bad_options_are_one_line_and_exit_2(args, message):
    run = brewput("lab", *args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "Traceback" not in run.stderr


def test_ctrl_c_stops_the_lab_and_keeps_what_finished(tmp_path):
    import signal
    import time

    out = tmp_path / "lab.json"
    run = subprocess.Popen([sys.executable, "-m", "brewput", "lab", "coffee", "--impl", "ideal,locking",
                            "--cpus", "1", "--dur", "20s", "--repetitions", "1", "-o", str(out)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)  # start-up done, the first measurement under way
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    record = json.loads(out.read_text())
    assert record["interrupted"] is True and record["scenarios"] == []


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_the_pool_lab_inside_a_long_task(tmp_path, stop):
    # one scenario is 100 tasks of 5 s CPU each on one thread: 500 s; a signal 3 s in ends it
    # within the 50 ms the burner works between looks, not after the task or the scenario
    import signal
    import time

    out = tmp_path / "pool.json"
    run = subprocess.Popen([sys.executable, "-m", "brewput", "lab", "pool", "--tasks", "100", "--work", "5s",
                            "--threads", "1", "--cpus", "1", "--repetitions", "1", "-o", str(out)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3.0)
    run.send_signal(getattr(signal, stop))
    _, stderr = run.communicate(timeout=10)
    assert run.returncode == 128 + getattr(signal, stop), stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert json.loads(out.read_text())["scenarios"] == []


def test_open_loop_shows_the_tail_and_the_drops():
    run = brewput("lab", "coffee", "--impl", "locking", "--cpus", "1", "--par", "1", "--rate", "500",
                  "--queue", "5", *QUICK)
    assert run.returncode == 0, run.stderr
    assert "p99 latency from the intended start (ms)" in run.stdout
    assert "Orders dropped (request queue full)" in run.stdout


def test_customers_and_cpus_swept_together_keep_every_row():
    run = brewput("lab", "coffee", "--impl", "locking", "--cpus", "1..2", "--par", "1,3", *QUICK)
    assert run.returncode == 0, run.stderr
    assert "locking cpus=1" in run.stdout and "locking cpus=2" in run.stdout and "3 customers" in run.stdout


def test_hgrm_writes_a_file_per_measured_scenario(tmp_path):
    run = brewput("lab", "coffee", "--impl", "ideal", "--cpus", "1", *QUICK, "--predict", "--hgrm", tmp_path / "h",
                  "--report", tmp_path / "report")  # a record with distributions is still one the report reads
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "report" / "index.html").is_file()
    (path,) = (tmp_path / "h").iterdir()  # the measurement's; the prediction has no histogram file
    assert path.name == "ideal-cpus=1-latte.hgrm"
    assert path.read_text().splitlines()[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"]
    pool = brewput("lab", "pool", "--tasks", "4", "--work", "1ms", "--threads", "2", "--cpus", "1",
                   "--repetitions", "1", "--hgrm", tmp_path / "p")
    assert pool.returncode == 0, pool.stderr
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["pool-threads=2-task.hgrm",
                                                                  "thread-per-task-threads=4-task.hgrm"]


def test_a_run_with_repetitions_needs_no_scipy():
    # scipy is a test dependency only: the interval over repetitions is the engine's.
    no_scipy = ("import builtins, sys\n"
                "real = builtins.__import__\n"
                "def refuse(name, *args, **kwargs):\n"
                "    if name.partition('.')[0] == 'scipy':\n"
                "        raise ModuleNotFoundError(\"No module named 'scipy'\")\n"
                "    return real(name, *args, **kwargs)\n"
                "builtins.__import__ = refuse\n"
                "sys.argv = ['brewput', *sys.argv[1:]]\n"
                "from brewput.cli import main\n"
                "main()\n")
    run = subprocess.run([sys.executable, "-c", no_scipy, "lab", "coffee", "--impl", "ideal", "--cpus", "1",
                          "--dur", "50ms", "--warmup", "0ms", "--repetitions", "2", "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    latte = json.loads(run.stdout)["scenarios"][0]["results"]["classes"]["latte"]
    low, high = latte["throughput_ci"]
    assert low <= latte["throughput"] <= high
