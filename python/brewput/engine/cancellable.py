"""Native calls that can be watched and cancelled, through the one control
every engine takes (`_native.Control`, crates/py/src/control.rs).

The Rust engines release the GIL, so they run in a worker thread while this
thread reports progress and turns Ctrl-C (or SIGTERM: shutdown.py) into a cancel
of the native run. While the call runs, a signal only cancels it;
KeyboardInterrupt (Terminated for SIGTERM) is raised once the native code has stopped. An exception thrown at an arbitrary point could
leave the native thread running while the interpreter exits, which aborts the
process.
"""
from __future__ import annotations

import json
import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Optional, TypeVar

from .. import _native, shutdown

T = TypeVar("T")

# A second way to be told to stop, besides Ctrl-C: see `cancel_when`.
_stop_requested: Optional[Callable[[], bool]] = None


def cancel_when(predicate: Callable[[], bool]) -> None:
    """Makes every native call in this process cancel itself, as on Ctrl-C, once
    `predicate()` is true. A worker process learns so that its parent is
    stopping: a SIGINT can arrive while the worker ignores it (between
    scenarios) just before a long run starts, and would otherwise be lost."""
    global _stop_requested
    _stop_requested = predicate


def run_controlled(engine: str, call: Callable[[Any], T], *, watch: Optional[Callable[[Any], None]] = None,
                   interval: float = 0.1) -> T:
    """Returns `call(control)`, run in a worker thread, `control` being a
    `_native.Control` made for `engine` ("simulate", "lab", "load" or
    "serve"), which `call` hands to that engine. Ctrl-C or SIGTERM cancels the
    run through the control (the engine returns soon) and raises
    KeyboardInterrupt (or Terminated) afterwards. `watch` gets the engine's progress (`{"customers": ...}` from a
    simulation, the live figures from a load run, None from the others) every
    `interval` seconds meanwhile and once at the end. An exception raised by
    `call` is raised here."""
    control = _native.Control(engine)
    tick = None if watch is None else (lambda: watch(json.loads(control.progress())))
    finished = threading.Event()
    stopped_by: list = []   # the signals that stopped the run, the first first
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = call(control)
        except Exception as e:  # handed to the calling thread, which raises it
            outcome["error"] = e
        finally:
            finished.set()

    def on_signal(signum, frame) -> None:
        # A second signal can run this again on top of the first one's run (a
        # group's SIGTERM, then the parent's SIGINT to its workers), so nothing here
        # may take a lock: an Event's, taken twice by this thread, hung a worker.
        shutdown.note(signum)
        stopped_by.append(signum)
        control.cancel()

    with _signal_handler(on_signal):
        threading.Thread(target=run, name="brewput-native", daemon=True).start()
        while not finished.wait(interval):
            if _stop_requested is not None and not stopped_by and _stop_requested():
                on_signal(signal.SIGINT, None)
            if tick is not None:
                tick()
    if stopped_by:
        raise shutdown.interrupt(stopped_by[0])
    if tick is not None:
        tick()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@contextmanager
def _signal_handler(handler):
    """Routes SIGINT and SIGTERM to `handler` meanwhile (only the main thread may
    do so; elsewhere a signal is not this thread's to handle)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in shutdown.SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
