"""What `brewput lab` prints: the talk's tables from a lab record, and the
thread-pool table with the seed's lesson checked against the measurement."""
from __future__ import annotations

from typing import List, Optional

from rich.console import Console
from rich.table import Table

from ..figures import number, percent, signed_percent
from .results import BUSY_PREFIX
from .table import lab_table, lost, median_ms, p99_ms, relative_error, throughput_per_s


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


def print_coffee(console: Console, record: dict) -> None:
    swept = "par" if "par" in record["sweep"] else "cpus"
    unit = "customers" if swept == "par" else "cpu"
    console.print(lab_table(record, "Throughput (lattes per second)", throughput_per_s, swept=swept, unit=unit))
    console.print(lab_table(record, "Median latency (ms)", median_ms, swept=swept, unit=unit))
    if any(s["results"]["settings"]["load"]["kind"] == "open" for s in record["scenarios"] if s["engine"] == "lab"):
        console.print(lab_table(record, "p99 latency from the intended start (ms)", p99_ms, swept=swept, unit=unit))
        console.print(lab_table(record, "Orders dropped (request queue full)", lost, swept=swept, unit=unit,
                                counts=True))
    measured = [s["results"]["settings"] for s in record["scenarios"] if s["engine"] == "lab"]
    cpus_used = {settings.get("cpus_used") for settings in measured}
    runtimes = sorted({settings["runtime"] for settings in measured})
    counts = sorted(c for c in cpus_used if c)
    console.print(f"Measured on this machine with {' / '.join(map(str, counts))} {'CPU' if counts == [1] else 'CPUs'} "
                  f"({' and '.join(runtimes)} runtime{'s' if len(runtimes) > 1 else ''}); "
                  "the talk: ideal 250/s per cpu, locking flat at 250/s, finelocking flat at 1000/s "
                  "from 4 cpus, multi-2 linear to 1500/s at 6.", highlight=False)
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
    table = Table(title=record["title"], title_justify="left",
                  caption="measured / predicted by the model (relative error)")
    for name in ("threads", "makespan (ms)", "tasks per second", "mean task latency (ms)", "cpu use"):
        table.add_column(name, justify="right")
    for (model, threads), engines in rows.items():
        lab, sim = engines.get("lab"), engines.get("simulate")
        table.add_row(f"{threads}" + (" (one per task)" if model == "thread-per-task" else ""),
                      _pair(lab, sim, lambda r: r["classes"]["task"]["makespan"]),
                      _pair(lab, sim, throughput_per_s),
                      _pair(lab, sim, lambda r: r["classes"]["task"]["response_time"]["mean"]),
                      _pair(lab, sim, lambda r: r["resources"]["cpu"]["utilization"], percent))
    console.print(table)
    best = min(((r["lab"]["classes"]["task"]["makespan"], r["lab"]["classes"]["task"]["response_time"]["mean"], k)
                for (_, k), r in rows.items() if "lab" in r), default=None)
    if best is not None:
        console.print(f"Fastest measured: {best[2]} threads (makespan {number(best[0])} ms, mean latency "
                      f"{number(best[1])} ms). Seed 003: for CPU-bound work the best pool has as many threads as "
                      "cores; a thread per task finishes no sooner and every task waits till near the end.",
                      highlight=False)


def _pair(lab: Optional[dict], sim: Optional[dict], figure, written=number) -> str:
    m = None if lab is None else figure(lab)
    p = None if sim is None else figure(sim)
    text = "-" if m is None else written(m)
    if p is not None:
        error = relative_error(m, p)
        text += f" / {written(p)}" + (f" ({signed_percent(error)})" if error is not None else "")
    return text
