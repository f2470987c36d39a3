"""How fast the exact transient of one station solves a day (issue 24: a day in
15-minute intervals in under a second): a 5-hour morning (20 intervals) and a 24-hour
call centre (96 intervals, a sinusoidal day staffed by the square-root rule), with and
without patience, the servers going off shift finishing their jobs (the model
language's default: the chain of finishing.py) or handing them back (resume). CPU seconds of the solve alone, best of 3; run with one BLAS thread
(OPENBLAS_NUM_THREADS=1: on a shared machine, BLAS threads on small products cost more
than they give). Prints a markdown table for bench/RESULTS.md.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/transient_speed.py
"""
from __future__ import annotations

import math
import os
import time

import numpy as np

from brewput.analytic.timevarying import transient
from brewput.analytic.timevarying.transient import solve_transient
from brewput.model.timeline import Day

MORNING = [0.5, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.2, 2.0, 1.6, 1.3, 1.0, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5]
BARISTAS = [2, 2, 2, 3, 3, 4, 4, 5, 5, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2]


def cpu_seconds(solve) -> float:
    best = math.inf
    for _ in range(3):
        transient._SERVED_WITHIN_CACHE.clear()  # each run a first day: no service levels kept from the last
        start = time.process_time()
        solve()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    morning = Day(300, 15, "06:00", time_unit="min")
    day = Day(1440, 15, time_unit="min")
    middle = day.edges[:-1] + 7.5
    calls = 3 + 2.5 * np.sin(2 * np.pi * (middle - 600) / 1440)
    agents = np.ceil(calls * 4 + 2 * np.sqrt(calls * 4)).astype(int)
    cases = [
        ("morning, 20 intervals, 2 min service", lambda p, off: solve_transient(
            morning.steps(MORNING), 2.0, morning.rota(BARISTAS), patience=p, targets=[1.0], off_shift=off)),
        ("call centre, 96 intervals, 4 min service", lambda p, off: solve_transient(
            day.steps(calls), 4.0, day.rota(agents), patience=p, targets=[1 / 3], off_shift=off)),
    ]
    print("| day | off shift | patience | CPU seconds |")
    print("|---|---|---|---:|")
    for name, solve in cases:
        for off_shift in ("finish", "resume"):
            for patience in (math.inf, 3.0):
                shown = "none" if math.isinf(patience) else f"exp({patience:g})"
                seconds = cpu_seconds(lambda: solve(patience, off_shift))
                print(f"| {name} | {off_shift} | {shown} | {seconds:.2f} |")
    print(f"\nOPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
