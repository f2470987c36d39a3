"""Progress reports and Ctrl-C while the engine runs."""
import signal
import subprocess
import sys
import time
from pathlib import Path

import brewput

MMC = Path(__file__).resolve().parent.parent / "examples" / "mmc.yaml"


def test_progress_reaches_every_customer_of_every_replication():
    reports = []
    brewput.simulate(MMC, customers=400_000, replications=2, threads=1,
                     progress=lambda done, total: reports.append((done, total)))
    done = [d for d, _ in reports]
    assert done == sorted(done)
    assert reports[-1] == (2 * 440_000, 2 * 440_000)  # warm-up included


def test_ctrl_c_stops_a_long_run_at_once():
    run = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", str(MMC),
                            "--customers", "2000000000", "--replications", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    sent = time.monotonic()
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert run.returncode == 130
    # A run of minutes says its estimate first (engine/work.py), then the one line of the stop.
    estimate, stopped = stderr.strip().splitlines()
    assert estimate.startswith(f"warning: {MMC} needs about ") and stopped == "interrupted"


SLOW = """brewput: 1
time_unit: s
params: {n: 1000000}
stations: {desk: {servers: 1}}
classes:
  customer:
    rate: ${n}
    route: [{station: desk, service: "exp(${0.5 / n})"}]
"""


def test_ctrl_c_before_any_scenario_finishes_is_130_and_writes_nothing(tmp_path):
    model = tmp_path / "slow.yaml"
    model.write_text(SLOW)
    for workers in ("1", "2"):
        out = tmp_path / f"r{workers}.json"
        run = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", str(model), "--sweep", "n=1000000,2000000",
                                "--horizon", "1000", "--replications", "2", "--workers", workers, "-o", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=30)
        assert run.returncode == 130, stderr
        estimate, stopped = stderr.strip().splitlines()  # minutes of work are said first (engine/work.py)
        assert estimate.startswith("warning: 2 scenarios needs about ")
        assert stopped == "interrupted: 0 of 2 scenarios finished"
        assert stdout == "" and not out.exists()


def test_ctrl_c_while_the_workers_start_is_one_line_from_the_parent_alone(tmp_path):
    """A terminal's Ctrl-C reaches every process of the group, workers still
    importing too: they are born with SIGINT blocked and drop it once they ignore
    it, so no worker prints a traceback and the pool shuts down (it could hang)."""
    import os

    model = tmp_path / "slow.yaml"
    model.write_text(SLOW)
    for delay in (0.3, 0.5, 0.8, 1.2):
        run = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", str(model), "--sweep",
                                "n=1000000,2000000", "--horizon", "1000", "--replications", "2", "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(delay)
        os.killpg(run.pid, signal.SIGINT)
        _, stderr = run.communicate(timeout=30)
        assert run.returncode == 130, stderr
        # the sweep's estimate (minutes: engine/work.py), then one line for the stop
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 2, (delay, stderr)
        assert stderr.startswith("warning: 2 scenarios needs about "), (delay, stderr)
