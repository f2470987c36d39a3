"""Executors: in this process, local worker processes and a Dask cluster give the
same records bit for bit, whatever the worker count; Ctrl-C or SIGTERM, to brewput
alone or to its process group, stops a sweep at once, keeps (and writes) the
scenarios already finished and leaves no process behind."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brewput.experiment.executors import DaskCluster, InProcess, LocalProcesses, cores, executor
from brewput.experiment.runner import one_model, run

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

ROOT = Path(__file__).resolve().parent.parent
# Random arrivals and service: any difference in streams or seeds would show.
SWEEP = {"c": [2, 3, 4], "rate": [1.0, 1.8]}


def sweep_record(runner):
    record, scenarios = one_model(ROOT / "examples" / "mmc.yaml", None, SWEEP, "simulate",
                                  {"seed": 11, "replications": 3, "customers": 4000})
    return run(record, scenarios, runner)


def without_time(record):
    assert record["interrupted"] is False and len(record["scenarios"]) == 6
    return {k: v for k, v in record.items() if k != "created"}


def test_every_executor_and_worker_count_gives_identical_records():
    from distributed import LocalCluster

    reference = without_time(sweep_record(InProcess()))
    assert json.dumps(reference)  # plain JSON all the way down
    for workers in (1, 2, 3):
        assert without_time(sweep_record(LocalProcesses(workers))) == reference, workers
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert without_time(sweep_record(DaskCluster(cluster.scheduler_address))) == reference


def test_replications_share_a_worker_s_cores():
    assert LocalProcesses(2).threads == max(1, cores() // 2)
    assert LocalProcesses(cores()).threads == 1 and LocalProcesses(4 * cores()).threads == 1
    assert InProcess().threads is None  # the engine's default: all cores
    assert isinstance(executor("local", workers=1), InProcess)
    assert isinstance(executor("local", workers=2), LocalProcesses)


def test_an_unreachable_dask_scheduler_is_one_line():
    run_ = subprocess.run([sys.executable, "-m", "brewput", "solve", "examples/mmc.yaml", "--sweep", "c=3..4",
                           "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run_.returncode == 2
    assert run_.stderr.startswith("error: --scheduler tcp://127.0.0.1:9: cannot connect to a Dask scheduler")
    assert len(run_.stderr.strip().splitlines()) == 1, run_.stderr


def _ask(flag, asked) -> None:
    while True:
        flag.is_set()
        asked.value += 1


def _ask_while_interrupted(flag, asked) -> None:
    """A worker asking whether to stop, interrupted again and again as a signal would."""
    def interrupt(signum, frame):
        while frame is not None and frame.f_code is not _ask.__code__:
            frame = frame.f_back
        if frame is not None:  # only while asking: one landing where the asking resumes would end the worker
            raise KeyboardInterrupt
    signal.signal(signal.SIGUSR1, interrupt)
    while True:
        try:
            _ask(flag, asked)
        except KeyboardInterrupt:
            pass


def test_a_worker_interrupted_while_asking_whether_to_stop_blocks_nobody():
    # A multiprocessing.Event failed this: a signal raising between its lock's
    # acquire and release left the lock taken, and the parent's set() (then every
    # worker's poll) waited for ever; a sweep hung on SIGTERM (CI, stop 29).
    import ctypes
    import multiprocessing
    import threading

    from brewput.experiment.executors import StopFlag

    context = multiprocessing.get_context("spawn")
    flag, asked = StopFlag(context), context.RawValue(ctypes.c_long, 0)
    worker = context.Process(target=_ask_while_interrupted, args=(flag, asked), daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while asked.value == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        for _ in range(3000):
            os.kill(worker.pid, signal.SIGUSR1)
            time.sleep(0.0002)
        setter = threading.Thread(target=flag.set, daemon=True)
        setter.start()
        setter.join(5)
        assert not setter.is_alive(), "set() is blocked by the interrupted worker"
        assert flag.is_set()
        before = asked.value
        time.sleep(0.2)
        assert worker.is_alive() and asked.value > before, "the worker is stuck asking"
    finally:
        worker.kill()
        worker.join()


# A model whose run length grows with n: a few quick scenarios, then ones that would
# run for hours, so that a Ctrl-C always lands while the slow ones run.
GROWING = """brewput: 1
time_unit: s
params: {n: 1}
stations: {desk: {servers: 1}}
classes:
  customer:
    rate: ${n}
    route: [{station: desk, service: "exp(${0.5 / n})"}]
"""
QUICK = [10, 20, 30]


def session_processes(session: int) -> list:
    """The processes still in `session` (the run's workers, its resource tracker)."""
    left = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[3]) == session:  # the fields after the name: state, ppid, pgrp, session
            left.append(int(stat.parent.name))
    return left


def assert_none_left(session: int, within: float = 5.0) -> None:
    """No process of brewput's session remains `within` seconds after it ended (the
    resource tracker ends once every worker has: a pipe's end); any left is killed."""
    deadline = time.monotonic() + within
    left = session_processes(session)
    while left and time.monotonic() < deadline:
        time.sleep(0.25)
        left = session_processes(session)
    if left:
        os.killpg(session, signal.SIGKILL)  # nothing may outlive a failed test
    assert not left, f"processes outlived brewput: {left}"


