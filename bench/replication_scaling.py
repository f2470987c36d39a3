"""How the cost of a run grows with its number of replications. Prints a
markdown section for bench/RESULTS.md.

    .venv/bin/python bench/replication_scaling.py

Tiny replications (an M/M/1 queue at 50 %, 10 customers each, no warm-up), so
that what is measured is the per-replication cost of the engine (a random
stream, a simulation, its statistics, the summary), not the simulating. Before
the streams were made one jump apart in order, replication r jumped the
generator r times: 20,000 replications took 25 s (issue 10, item 11). Each
count is the best of 3 runs taken in turn, through `brewput.simulate` on every
core.
"""
from __future__ import annotations

import time

import brewput
from brewput.experiment.executors import cores

COUNTS = (1_000, 5_000, 20_000, 100_000)
ROUNDS = 3
MODEL = brewput.Model.from_dict({
    "brewput": 1, "name": "M/M/1",
    "stations": {"desk": {"servers": 1}},
    "classes": {"c": {"rate": 0.5, "route": [{"station": "desk", "service": "exp(1)"}]}},
})


def seconds(replications: int) -> float:
    start = time.perf_counter()
    res = brewput.simulate(MODEL, replications=replications, customers=10, warmup=0, seed=1)
    elapsed = time.perf_counter() - start
    assert res["settings"]["replications"] == replications and res["classes"]["c"]["completed"] >= 10 * replications
    return elapsed


def main() -> None:
    seconds(100)  # load the engine before timing
    times = {n: [] for n in COUNTS}
    for _ in range(ROUNDS):
        for n in COUNTS:
            times[n].append(seconds(n))
    best = {n: min(ts) for n, ts in times.items()}
    print(f"## Replications: linear scaling ({cores()} cores)\n")
    print("`.venv/bin/python bench/replication_scaling.py`: an M/M/1 queue, 10 customers per replication, "
          "no warm-up, `brewput.simulate` on every core, best of 3 runs taken in turn.\n")
    print("| replications | wall time | per replication | per added replication |")
    print("|---:|---:|---:|---:|")
    previous = None
    for n in COUNTS:
        added = "" if previous is None else f"{(best[n] - best[previous]) / (n - previous) * 1e6:.1f} us"
        print(f"| {n:,} | {best[n]:.3f} s | {best[n] / n * 1e6:.1f} us | {added} |")
        previous = n
    per = [best[n] / n for n in COUNTS[1:]]
    print(f"\nFrom {COUNTS[1]:,} to {COUNTS[-1]:,} replications a replication costs {min(per) * 1e6:.1f} to "
          f"{max(per) * 1e6:.1f} us whatever their number: linear (the {COUNTS[0]:,} row is mostly the fixed "
          "start: compiling the model, starting the engine). Before, replication r jumped the generator r times: "
          "20,000 replications took 25 s. "
          f"All runs: {'; '.join(f'{n:,}: ' + ', '.join(f'{t:.3f}' for t in times[n]) for n in COUNTS)} s.")

if __name__ == "__main__":
    main()
