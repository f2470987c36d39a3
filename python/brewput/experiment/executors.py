"""Where scenarios run: in this process, on local worker processes, or on a Dask cluster.

Every executor has the same one method, `map_unordered(fn, items)`, yielding
`(index, fn(item))` as each item finishes, and `threads`, the engine threads a
scenario may use (replications run in parallel inside a scenario). Results never
depend on the executor: a scenario's numbers are a function of the scenario alone.

Leaving an executor early (Ctrl-C, an error) cancels what has not started and
waits for what is running, so nothing keeps running after brewput returns.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import importlib.util
import multiprocessing
import os
import pickle
import re
import signal
import threading
import time
from typing import Any, Callable, Iterable, Iterator, Optional, Tuple

from .. import shutdown
from ..engine.cancellable import cancel_when
from ..engine.work import cores
from ..errors import Field, OptionError
from .spawning import SpawnWithoutMain, pickled

EXECUTORS = ("local", "dask")


class InProcess:
    """One scenario after another in this process, each using every core for its
    replications (and showing the engine's own Ctrl-C handling)."""

    workers = 1
    threads: Optional[int] = None  # the engine's default: all cores

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def map_unordered(self, fn: Callable, items: Iterable) -> Iterator[Tuple[int, Any]]:
        for index, item in enumerate(items):
            yield index, fn(item)


_stopping = None  # in a worker process: the parent's stop flag (StopFlag)


class StopFlag:
    """The parent's "stop" for its workers: one byte of shared memory, set once,
    read without a lock. Not a multiprocessing.Event: its lock, taken by a worker
    at the moment a signal raised there (CPython can raise between acquiring a lock
    and entering its `with`), stays taken, and every other process that asks
    whether to stop then waits for ever: a sweep that never ends on SIGTERM."""

    def __init__(self, context):
        self._byte = context.RawValue(ctypes.c_bool, False)

    def set(self) -> None:
        self._byte.value = True

    def is_set(self) -> bool:
        return self._byte.value


def _worker_start(stopping) -> None:
    # Ctrl-C in a terminal (or SIGTERM to the process group) reaches every worker
    # too. Between scenarios a worker ignores it (the parent decides what stops);
    # during a scenario it stops it (the engine's own handler cancels a native run),
    # so the worker is free at once.
    # A signal ignored just before a long run starts is not lost: the engine
    # also polls the parent's "stop" event.
    # A worker is born with the signals blocked (LocalProcesses._submit): one that
    # came while it was still starting waits, and is dropped here with the others.
    global _stopping
    _stopping = stopping
    for signum in shutdown.SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(shutdown.SIGNALS))
    cancel_when(stopping.is_set)
    _exit_with(os.getppid())


def _exit_with(parent: int) -> None:
    """Ends this worker when its parent is gone, however it went (SIGKILL
    included): nothing of a run outlives the command that started it."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="brewput-parent-watch", daemon=True).start()


PARENT_POLL = 0.5  # seconds
SIGNAL_POLL = 0.2  # seconds: how late a signal handed to another thread may be handled


def _stop(signum, frame) -> None:
    # Once: a worker gets two signals (its group's, then its parent's), and the second
    # would raise again wherever the first one's unwinding is, even sending the result
    # back under the queue's lock, which every other worker then waits for.
    for each in shutdown.SIGNALS:
        signal.signal(each, signal.SIG_IGN)
    raise shutdown.interrupt(signum)


def _unless_stopping(call: bytes) -> Any:
    # Scenarios already queued to a worker cannot be cancelled: they skip themselves.
    if _stopping.is_set():
        raise KeyboardInterrupt
    fn, item = pickle.loads(call)
    for signum in shutdown.SIGNALS:
        signal.signal(signum, _stop)
    try:
        if _stopping.is_set():  # a signal that came before the handler was set
            raise KeyboardInterrupt
        return fn(item)
    finally:
        for signum in shutdown.SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


class LocalProcesses:
    """A pool of worker processes on this machine, one scenario per worker at a time."""

    def __init__(self, workers: Optional[int] = None):
        self.workers = workers or cores()
        # Replications of a scenario share the cores left to its worker.
        self.threads = max(1, cores() // self.workers)
        self._pool: Optional[concurrent.futures.ProcessPoolExecutor] = None

    def __enter__(self) -> LocalProcesses:
        # spawn, not fork: the parent has threads (the progress bar's), and a
        # forked child would inherit their locks in whatever state they were.
        # Without the user's main script: it may have no __main__ guard (spawning.py).
        context = SpawnWithoutMain()
        self._stopping = StopFlag(context)
        self._pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_worker_start, initargs=(self._stopping,))
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self._stopping.set()
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            # Also when the signal reached only this process: stop the running scenarios.
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGINT)
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _submit(self, fn: Callable, item: Any) -> concurrent.futures.Future:
        call = pickled((fn, item))  # here, so that what a worker could not unpickle is refused here
        # A submit may start a worker, which inherits this thread's signal mask:
        # with the signals held meanwhile, a Ctrl-C cannot reach a worker still
        # importing (a traceback, and a pool that could hang shutting down), nor
        # raise here halfway through starting one; this process gets its own once
        # the submit is done.
        with shutdown.held():
            return self._pool.submit(_unless_stopping, call)

    def map_unordered(self, fn: Callable, items: Iterable) -> Iterator[Tuple[int, Any]]:
        # A few scenarios per worker in flight, not all of them: a million
        # scenarios would otherwise be a million futures and pickled models.
        # The wait is timed: a signal the kernel hands to another of this process's
        # threads (one not blocking it) only marks the main thread's handler as due,
        # which runs once the main thread runs Python again; an untimed wait would not
        # until a scenario finished (a sweep that ignored Ctrl-C, CI).
        return _bounded(lambda item: self._submit(fn, item), items, 2 * self.workers,
                        lambda pending: concurrent.futures.wait(
                            pending, timeout=SIGNAL_POLL, return_when=concurrent.futures.FIRST_COMPLETED)[0])


def _bounded(submit: Callable, items: Iterable, window: int,
             wait: Callable[[set], Iterable]) -> Iterator[Tuple[int, Any]]:
    """`(index, result)` of every item as it finishes, with at most `window`
    submitted and unfinished; `wait` returns some finished futures of a set."""
    queue = enumerate(items)
    pending: dict = {}

    def refill() -> None:
        for index, item in queue:
            pending[submit(item)] = index
            if len(pending) >= window:
                return

    refill()
    try:
        while pending:
            for future in wait(set(pending)):
                yield pending.pop(future), future.result()
            refill()
    finally:
        for future in pending:
            future.cancel()


CONNECT_TIMEOUT = 3  # seconds, to reach a Dask scheduler
DASK_SCHEMES = ("tcp", "tls")
_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})")


async def _identity(address: str) -> dict:
    """What the server at `address` says it is (a scheduler says {"type": "Scheduler", ...})."""
    from distributed.comm import connect

    comm = await connect(address, timeout=CONNECT_TIMEOUT)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def scheduler_address(text: str) -> Tuple[str, int]:
    """The host and port of a Dask scheduler's address, `tcp://HOST:PORT` (or
    tls://, or HOST:PORT); an OptionError naming `scheduler` otherwise."""
    match = _ADDRESS.fullmatch(text.strip())
    if not (match and (match["scheme"] or "tcp") in DASK_SCHEMES and 1 <= int(match["port"]) <= 65535):
        raise OptionError("scheduler", "expected a Dask scheduler's address, tcp://HOST:PORT "
                                       "(e.g. tcp://10.0.0.5:8786)", value=text)
    return match["host"].strip("[]"), int(match["port"])


