"""A day simulated by brewput and by Ciw, side by side (issue 24: 30 replications of a
day under 5 s on 2 cores, beside Ciw doing the same day with its server schedules).

The day is examples/rush/call-centre-day.yaml: calls per half hour from 8:00 to 20:00
(Poisson, piecewise constant rates), 4-minute calls, callers who hang up after 2
minutes on average, agents on a rota per half hour; here an agent whose shift ends
hands the call in hand back to the head of the queue (off_shift: resume), because that
is the one rule both tools share: Ciw's `preemption=False` is not brewput's `finish`
(at every shift change Ciw takes every server off and brings the new shift's count on,
the busy ones finishing their customer besides them, so each boundary is over-staffed
even where the count stays), while its `preemption="resume"` interrupts the customers
in service and serves them first again, the earliest arrivals first, as brewput's
`resume` does. Ciw is written as its documentation writes such a day: arrivals by
`ciw.dists.PoissonIntervals` (exact for piecewise constant rates), the rota as a
`ciw.Schedule`, reneging by `reneging_time_distributions`. Both run the day, then drain it (Ciw: until two hours
after the day, the rota's last count held; brewput: until the last caller has left),
and count each caller in the half hour they called.

Each contender runs REPLICATIONS replications, best of 3 wall times, in turn. brewput
uses both cores (its replications run in parallel); Ciw, a single-threaded library,
runs them one after another in one process, and also as two processes of half the
replications each (what a user with two cores could do), timed the same way. The
answers are checked against each other: the day's share who hung up, the mean wait of
those answered, and every half hour's mean wait, each difference against the two
replication intervals (99.9 %). Prints a markdown section for bench/RESULTS.md.

    .venv/bin/python bench/day_peers.py
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import yaml
from scipy.stats import t as student_t

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "examples" / "rush" / "call-centre-day.yaml"
REPLICATIONS = 30
REPEATS = 3
DRAIN = 120.0  # minutes after the day Ciw keeps running (the last callers leave well within)


def the_model() -> dict:
    """The example, its agents handing the call in hand back at a shift's end."""
    spec = yaml.safe_load(MODEL.read_text())
    spec["stations"]["agents"]["off_shift"] = "resume"
    return spec


def the_day() -> dict:
    spec = the_model()
    route = spec["classes"]["call"]["route"][0]
    assert route["service"] == "exp(4)" and route["patience"] == "exp(2)", route
    return {"rates": spec["classes"]["call"]["rate"], "agents": spec["stations"]["agents"]["servers"],
            "interval": 30.0, "service_mean": 4.0, "patience_mean": 2.0}


