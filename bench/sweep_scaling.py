"""How a 100-scenario sweep scales over worker processes, and how long `brewput
demo` takes, end to end. Prints a markdown section for bench/RESULTS.md.

    .venv/bin/python bench/sweep_scaling.py

The sweep: examples/mmc.yaml (M/M/3, as bench/mm3.yaml) at 100 arrival rates
(0.027 to 2.7, utilization up to 0.9), one replication of 1,000,000 customers
each (the default run length), so that a scenario is one engine thread and the
only parallelism is the workers'. The same sweep runs on 1 worker, then on every core; each is the best of 3 runs taken in turn, the pool's
start (spawned interpreters) included. Target (issue 4): at least 1.8x on 2 cores.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from brewput.experiment.executors import LocalProcesses, cores
from brewput.experiment.runner import one_model, run

ROOT = Path(__file__).resolve().parent.parent
SWEEP = {"rate": [round(0.027 * k, 3) for k in range(1, 101)]}
OPTIONS = {"seed": 1, "replications": 1, "customers": 1_000_000}  # the default run length
ROUNDS = 3
TARGET_SPEEDUP = 1.8
TARGET_DEMO = 30.0


def sweep_seconds(workers: int) -> float:
    record, scenarios = one_model(ROOT / "examples" / "mmc.yaml", None, SWEEP, "simulate", OPTIONS)
    start = time.perf_counter()
    record = run(record, scenarios, LocalProcesses(workers))
    elapsed = time.perf_counter() - start
    assert len(record["scenarios"]) == 100 and not record["interrupted"]
    return elapsed


def demo_seconds(report: Path) -> float:
    start = time.perf_counter()
    subprocess.run([str(ROOT / ".venv" / "bin" / "brewput"), "demo", "--report", str(report)], check=True,
                   capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    import tempfile

    n = cores()
    times = {1: [], n: []}
    demo = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(ROUNDS):
            for workers in times:
                times[workers].append(sweep_seconds(workers))
            demo.append(demo_seconds(Path(tmp) / "report"))
    one, many = min(times[1]), min(times[n])
    speedup = one / many
    print(f"## Experiments: sweep scaling and `brewput demo` ({n} cores)\n")
    print("`.venv/bin/python bench/sweep_scaling.py`: 100 scenarios of examples/mmc.yaml (rate 0.027..2.7, "
          "1 replication of 1,000,000 customers each), best of 3 runs taken in turn.\n")
    print("| run | wall time | target |")
    print("|---|---|---|")
    print(f"| 100-scenario sweep, 1 worker | {one:.2f} s | |")
    print(f"| 100-scenario sweep, {n} workers | {many:.2f} s | |")
    print(f"| speed-up on {n} cores | {speedup:.2f}x | >= {TARGET_SPEEDUP}x "
          f"{'met' if speedup >= TARGET_SPEEDUP else 'NOT met'} |")
    print(f"| `brewput demo` (66 scenarios x 5 replications x 22,000 lattes, and the report) | {min(demo):.1f} s "
          f"| < {TARGET_DEMO:.0f} s {'met' if min(demo) < TARGET_DEMO else 'NOT met'} |")
    print(f"\nAll runs: 1 worker {', '.join(f'{t:.2f}' for t in times[1])} s; {n} workers "
          f"{', '.join(f'{t:.2f}' for t in times[n])} s; demo {', '.join(f'{t:.1f}' for t in demo)} s.",
          file=sys.stdout)


if __name__ == "__main__":
    main()
