"""Where the thread runtime's idle CPU time goes: the lab's kitchens under
`perf sched`, each runtime side by side, every hand-off's scheduling delay
set against what the other CPUs were doing meanwhile.

    .venv/bin/python bench/lab_handoffs.py [--impl linearpipe-0,linearpipe-10,multipipe-2,finelocking] [--cpus 2]

Needs `perf` with the sched tracepoints (root, or kernel.perf_event_paranoid
<= -1) and a quiet machine. For each implementation and runtime it records the
whole machine's scheduler events while `brewput lab coffee` measures one
1 s window, then, over the middle of the run, from `perf sched timehist`:

- the CPUs' idle time per latte, from the lab's own CPU accounting (CPU time
  available on the run's CPUs less the process's CPU time, over the window);
- the kitchen's wake-ups per latte (a thread or processor switched in after
  waiting), and the scheduling delay of each (runnable, not yet running);
- the idle time perf sees (no task at all ran on a CPU; the lab's own
  accounting counts perf's and other processes' time as idle too), and how
  much of it passed while a kitchen thread was woken but not yet running (a
  thread queued behind a busy CPU, or an idle CPU being woken) rather than
  while every kitchen thread was blocked, waiting for another; the model's CPU
  resource (a free CPU takes any waiting step at once) has neither;
- migrations per latte (a kitchen thread switched in on another CPU than last).

Prints Markdown for docs/lab.md and bench/RESULTS.md and saves the figures
as bench/lab_handoffs.json.
"""
from __future__ import annotations

