"""How long a lab run measures, from its settings, so that hours of measuring are
announced (or refused) before they start, as simulations are (engine/work.py's
check_work says when). A measurement's time is set by its settings, not by an
engine's speed: the estimate is a floor that start-up and calibration add to."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..engine.work import duration_text
from .settings import CoffeeSettings


@dataclass(frozen=True)
class Measuring:
    seconds: float
    less: str
    basis = ""

    def __str__(self) -> str:
        return f"about {duration_text(self.seconds)} of measuring"


def coffee_measuring(scenarios: int, settings: CoffeeSettings) -> Measuring:
    """`scenarios` measurements (implementations x CPU counts x customers x runtimes),
    each its repetitions of a warm-up and a measured window."""
    seconds = scenarios * settings.repetitions * (settings.warmup_ms + settings.duration_ms) / 1000
    return Measuring(seconds, "measure fewer scenarios, repetitions, or a shorter --dur")


def pool_measuring(tasks: int, work_ms: float, sizes: Sequence[int], cpus: int, repetitions: int) -> Measuring:
    """Each pool size and a thread per task, each repetition running every task's
    CPU time on at most min(threads, cpus) CPUs at once."""
    shapes: Sequence[Optional[int]] = [*sizes, None]
    seconds = sum(tasks * work_ms / 1000 / min(cpus, size or tasks) for size in shapes) * repetitions
    return Measuring(seconds, "measure fewer tasks, pool sizes or repetitions, or less --work")
