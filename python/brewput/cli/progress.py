"""Progress on long work, wherever the person waiting reads it.

A terminal gets a live bar on stderr (transient: the tables it leaves are all
that stays). A pipe or a CI log gets a line on stderr per finished step (a
scenario, an option, a measurement), and for work counted in small units (the
customers of one simulation) a line every few seconds, so that a long run is
never silent and a log shows where it got to.

Every command's callback is `progress(done, total, what="")`: `done` of `total`
steps, and optionally what: the step just finished where `done` grew with this
call (`measured finelocking on 2 cpus`), the step under way otherwise (`measuring
...`), which only the bar shows."""
from __future__ import annotations

import sys
import time
from contextlib import ExitStack, contextmanager
from typing import Callable, Iterator, Optional

Progress = Callable[..., None]

#: Seconds between two lines of fine-grained progress in a pipe.
PIPED_EVERY = 5.0
#: Seconds of work that is most often quick (solve), shown neither by bar nor line, so
#: that a quick answer prints alone.
QUICK = 1.0


class _Lines:
    """A line on stderr per step finished (`steps`), or every PIPED_EVERY seconds
    of progress counted in small units, and one when all are done."""

    def __init__(self, label: str, steps: bool, started: Optional[float] = None):
        self._label, self._steps = label, steps
        self._started = time.monotonic() if started is None else started
        self._shown = 0
        self._last_line = self._started

    def __call__(self, done: int, total: Optional[int], what: str = "") -> None:
        now = time.monotonic()
        if done <= self._shown:
            return
        if not self._steps and done != total and now - self._last_line < PIPED_EVERY:
            return
        self._shown, self._last_line = done, now
        count = f"{done:,}/{total:,}" if total else f"{done:,}"
        if not self._steps and total:
            count = f"{100 * done / total:.0f} %"
        detail = f": {what}" if what else ""
        sys.stderr.write(f"{self._label} {count}{detail} ({now - self._started:.1f} s)\n")
        sys.stderr.flush()


@contextmanager
def progress_bar(enabled: bool, label: str = "simulating", steps: bool = True,
                 quiet: float = 0.0) -> Iterator[Optional[Progress]]:
    """A progress callback: a transient bar on a terminal's stderr, lines in a pipe
    (see the module's doc); None when not `enabled` (the output is JSON, say).
    `steps`: whether `done` counts whole steps worth a line each, or small units.
    `quiet`: seconds of work shown neither by bar nor line (work that is most often
    quick, whose answer should print alone: solve), the first after them shown."""
    if not enabled:
        yield None
        return
    if quiet <= 0:
        with _shown(label, steps) as progress:
            yield progress
        return
    with ExitStack() as later:
        started, shown = time.monotonic(), []

        def progress(done, total, what=""):
            if not shown:
                if time.monotonic() - started < quiet:
                    return
                shown.append(later.enter_context(_shown(label, steps, started)))
            shown[0](done, total, what)

        yield progress


@contextmanager
def _shown(label: str, steps: bool, started: Optional[float] = None) -> Iterator[Progress]:
    """The bar or the lines; a line's seconds count from `started` (default now)."""
    from .common import err

    if not err.is_terminal:
        yield _Lines(label, steps, started)
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeRemainingColumn)

    count = (MofNCompleteColumn(),) if steps else ()
    columns = (TextColumn(label), BarColumn(), *count, TaskProgressColumn(), TimeRemainingColumn(),
               TextColumn("{task.fields[what]}"))
    with Progress(*columns, console=err.rich, transient=True) as bar:
        task = bar.add_task(label, total=None, what="")
        yield lambda done, total, what="": bar.update(task, completed=done, total=total, what=what)
