"""How fast `brewput solve` answers: every solvable example end to end (process
start to printed table), and exact multi-class MVA on 3 classes x 30 customers
at 50 stations. Prints a markdown section for bench/RESULTS.md.

    .venv/bin/python bench/solve_speed.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BREWPUT = ROOT / ".venv" / "bin" / "brewput"
EXAMPLES = ["helpdesk/site-a.yaml", "helpdesk/site-b.yaml", "helpdesk/merged.yaml", "mmc.yaml",
            "tandem.yaml", "central-server.yaml", "interactive.yaml", "multiclass.yaml"]
RUNS = 5
TARGET_CLI = 0.3
TARGET_MVA = 1.0


def wall_time(command) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def cli_times():
    rows = []
    for example in EXAMPLES:
        command = [str(BREWPUT), "solve", f"examples/{example}"]
        wall_time(command)  # warm the file cache
        runs = [wall_time(command) for _ in range(RUNS)]
        rows.append((example, statistics.median(runs)))
    return rows


def mva_time() -> float:
    from brewput.analytic.closed import solve_arrays

    rng = np.random.default_rng(1)
    demand = rng.uniform(0.5, 2.0, size=(3, 50))
    start = time.perf_counter()
    figures = solve_arrays(demand, np.ones(50), np.full(3, 10.0), np.array([30, 30, 30]), method="mva-exact")
    elapsed = time.perf_counter() - start
    assert np.all(np.asarray(figures.throughput) > 0)
    return elapsed


def main() -> None:
    rows = cli_times()
    mva = min(mva_time() for _ in range(RUNS))
    worst = max(t for _, t in rows)
    print("## `brewput solve` speed\n")
    print(f"Wall time of the whole process (start to printed table), median of {RUNS} runs.\n")
    print("| example | seconds |\n|---|---:|")
    for example, t in rows:
        print(f"| `brewput solve examples/{example}` | {t:.3f} |")
    print("\n| target | measured | result |\n|---|---:|---|")
    print(f"| every example under {TARGET_CLI} s end to end | worst {worst:.3f} s | "
          f"{'pass' if worst < TARGET_CLI else '**miss**'} |")
    print(f"| exact multi-class MVA, 3 classes x 30 customers, 50 stations, under {TARGET_MVA} s | "
          f"{mva:.3f} s (best of {RUNS}) | {'pass' if mva < TARGET_MVA else '**miss**'} |")
    print(f"\nCommand: `.venv/bin/python bench/solve_speed.py` (machine load average "
          f"{open('/proc/loadavg').read().split()[0]} at the end).")


if __name__ == "__main__":
    sys.exit(main())
