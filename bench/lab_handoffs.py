"""Where the thread runtime's idle CPU time goes: the lab's kitchens under
`perf sched`, each runtime side by side, every hand-off's scheduling delay
set against what the other CPUs were doing meanwhile.

    .venv/bin/python bench/lab_handoffs.py [--impl linearpipe-0,linearpipe-10,multipipe-2,finelocking] [--cpus 2] [--runs 1] [--idle-poll]

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
- migrations per latte (a kitchen thread switched in on another CPU than last);
- where each wake-up of a kitchen thread was queued, from the raw events
  (`sched_waking`, `sched_migrate_task`, `sched_switch`): on the waker's own
  CPU, where it runs as soon as the waker sleeps, or on the other CPU; the
  share sent to the other CPU, the share of
  those waiting over 0.5 ms, and the median delay of each kind;
- what held up each wake-up that waited over 0.5 ms: queued behind another
  thread's stage on a busy CPU while another CPU idled (the kernel placed it
  there and did not move it), or while every CPU was busy, or queued on a CPU
  that stayed idle. `--idle-poll` makes idle CPUs poll rather than halt for the
  whole measurement, to test whether a halted vCPU's wake-up is the cause.

Prints Markdown for docs/lab.md and bench/RESULTS.md and saves the figures
as bench/lab_handoffs.json (bench/lab_handoffs-idle-poll.json with --idle-poll).
"""
from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import re
import statistics
import struct
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
# A row of `perf script -F comm,tid,cpu,time,event,trace`: the running task, its
# CPU, the time in s, the event and its fields.
EVENT = re.compile(r"^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$")
WAKING = re.compile(r"comm=.* pid=(\d+) prio=-?\d+ target_cpu=(\d+)")
MIGRATE = re.compile(r"comm=.* pid=(\d+) prio=-?\d+ orig_cpu=(\d+) dest_cpu=(\d+)")
SWITCH = re.compile(r"prev_comm=.* prev_pid=(\d+) .*==> next_comm=.* next_pid=(\d+)")
# A woken kitchen thread starts within tens of µs, or after about a millisecond
# (one stage): the threshold separates the two.
SLOW_WAKE_S = 0.5e-3
# What held up a slow wake-up (wake_placement).
SLOW_KINDS = ("behind_thread_other_idle", "behind_thread_all_busy", "idle_cpu")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="linearpipe-0,linearpipe-10,multipipe-2,finelocking")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--dur", default="1s")
    # Where the kernel puts a woken thread varies from run to run: repeats show by how much.
    parser.add_argument("--runs", type=int, default=1)
    # Tests whether the slow wake-ups are idle vCPUs slow to leave halt: with the
    # PM QoS request at 0 µs (as cyclictest makes), idle CPUs poll instead.
    parser.add_argument("--idle-poll", action="store_true",
                        help="hold /dev/cpu_dma_latency at 0 during the runs (root), so idle CPUs poll, not halt")
    args = parser.parse_args()
    rows = []
    with idle_polling() if args.idle_poll else contextlib.nullcontext():
        for run in range(1, args.runs + 1):
            for implementation in args.impl.split(","):
                for runtime in RUNTIMES:
                    print(f"run {run}: {implementation}, {runtime} ...", file=sys.stderr)
                    rows.append({"run": run, "idle_poll": args.idle_poll,
                                 **measure(implementation, runtime, args.cpus, args.dur)})
    record = HERE / ("lab_handoffs-idle-poll.json" if args.idle_poll else "lab_handoffs.json")
    record.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"`python bench/lab_handoffs.py {' '.join(sys.argv[1:])}`, {args.cpus} CPUs, one {args.dur} window "
          f"each, {args.runs} run(s).\n")
    report(rows)


@contextlib.contextmanager
def idle_polling():
    """Idle CPUs poll rather than halt while this is held: the kernel's PM QoS
    request for 0 µs of wake-up latency, in force while the file stays open."""
    with open("/dev/cpu_dma_latency", "wb", buffering=0) as request:
        request.write(struct.pack("i", 0))
        yield


