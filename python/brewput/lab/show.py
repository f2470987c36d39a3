"""What `brewput lab` prints: the talk's tables from a lab record, and the
thread-pool table with the seed's lesson checked against the measurement."""
from __future__ import annotations

from typing import List, Optional

from rich.console import Console
from rich.table import Table

import statistics

from ..figures import number, percent
from ..measured import LEVEL, LEVEL_TEXT, concluded, interval_text
from .results import BUSY_PREFIX
from .table import (PREDICTED_CAPTION, lab_table, lost, measured_cell, median_ci_ms, median_ms, p99_ci_ms, p99_ms,
                    throughput_ci_per_s, throughput_per_s)


def record_warnings(record: dict) -> List[str]:
    """The warnings of a lab record's measurements, each once; a busy machine
    in one line for the whole run rather than one per measurement."""
    measured = [s["results"] for s in record["scenarios"] if s["engine"] == "lab"]
    busy = [max(r["others_utilization"] or 0 for r in res["repetitions"]) for res in measured
            if any(w.startswith(BUSY_PREFIX) for w in res["warnings"])]
    others = sorted({w for res in measured for w in res["warnings"] if not w.startswith(BUSY_PREFIX)})
    if busy:
        others.append(f"{BUSY_PREFIX} up to {max(busy):.0%} of the CPUs during {len(busy)} of {len(measured)} "
                      "measurements: those figures are lower than the code can do (--nice -10 as root helps)")
    return others


def busiest(record: dict) -> Optional[float]:
    """The largest share of the CPUs other processes took during one of the
    record's repetitions (as record_warnings says "up to"); None where unknown."""
    return max((r["others_utilization"] for s in record["scenarios"] if s["engine"] == "lab"
                for r in s["results"]["repetitions"] if r["others_utilization"] is not None), default=None)


def print_coffee(console: Console, record: dict) -> None:
    swept = "par" if "par" in record["sweep"] else "cpus"
    unit = "customers" if swept == "par" else "cpu"
    console.print(lab_table(record, "Throughput (lattes per second)", throughput_per_s, swept=swept, unit=unit,
                            interval=throughput_ci_per_s))
    console.print(lab_table(record, "Median latency (ms)", median_ms, swept=swept, unit=unit, interval=median_ci_ms))
    if any(s["results"]["settings"]["load"]["kind"] == "open" for s in record["scenarios"] if s["engine"] == "lab"):
        console.print(lab_table(record, "p99 latency from the intended start (ms)", p99_ms, swept=swept, unit=unit,
                                interval=p99_ci_ms))
        console.print(lab_table(record, "Orders dropped (request queue full)", lost, swept=swept, unit=unit,
                                counts=True))
    measured = [s["results"]["settings"] for s in record["scenarios"] if s["engine"] == "lab"]
    cpus_used = {settings.get("cpus_used") for settings in measured}
    runtimes = sorted({settings["runtime"] for settings in measured})
    counts = sorted(c for c in cpus_used if c)
    console.print(concluded(busiest(record), f"Measured on this machine with {' / '.join(map(str, counts))} {'CPU' if counts == [1] else 'CPUs'} "
                  f"({' and '.join(runtimes)} runtime{'s' if len(runtimes) > 1 else ''}); "
                  "the talk: ideal 250/s per cpu, locking flat at 250/s, finelocking flat at 1000/s "
                  "from 4 cpus, multi-2 linear to 1500/s at 6."), highlight=False)
    if "threads" in runtimes:
        # Measured, not modelled: the cost is where the kernel puts each woken
        # thread, which no station of a model sees (docs/lab.md, "The thread runtime").
        console.print("The thread runtime pays a kernel wake-up per hand-off, its delay set by where the kernel "
                      "puts the woken thread; the models have no such cost and are its upper bound "
                      "(docs/lab.md, \"The thread runtime\").", highlight=False)


