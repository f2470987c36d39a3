"""How fast the chain of `solve --method ctmc` is walked (issue 25), before (the Python
walk of a commit before crates/chain) and after (the Rust walk): states per second and
the memory it takes, on examples/tandem.yaml's open tandem truncated at a number of jobs
(a lattice of about 10^4, 10^5 and 10^6 states), each walk alone in a fresh process; then
`brewput solve examples/tandem.yaml --method ctmc` end to end, before and after. Prints
a markdown section for bench/RESULTS.md (under `brewput solve` speed).

    .venv/bin/python bench/chain_speed.py --before d0d7633

The memory is the process's peak resident size during the walk less before it (the
floor built, the modules imported): the states, the transitions and the arrays given
back. The walk before is that commit's python/brewput (git archive) run with this
build's native module, so that only the walk differs.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
#: Open jobs the tandem is truncated at, and the states of its lattice, C(jobs + 3, 3).
SIZES = {37: 9_880, 82: 98_770, 179: 988_260}
#: The Python walk is not run beyond this many states (minutes and gigabytes).
BEFORE_MOST = 100_000
#: The chains also solved for their stationary law (steady.stationary), timed apart.
SOLVE_MOST = 100_000
#: Memory limit of each walk's process (ulimit -v), in KB.
MEMORY_KB = 4_000_000

WALK = """
import json, resource, sys, time
from dataclasses import replace
from brewput.model import as_model
from brewput.analytic.chain.floor import floor_of
from brewput.analytic.chain.generate import generate
floor = replace(floor_of(as_model("examples/tandem.yaml").compile(), "tandem", constant_phases=1),
                open_limit=int(sys.argv[1]))
generate(replace(floor, open_limit=4), 100)  # the first call's one-off costs
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
wall, cpu = time.perf_counter(), time.process_time()
chain = generate(floor, 2_000_000)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
solved = None
if len(chain.states) <= int(sys.argv[2]):  # the stationary law too: built and solved
    from brewput.analytic.chain.steady import stationary
    solved = time.perf_counter()
    stationary(chain.generator)
    solved = time.perf_counter() - solved
print(json.dumps({"states": len(chain.states), "wall": wall, "cpu": cpu, "kb": peak - before,
                  "nnz": int(chain.generator.nnz), "solve": solved}))
"""


def package_at(commit: str, into: Path) -> Path:
    """python/brewput of `commit` in `into`, with this build's native module."""
    archive = subprocess.run(["git", "archive", commit, "python/brewput"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    for native in (ROOT / "python" / "brewput").glob("_native*.so"):
        shutil.copy(native, into / "python" / "brewput")
    return into / "python"


def walk(jobs: int, path: str) -> dict:
    done = subprocess.run(["bash", "-c", f'ulimit -v {MEMORY_KB}; exec "$@"', "walk", str(PYTHON), "-c", WALK,
                           str(jobs), str(SOLVE_MOST)], cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path},
                          check=True)
    return json.loads(done.stdout)


def solve(path: str) -> tuple:
    """Wall and CPU seconds of `brewput solve examples/tandem.yaml --method ctmc`, and its class's line."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(PYTHON), "-m", "brewput", "solve", "examples/tandem.yaml", "--method", "ctmc"],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": path}, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    response = next(line for line in done.stdout.splitlines() if "customer" in line)
    return wall, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, " ".join(response.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="a commit whose walk is Python's")
    parser.add_argument("--no-solve", action="store_true", help="only the walks")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = str(package_at(args.before, Path(tmp)))
        after = str(ROOT / "python")
        rows = []
        for jobs, states in SIZES.items():
            old = walk(jobs, before) if states <= BEFORE_MOST else None
            new = walk(jobs, after)
            rows.append((jobs, old, new))
        solves = None if args.no_solve else (solve(before), solve(after))
    print("### The chain's walk: Python before, Rust after (issue 25)\n")
    print(f"`{' '.join(['.venv/bin/python', 'bench/chain_speed.py', '--before', args.before])}` on this machine "
          "(2 cores, shared): examples/tandem.yaml's open tandem truncated at a number of open jobs, its chain "
          "walked alone in a fresh process (states per second of wall time, and of CPU time, as the machine is "
          "shared); memory is the peak resident size the walk added.\n")
    print("| jobs | states | before: states/s (CPU) | before: MB (B/state) | after: states/s (CPU) "
          "| after: MB (B/state) | speed-up (CPU) | memory ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for jobs, old, new in rows:
        def cells(r):
            if r is None:
                return "not run", "not run"
            return (f"{r['states'] / r['wall']:,.0f} ({r['states'] / r['cpu']:,.0f})",
                    f"{r['kb'] / 1024:,.0f} ({r['kb'] * 1024 / r['states']:,.0f})")
        ratio = "" if old is None else f"{old['wall'] / new['wall']:.0f}x ({old['cpu'] / new['cpu']:.0f}x)"
        memory = "" if old is None else f"{old['kb'] / max(new['kb'], 1):.0f}x less"
        print(f"| {jobs} | {new['states']:,} | {' | '.join(cells(old))} | {' | '.join(cells(new))} | {ratio} "
              f"| {memory} |")
    built = [(jobs, new) for jobs, _, new in rows if new["solve"] is not None]
    for jobs, new in built:
        print(f"\nAfter, {new['states']:,} states built and solved: walk {new['wall']:.2f} s, stationary law "
              f"{new['solve']:.2f} s (steady.stationary), {new['wall'] + new['solve']:.2f} s in all (wall).")
    if solves:
        (old_wall, old_cpu, old_line), (new_wall, new_cpu, new_line) = solves
        print(f"\n`brewput solve examples/tandem.yaml --method ctmc`, end to end (its truncation doubled to 128 jobs, "
              f"366,145 states): before {old_wall:.0f} s wall, {old_cpu:.0f} s CPU; after {new_wall:.0f} s wall, "
              f"{new_cpu:.0f} s CPU ({old_cpu / new_cpu:.1f}x in CPU); its class line before `{old_line}`, after "
              f"`{new_line}`.")
    print(f"\n(machine load average {os.getloadavg()[0]:.2f} at the end)")


if __name__ == "__main__":
    sys.exit(main())
