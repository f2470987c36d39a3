"""Each of the talk's published points beside brewput's prediction (the
implementation's model, simulated through the code `lab coffee --predict` runs)
and, where this machine can, the lab's measurement (`run_coffee_lab`, default
settings but the run's length): throughput and median latency.

A mode of the talk with no model (americano, espresso and their pipelines) stays
a row that says so; a point the lab cannot measure here (more CPUs than the
machine has, more customers than the lab allows) says why."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional

from ..errors import OptionError
from ..units import rate_factor
from .coffee import CoffeeSettings
from .options import LIMITS, check_implementation
from .talk import TalkRow

# Called with (steps done, steps in all).
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Figures:
    thru_per_s: float
    p50_ms: float

    @classmethod
    def of(cls, results: dict) -> "Figures":
        latte = next(iter(results["classes"].values()))
        return cls(latte["throughput"] * rate_factor(results["time_unit"], "s"), latte["response_time"]["p50"])


@dataclass(frozen=True)
class Comparison:
    table: str
    talk: TalkRow
    predicted: Optional[Figures]        # None: no model of this mode
    measured: Optional[Figures] = None
    unmeasured: Optional[str] = None    # why the lab did not measure this point, when asked to
    lab_results: Optional[dict] = None  # the measurement in the results schema (its warnings, settings)

    def to_dict(self) -> dict:
        figures = lambda f: None if f is None else {"throughput_per_s": f.thru_per_s, "p50_ms": f.p50_ms}  # noqa: E731
        return {"table": self.table, "mode": self.talk.mode, "cpus": self.talk.maxprocs, "par": self.talk.par,
                "jitter_ms": self.talk.jitter_ms,
                "talk": {"throughput_per_s": self.talk.thru_per_s, **{f"{k}_ms": v for k, v in
                                                                      self.talk.latency_ms.items()}},
                "predicted": figures(self.predicted), "measured": figures(self.measured),
                **({"unmeasured": self.unmeasured} if self.unmeasured else {})}


def has_model(mode: str) -> bool:
    """Whether brewput has this mode of the talk (a model in examples/coffee, and the
    same implementation in the lab: the two cover the same names)."""
    try:
        check_implementation(mode)
    except OptionError:
        return False
    return True


def predict(row: TalkRow) -> Optional[Figures]:
    """The model of `row.mode` at the talk's CPUs, customers and jitter, as `lab coffee --predict` runs it."""
    from .predict import predict_coffee

    if not has_model(row.mode):
        return None
    return Figures.of(predict_coffee(row.mode, row.maxprocs, row.par, CoffeeSettings(jitter_ms=row.jitter_ms)))


def why_unmeasurable(row: TalkRow, machine_cpus: int) -> Optional[str]:
    """Why the lab cannot measure `row` on this machine, or None if it can."""
    if not has_model(row.mode):
        return "no lab implementation"
    if row.maxprocs > machine_cpus:
        return f"model only: {row.maxprocs} CPUs, this machine has {machine_cpus}"
    if row.par > LIMITS["par"].high:
        return f"model only: {row.par:,} customers, the lab runs at most {LIMITS['par'].high:,}"
    return None


def measure(row: TalkRow, settings: CoffeeSettings) -> dict:
    """The lab's results for `row` (the results schema, `engine: "lab"`); Ctrl-C raises KeyboardInterrupt."""
    from .coffee import run_coffee_lab

    record = run_coffee_lab([row.mode], [row.maxprocs], par=[row.par],
                            settings=replace(settings, jitter_ms=row.jitter_ms))
    if record["interrupted"]:
        raise KeyboardInterrupt
    return record["scenarios"][0]["results"]


def compare(tables: Dict[str, List[TalkRow]], *, measure_with: Optional[CoffeeSettings] = None,
            machine_cpus: int = 1, progress: Optional[Progress] = None) -> List[Comparison]:
    """Every row predicted; with `measure_with`, measured too where this machine can.
    Ctrl-C during a measurement ends the run with what finished: the comparisons
    before it, and the interrupted point (predicted, `unmeasured: interrupted`) last."""
    rows = [(name, row) for name, table in tables.items() for row in table]
    to_measure = {k for k, (_, row) in enumerate(rows)
                  if measure_with is not None and why_unmeasurable(row, machine_cpus) is None}
    total, done = len(rows) + len(to_measure), 0
    comparisons = []
    for k, (name, row) in enumerate(rows):
        comparison = Comparison(name, row, predict(row))
        done += 1
        point = f"{name}: {row.mode} at {row.maxprocs} cpus"
        if progress:
            progress(done, total, f"predicted {point}")
        if k in to_measure:
            try:
                results = measure(row, measure_with)
            except KeyboardInterrupt:
                comparisons.append(replace(comparison, unmeasured="interrupted"))
                break
            comparison = replace(comparison, measured=Figures.of(results), lab_results=results)
            done += 1
            if progress:
                progress(done, total, f"measured {point}")
        elif measure_with is not None:
            comparison = replace(comparison, unmeasured=why_unmeasurable(row, machine_cpus))
        comparisons.append(comparison)
    return comparisons
