"""Runs the whole benchmark in one go and writes bench/RESULTS.md.

Usage: make bench          (= .venv/bin/python bench/run.py)
       .venv/bin/python bench/run.py [--output PATH]

Everything runs one after another, never side by side, so contenders do not
disturb each other; whatever else the machine did meanwhile is measured and
written down. Targets are reported, not asserted: the run fails (exit 1) only
when a contender's mean response time misses Erlang C, since then its speed
means nothing, and exits 2 when a peer or the CLI is not installed.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
from mm3_check import erlang_c_response  # noqa: E402

TARGET_DIR = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CLI = ROOT / ".venv" / "bin" / "brewput"
CLI_RUNS = 5
CLI_CUSTOMERS = 1_000_000
MODEL = "bench/mm3.yaml"
QUIET_CORES = 0.10  # other processes' average busy cores in any phase above this: not quiet
REPEATS = 3  # every speed is the best of this many runs


def fail(code, message):
    print(f"bench: {message}", file=sys.stderr)
    sys.exit(code)


def check_installed():
    missing = []
    for name in ("simpy", "ciw"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        fail(2, f"{' and '.join(missing)} not installed for {sys.executable}: pip install simpy ciw")
    if not CLI.exists():
        fail(2, f"{CLI.relative_to(ROOT)} not found: run `make build` first")


def show(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def run_json_lines(cmd):
    """Runs a contender; its stdout is JSON lines. A non-zero exit is an accuracy
    failure (or a crash): stop, since its speed would mean nothing."""
    print(f"$ {show(cmd)}", flush=True)
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    for line in lines:
        print(f"  {line['name']}: {line['customers_per_s']:,.0f} customers/s, "
              f"mean response {line['mean_response']:.4f} ({line['error']:+.2%})", flush=True)
    if done.returncode != 0:
        fail(1, f"`{show(cmd)}` exited {done.returncode}:\n{done.stderr.strip()}")
    return lines


def time_cli(args):
    """Median wall time of CLI_RUNS runs of `brewput ARGS`, Python start-up
    included, after one unrecorded run that warms the file cache."""
    cmd = [str(CLI.relative_to(ROOT)), *args]
    print(f"$ {show(cmd)}   (1 warm-up + {CLI_RUNS} timed)", flush=True)
    times = []
    for i in range(CLI_RUNS + 1):
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            fail(1, f"`{show(cmd)}` exited {done.returncode}:\n{done.stderr.strip()}")
        if i:
            times.append(elapsed)
    print(f"  median {statistics.median(times):.3f} s of {', '.join(f'{t:.3f}' for t in times)}", flush=True)
    return {"command": show(cmd), "median": statistics.median(times), "times": times}


def cli_mean_response():
    """The CLI's own answer for the model, checked like the others' (2 %)."""
    cmd = [str(CLI.relative_to(ROOT)), "simulate", MODEL, "--customers", str(CLI_CUSTOMERS), "--json"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    try:
        mean = json.loads(done.stdout)["classes"]["customer"]["response_time"]["mean"]
        return show(cmd), float(mean["mean"] if isinstance(mean, dict) else mean)
    except (ValueError, KeyError, TypeError):
        return show(cmd), None


def cpu_ticks():
    """Busy ticks of the whole machine, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return user + nice + system + irq + softirq + steal


def own_cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Interference:
    """How many cores other processes kept busy while a phase ran: the machine's
    busy CPU time (steal included) less this script's and its children's."""

    def __init__(self):
        self.ticks, self.own, self.start = cpu_ticks(), own_cpu_seconds(), time.perf_counter()

    def cores(self):
        busy = (cpu_ticks() - self.ticks) / os.sysconf("SC_CLK_TCK")
        return max(0.0, busy - (own_cpu_seconds() - self.own)) / (time.perf_counter() - self.start)


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": model, "nproc": os.cpu_count(), "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "rustc": rustc}


def verdict(ok):
    return "pass" if ok else "**miss**"