def report(rows: list) -> None:
    print("| run | implementation | runtime | lattes/s | idle CPU per latte (ms) | wake-ups per latte | "
          "delay per wake-up, mean / p99 (ms) | delay per latte (ms) | idle seen by perf (ms) | of it, with a "
          "kitchen thread runnable | migrations per latte |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['run']} | {r['implementation']} | {r['runtime']} | {r['lattes_per_s']:.0f} | "
              f"{r['idle_ms_per_latte']:.2f} | "
              f"{r['wakeups_per_latte']:.2f} | {r['delay_mean_ms']:.3f} / {r['delay_p99_ms']:.2f} | "
              f"{r['delay_ms_per_latte']:.2f} | {r['idle_seen_ms_per_latte']:.2f} | "
              f"{r['idle_while_runnable_ms_per_latte']:.2f} | {r['migrations_per_latte']:.2f} |")
    print("\nWake-ups of kitchen threads by the CPU they were queued on:\n")
    print("| run | implementation | runtime | lattes/s | wake-ups | sent to the other CPU | of those, waiting over "
          "0.5 ms (their median, ms) | median delay, same CPU / other CPU (ms) | mean delay per wake-up (ms) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['run']} | {r['implementation']} | {r['runtime']} | {r['lattes_per_s']:.0f} | {r['wakeups']} | "
              f"{r['other_cpu_share']:.1%} | {r['other_cpu_slow_share']:.0%} "
              f"({milliseconds(r['other_cpu_slow_delay_median_ms'])}) | "
              f"{milliseconds(r['same_cpu_delay_median_ms'])} / {milliseconds(r['other_cpu_delay_median_ms'])} | "
              f"{r['wake_delay_mean_ms']:.3f} |")
    print("\nWake-ups waiting over 0.5 ms, by what held them up: queued behind another thread's stage while "
          "another CPU idled, or while every CPU was busy, or queued on a CPU that stayed idle:\n")
    print("| run | implementation | runtime | slow wake-ups | behind a thread, another CPU idle: share / ms per latte "
          "| behind a thread, every CPU busy | on an idle CPU |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        cells = [f"{r[f'slow_{kind}_share']:.0%} / {r[f'slow_{kind}_ms_per_latte']:.2f}" for kind in SLOW_KINDS]
        print(f"| {r['run']} | {r['implementation']} | {r['runtime']} | {r['slow_share']:.1%} | "
              + " | ".join(cells) + " |")


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
        events = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,tid,cpu,time,event,trace"],
                                capture_output=True, text=True, check=True).stdout
        results = json.loads(record.read_text())["scenarios"][0]["results"]
    lattes_per_s = results["classes"]["latte"]["throughput"] * 1e3
    cpu_ids = results["settings"]["cpu_ids"]
    idle_ms_per_latte = (1 - results["resources"]["cpu"]["utilization"]) * len(cpu_ids) * 1e3 / lattes_per_s
    handoffs, (t0, t1, kitchen_tids) = analyse(timehist, cpu_ids, lattes_per_s)
    return {"implementation": implementation, "runtime": runtime, "lattes_per_s": lattes_per_s,
            "idle_ms_per_latte": idle_ms_per_latte, **handoffs, **wake_placement(events, t0, t1, kitchen_tids, cpu_ids, lattes_per_s * (t1 - t0))}


def analyse(timehist: str, cpu_ids: list, lattes_per_s: float) -> tuple:
    """The figures from timehist, and the window analysed with the kitchen's threads."""
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
    figures = {"window_s": span, "wakeups_per_latte": len(delays) / lattes,
               "delay_mean_ms": 1e3 * sum(delays) / max(len(delays), 1),
               "delay_p99_ms": 1e3 * delays[int(0.99 * (len(delays) - 1))] if delays else 0.0,
               "delay_ms_per_latte": sum(delays) * 1e3 / lattes,
               "idle_seen_ms_per_latte": idle_s * 1e3 / lattes,
               "idle_while_runnable_ms_per_latte": idle_runnable_s * 1e3 / lattes,
               "migrations_per_latte": migrations / lattes}
    return figures, (t0, t1, {r[3] for r in kitchen})


