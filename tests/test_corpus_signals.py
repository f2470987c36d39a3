"""Signals, as a person sends them: SIGINT (a terminal's Ctrl-C reaches the whole
process group) and SIGTERM (a supervisor's, often to brewput alone), early and late,
to the commands that run long. Each must end within the hunt's grace with 130 or 143,
print no traceback, keep what finished (-o) and leave no process it started behind.
The same runner as tests/hunt_inputs.py's signals family, on a subset that covers
every kind of worker: engine threads, worker processes, the lab's threads, a server."""
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from corpus import write_files  # noqa: E402
from hunt_inputs import LONG, SIGNAL_GRACE, Probe, Signal, _run_signalled, signalled_codes  # noqa: E402

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

COMMANDS = {label: (argv, files) for label, argv, files in LONG}
CASES = [
    ("simulate", signal.SIGTERM, 0.5, False),
    ("simulate", signal.SIGINT, 3.0, True),
    ("sweep-processes", signal.SIGINT, 3.0, True),
    ("sweep-processes", signal.SIGTERM, 3.0, False),
    ("study", signal.SIGTERM, 3.0, False),
    ("study", signal.SIGINT, 0.5, True),
    ("lab-pool", signal.SIGTERM, 3.0, False),
    ("serve", signal.SIGINT, 1.0, True),
]


@pytest.mark.parametrize("label, number, after, group", CASES,
                         ids=[f"{c[0]}-{c[1].name}-{c[2]:g}s-{'group' if c[3] else 'parent'}" for c in CASES])
def test_a_signal_ends_the_run_promptly_and_leaves_nothing_behind(label, number, after, group):
    argv, files = COMMANDS[label]
    probe = Probe("signals", label, argv, files, signal=Signal(number, after, group))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(files, folder)
        started = time.monotonic()
        done, left = _run_signalled(probe, folder)
        elapsed = time.monotonic() - started
        assert left == [], left
        assert done.returncode in signalled_codes(label, number) and done.returncode != 0 or label == "serve", \
            done.stderr
        assert elapsed < after + SIGNAL_GRACE
        assert "Traceback" not in done.stderr and "panicked" not in done.stderr
        if "-o" in argv:  # what finished is written, marked so; where nothing had, nothing is
            written = folder / argv[argv.index("-o") + 1]
            last = done.stderr.splitlines()[-1]
            if written.exists():
                record = json.loads(written.read_text())
                assert record["interrupted"] is True and record["scenarios"]
            else:
                assert last == "interrupted" or last.startswith("interrupted: 0 of "), done.stderr