def write_results(path, r):
    m = r["machine"]
    truth = erlang_c_response()
    minimal, engine, rep1, rep2 = (r["engine_speed"][k] for k in
                                   ("minimal", "brewput", "replications-1", "replications-2"))
    simpy, ciw = r["simpy"], r["ciw"]
    cli1, cli5, cli_help = r["cli_1"], r["cli_5"], r["cli_help"]
    vs_minimal = engine["customers_per_s"] / minimal["customers_per_s"]
    vs_simpy = engine["customers_per_s"] / simpy["customers_per_s"]
    vs_ciw = engine["customers_per_s"] / ciw["customers_per_s"]
    speedup = rep2["customers_per_s"] / rep1["customers_per_s"]
    worst = max(r["phases"].values())
    quiet = worst <= QUIET_CORES
    phases = ", ".join(f"{name} {cores:.2f}" for name, cores in r["phases"].items())

    def row(label, x, tolerance):
        return (f"| {label} | {x['customers']:,} | {x['seconds']:.3f} | {x['customers_per_s']:,.0f} "
                f"| {x['mean_response']:.4f} | {x['error']:+.2%} (allowed ±{tolerance:.1%}) |")

    cli_cmd, cli_mean = r["cli_check"]
    if cli_mean is None:
        cli_check = f"not checked: `{cli_cmd}` gave no readable JSON."
    else:
        error = cli_mean / truth - 1
        cli_check = (f"`{cli_cmd}` gives mean response {cli_mean:.4f} ({error:+.2%} against Erlang C, "
                     f"{'within' if abs(error) <= 0.02 else '**outside**'} 2 %).")
    lines = [
        "# brewput benchmark results",
        "",
        "Written by `bench/run.py`; do not edit by hand (bench/README.md says what is measured).",
        "",
        "- **Command**: `make bench` (runs `.venv/bin/python bench/run.py`, then `bench/solve_speed.py`, `bench/sweep_scaling.py` and `bench/lab_curves.py` append a section each), repository root",
        f"- **Date**: {r['date']}",
        f"- **Machine**: {m['cpu']}, nproc {m['nproc']}, {m['os']}; {m['rustc']}; Python {m['python']}",
        f"- **Quiet?** {'yes' if quiet else '**no**'}: other processes kept {worst:.2f} cores busy on average "
        f"in the busiest phase ({phases}; {r['others_cores']:.2f} over the whole {r['wall']:.0f} s run; "
        f"load average {r['load_before']:.2f} before, {r['load_after']:.2f} after)"
        + ("" if quiet else "; the numbers below are disturbed by them"),
        "",
        f"## M/M/3 at utilization 0.9 (arrival rate 2.7, mean service 1.0; Erlang C: mean response {truth:.4f})",
        "",
        "Customers include the warm-up ones, which every contender simulates too. Every row is the best "
        f"of {r['repeats']} runs, taken in turn with the others of its kind (Rust rows in one process).",
        "",
        "| contender | customers | seconds | customers/s | mean response | error vs Erlang C |",
        "|---|---:|---:|---:|---:|---|",
        row("minimal hand-written Rust loop (ceiling)", minimal, 0.02),
        row("brewput engine, 1 thread", engine, 0.02),
        row("brewput engine, 2 replications, 1 thread", rep1, 0.02),
        row("brewput engine, 2 replications, 2 threads", rep2, 0.02),
        row(f"SimPy {simpy['version']}", simpy, simpy["tolerance"]),
        row(f"Ciw {ciw['version']}", ciw, ciw["tolerance"]),
        "",
        "The peers' tolerance is the larger of 3 % and four batch-means standard errors: a few seconds "
        "of a 90 %-busy queue cannot pin the mean closer (bench/mm3_check.py).",
        "",
        f"## `brewput simulate` end to end ({CLI_CUSTOMERS:,} customers, Python start-up included)",
        "",
        f"Wall time of the whole process, median of {CLI_RUNS} runs after one warm-up run.",
        "",
        "| command | median | runs |",
        "|---|---:|---|",
        f"| `{cli1['command']}` | {cli1['median']:.3f} s | {', '.join(f'{t:.3f}' for t in cli1['times'])} |",
        f"| `{cli5['command']}` | {cli5['median']:.3f} s | {', '.join(f'{t:.3f}' for t in cli5['times'])} |",
        f"| `{cli_help['command']}` (start-up alone, for reference) | {cli_help['median']:.3f} s "
        f"| {', '.join(f'{t:.3f}' for t in cli_help['times'])} |",
        "",
        f"Accuracy: {cli_check}",
        "",
        "## Targets (reported, not asserted)",
        "",
        "| target | measured | result |",
        "|---|---:|---|",
        f"| brewput, 1 thread, ≥ 60 % of the minimal loop's customers/s | {vs_minimal:.0%} | {verdict(vs_minimal >= 0.6)} |",
        f"| brewput, 1 thread, > 100x SimPy | {vs_simpy:,.0f}x | {verdict(vs_simpy > 100)} |",
        f"| brewput, 1 thread, > 200x Ciw | {vs_ciw:,.0f}x | {verdict(vs_ciw > 200)} |",
        f"| 2 replications: 2 threads ≥ 1.8x 1 thread | {speedup:.2f}x | {verdict(speedup >= 1.8)} |",
        f"| `brewput simulate`, {CLI_CUSTOMERS:,} customers, 1 replication, < 1 s | {cli1['median']:.3f} s "
        f"| {verdict(cli1['median'] < 1)} |",
        f"| for reference: the same with the default 5 replications, < 1 s | {cli5['median']:.3f} s "
        f"| {verdict(cli5['median'] < 1)} |",
        "",
        "## Commands run",
        "",
        "```",
        *r["commands"],
        "```",
        "",
    ]
    path.write_text("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description="Run brewput's benchmark and write bench/RESULTS.md.")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    check_installed()

    build = ["cargo", "build", "--release", "--quiet", "-p", "engine-speed"]
    print(f"$ {show(build)}", flush=True)
    if subprocess.run(build, cwd=ROOT).returncode != 0:
        fail(1, "cargo build failed")

    r = {"machine": machine(), "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
         "load_before": os.getloadavg()[0], "repeats": REPEATS, "phases": {}}
    whole = Interference()

    phase = Interference()
    binary = TARGET_DIR / "release" / "engine-speed"
    speed_cmd = [str(binary.relative_to(ROOT)) if binary.is_relative_to(ROOT) else str(binary),
                 "--repeats", str(REPEATS)]
    r["engine_speed"] = {("replications-%d" % x["threads"]) if x["replications"] > 1 else x["name"]: x
                         for x in run_json_lines(speed_cmd)}
    r["phases"]["Rust"] = phase.cores()

    # Best of REPEATS for the peers too, taken in turn like the Rust rounds. Their
    # runs are deterministic, so only the time differs between repeats.
    phase = Interference()
    simpy_cmd = [sys.executable, "bench/simpy_mm3.py", "--customers", "200000"]
    ciw_cmd = [sys.executable, "bench/ciw_mm3.py", "--customers", "50000"]
    for _ in range(REPEATS):
        for key, cmd in (("simpy", simpy_cmd), ("ciw", ciw_cmd)):
            line = run_json_lines(cmd)[0]
            if key not in r or line["seconds"] < r[key]["seconds"]:
                r[key] = line
    r["phases"]["SimPy and Ciw"] = phase.cores()

    phase = Interference()
    r["cli_1"] = time_cli(["simulate", MODEL, "--customers", str(CLI_CUSTOMERS), "--replications", "1"])
    r["cli_5"] = time_cli(["simulate", MODEL, "--customers", str(CLI_CUSTOMERS)])
    # Start-up alone (Python, imports, the help text), to show what the engine's share is.
    r["cli_help"] = time_cli(["--help"])
    r["phases"]["CLI"] = phase.cores()
    r["cli_check"] = cli_mean_response()

    r["wall"] = time.perf_counter() - whole.start
    r["others_cores"] = whole.cores()
    r["load_after"] = os.getloadavg()[0]
    python = os.path.relpath(sys.executable, ROOT) if sys.executable.startswith(str(ROOT)) else sys.executable
    r["commands"] = [show(build), show(speed_cmd),
                     *(f"{show([python, *c[1:]])}   # {REPEATS} times, in turn" for c in (simpy_cmd, ciw_cmd)),
                     f"{r['cli_1']['command']}   # {CLI_RUNS + 1} times, the first not counted",
                     f"{r['cli_5']['command']}   # {CLI_RUNS + 1} times, the first not counted",
                     f"{r['cli_help']['command']}   # {CLI_RUNS + 1} times, the first not counted",
                     r["cli_check"][0]]
    write_results(args.output, r)
    print(f"wrote {args.output.relative_to(ROOT) if args.output.resolve().is_relative_to(ROOT) else args.output}"
          f" (other processes kept at most {max(r['phases'].values()):.2f} cores busy in a phase)")


if __name__ == "__main__":
    main()