def wake_placement(events: str, t0: float, t1: float, kitchen_tids: set, cpu_ids: list, lattes: float) -> dict:
    """Each wake-up of a kitchen thread within [t0, t1], split by whether the
    kernel queued it on the waker's CPU or the other one, with its delay until
    it ran; and each slow one (over SLOW_WAKE_S) by what held it up.

    `sched_waking` fires on the waker's CPU and names the woken thread's last
    CPU; if try_to_wake_up places it elsewhere, `sched_migrate_task` follows on
    the same CPU at once (within tens of µs; a later one is load balancing).
    The delay ends at the `sched_switch` onto the thread. A woken thread seen
    switching out first was still on its CPU (woken before it slept): no
    queueing, so not counted.
    """
    pending, wakes, any_waking = {}, [], False
    switches = defaultdict(list)  # per CPU: (time, task id switched in; 0 is idle)
    for line in events.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        cpu, t, event, fields = int(m[3]), float(m[4]), m[5], m[6]
        if event == "sched:sched_waking":
            any_waking = True
            w = WAKING.search(fields)
            tid = int(w[1])
            if tid in kitchen_tids and t0 <= t <= t1:
                pending.setdefault(tid, {"at": t, "waker_cpu": cpu, "queued_on": int(w[2]), "placed": False})
        elif event == "sched:sched_migrate_task":
            g = MIGRATE.search(fields)
            wake = pending.get(int(g[1]))
            if wake and not wake["placed"] and cpu == wake["waker_cpu"] and t - wake["at"] < 50e-6:
                wake["queued_on"], wake["placed"] = int(g[3]), True
        elif event == "sched:sched_switch":
            switch = SWITCH.search(fields)
            pending.pop(int(switch[1]), None)
            switches[cpu].append((t, int(switch[2])))
            wake = pending.pop(int(switch[2]), None)
            if wake:
                wakes.append((wake["at"], t, wake["queued_on"] == wake["waker_cpu"], wake["queued_on"]))
    if not any_waking:
        sys.exit("lab_handoffs.py: `perf sched record` recorded no sched:sched_waking events (perf older than 4.6?)")
    same_cpu = [end - at for at, end, same, _ in wakes if same]
    other_cpu = [end - at for at, end, same, _ in wakes if not same]
    every = same_cpu + other_cpu
    figures = {"wakeups": len(every),
               "other_cpu_share": len(other_cpu) / max(len(every), 1),
               "other_cpu_slow_share": share_slow(other_cpu),
               "same_cpu_delay_median_ms": in_ms(median(same_cpu)),
               "other_cpu_delay_median_ms": in_ms(median(other_cpu)),
               "other_cpu_slow_delay_median_ms": in_ms(median([d for d in other_cpu if d > SLOW_WAKE_S])),
               "wake_delay_mean_ms": 1e3 * sum(every) / max(len(every), 1),
               "slow_share": share_slow(every)}
    # A slow wake-up was held up either on a CPU running another thread (the
    # kernel queued it behind a stage and did not move it), with the other CPU
    # idle meanwhile or busy too, or on a CPU that stayed idle (not started).
    idle = {cpu: idle_intervals(switches[cpu], t0, t1) for cpu in cpu_ids}
    held = defaultdict(list)
    for at, end, _, queued_on in wakes:
        wait = end - at
        if wait <= SLOW_WAKE_S:
            continue
        if overlap(idle.get(queued_on, []), at, end) > wait / 2:
            held["idle_cpu"].append(wait)
        elif any(overlap(idle[cpu], at, end) > wait / 2 for cpu in cpu_ids if cpu != queued_on):
            held["behind_thread_other_idle"].append(wait)
        else:
            held["behind_thread_all_busy"].append(wait)
    for kind in SLOW_KINDS:
        figures[f"slow_{kind}_share"] = len(held[kind]) / max(sum(map(len, held.values())), 1)
        figures[f"slow_{kind}_ms_per_latte"] = 1e3 * sum(held[kind]) / lattes
    return figures


def idle_intervals(switches: list, t0: float, t1: float) -> list:
    """When a CPU ran no task within [t0, t1], from its switches (in time order)."""
    out = []
    for (start, tid), (end, _) in zip(switches, switches[1:] + [(t1, None)]):
        if tid == 0 and end > t0 and start < t1:
            out.append((max(start, t0), min(end, t1)))
    return out


def share_slow(delays: list) -> float:
    return sum(d > SLOW_WAKE_S for d in delays) / max(len(delays), 1)


def median(values: list) -> float | None:
    """None when there is nothing to take the median of (a task runtime's processors are rarely woken)."""
    return statistics.median(values) if values else None


def in_ms(seconds: float | None) -> float | None:
    return None if seconds is None else 1e3 * seconds


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


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
