"""How much of this machine's CPUs other processes took while a load ran: the
CPUs' busy time (/proc/stat) less this process's own (the generator's threads,
and the commands `--exec` ran, which it waits for). A target served on this
machine counts among the others: its CPU competes with the generator's.

Linux only (/proc/stat); elsewhere nothing is said (None)."""
from __future__ import annotations

import os
import resource
import time
from typing import Optional, Set, Tuple


def _cpus() -> Set[int]:
    try:
        return os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _busy_seconds(cpus: Set[int]) -> Optional[float]:
    """CPU time spent so far on `cpus` by every process, idle and I/O wait not counted."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    ticks = 0
    for line in lines:
        name, *fields = line.split()
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
            continue
        # user nice system idle iowait irq softirq steal (guest time is inside user)
        values = [int(v) for v in fields[:8]]
        ticks += sum(v for i, v in enumerate(values) if i not in (3, 4))
    return ticks / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class CpuWatch:
    """Started before a run; `others_share()` after it."""

    def __init__(self) -> None:
        self._cpus = _cpus()
        self._start: Tuple[Optional[float], float, float] = (_busy_seconds(self._cpus), _own_seconds(),
                                                            time.monotonic())

    def others_share(self) -> Optional[float]:
        """Other processes' CPU time over the CPUs' time since the start (None where unknown)."""
        busy0, own0, t0 = self._start
        busy1, own1, t1 = _busy_seconds(self._cpus), _own_seconds(), time.monotonic()
        if busy0 is None or busy1 is None or t1 <= t0:
            return None
        others = max(0.0, (busy1 - busy0) - (own1 - own0))
        return min(1.0, others / ((t1 - t0) * len(self._cpus)))
