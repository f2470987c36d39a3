"""Calling the Rust lab: in a worker thread (it releases the GIL) so that
Ctrl-C becomes a clean cancel, raised as KeyboardInterrupt once it stopped."""
from __future__ import annotations

import json
import signal
import threading
from contextlib import contextmanager

from .. import _native
from ..errors import BrewputError


def call(function_name: str, run: dict) -> dict:
    """Runs `_native.<function_name>` on `run` (a dict) and returns its report."""
    control = _native.LabControl()
    function = getattr(_native, function_name)
    outcome: dict = {}
    finished, interrupted = threading.Event(), threading.Event()

    def work() -> None:
        try:
            outcome["report"] = function(json.dumps(run), control)
        except ValueError as e:
            outcome["error"] = e
        finally:
            finished.set()

    def on_ctrl_c(signum, frame) -> None:
        interrupted.set()
        control.cancel()

    with _sigint_to(on_ctrl_c):
        threading.Thread(target=work, name="brewput-lab", daemon=True).start()
        while not finished.wait(0.05):
            pass
    if interrupted.is_set():
        raise KeyboardInterrupt
    if "error" in outcome:
        raise BrewputError(f"lab: {outcome['error']}")
    return json.loads(outcome["report"])


@contextmanager
def _sigint_to(handler):
    """SIGINT goes to `handler` meanwhile (only the main thread can arrange it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
