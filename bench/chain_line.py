"""A closed model's Markov chain built and solved by brewput and by LINE's CTMC solver
(pip `line-solver`, its Python edition), side by side (issue 25: a chain of 10^5 states
built and solved in under 2 s).

The model is Buzen's central-server model (examples/central-server.yaml): `users`
terminals thinking 100 ms, a CPU and two disks, FCFS, exponential; its chain has
C(users + 3, 3) states (91,881 at 80 users). For each population, brewput's chain is
walked (analytic/chain/generate.py) and its stationary law solved (steady.py) in this
process, timed apart, and `brewput solve --method ctmc` end to end in a fresh process;
then LINE's `SolverCTMC(model).getAvgTable()` in a fresh process of its own venv, timed
from the solver's creation (its model built before), and stopped after --line-timeout.
The CPU's throughput and queue length from both are printed so that the same answer is
seen to be timed. Wall times on this machine (2 cores); each contender alone.

    .venv/bin/python bench/chain_line.py                      # 10, 30, 50 and 80 users
    .venv/bin/python bench/chain_line.py --users 10 30 --line-timeout 600

LINE is installed into LINE_VENV on first use (`line-solver==LINE_VERSION`).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
BREWPUT = ROOT / ".venv" / "bin" / "brewput"
MODEL = ROOT / "examples" / "central-server.yaml"
LINE_VERSION = "3.0.8.0"
LINE_VENV = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "brewput-bench" / f"line-{LINE_VERSION}"

BREWPUT_IN_PROCESS = """
import json, sys, time
from brewput.model import as_model
from brewput.analytic.chain.floor import floor_of
from brewput.analytic.chain.generate import generate
from brewput.analytic.chain.steady import stationary
import pyamg  # imported before the clock, as any library already loaded
def floor(users):
    return floor_of(as_model(sys.argv[1], params={"users": users}).compile(), "cs", constant_phases=1)
stationary(generate(floor(40), 10**6).generator)  # the first call's one-off costs
f = floor(int(sys.argv[2]))
start = time.perf_counter()
chain = generate(f, 10**7)
walked = time.perf_counter()
pi = stationary(chain.generator)
solved = time.perf_counter()
print(json.dumps({"states": len(chain.states), "walk": walked - start, "solve": solved - walked}))
"""

# LINE's own example style (line_solver/examples/basic/closedQN): a Delay for the
# terminals, FCFS queues, Exp(rate), a routing matrix.
LINE_RUN = """
import json, sys, time
from line_solver import *
users = int(sys.argv[1])
model = Network("central-server")
terminals = Delay(model, "terminals")
cpu = Queue(model, "cpu", SchedStrategy.FCFS)
disk1 = Queue(model, "disk1", SchedStrategy.FCFS)
disk2 = Queue(model, "disk2", SchedStrategy.FCFS)
job = ClosedClass(model, "job", users, terminals, 0)
terminals.set_service(job, Exp(1 / 100)); cpu.set_service(job, Exp(1 / 2))
disk1.set_service(job, Exp(1 / 3)); disk2.set_service(job, Exp(1 / 5))
P = model.init_routing_matrix()
P.set(job, job, terminals, cpu, 1.0)
P.set(job, job, cpu, disk1, 0.6); P.set(job, job, cpu, disk2, 0.3); P.set(job, job, cpu, terminals, 0.1)
P.set(job, job, disk1, cpu, 1.0); P.set(job, job, disk2, cpu, 1.0)
model.link(P)
start = time.perf_counter()
table = SolverCTMC(model).getAvgTable()
seconds = time.perf_counter() - start
row = table[table["Station"] == "cpu"].iloc[0]
print(json.dumps({"seconds": seconds, "throughput_per_ms": float(row["Tput"]), "queue_length": float(row["QLen"])}))
"""


def line_python() -> Path:
    python = LINE_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(LINE_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"line-solver=={LINE_VERSION}"], check=True)
    return python


def brewput_in_process(users: int) -> dict:
    done = subprocess.run([str(PYTHON), "-c", BREWPUT_IN_PROCESS, str(MODEL), str(users)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def brewput_end_to_end(users: int) -> dict:
    start = time.perf_counter()
    done = subprocess.run([str(BREWPUT), "solve", str(MODEL), "--set", f"users={users}", "--method", "ctmc",
                           "--max-states", "1000000", "--json"], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    cpu = json.loads(done.stdout)["stations"]["cpu"]
    return {"seconds": seconds, "throughput_per_ms": cpu["throughput"], "queue_length": cpu["queue_length"]}


def line(users: int, timeout: float) -> dict:
    try:
        done = subprocess.run([str(line_python()), "-c", LINE_RUN, str(users)], capture_output=True, text=True,
                              timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"seconds": None}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[10, 30, 50, 80])
    parser.add_argument("--line-timeout", type=float, default=3600.0, help="seconds LINE is given per population")
    args = parser.parse_args()
    rows = []
    for users in args.users:
        inside, outside = brewput_in_process(users), brewput_end_to_end(users)
        assert inside["states"] == comb(users + 3, 3)
        theirs = line(users, args.line_timeout)
        rows.append((users, inside, outside, theirs))
        print(f"{users} users: {inside} {outside} {theirs}", file=sys.stderr, flush=True)

    def seconds(x):
        return "did not finish in %.0f s" % args.line_timeout if x is None else f"{x:.2f}"

    print("| users | states | brewput: walk + stationary law (s) | brewput solve --method ctmc, "
          "end to end (s) | LINE SolverCTMC (s) | LINE / brewput end to end | CPU throughput per ms: "
          "brewput / LINE | CPU queue: brewput / LINE |")
    print("|---|---|---|---|---|---|---|---|")
    for users, inside, outside, theirs in rows:
        ratio = "-" if theirs["seconds"] is None else f"{theirs['seconds'] / outside['seconds']:.0f}x"
        same = ("-" if theirs["seconds"] is None else
                f"{outside['throughput_per_ms']:.6f} / {theirs['throughput_per_ms']:.6f}")
        queue = "-" if theirs["seconds"] is None else f"{outside['queue_length']:.4f} / {theirs['queue_length']:.4f}"
        print(f"| {users} | {inside['states']:,} | {inside['walk']:.2f} + {inside['solve']:.2f} = "
              f"{inside['walk'] + inside['solve']:.2f} | {outside['seconds']:.2f} | {seconds(theirs['seconds'])} | "
              f"{ratio} | {same} | {queue} |")


if __name__ == "__main__":
    main()
