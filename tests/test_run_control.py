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
    assert stderr.strip() == "interrupted"
