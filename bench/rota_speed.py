"""How fast `plan --rota` plans a day by the iterative staffing algorithm (simulate)
beside the exact transient's search (exact), on the two days of examples/rush: the
coffee bar's morning (20 quarter hours) and the call centre's day (24 half hours), each
for 80 % served within its time. The planning alone (no confirming simulation), best of
3, wall and CPU seconds (the ISA's replications run on every core), the rota's
server-hours and how many intervals each method staffs differently. Prints a markdown
table for bench/RESULTS.md.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/rota_speed.py
"""
from __future__ import annotations

import math
import time
from pathlib import Path

from brewput.model import load
from brewput.planning.rota import plan_rota
from brewput.planning.slo import parse_objective

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "rush"
DAYS = [("coffee bar, 20 quarter hours", "coffee-bar.yaml", "P(wait<=1min)>=80%"),
        ("call centre, 24 half hours", "call-centre-day.yaml", "P(wait<=20s)>=80%")]


def timed(plan):
    best_wall = best_cpu = math.inf
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        planned = plan()
        best_wall, best_cpu = min(best_wall, time.perf_counter() - wall), min(best_cpu, time.process_time() - cpu)
    return planned, best_wall, best_cpu


def main() -> None:
    print("| day | method | wall s | CPU s | server-hours | intervals unlike exact |")
    print("|---|---|---:|---:|---:|---:|")
    for label, file, slo in DAYS:
        model = load(EXAMPLES / file)
        objectives = [parse_objective(slo, model)]
        exact, exact_wall, exact_cpu = timed(lambda: plan_rota(model, objectives, "exact"))
        isa, isa_wall, isa_cpu = timed(lambda: plan_rota(model, objectives, "simulate"))
        unlike = sum(a != b for a, b in zip(isa.counts, exact.counts))
        print(f"| {label} | exact | {exact_wall:.2f} | {exact_cpu:.2f} | {exact.server_hours:g} | - |")
        print(f"| {label} | simulate | {isa_wall:.2f} | {isa_cpu:.2f} | {isa.server_hours:g} | {unlike} |")


if __name__ == "__main__":
    main()