@pytest.mark.parametrize("signum, workers, to_group", [
    (signal.SIGINT, 2, True), (signal.SIGINT, 2, False), (signal.SIGINT, 1, True),
    (signal.SIGTERM, 2, True), (signal.SIGTERM, 2, False), (signal.SIGTERM, 1, False)])
def test_a_signal_stops_at_once_and_keeps_what_finished(tmp_path, signum, workers, to_group):
    model = tmp_path / "growing.yaml"
    model.write_text(GROWING)
    out = tmp_path / "partial.json"
    # The slow ones stay within the customers a replication can count (about 2.75e9 at most).
    sweep = ",".join(map(str, QUICK + [10**6, 15 * 10**5, 2 * 10**6, 25 * 10**5]))
    proc = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", model, "--sweep", f"n={sweep}",
                             "--horizon", "1000", "--replications", "2", "--workers", str(workers), "-o", out,
                             "--report", tmp_path / "report"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    time.sleep(8)  # the quick scenarios take milliseconds, the slow ones hours
    # In a terminal Ctrl-C reaches the whole process group; `kill -INT` only brewput itself.
    # A service manager's SIGTERM goes to the group or to the main process alone.
    sent = time.monotonic()
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    try:
        stdout, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # workers included: nothing may outlive a failed test
        stdout, stderr = proc.communicate()
        pytest.fail(f"still running 60 s after the signal: {stderr}")
    assert time.monotonic() - sent < 15, stderr   # the slow scenarios would take hours
    assert proc.returncode == 128 + signum, stderr
    assert_none_left(proc.pid)
    assert "Traceback" not in stderr
    assert stderr.strip().endswith(f"interrupted: {len(QUICK)} of 7 scenarios finished and written"), stderr
    record = json.loads(out.read_text())
    assert record["interrupted"] is True
    assert [s["params"] for s in record["scenarios"]] == [{"n": n} for n in QUICK]
    assert all(s["results"]["classes"]["customer"]["completed"] > 0 for s in record["scenarios"])
    assert (tmp_path / "report" / "index.html").is_file()  # the report of what finished


def test_a_port_that_is_not_a_dask_scheduler_is_one_line_within_seconds():
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []
    stop = threading.Event()

    def accept_and_stay_silent():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except socket.timeout:
                pass

    thread = threading.Thread(target=accept_and_stay_silent, daemon=True)
    thread.start()
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    try:
        started = time.monotonic()
        run_ = subprocess.run([sys.executable, "-m", "brewput", "solve", "examples/mmc.yaml", "--sweep", "c=3..4",
                               "--executor", "dask", "--scheduler", address],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
        listener.close()
    assert run_.returncode == 2
    assert run_.stderr == f"error: --scheduler {address}: not a Dask scheduler, or it did not answer within 3 s\n"
    assert elapsed < 10 and accepted  # it did connect, then gave up within the timeout


def test_workers_end_when_brewput_is_killed_outright(tmp_path):
    """SIGKILL cannot be handled: the workers see their parent gone and end
    within a second, rather than computing for hours for nobody."""
    model = tmp_path / "growing.yaml"
    model.write_text(GROWING)
    proc = subprocess.Popen([sys.executable, "-m", "brewput", "simulate", model, "--sweep", "n=1000000,2000000",
                             "--horizon", "1000", "--replications", "2", "--workers", "2"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(session_processes(proc.pid)) < 4 and time.monotonic() < deadline:  # brewput, tracker, 2 workers
        time.sleep(0.25)
    time.sleep(3)  # the workers are simulating
    proc.kill()
    proc.wait()
    assert_none_left(proc.pid)


# The parent waits for its workers while a signal is handed to another of its threads
# (the kernel does so while the main thread blocks it, as it does while starting a
# worker): Python only marks the main thread's handler as due.
SIGNAL_TO_ANOTHER_THREAD = r'''
import signal, sys, threading, time
from brewput.experiment.executors import LocalProcesses

def elsewhere():
    time.sleep(1.5)
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)

started = time.monotonic()
try:
    with LocalProcesses(1) as pool:
        threading.Thread(target=elsewhere, daemon=True).start()
        for _ in pool.map_unordered(time.sleep, [60]):
            pass
except KeyboardInterrupt:
    print(f"stopped after {time.monotonic() - started:.1f} s")
'''


def test_a_signal_handed_to_another_thread_stops_the_parent_waiting_for_its_workers():
    run = subprocess.run([sys.executable, "-c", SIGNAL_TO_ANOTHER_THREAD], capture_output=True, text=True,
                         timeout=90)
    # an untimed wait is woken only by the scenario's end, 60 s on
    assert run.returncode == 0 and run.stdout.startswith("stopped after "), run.stdout + run.stderr
    assert float(run.stdout.split()[2]) < 20, run.stdout


def test_signals_held_while_a_worker_starts_are_raised_after_not_inside():
    import threading

    from brewput import shutdown

    other = threading.Thread(target=time.sleep, args=(2,), daemon=True)
    other.start()
    finished_inside = False
    with pytest.raises(KeyboardInterrupt):
        with shutdown.held():
            signal.pthread_kill(other.ident, signal.SIGINT)  # another thread's: due in the main thread
            os.kill(os.getpid(), signal.SIGINT)  # the process's, pending or handed to the other thread
            deadline = time.monotonic() + 0.5
            while time.monotonic() < deadline:  # bytecodes, where a due handler would run
                pass
            finished_inside = True
    assert finished_inside
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, set())  & set(shutdown.SIGNALS)
