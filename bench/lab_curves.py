"""The coffee-shop lab on this machine: every implementation at 1 to K CPUs,
measured beside its model, and the harness's overhead on 1 ms stages.

    .venv/bin/python bench/lab_curves.py [--cpus 1..2] [--runtime tasks|threads] [--dur 1s] [--repetitions 3] [--png docs/img]

On a machine with 6 or more cores, `--cpus 1..6` draws the talk's whole
curves (this 2-core machine measures 1 and 2 CPUs; `brewput lab talk` puts
the talk's own tables beside the models at 1..6).

Prints Markdown for bench/RESULTS.md and docs/lab.md: throughput and median
latency (measured / predicted, relative error), and the CPU time the harness
and each kitchen spend per latte beyond the 4 ms the stages burn (from
getrusage, so other processes on the machine do not count). Runs at nice -10
when it may (root), to keep other work's bursts out of the figures; saves the
experiment record as bench/lab_curves-RUNTIME.json and, with --png, the throughput and
latency charts.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from brewput.lab import CoffeeSettings, run_coffee_lab
from brewput.lab import options
from brewput.lab.table import median_ms, relative_error, throughput_per_s

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", default=f"1..{min(6, options.machine_cpus())}")
    parser.add_argument("--impl", default="all")
    parser.add_argument("--runtime", default=options.RUNTIMES[0], choices=options.RUNTIMES)
    parser.add_argument("--dur", default="1s")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--png", type=Path, default=None, help="folder for lab_throughput.png and lab_latency.png")
    args = parser.parse_args()
    cpus, warning = options.capped_cpus(options.whole_numbers("cpus", args.cpus))
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    settings = CoffeeSettings(duration_ms=options.time_ms("duration_ms", args.dur), repetitions=args.repetitions,
                              nice=-10 if os.geteuid() == 0 else None, runtime=args.runtime)
    command = "python bench/lab_curves.py " + " ".join(sys.argv[1:])
    record = run_coffee_lab(options.implementations(args.impl), cpus, settings=settings, predict=True,
                            command=command.strip(),
                            progress=lambda done, total, what: print(f"[{done}/{total}] {what}", file=sys.stderr))
    (HERE / f"lab_curves-{args.runtime}.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"`{command.strip()}` on {platform.machine()}, {options.machine_cpus()} CPUs "
          f"({platform.processor() or platform.platform()}), {args.runtime} runtime, "
          f"{args.dur} x {args.repetitions} per point.\n")
    print(markdown(record, "Throughput (lattes/s)", throughput_per_s, ".0f"))
    print(markdown(record, "Median latency (ms)", median_ms, ".2f"))
    print(overhead(record))
    if args.png:
        charts(record, args.png)


def markdown(record: dict, title: str, figure, digits: str) -> str:
    cells, rows, columns = {}, [], []
    for s in record["scenarios"]:
        rows += [s["model"]] if s["model"] not in rows else []
        columns += [s["params"]["cpus"]] if s["params"]["cpus"] not in columns else []
        cells[s["model"], s["params"]["cpus"], s["engine"]] = figure(s["results"])
    lines = [f"**{title}**: measured / predicted (error)\n",
             "| implementation | " + " | ".join(f"{k} cpu" for k in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for row in rows:
        texts = []
        for k in columns:
            m, p = cells.get((row, k, "lab")), cells.get((row, k, "simulate"))
            error = relative_error(m, p)
            texts.append(f"{m:{digits}} / {p:{digits}} ({error:+.1%})" if error is not None else "-")
        lines.append(f"| {row} | " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


def overhead(record: dict) -> str:
    """CPU time per latte beyond the stages' 4 ms, per implementation (all CPU counts)."""
    lines = ["**Harness and kitchen overhead**: process CPU time per latte beyond the 4 x 1 ms burnt, "
             "and the share of the CPUs other processes took meanwhile (mean, max)\n",
             "| implementation | CPU per latte (ms) | overhead | others' share |", "|---|---:|---:|---:|"]
    per_impl: dict = {}
    for s in record["scenarios"]:
        if s["engine"] == "lab":
            cpu, made, others = per_impl.get(s["model"], (0.0, 0, []))
            reps = s["results"]["repetitions"]
            per_impl[s["model"]] = (cpu + sum(r["cpu_s"] for r in reps), made + sum(r["completed"] for r in reps),
                                    others + [r["others_utilization"] or 0 for r in reps])
    for name, (cpu, made, others) in per_impl.items():
        per_latte = cpu * 1e3 / made
        lines.append(f"| {name} | {per_latte:.4f} | {(per_latte - 4) / 4:+.2%} | "
                     f"{sum(others) / len(others):.0%}, {max(others):.0%} |")
    if "ideal" in per_impl:
        # ideal shares nothing, so what it spends beyond the burn is the harness's alone;
        # the others add their own locks, channels and thread hand-offs to it.
        cpu, made, _ = per_impl["ideal"]
        share = (cpu * 1e3 / made - 4) / 4
        lines.append(f"\nTarget (issue 5): harness overhead under 1 % of a 1 ms stage. The harness alone is "
                     f"what `ideal` pays, sharing nothing: {share:+.2%}, **{'met' if share < 0.01 else 'not met'}**. "
                     "The other rows add each kitchen's own synchronization (locks, channels, a thread per "
                     "latte in parsteam). The talk's curves at 4 to 6 CPUs need a machine with 6 or more "
                     "cores: `bench/lab_curves.py --cpus 1..6` there.")
    return "\n".join(lines) + "\n"


def charts(record: dict, folder: Path) -> None:
    from brewput.report.html import write_report

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        write_report(record, tmp)
        for name in ("throughput", "latency"):
            shutil.copy(Path(tmp) / "charts" / f"{name}.png", folder / f"lab_{name}.png")


if __name__ == "__main__":
    main()