def print_pool(console: Console, record: dict) -> None:
    rows = {}
    for s in record["scenarios"]:
        rows.setdefault((s["model"], s["params"]["threads"]), {})[s["engine"]] = s["results"]
    table = Table(title=record["title"], title_justify="left", caption=PREDICTED_CAPTION)
    for name in ("threads", "makespan (ms)", "tasks per second", "mean task latency (ms)", "cpu use"):
        table.add_column(name, justify="right")
    for (model, threads), engines in rows.items():
        lab, sim = engines.get("lab"), engines.get("simulate")
        table.add_row(f"{threads}" + (" (one per task)" if model == "thread-per-task" else ""),
                      _pair(lab, sim, lambda r: task(r)["makespan"], lambda r: task(r)["makespan_ci"]),
                      _pair(lab, sim, throughput_per_s, throughput_ci_per_s),
                      _pair(lab, sim, lambda r: task(r)["response_time"]["mean"],
                            lambda r: task(r)["response_time"].get("mean_ci")),
                      _pair(lab, sim, lambda r: r["resources"]["cpu"]["utilization"],
                            lambda r: r["resources"]["cpu"]["utilization_ci"], percent, lambda h: f"{h:.1%}"))
    console.print(table)
    line = pool_conclusion(record)
    if line:
        console.print(line, highlight=False)


def pool_conclusion(record: dict) -> Optional[str]:
    """Seed 003's lesson checked against the measurement: the fastest pool
    measured beside the model's best size, told apart only when the
    repetitions' makespans differ significantly, and not trusted at all when
    other processes took a noticeable share of the CPUs meanwhile."""
    measured = {s["params"]["threads"]: s["results"] for s in record["scenarios"] if s["engine"] == "lab"}
    predicted = {s["params"]["threads"]: s["results"]["classes"]["task"]["makespan"]
                 for s in record["scenarios"] if s["engine"] == "simulate"}
    if not measured:
        return None
    fastest = min(measured, key=lambda k: measured[k]["classes"]["task"]["makespan"])
    lesson = ("Seed 003: for CPU-bound work the best pool has as many threads as cores; a thread per task finishes "
              "no sooner and every task waits till near the end.")
    first = f"fastest measured {_threads(fastest)} ({_makespan(measured[fastest])})"
    if predicted:
        shortest = min(predicted.values())
        # The model's best size: the fewest threads it finishes soonest with (more are no faster in it).
        best = min(k for k, m in predicted.items() if m <= shortest * (1 + 1e-6))
        first += "; " + _against_best(measured, fastest, best)
    return concluded(busiest(record), first[0].upper() + first[1:] + ". " + lesson)


def task(results: dict) -> dict:
    return results["classes"]["task"]


def _threads(k: int) -> str:
    return f"{k} thread{'s' if k != 1 else ''}"


def _makespan(results: dict) -> str:
    task = results["classes"]["task"]
    return f"makespan {interval_text(task['makespan'], task['makespan_ci'], 'ms')}"


def _against_best(measured: dict, fastest: int, best: int) -> str:
    """The fastest measured size against the model's best, judged on the repetitions' makespans."""
    if fastest == best:
        return "the model's best size too"
    if best not in measured:
        return f"the model's best size, {_threads(best)}, was not measured"
    spans = [[r["makespan"] for r in measured[k]["repetitions"]] for k in (fastest, best)]
    shown = f"{_threads(best)} (the model's best size): {_makespan(measured[best])}"
    if min(len(s) for s in spans) < 2:
        return f"one repetition cannot tell it from {shown}"
    if _differ(*spans):
        return f"significantly faster than {shown}"
    return f"indistinguishable at {LEVEL_TEXT} from {shown}"


def _differ(a: List[float], b: List[float]) -> bool:
    """Whether two sets of repetitions' figures have different means (Welch's t-test at LEVEL)."""
    from scipy import stats

    if statistics.pvariance(a) == 0 and statistics.pvariance(b) == 0:
        return statistics.fmean(a) != statistics.fmean(b)
    return bool(stats.ttest_ind(a, b, equal_var=False).pvalue < 1 - LEVEL)


def _pair(lab: Optional[dict], sim: Optional[dict], figure, interval, written=number, half_written=None) -> str:
    m = None if lab is None else figure(lab)
    ci = None if lab is None else interval(lab)
    p = None if sim is None else figure(sim)
    return measured_cell(m, ci, p, written, has_prediction=p is not None,
                         **({"half_written": half_written} if half_written else {})) or "-"
