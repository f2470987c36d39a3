"""The steps of long work whose length is not known before it ends (a Markov chain
walked and solved, truncation after truncation, then each class's passage times),
told to whoever waits for it.

The work calls `told(what)` after each step, saying what it did; the caller that shows
progress (the CLI's bar or lines, cli/progress.py) listens for the duration of a
`with telling(progress):`. A context variable rather than a parameter: the steps
happen many calls deep in the analytic methods, whose signatures say what they
compute, not who watches; without a listener `told` does nothing."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, List, Optional

Progress = Callable[..., None]

#: The listener and the steps told so far.
_listening: ContextVar[Optional[List]] = ContextVar("brewput_steps", default=None)


@contextmanager
def telling(progress: Optional[Progress]) -> Iterator[None]:
    """Steps told inside go to `progress(done, None, what)` (none where it is None)."""
    token = _listening.set(None if progress is None else [progress, 0])
    try:
        yield
    finally:
        _listening.reset(token)


def told(what: str) -> None:
    """One more step done: `what` it was."""
    listening = _listening.get()
    if listening is not None:
        listening[1] += 1
        listening[0](listening[1], None, what)
