"""Processes a test leaves running after it ends: brewput's workers, servers or
commands that outlived the test that started them (an orphan, its parent gone).

Why the suite looks after every test: one sweep left running after a failed signal
test burned both cores for the rest of a CI run, and every later test ran slower
(a whole run 20 minutes longer) with nothing in the log to say why. A leftover is
given a moment to end (a worker's parent watch polls every half second), then killed,
and a warning names the test that left it."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Dict

GRACE = 2.0  # seconds a leftover may take to end by itself
# pytest-xdist names each worker in its environment, which the processes a test starts
# inherit: a worker looks after its own tests' leftovers, never the other's running work.
WORKER = "PYTEST_XDIST_WORKER"


def started_by_this_worker(process: Path) -> bool:
    ours = os.environ.get(WORKER, "").encode()
    environment = (process / "environ").read_bytes().split(b"\0")
    theirs = next((v.split(b"=", 1)[1] for v in environment if v.startswith(WORKER.encode() + b"=")), b"")
    return theirs == ours


def orphans(since: float) -> Dict[int, str]:
    """The running processes adopted by init (or a subreaper) that started after
    `since` (seconds since boot), run Python or brewput and were started by this
    worker's tests: {pid: command line}."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z" or int(fields[1]) == os.getpid():
                continue
            started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
            if int(fields[1]) not in (0, 1) or started < since:
                continue
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            if not started_by_this_worker(stat.parent):
                continue
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
        if "python" in command or "brewput" in command:
            found[int(stat.parent.name)] = command
    return found


def uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def killed_after_grace(since: float) -> Dict[int, str]:
    """The orphans started after `since` still running after GRACE, killed."""
    left = orphans(since)
    deadline = time.monotonic() + GRACE
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = orphans(since)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left
