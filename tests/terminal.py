"""A command run on a terminal, as a person runs it: a pseudo-terminal for stderr
(where rich draws its live bars) and, unless asked otherwise, for stdout too.

A pipe is what every other test gives a command; this is the one place a test
sees what a person sees. The screen's text comes back without its escape codes."""
from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

# CSI sequences (colours, cursor moves, erase) and OSC ones (titles, links).
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


@dataclass
class Screen:
    code: int
    text: str  # what the terminal showed, escape codes removed
    stdout: Optional[str]  # what went to stdout, where it was not the terminal


def run_on_terminal(args: Sequence[str], *, cwd: Path, stdout_on_terminal: bool = True, timeout: float = 180,
                    columns: int = 120, env: Optional[dict] = None) -> Screen:
    """Runs `args` with stdin and stderr on a new pseudo-terminal of `columns`
    columns (and stdout, unless `stdout_on_terminal` is False: then piped, as in
    `brewput ... > file`). Kills its process group after `timeout` seconds."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {k: v for k, v in (env or os.environ).items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS", "LINES")}
    environment["TERM"] = "xterm-256color"
    process = subprocess.Popen(list(args), cwd=cwd, env=environment, stdin=follower, stderr=follower,
                               stdout=follower if stdout_on_terminal else subprocess.PIPE, start_new_session=True)
    os.close(follower)
    seen, piped = bytearray(), bytearray()
    streams = {leader: seen}
    if process.stdout is not None:
        streams[process.stdout.fileno()] = piped
    deadline = time.monotonic() + timeout
    try:
        while streams:
            if time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                raise AssertionError(f"{' '.join(args)}: still running after {timeout} s on a terminal; "
                                     f"it showed:\n{_text(seen)}")
            ready, _, _ = select.select(list(streams), [], [], 0.2)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: every holder of the terminal has closed it
                    chunk = b""
                if chunk:
                    streams[fd] += chunk
                else:
                    del streams[fd]
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(leader)
        if process.stdout is not None:
            process.stdout.close()
    return Screen(code, _text(seen), piped.decode() if process.stdout is not None else None)


def screen_text(raw: str) -> str:
    """What a terminal shows of `raw`: its escape codes removed, its line ends plain."""
    return _ESCAPES.sub("", raw).replace("\r\n", "\n")


def _text(raw: bytes) -> str:
    return screen_text(raw.decode("utf-8", errors="replace"))