class DaskCluster:
    """Scenarios as tasks on a Dask cluster (`distributed`): the scheduler's
    workers need brewput installed; model files need not be there, since each task
    carries its validated model."""

    threads = 1  # a Dask worker runs one task per thread it has
    IN_FLIGHT = 1024  # tasks submitted and unfinished at a time

    def __init__(self, scheduler: str):
        self.scheduler = scheduler
        self._host, self._port = scheduler_address(scheduler)
        self._client = None

    def __enter__(self) -> DaskCluster:
        import socket

        from distributed import Client

        # A plain connection first: with nothing listening, distributed retries
        # for its whole timeout and leaves a half-made client that complains at exit.
        try:
            socket.create_connection((self._host, self._port), timeout=CONNECT_TIMEOUT).close()
        except OSError as e:
            raise OptionError("scheduler", f"cannot connect to a Dask scheduler: {e.strerror or e}",
                              value=self.scheduler) from None
        # Then its identity, within the timeout: a port where something else listens
        # would keep a Client waiting for as long as that peer keeps the connection.
        try:
            identity = asyncio.run(asyncio.wait_for(_identity(self.scheduler), CONNECT_TIMEOUT))
        except (OSError, ValueError, TypeError, asyncio.TimeoutError) as e:
            identity = {"error": str(e) or type(e).__name__}
        if not (isinstance(identity, dict) and identity.get("type") == "Scheduler"):
            raise OptionError("scheduler", f"not a Dask scheduler, or it did not answer within {CONNECT_TIMEOUT} s",
                              value=self.scheduler)
        try:
            self._client = Client(self.scheduler, set_as_default=False, timeout=f"{CONNECT_TIMEOUT}s")
        except (OSError, ValueError, TypeError) as e:
            raise OptionError("scheduler", f"cannot connect to a Dask scheduler: {e}", value=self.scheduler) from None
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._client.close()

    def map_unordered(self, fn: Callable, items: Iterable) -> Iterator[Tuple[int, Any]]:
        from distributed import as_completed

        queue = enumerate(items)
        pending: dict = {}
        finishing = as_completed(loop=self._client.loop)

        def submit_next() -> None:
            for index, item in queue:
                future = self._client.submit(fn, item, pure=False)
                pending[future.key] = (index, future)
                finishing.add(future)
                return

        for _ in range(self.IN_FLIGHT):
            submit_next()
        try:
            for future in finishing:
                index, _ = pending.pop(future.key)
                yield index, future.result()
                submit_next()
        finally:
            self._client.cancel([future for _, future in pending.values()])


def executor(kind: str = "local", *, workers: Optional[int] = None, scheduler: Optional[str] = None):
    """The executor the options name: `local` (worker processes, or this process
    with one worker) or `dask` (a running cluster's scheduler address), checked
    before anything runs."""
    if kind not in EXECUTORS:
        raise OptionError("executor", f"expected one of {', '.join(EXECUTORS)}, got {kind!r}")
    if workers is not None and not 1 <= workers <= 4096:
        raise OptionError("workers", f"expected a number from 1 to 4,096, got {workers}")
    if kind == "dask":
        if not scheduler:
            raise OptionError("executor", "needs ", Field("scheduler"), " ADDRESS (e.g. tcp://10.0.0.5:8786)",
                              value="dask")
        if workers is not None:
            raise OptionError("workers", "a Dask cluster has the workers it has; start more there")
        if importlib.util.find_spec("distributed") is None:
            # The package, not the extra 'brewput[dask]': a wheel file's user has no name for that.
            raise OptionError("executor", "needs Dask's distributed package: pip install distributed",
                              value="dask")
        return DaskCluster(scheduler)
    if scheduler:
        raise OptionError("scheduler", "only with ", Field("executor"), " dask")
    return InProcess() if (workers or cores()) == 1 else LocalProcesses(workers)
