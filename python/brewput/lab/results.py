"""Lab reports (from the Rust harness, microseconds and per second) in the one
results schema (docs/results.md): milliseconds, throughput per ms,
`engine: "lab"`, a figure's `_ci` the engine's Student-t interval over
repetitions. The percentile points and the interval are the simulator's own
(through the binding), so measured and predicted figures line up and no second
implementation of the interval exists."""
from __future__ import annotations

import statistics
from typing import List, Optional, Sequence, Tuple

from .. import _native
from ..measured import BUSY_MACHINE, over_repetitions
from ..report import hgrm
from ..units import rate_in, time_in

SPECTRUM = tuple(_native.SPECTRUM)
NAMED = tuple(_native.PERCENTILES)
#: The unit of the Rust harness's times (crates/lab/src/stats.rs), and the one the results show.
HARNESS, SHOWN = "us", "ms"


def interval(values: Sequence[float]) -> Tuple[Optional[float], Optional[List[float]]]:
    """The mean of `values` and its Student-t interval at the engine's
    confidence level (None with one value): the engine's own estimate."""
    if not values:
        return None, None
    mean, ci = _native.estimate(list(values))
    return mean, None if ci is None else list(ci)


def times(summary: dict) -> dict:
    """A Rust `Times` (microseconds) as the schema's response_time block (ms)."""
    ms = {p: time_in(v, HARNESS, SHOWN) for p, v in summary["percentiles"]}
    out: dict = {"mean": time_in(summary["mean_us"], HARNESS, SHOWN), "mean_ci": None}
    for name, p in NAMED:
        out[name], out[f"{name}_ci"] = ms[p], None
    out["max"] = time_in(summary["max_us"], HARNESS, SHOWN)
    out["spectrum"] = [[p, ms[p]] for p in SPECTRUM]
    out["count"] = summary["count"]
    if summary.get("distribution"):  # asked for: the rows of an .hgrm file (report/hgrm.py)
        out["distribution"] = hgrm.in_unit(summary["distribution"], HARNESS, SHOWN)
    return out


def with_intervals(block: dict, repetitions: List[dict]) -> dict:
    """A response_time `block` (ms) whose mean and named percentiles get their
    intervals from the independent repetitions' own figures (`repetitions`:
    Rust `Times` in microseconds): their spread about the figure over all."""
    own = [times(r) for r in repetitions]
    for key in ("mean", *(name for name, _ in NAMED)):
        block[f"{key}_ci"] = over_repetitions(block[key], [o[key] for o in own])
    return block


def coffee_results(implementation: str, settings: dict, report: dict) -> dict:
    """One coffee-shop measurement in the results schema."""
    reps = report["repetitions"]
    throughput, throughput_ci = interval([rate_in(r["throughput_per_s"], "s", SHOWN) for r in reps])
    utilization, utilization_ci = interval([r["utilization"] for r in reps])
    offered = sum(r["offered"] or 0 for r in reps) if settings["load"]["kind"] == "open" else None
    dropped = sum(r["dropped"] for r in reps)
    latte = {
        "throughput": throughput,
        "throughput_ci": throughput_ci,
        "response_time": with_intervals(times(report["response"]), [r["response"] for r in reps]),
        "waiting_time": times(report["waiting"]),
        "service_time": with_intervals(times(report["service"]), [r["service"] for r in reps]),
        "completed": sum(r["completed"] for r in reps),
        "offered": offered,
        "lost": dropped,
        "loss_probability": (dropped / offered) if offered else 0.0,
        "loss_probability_ci": None,
    }
    return {
        "model": f"coffee shop: {implementation}",
        "engine": "lab",
        "method": "measured",
        "time_unit": SHOWN,
        "params": {"cpus": settings["cpus"], "par": settings["par"]},
        "settings": {**settings, "cpus_used": report["cpus"], "cpu_ids": report["cpu_ids"],
                     "burn_iterations_per_us": report["burn_iterations_per_us"],
                     "repetitions_done": len(reps)},
        "classes": {"latte": latte},
        "stations": {},
        "resources": {"cpu": {"utilization": utilization, "utilization_ci": utilization_ci,
                              "in_use": None if utilization is None else utilization * report["cpus"]}},
        # Each repetition's own figures: on a busy machine the best of them is
        # the one least disturbed by other processes.
        "repetitions": [{"throughput": rate_in(r["throughput_per_s"], "s", SHOWN), "utilization": r["utilization"],
                         "cpu_s": r["cpu_s"], "others_utilization": others_share(r, report["cpus"]),
                         "completed": r["completed"], "offered": r["offered"], "lost": r["dropped"]}
                        for r in reps],
        "warnings": list(report["warnings"]) + busy_machine_warning(reps, report["cpus"]),
    }


BUSY_PREFIX = "other processes used"


def others_share(repetition: dict, cpus: int) -> Optional[float]:
    """Other processes' share of the run's CPUs over a repetition's window
    (a coffee run's measured window, a pool run's makespan)."""
    others = repetition.get("others_cpu_s")
    window_s = repetition["window_s"] if "window_s" in repetition else repetition["makespan_s"]
    return None if others is None else others / (window_s * cpus)


def busy_machine_warning(repetitions: List[dict], cpus: int) -> List[str]:
    """A warning when other processes took a noticeable share of the CPUs."""
    shares = [s for s in (others_share(r, cpus) for r in repetitions) if s is not None]
    if not shares or statistics.fmean(shares) <= BUSY_MACHINE:
        return []
    return [f"{BUSY_PREFIX} {statistics.fmean(shares):.0%} of the {cpus} CPU{'s' if cpus > 1 else ''} "
            "while this was measured: the figures are lower than the code can do (--nice -10 as root helps)"]

