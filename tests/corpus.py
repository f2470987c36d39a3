"""The malformed-input corpus: bad input, run through the real command line.

Every case must end with its exit code (2 unless it says otherwise), one to four
lines on stderr that name what is wrong (the file, field or option: `names`),
and never a Python traceback or warning, a Rust panic, a hang (`timeout`) or unbounded
memory (the run's address space is capped at `memory_mb`).

A case's files are written into a fresh folder, which is also the working
directory of the run; `{dir}` in its arguments is that folder. The corpus is
split by area (tests/test_corpus_*.py), each a list of Cases run by `check`.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence, Union

MODEL = """\
brewput: 1
stations:
  desk: {servers: 1}
classes:
  c:
    rate: 1
    route:
      - {station: desk, service: exp(0.5)}
"""
"""A valid open model (M/M/1 at 50 %), for cases that break one thing of it."""

CLOSED = """\
brewput: 1
stations:
  desk: {servers: 1}
classes:
  c:
    population: 3
    route:
      - {station: desk, service: exp(0.5)}
"""
"""A valid closed model, for the same."""

# A valid model with a param `n` (its servers), for studies and sweeps.
STUDY_MODEL = MODEL.replace("stations:", "params: {n: 1}\nstations:").replace("servers: 1", "servers: '${n}'")


@dataclass(frozen=True)
class Case:
    id: str
    argv: Sequence[str]  # after `brewput`; `{dir}` is replaced by the case's folder
    files: Mapping[str, Union[str, bytes]] = field(default_factory=dict)
    names: Sequence[str] = ()  # each must appear in stderr: the file, field or option at fault
    code: int = 2
    memory_mb: int = 3072
    timeout: float = 60.0
    max_lines: int = 4

    def __str__(self) -> str:
        return self.id


def _cap_memory(megabytes: int):
    def limit() -> None:
        size = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return limit


def write_files(files: Mapping[str, Union[str, bytes]], folder: Path) -> None:
    """A case's files, written into `folder` (text as UTF-8)."""
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def run_case(case: Case, folder: Path) -> subprocess.CompletedProcess:
    write_files(case.files, folder)
    argv = [arg.replace("{dir}", str(folder)) for arg in case.argv]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "RAYON_NUM_THREADS": "2"}
    return subprocess.run([sys.executable, "-m", "brewput", *argv], cwd=folder, env=env,
                          capture_output=True, text=True, errors="replace", timeout=case.timeout,
                          preexec_fn=_cap_memory(case.memory_mb), stdin=subprocess.DEVNULL)


def check(case: Case, folder: Path) -> None:
    """Runs `case` and asserts everything the corpus promises of it."""
    done = run_case(case, folder)
    stderr = done.stderr
    shown = f"\n--- stderr ---\n{stderr}\n--- stdout (tail) ---\n{done.stdout[-2000:]}"
    assert "Traceback" not in stderr and "panicked" not in stderr, shown
    assert "Warning:" not in stderr, f"a Python warning leaked{shown}"  # RuntimeWarning, UserWarning...
    assert done.returncode == case.code, f"exit code {done.returncode}, expected {case.code}{shown}"
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert 1 <= len(lines) <= case.max_lines, f"{len(lines)} lines on stderr{shown}"
    for name in case.names:
        assert name in stderr, f"stderr does not name {name!r}{shown}"


def ids(cases: Sequence[Case]) -> Sequence[str]:
    seen = [c.id for c in cases]
    assert len(seen) == len(set(seen)), "corpus case ids must be unique"
    return seen
