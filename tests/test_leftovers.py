"""The suite's watch for processes a test leaves behind (tests/leftovers.py): it finds
an orphan its own tests started, and, with the tests run two at a time, leaves alone
what the other worker's tests started."""
import os
import signal
import subprocess
import sys
import time

import leftovers


def orphan(worker: str) -> int:
    """A Python process whose parent (a shell) has ended, started under `worker`'s name: its pid."""
    environment = {k: v for k, v in os.environ.items() if k != leftovers.WORKER}
    if worker:
        environment[leftovers.WORKER] = worker
    shell = subprocess.run(["sh", "-c", f"'{sys.executable}' -c 'import time; time.sleep(60)' >/dev/null 2>&1 & echo $!"],
                           env=environment, capture_output=True, text=True, check=True)
    return int(shell.stdout)


def found_within(since: float, pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pid in leftovers.orphans(since):
            return True
        time.sleep(0.05)
    return False


def test_an_orphan_of_this_workers_tests_is_found_and_one_of_the_others_is_not():
    since = leftovers.uptime() - 1
    ours = orphan(os.environ.get(leftovers.WORKER, ""))
    theirs = orphan("another-worker")
    try:
        assert found_within(since, ours)
        assert theirs not in leftovers.orphans(since)
    finally:
        for pid in (ours, theirs):
            os.kill(pid, signal.SIGKILL)