def ciw_replication(seed: int) -> dict:
    """One day in Ciw: per half hour, the callers, those who hung up, and the waits of
    those answered (sum and count)."""
    import ciw

    day = the_day()
    n = len(day["rates"])
    length = n * day["interval"]
    ends = [day["interval"] * (i + 1) for i in range(n)]
    ends[-1] = length + DRAIN + 1.0  # the last count holds while the day drains
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.PoissonIntervals(rates=day["rates"], endpoints=ends[:-1] + [length],
                                                          max_sample_date=length)],
        service_distributions=[ciw.dists.Exponential(rate=1 / day["service_mean"])],
        number_of_servers=[ciw.Schedule(numbers_of_servers=day["agents"], shift_end_dates=ends, preemption="resume")],
        reneging_time_distributions=[ciw.dists.Exponential(rate=1 / day["patience_mean"])],
    )
    ciw.seed(seed)
    sim = ciw.Simulation(network)
    sim.simulate_until_max_time(length + DRAIN)
    callers, gave_up, waited, answered = (np.zeros(n) for _ in range(4))
    # A call interrupted at a shift's end leaves a record of its stint; its last record's
    # waiting_time runs from its arrival to its last start, stints included: its wait
    # is that less the stints (the time it was served before).
    served_before = {}
    for record in sim.get_all_records():
        if record.record_type == "interrupted service":
            stint = record.exit_date - record.service_start_date  # its end: the interruption
            served_before[record.id_number] = served_before.get(record.id_number, 0.0) + stint
    for record in sim.get_all_records():
        if record.record_type not in ("service", "renege"):
            continue
        i = min(int(record.arrival_date // day["interval"]), n - 1)
        callers[i] += 1
        if record.record_type == "renege":
            gave_up[i] += 1
        else:
            waited[i] += record.waiting_time - served_before.get(record.id_number, 0.0)
            answered[i] += 1
    return {"callers": callers, "gave_up": gave_up, "waited": waited, "answered": answered}


def ciw_day(seeds) -> list:
    return [ciw_replication(seed) for seed in seeds]


def ciw_two_processes(seeds) -> list:
    half = len(seeds) // 2
    with ProcessPoolExecutor(2) as pool:
        parts = list(pool.map(ciw_day, [seeds[:half], seeds[half:]]))
    return parts[0] + parts[1]


def brewput_day() -> dict:
    import brewput

    return brewput.simulate(the_model(), seed=1, replications=REPLICATIONS)


def brewput_cli(path: Path):
    """The same from the command line, Python's start-up included."""
    return lambda: subprocess.run([sys.executable, "-m", "brewput", "simulate", str(path), "--replications",
                                   str(REPLICATIONS), "--json"], check=True, capture_output=True)


def best_of(run):
    times, result = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), times, result


def interval(values) -> tuple:
    """Mean and 99.9 % half-width across replications."""
    values = np.asarray(values, dtype=float)
    half = student_t.ppf(0.9995, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return values.mean(), half


def compare(ciw_reps: list, ours: dict) -> list:
    """(figure, Ciw mean ± half, brewput mean ± half, agree) rows."""
    rows = []
    share = [r["gave_up"].sum() / r["callers"].sum() for r in ciw_reps]
    wait = [r["waited"].sum() / r["answered"].sum() for r in ciw_reps]
    totals = ours["classes"]["call"]
    ours_share = (totals["loss_probability"], _half(totals, "loss_probability"))
    ours_wait = (totals["waiting_time"]["mean"], _half(totals["waiting_time"], "mean"))
    for name, theirs, mine in (("share who hung up", interval(share), ours_share),
                               ("mean wait of those answered (min)", interval(wait), ours_wait)):
        rows.append((name, theirs, mine, abs(theirs[0] - mine[0]) <= theirs[1] + mine[1]))
    agree = 0
    for i, slot in enumerate(ours["intervals"]):
        waits = [r["waited"][i] / r["answered"][i] for r in ciw_reps if r["answered"][i]]
        theirs = interval(waits)
        w = slot["classes"]["call"]["waiting_time"]
        mine = (w["mean"], _half(w, "mean"))
        agree += abs(theirs[0] - mine[0]) <= theirs[1] + mine[1]
    rows.append((f"half hours whose mean wait agrees (of {len(ours['intervals'])})", None, None, agree))
    return rows


def _half(node: dict, key: str) -> float:
    """The 99.9 % half-width from a 95 % interval of REPLICATIONS replications."""
    low, high = node[f"{key}_ci"]
    widen = student_t.ppf(0.9995, REPLICATIONS - 1) / student_t.ppf(0.975, REPLICATIONS - 1)
    return (high - low) / 2 * widen


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    import ciw

    seeds = list(range(1, REPLICATIONS + 1))
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "call-centre-day-resume.yaml"
        path.write_text(yaml.safe_dump(the_model()))
        for name, run in (("brewput", brewput_day), ("cli", brewput_cli(path)), ("ciw", lambda: ciw_day(seeds)),
                          ("ciw2", lambda: ciw_two_processes(seeds))):
            rows[name] = best_of(run)
    ours, ciw_reps = rows["brewput"][2], rows["ciw"][2]
    callers = sum(r["callers"].sum() for r in ciw_reps)
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip().split("load average:")[-1]
    print("### A day simulated: brewput beside Ciw (issue 24)\n")
    print(f"examples/rush/call-centre-day.yaml (24 half hours, {callers / REPLICATIONS:,.0f} callers a day, "
          f"4-minute calls, 2 minutes' patience, a rota whose agents hand the call in hand back at a shift's end), "
          f"{REPLICATIONS} replications, best of {REPEATS} wall times, 2 cores:\n")
    print("| contender | seconds | runs | vs brewput |")
    print("|---|---:|---|---:|")
    base = rows["brewput"][0]
    for name, label in (("brewput", "brewput.simulate (Python API, replications in parallel)"),
                        ("cli", "`brewput simulate MODEL --replications 30 --json` (process start included)"),
                        ("ciw", f"Ciw {ciw.__version__}, one process"),
                        ("ciw2", f"Ciw {ciw.__version__}, two processes")):
        best, times, _ = rows[name]
        print(f"| {label} | {best:.3f} | {', '.join(f'{t:.3f}' for t in times)} | {best / base:.0f}x |")
    print("\nTheir answers, 99.9 % intervals across replications:\n")
    print("| figure | Ciw | brewput | agree |")
    print("|---|---:|---:|---|")
    for name, theirs, mine, agree in compare(ciw_reps, ours):
        if theirs is None:
            print(f"| {name} | | | {agree} |")
        else:
            print(f"| {name} | {theirs[0]:.4f} ± {theirs[1]:.4f} | {mine[0]:.4f} ± {mine[1]:.4f} | "
                  f"{'yes' if agree else 'no'} |")
    print(f"\nTarget: 30 replications of the day under 5 s on 2 cores: {base:.2f} s, "
          f"{'pass' if base < 5 else 'miss'}. Command: `.venv/bin/python bench/day_peers.py` "
          f"(load average {load.strip()}).")
    json.dump({k: v[1] for k, v in rows.items()}, sys.stderr)


if __name__ == "__main__":
    main()
