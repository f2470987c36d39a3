"""One way to stop, for SIGINT (Ctrl-C) and SIGTERM alike: a signal stops the run
as Ctrl-C always did (the native run is cancelled, what finished is shown and
written), and the command exits 128 + the signal's number: 130 or 143.

SIGTERM raises `Terminated`, a KeyboardInterrupt, so that every place that
already keeps what finished on Ctrl-C does the same on SIGTERM; `exit_code()`
says which signal came first."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator, Optional

SIGNALS = (signal.SIGINT, signal.SIGTERM)

_received: Optional[int] = None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would raise KeyboardInterrupt."""


def note(signum: int) -> None:
    """Remembers the first stopping signal: the one the exit code reports."""
    global _received
    if _received is None:
        _received = signum


def interrupt(signum: int) -> KeyboardInterrupt:
    """The exception a stopping signal raises."""
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def exit_code() -> int:
    """128 + the first stopping signal received (130 if none was seen: Ctrl-C
    through Python's own handler)."""
    return 128 + (_received or signal.SIGINT)


def became(error: BaseException) -> bool:
    """Whether `error` is a stopping signal's exception that a library caught and
    raised as its own: scipy's VODE turns an exception raised in its Fortran callback
    into SystemError and then ValueError ('Function to integrate must not return a
    tuple'), the interrupt only in their chain of causes."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _raise(signum, frame) -> None:
    note(signum)
    raise interrupt(signum)


def install() -> None:
    """In the command's process: SIGTERM (and SIGINT, to be noted) raise in the
    main thread as Ctrl-C does."""
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            signal.signal(signum, _raise)


@contextmanager
def held() -> Iterator[None]:
    """The stopping signals held back meanwhile, then acted on as they would have been.

    Blocked in this thread, so that a process started meanwhile is born with them
    blocked. Blocking is not enough in the main thread: a signal the kernel hands to
    another thread (any that does not block it) still runs the main thread's Python
    handler at its next bytecode, which would raise inside the code held. So the
    handlers only note a signal meanwhile, and the first noted is raised again
    afterwards, to the handler that was there before."""
    if threading.current_thread() is not threading.main_thread():
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        return
    came: list = []
    # no lock in a handler (CONTRIBUTING.md): a list's append is one bytecode
    previous = {signum: signal.signal(signum, lambda signum, frame: came.append(signum)) for signum in SIGNALS}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(SIGNALS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # one pending meanwhile is noted here
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if came:
            signal.raise_signal(came[0])