import argparse
import bisect
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNTIMES = ("threads", "tasks")
# A row of `perf sched timehist`: when a task's run ended, on which CPU, the
# task as comm[tid/pid], then wait time, scheduling delay and run time in ms.
ROW = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.*?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")
# The part of each run analysed: after the warm-up's start, before the end's drain.
SKIP_START_S, SKIP_END_S = 0.4, 0.1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="linearpipe-0,linearpipe-10,multipipe-2,finelocking")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--dur", default="1s")
    args = parser.parse_args()
    rows = []
    for implementation in args.impl.split(","):
        for runtime in RUNTIMES:
            print(f"{implementation}, {runtime} ...", file=sys.stderr)
            rows.append(measure(implementation, runtime, args.cpus, args.dur))
    (HERE / "lab_handoffs.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"`python bench/lab_handoffs.py {' '.join(sys.argv[1:])}`, {args.cpus} CPUs, one {args.dur} window each.\n")
    print("| implementation | runtime | lattes/s | idle CPU per latte (ms) | wake-ups per latte | "
          "delay per wake-up, mean / p99 (ms) | delay per latte (ms) | idle seen by perf (ms) | of it, with a "
          "kitchen thread runnable | migrations per latte |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['implementation']} | {r['runtime']} | {r['lattes_per_s']:.0f} | {r['idle_ms_per_latte']:.2f} | "
              f"{r['wakeups_per_latte']:.2f} | {r['delay_mean_ms']:.3f} / {r['delay_p99_ms']:.2f} | "
              f"{r['delay_ms_per_latte']:.2f} | {r['idle_seen_ms_per_latte']:.2f} | "
              f"{r['idle_while_runnable_ms_per_latte']:.2f} | {r['migrations_per_latte']:.2f} |")


def measure(implementation: str, runtime: str, cpus: int, dur: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        data, record = Path(tmp) / "perf.data", Path(tmp) / "lab.json"
        lab = [sys.executable, "-m", "brewput", "lab", "coffee", "--impl", implementation, "--cpus", str(cpus),
               "--runtime", runtime, "--dur", dur, "--warmup", "250ms", "--repetitions", "1", "--json"]
        with open(record, "w") as out:
            subprocess.run(["perf", "sched", "record", "-o", str(data), "--", *lab], stdout=out,
                           stderr=subprocess.DEVNULL, check=True)
        timehist = subprocess.run(["perf", "sched", "timehist", "-i", str(data)], capture_output=True, text=True,
                                  check=True).stdout
        results = json.loads(record.read_text())["scenarios"][0]["results"]
    lattes_per_s = results["classes"]["latte"]["throughput"] * 1e3
    cpu_ids = results["settings"]["cpu_ids"]
    idle_ms_per_latte = (1 - results["resources"]["cpu"]["utilization"]) * len(cpu_ids) * 1e3 / lattes_per_s
    return {"implementation": implementation, "runtime": runtime, "lattes_per_s": lattes_per_s,
            "idle_ms_per_latte": idle_ms_per_latte, **analyse(timehist, cpu_ids, lattes_per_s)}


def analyse(timehist: str, cpu_ids: list, lattes_per_s: float) -> dict:
    runs = []  # (start, end, cpu, tid, pid, comm, delay)
    for line in timehist.splitlines():
        m = ROW.match(line)
        if m:
            end, cpu, comm, tid, pid = float(m[1]), int(m[2]), m[3].strip(), int(m[4]), int(m[5] or m[4])
            delay, run = float(m[7]) / 1e3, float(m[8]) / 1e3
            runs.append((end - run, end, cpu, tid, pid, comm, delay))
    kitchen_pid = lab_process(runs)
    kitchen = [r for r in runs if r[4] == kitchen_pid and is_kitchen(r[5])]
    t0, t1 = kitchen[0][0] + SKIP_START_S, kitchen[-1][1] - SKIP_END_S
    span = t1 - t0
    lattes = lattes_per_s * span
    busy = {cpu: merged([(s, e) for s, e, c, *_ in runs if c == cpu and e > t0 and s < t1]) for cpu in cpu_ids}
    idle = {cpu: complement(intervals, t0, t1) for cpu, intervals in busy.items()}
    delays, waiting, migrations, last_cpu = [], [], 0, {}
    for start, end, cpu, tid, _, _, delay in kitchen:
        if t0 <= start <= t1:
            if delay > 0:
                delays.append(delay)
                waiting.append((start - delay, start))
            migrations += tid in last_cpu and last_cpu[tid] != cpu
        last_cpu[tid] = cpu
    delays.sort()
    runnable = merged(waiting)  # when some kitchen thread was woken but not yet running
    idle_s = sum(e - s for gaps in idle.values() for s, e in gaps)
    idle_runnable_s = sum(overlap(runnable, s, e) for gaps in idle.values() for s, e in gaps)
    return {"window_s": span, "wakeups_per_latte": len(delays) / lattes,
            "delay_mean_ms": 1e3 * sum(delays) / max(len(delays), 1),
            "delay_p99_ms": 1e3 * delays[int(0.99 * (len(delays) - 1))] if delays else 0.0,
            "delay_ms_per_latte": sum(delays) * 1e3 / lattes,
            "idle_seen_ms_per_latte": idle_s * 1e3 / lattes,
            "idle_while_runnable_ms_per_latte": idle_runnable_s * 1e3 / lattes,
            "migrations_per_latte": migrations / lattes}


def lab_process(runs: list) -> int:
    """The process whose kitchen threads ran longest: the measured lab."""
    time_by_pid = defaultdict(float)
    for start, end, _, _, pid, comm, _ in runs:
        if is_kitchen(comm):
            time_by_pid[pid] += end - start
    return max(time_by_pid, key=time_by_pid.get)


def is_kitchen(comm: str) -> bool:
    """The threads that make lattes: a processor (tasks) or a customer or barista (threads)."""
    return comm.startswith("brewput-P") or comm in ("a customer", "grind", "press", "steam", "a steaming")


def merged(intervals: list) -> list:
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def complement(intervals: list, t0: float, t1: float) -> list:
    gaps, at = [], t0
    for s, e in intervals:
        if s > at:
            gaps.append((at, min(s, t1)))
        at = max(at, e)
    if at < t1:
        gaps.append((at, t1))
    return [(s, e) for s, e in gaps if e > s]


def overlap(intervals: list, a: float, b: float) -> float:
    """Time in [a, b] covered by the sorted, disjoint `intervals`."""
    i = max(bisect.bisect_left(intervals, (a,)) - 1, 0)
    total = 0.0
    for s, e in intervals[i:]:
        if s >= b:
            break
        total += max(0.0, min(e, b) - max(s, a))
    return total


if __name__ == "__main__":
    main()
