"""Start-up: how long `brewput` takes from process start to its answer, for
`--help`, `--version` and `solve` on every shipped example, beside `python -c pass`
in the same run. Prints a markdown section for bench/RESULTS.md.

    .venv/bin/python bench/startup.py [--runs 20]

The commands take turns, a round of each at a time, so that a burst of other
work on the machine slows every command a little rather than one a lot.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from brewput.bundled import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TARGET_HELP = 0.10
TARGET_SOLVE = 0.15
# Where `brewput solve`'s imports go: a row per group of modules, the rest summed.
GROUPS = {"numpy": ("numpy",), "scipy": ("scipy",), "rich": ("rich",), "typer": ("typer", "click"), "yaml": ("yaml",),
          "pydantic": ("pydantic", "pydantic_core", "annotated_types", "typing_inspection"),
          "brewput.model": ("brewput.model",), "brewput.analytic": ("brewput.analytic",),
          "brewput.cli": ("brewput.cli",)}


def commands():
    """(label, argv, environment added) of every command timed."""
    models = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.yaml") if "studies" not in p.parts)
    brewput = str(BIN / "brewput")
    return ([("python -c pass", [sys.executable, "-c", "pass"], {}),
             ("brewput --help", [brewput, "--help"], {}),
             ("brewput --version", [brewput, "--version"], {})]
            + [(f"brewput solve examples/{m}", [brewput, "solve", f"examples/{m}"], {}) for m in models])


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv, env) -> tuple[float, float, int]:
    """Wall time, CPU time (less disturbed by other work on the machine) and exit code."""
    cpu, start = cpu_of_children(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 2) or "Traceback" in done.stderr:
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}\n{done.stderr}")
    return elapsed, cpu_of_children() - cpu, done.returncode


def import_breakdown(argv, env, runs) -> dict:
    """Each group's import time in ms: per module the least self time of `runs`
    runs under `python -X importtime` (the least is the least disturbed)."""
    least = {}
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "brewput", *argv], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for self_us, module in re.findall(r"import time:\s+(\d+) \|\s+\d+ \|\s+(\S+)", done.stderr):
            least[module] = min(least.get(module, float("inf")), int(self_us) / 1e3)
    groups = dict.fromkeys([*GROUPS, "the rest (mostly the standard library)"], 0.0)
    for module, ms in least.items():
        group = next((g for g, prefixes in GROUPS.items()
                      if any(module == p or module.startswith(p + ".") for p in prefixes)),
                     "the rest (mostly the standard library)")
        groups[group] += ms
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command")
    runs = parser.parse_args().runs
    table = commands()
    # As installed: pip compiles every module when it installs a wheel, so the runs
    # read bytecode, kept here in a folder of their own rather than in the checkout.
    with tempfile.TemporaryDirectory(prefix="brewput-startup-") as cache:
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPYCACHEPREFIX": cache}
        codes = {label: timed(argv, {**env, **extra})[2]  # warms the file cache, writes the bytecode
                 for label, argv, extra in table}
        times = {label: [] for label, _, _ in table}
        cpu = {label: [] for label, _, _ in table}
        for _ in range(runs):
            for label, argv, extra in table:
                wall, used, _ = timed(argv, {**env, **extra})
                times[label].append(wall)
                cpu[label].append(used)
        imports = import_breakdown(["solve", "examples/mmc.yaml"], env, runs)
    median = {label: statistics.median(t) for label, t in times.items()}
    base = median["python -c pass"]

    print("## Start-up: process start to answer\n")
    print(f"Wall time of the whole process, median and best of {runs} runs taken in turns, every module's "
          f"bytecode compiled beforehand as pip does on install; `solve` answers with its tables, or refuses "
          f"in one line (exit 2) what it cannot solve.\n")
    print("| command | median (ms) | best (ms) | beyond `python -c pass` (ms) | CPU, median (ms) | answer |\n"
          "|---|---:|---:|---:|---:|---|")
    for label, _, _ in table:
        answer = ("refused" if codes[label] == 2 else "tables") if " solve " in label else ""
        print(f"| `{label}` | {median[label] * 1e3:.0f} | {min(times[label]) * 1e3:.0f} | "
              f"{(median[label] - base) * 1e3:.0f} | {statistics.median(cpu[label]) * 1e3:.0f} | {answer} |")
    solves = [label for label in median if label.startswith("brewput solve ")]
    worst = max(solves, key=median.get)
    print("\n| target | measured | result |\n|---|---:|---|")
    for what, target, measured in ((f"`brewput --help` under {TARGET_HELP} s", TARGET_HELP, median["brewput --help"]),
                                   (f"`brewput solve` on every example under {TARGET_SOLVE} s", TARGET_SOLVE,
                                    median[worst])):
        print(f"| {what} | {measured:.3f} s | {'met' if measured < target else '**missed**'} |")
    print(f"\nWhere `brewput solve examples/mmc.yaml` spends its imports ({sum(imports.values()):.0f} ms of its "
          f"{median['brewput solve examples/mmc.yaml'] * 1e3:.0f}; least self time of each module over {runs} runs of "
          f"`python -X importtime`):\n")
    print("| modules | ms |\n|---|---:|")
    for group, ms in sorted(imports.items(), key=lambda item: -item[1]):
        print(f"| {group} | {ms:.0f} |")
    print(f"\nCommand: `.venv/bin/python bench/startup.py --runs {runs}` on {os.cpu_count()} CPUs "
          f"(load average {os.getloadavg()[0]:.2f} at the end).")


if __name__ == "__main__":
    main()
