"""Progress reports and Ctrl-C while the engine runs."""
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import brewput

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

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
    # The pool starts once the sweep's estimate is said (minutes: engine/work.py); its
    # workers import brewput for about a second after that.
    for delay in (0.0, 0.1, 0.3, 0.6, 1.0):
        run = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", str(model), "--sweep",
                                "n=1000000,2000000", "--horizon", "1000", "--replications", "2", "--workers", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        estimate = run.stderr.readline()
        time.sleep(delay)
        os.killpg(run.pid, signal.SIGINT)
        try:
            _, rest = run.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)  # nothing may outlive a failed test
            raise AssertionError(f"the sweep went on after Ctrl-C (delay {delay} s)") from None
        assert run.returncode == 130, (delay, estimate + rest)
        assert estimate.startswith("warning: 2 scenarios needs about "), (delay, estimate + rest)
        # one line, from the parent alone (what finished is said once the sweep has begun)
        assert re.fullmatch(r"interrupted(: 0 of 2 scenarios finished)?\n", rest), (delay, estimate + rest)


# Runs a simulation again and again, each stopped by SIGTERM from its engine's thread,
# with SIGINT sent at the next bytecode of the SIGTERM handler's run each time: a
# terminal's or a group's signal, then the parent's to its workers.
SECOND_SIGNAL = r'''
import signal, sys, threading

import brewput
from brewput.engine import simulate as engine

main = threading.main_thread().ident
whole = engine.run_controlled


class SecondSignal:
    """Sends SIGINT to this thread at the `at`-th bytecode of the SIGTERM handler's
    run (the functions it calls included): a second signal landing there."""

    def __init__(self, at):
        self.at, self.seen, self.fired, self.top = at, 0, False, None

    def call(self, frame, event, arg):
        if self.top is None and frame.f_code is getattr(signal.getsignal(signal.SIGTERM), "__code__", None):
            self.top = frame
        if self.top is None or self.fired:
            return None
        frame.f_trace_opcodes = True
        return self.step

    def step(self, frame, event, arg):
        if event == "opcode" and not self.fired:
            self.seen += 1
            if self.seen == self.at:
                self.fired = True
                signal.pthread_kill(main, signal.SIGINT)
        return self.step


def watched(name, call, **options):
    def started(control):
        signal.pthread_kill(main, signal.SIGTERM)
        return call(control)
    sys.settrace(second.call)
    try:
        return whole(name, started, **options)
    finally:
        sys.settrace(None)


engine.run_controlled = watched
for signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(signum, lambda *_: None)  # a signal after the run ended is not this test's
at = 0
while True:
    at += 1
    second = SecondSignal(at)
    try:
        brewput.simulate(sys.argv[1], customers=10**9, replications=1, threads=1)
    except KeyboardInterrupt:
        pass
    if not second.fired:
        break
print(f"a second signal at each of {at - 1} points of the first one's handler")
'''


def test_a_second_signal_anywhere_in_the_first_ones_handler_still_stops_the_run():
    """The handler that cancels a native run can be run again on top of itself (two
    signals, not two of the same, which merge): wherever the second one lands, the run
    stops. A lock in the handler (an Event's) hung a sweep's worker on SIGTERM to its
    group, once in a hundred runs; here the landing place is chosen, each one in turn."""
    done = subprocess.run([sys.executable, "-c", SECOND_SIGNAL, str(MMC)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    points = int(re.fullmatch(r"a second signal at each of (\d+) points of the first one's handler\n", done.stdout)[1])
    assert points > 50, done.stdout  # the handler's bytecodes and those of what it calls were each a landing place
