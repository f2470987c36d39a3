"""`brewput load` beside wrk2, oha and wrk, side by side in one run.

A minimal keep-alive responder (crates/load/examples/responder.rs: one thread,
a canned answer) is pinned to core 1 and each generator in turn to core 0, at
a ladder of target rates, with constant pacing for every paced tool,
Poisson arrivals for brewput (the only one of them that has them), and brewput
once more paced as the peers are (`--tick 1ms`: a millisecond's requests sent
at once). For each run, over the same window of steady state:

- rate held: requests the responder answered in the window (its own count,
  the same judge for every tool) per second, over the target;
- honest p99: the tool's own p99 of the response time from the intended
  start (brewput's response time, wrk2's corrected latency, oha's
  --latency-correction); wrk has no pacing, so it runs once, closed-loop, as
  fast as it can, and its p99 is from the send: not comparable;
- CPU per request: the generator process's user + system time in the window
  (/proc/PID/stat, every thread) over the requests answered in it.

Every tool gets the same connections (32), one core, one thread where it has
the choice. wrk2 spends its first 10 s calibrating and reports only after
them, so every run lasts 16 s, the window is from 11 s to 15 s and brewput is
given --warmup 10s; oha has no warm-up and reports its whole run.

    .venv/bin/python bench/load_peers.py                   # the table, as markdown, on stdout
    .venv/bin/python bench/load_peers.py --output bench/RESULTS.md   # replaces its section there

The peers are found on PATH (wrk2, oha, wrk) or by --wrk2/--oha/--wrk (or
BREWPUT_WRK2, BREWPUT_OHA, BREWPUT_WRK); a missing one is named with how to
install it, and the script exits 2. It sends traffic only to the responder it
starts on 127.0.0.1.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Load generator: brewput load beside wrk2, oha and wrk"
RATES = [5_000, 10_000, 20_000, 50_000, 100_000]
CONNECTIONS = 32
RUN_SECONDS = 16
WINDOW = (11.0, 15.0)  # wrk2 reports only after its 10 s calibration
GENERATOR_CORE, RESPONDER_CORE = "0", "1"
PEERS_TICK = "1ms"  # how often wrk2 and oha wake to send: brewput once more, paced as they are
TICK = os.sysconf("SC_CLK_TCK")

INSTALL = {
    "wrk2": "not packaged: build it from https://github.com/giltene/wrk2 (needs libssl-dev; `make`, then put "
            "`wrk` on PATH as wrk2 or pass --wrk2 PATH)",
    "oha": "`cargo install oha --locked --root DIR`, then DIR/bin on PATH or --oha DIR/bin/oha",
    "wrk": "Debian/Ubuntu: `apt-get install wrk`; or build https://github.com/wg/wrk",
}


def fail(message: str) -> None:
    print(f"load_peers: {message}", file=sys.stderr)
    sys.exit(2)


# --- what each tool is asked and how its report is read ---------------------------------------

UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def wrk_time(text: str) -> float:
    """A wrk/wrk2 duration ('1.23ms', '812.00us', '2.01s') in seconds."""
    number, unit = re.fullmatch(r"([\d.]+)([a-z]+)", text).groups()
    return float(number) * UNITS[unit]


def parse_wrk2(out: str) -> Dict[str, float]:
    # --latency prints HdrHistogram's percentiles, corrected (from the intended start)
    p99 = re.search(r"^\s*99\.000%\s+(\S+)", out, re.M)
    top = re.search(r"^\s*100\.000%\s+(\S+)", out, re.M)
    return {"p99": wrk_time(p99.group(1)), "max": wrk_time(top.group(1))}


def parse_wrk(out: str) -> Dict[str, float]:
    p99 = re.search(r"^\s*99%\s+(\S+)", out, re.M)
    top = re.search(r"^\s*Latency\s+\S+\s+\S+\s+(\S+)", out, re.M)
    return {"p99": wrk_time(p99.group(1)), "max": wrk_time(top.group(1))}


def parse_oha(out: str) -> Dict[str, float]:
    report = json.loads(out)
    return {"p99": report["latencyPercentiles"]["p99"], "max": report["summary"]["slowest"]}


def parse_brewput(out: str) -> Dict[str, float]:
    times = json.loads(out)["classes"]["request"]["response_time"]
    return {"p99": times["p99"] * 1e-3, "max": times["max"] * 1e-3}


@dataclass
class Contender:
    name: str  # the row's label
    tool: str  # which binary: brewput, wrk2, oha, wrk
    arrivals: str  # constant, poisson or closed (no pacing)
    command: Callable[[str, str, int], List[str]]  # (binary, url, rate) -> argv
    parse: Callable[[str], Dict[str, float]]


def contenders() -> List[Contender]:
    seconds = f"{RUN_SECONDS}s"

    def brewput(arrivals, tick=None):
        return lambda exe, url, rate: [
            exe, "load", url, "--rate", str(rate), "--arrivals", arrivals, "--duration", seconds,
            "--warmup", "10s", "--connections", str(CONNECTIONS), "--json", *(["--tick", tick] if tick else [])]

    return [
        Contender("brewput load", "brewput", "constant", brewput("constant"), parse_brewput),
        Contender("brewput load", "brewput", "poisson", brewput("poisson"), parse_brewput),
        Contender(f"brewput load --tick {PEERS_TICK}", "brewput", "constant", brewput("constant", PEERS_TICK),
                  parse_brewput),
        Contender("wrk2", "wrk2", "constant", lambda exe, url, rate: [
            exe, "-t1", f"-c{CONNECTIONS}", f"-d{seconds}", f"-R{rate}", "--latency", url], parse_wrk2),
        Contender("oha --latency-correction", "oha", "constant", lambda exe, url, rate: [
            exe, "--no-tui", "--output-format", "json", "--worker-threads", "1", "-c", str(CONNECTIONS),
            "-z", seconds, "-q", str(rate), "--latency-correction", url], parse_oha),
    ]


CLOSED = Contender("wrk (closed loop)", "wrk", "closed", lambda exe, url, rate: [
    exe, "-t1", f"-c{CONNECTIONS}", f"-d{RUN_SECONDS}s", "--latency", url], parse_wrk)


# --- measuring ------------------------------------------------------------------------------

def process_cpu(pid: int) -> float:
    """User + system seconds of a process, every thread."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def core_busy(core: str) -> float:
    """Busy seconds of one core, steal included, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = next([int(x) for x in line.split()[1:]] for line in f if line.startswith(f"cpu{core} "))
    user, nice, system, idle, iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / TICK


def answered(port: int) -> int:
    """The responder's count of requests answered, asked on a connection of its own."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /count HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.split(b"\r\n\r\n", 1)[1]:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b"\r\n\r\n", 1)[1])


@dataclass
class Snapshot:
    at: float
    count: int
    generator: float
    responder: float
    generator_core: float
    responder_core: float

    @staticmethod
    def take(port: int, generator: int, responder: int) -> "Snapshot":
        return Snapshot(time.perf_counter(), answered(port), process_cpu(generator), process_cpu(responder),
                        core_busy(GENERATOR_CORE), core_busy(RESPONDER_CORE))


@dataclass
class Run:
    contender: Contender
    rate: Optional[int]
    held_rate: float = 0.0
    cpu_us: float = 0.0
    p99: Optional[float] = None
    max: Optional[float] = None
    # the share of each core other processes took in the window
    others_generator_core: float = 0.0
    others_responder_core: float = 0.0
    error: str = ""
    command: List[str] = field(default_factory=list)


def measure(contender: Contender, exe: str, rate: Optional[int], port: int, responder: int) -> Run:
    command = contender.command(exe, f"http://127.0.0.1:{port}/", rate or 0)
    run = Run(contender, rate, command=command)
    started = time.perf_counter()
    generator = subprocess.Popen(["taskset", "-c", GENERATOR_CORE, *command], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(max(0.0, started + WINDOW[0] - time.perf_counter()))
        first = Snapshot.take(port, generator.pid, responder)
        time.sleep(max(0.0, started + WINDOW[1] - time.perf_counter()))
        last = Snapshot.take(port, generator.pid, responder)
        out, err = generator.communicate(timeout=RUN_SECONDS + 60)
    except (OSError, subprocess.TimeoutExpired) as e:
        generator.kill()
        generator.communicate()
        run.error = f"no measurement: {e}"
        return run
    count, seconds = last.count - first.count, last.at - first.at
    used = last.generator - first.generator
    run.held_rate = count / seconds
    run.cpu_us = used / max(count, 1) * 1e6
    run.others_generator_core = max(0.0, last.generator_core - first.generator_core - used) / seconds
    run.others_responder_core = max(0.0, last.responder_core - first.responder_core
                                    - (last.responder - first.responder)) / seconds
    if generator.returncode not in (0, 1):  # brewput exits 1 on a broken threshold (none here)
        run.error = f"exit {generator.returncode}: {err.strip().splitlines()[-1:] }"
        return run
    try:
        run.__dict__.update(contender.parse(out))
    except (ValueError, KeyError, AttributeError, TypeError) as e:
        run.error = f"cannot read its report ({type(e).__name__}: {e})"
    return run


# --- the peers and the responder ----------------------------------------------------------------

def version(tool: str, exe: str) -> str:
    probe = {"brewput": [exe, "--version"], "oha": [exe, "--version"], "wrk2": [exe, "-v"], "wrk": [exe, "-v"]}[tool]
    done = subprocess.run(probe, capture_output=True, text=True)
    text = (done.stdout + done.stderr).strip().splitlines()
    return text[0].split(" Copyright")[0] if text else "?"


def find_tools(args) -> Dict[str, str]:
    paths = {"brewput": str(ROOT / ".venv" / "bin" / "brewput")}
    missing = []
    for tool in ("wrk2", "oha", "wrk"):
        given = getattr(args, tool) or os.environ.get(f"BREWPUT_{tool.upper()}") or shutil.which(tool)
        if given and os.access(given, os.X_OK):
            paths[tool] = given
        else:
            missing.append(f"{tool}: {INSTALL[tool]}")
    if missing:
        fail("missing peers (" + "; ".join(missing) + ")")
    if not os.access(paths["brewput"], os.X_OK):
        fail("no .venv/bin/brewput: run `make build` first")
    return paths


def start_responder() -> subprocess.Popen:
    build = ["cargo", "build", "--release", "--quiet", "-p", "brewput-load", "--example", "responder"]
    if subprocess.run(build, cwd=ROOT).returncode != 0:
        fail("cannot build the responder: " + " ".join(build))
    binary = ROOT / "target" / "release" / "examples" / "responder"
    return subprocess.Popen(["taskset", "-c", RESPONDER_CORE, str(binary)], stdout=subprocess.PIPE, text=True)


# --- the report ---------------------------------------------------------------------------------

def ms(x: Optional[float]) -> str:
    return "–" if x is None else f"{x * 1e3:,.3f}" if x < 0.01 else f"{x * 1e3:,.1f}"


def others(r: Run) -> str:
    return f"{r.others_generator_core:.2f} / {r.others_responder_core:.2f}"


def ratio(mine: Optional[float], best: Optional[float]) -> str:
    if mine is None or not best:
        return "–"
    return f"{mine / best:.2f}x" if mine / best >= 0.1 else f"{mine / best:.3f}x"


def standing(runs: List[Run]) -> List[str]:
    """brewput's constant-rate runs (its default tick, then the peers') against
    the best peer at each rate, in words."""
    lines = []
    for name, how in (("brewput load", "its default tick, 50 µs"),
                      (f"brewput load --tick {PEERS_TICK}", f"--tick {PEERS_TICK}, the peers' own pacing")):
        held, cpu, p99 = [], [], []
        for rate in sorted({r.rate for r in runs}):
            here = [r for r in runs if r.rate == rate and not r.error]
            mine = next((r for r in here if r.contender.name == name and r.contender.arrivals == "constant"), None)
            peers = [r for r in here if r.contender.tool in ("wrk2", "oha")]
            if mine is None or not peers:
                continue
            best_held = max(peers, key=lambda r: r.held_rate)
            held.append(f"{rate // 1000}k/s {mine.held_rate / rate:.3f} against {best_held.held_rate / rate:.3f} "
                        f"({best_held.contender.tool})")
            cpu.append(f"{rate // 1000}k/s {ratio(mine.cpu_us, min(r.cpu_us for r in peers))}")
            p99.append(f"{rate // 1000}k/s {ratio(mine.p99, min(r.p99 for r in peers if r.p99 is not None))}")
        if held:
            lines += ["", f"Where brewput stands (constant pacing with {how}, against the best peer at each rate): "
                      "rate held " + "; ".join(held) + ". Honest p99, brewput over the best peer's: "
                      + "; ".join(p99) + ". CPU per request, brewput over the best peer's: " + "; ".join(cpu) + "."]
    if not lines:
        return []
    return lines + [
        "", "Why brewput spends more CPU per request at its default tick at the lower rates: it sends each "
        "request within 50 µs of its intended time, waking for it (a context switch for it and one for the "
        "server it wakes, most of the cost here), where wrk2 and oha wake on their millisecond timers and "
        f"send a millisecond's requests at once. Its server then sees the schedule's arrivals (Poisson when "
        f"asked), not millisecond bursts, which is what `--predict` sets beside a model. `--tick {PEERS_TICK}` "
        "paces as the peers do, and its rows compare like with like. At the top rates the loop is never "
        "idle, wakes become rare and the two agree."]


def report(runs: List[Run], closed: Run, tools: Dict[str, str], started: datetime.datetime,
           load: Dict[str, float]) -> str:
    lines = [SECTION, ""]
    lines.append(
        f"One run of `bench/load_peers.py` ({started:%Y-%m-%d %H:%M} UTC): the responder "
        f"(crates/load/examples/responder.rs) on core {RESPONDER_CORE}, each generator in turn on core "
        f"{GENERATOR_CORE}, {CONNECTIONS} connections, {RUN_SECONDS} s per run, measured from "
        f"{WINDOW[0]:g} s to {WINDOW[1]:g} s. *held*: requests the responder answered per second over the "
        "target; *p99*: the tool's own p99 from the intended start, ms; *CPU*: the generator's user + system "
        "time per request answered, µs. The ratios are to the best paced peer (wrk2 or oha) at that rate: "
        "under 1 is better for p99 and CPU.")
    lines += ["", "| target/s | contender | arrivals | held | p99 ms | max ms | CPU µs/req "
                  "| p99 vs best peer | CPU vs best peer | others on core 0 / 1 |",
              "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for rate in sorted({r.rate for r in runs}):
        here = [r for r in runs if r.rate == rate]
        peers = [r for r in here if r.contender.tool in ("wrk2", "oha") and not r.error]
        best_p99 = min((r.p99 for r in peers if r.p99 is not None), default=None)
        best_cpu = min((r.cpu_us for r in peers), default=None)
        for r in here:
            if r.error:
                lines.append(f"| {rate:,} | {r.contender.name} | {r.contender.arrivals} | "
                             f"{r.held_rate / rate:.3f} | {r.error} | | {r.cpu_us:.1f} | | | {others(r)} |")
                continue
            lines.append(
                f"| {rate:,} | {r.contender.name} | {r.contender.arrivals} | {r.held_rate / rate:.3f} | "
                f"{ms(r.p99)} | {ms(r.max)} | {r.cpu_us:.1f} | {ratio(r.p99, best_p99)} | "
                f"{ratio(r.cpu_us, best_cpu)} | {others(r)} |")
    lines += standing(runs)
    if closed.command:
        lines += ["", f"wrk, closed loop (no pacing, {CONNECTIONS} connections, as fast as it goes): "
                      f"{closed.held_rate:,.0f} requests/s, {closed.cpu_us:.1f} µs CPU per request, p99 "
                      f"{ms(closed.p99)} ms and max {ms(closed.max)} ms from the send, not from an intended "
                      "start: not comparable with the paced rows. " + (closed.error or "")]
    lines += ["", "Versions: " + "; ".join(f"{tool} `{version(tool, exe)}`" for tool, exe in tools.items()) + "."]
    lines += ["", f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                  f"{platform.system()} {platform.release()}; load average {load['before']:.2f} before the run, "
                  f"{load['after']:.2f} after. *others on core 0 / 1*: the share of the "
                  "generator's and the responder's core spent on anything but their own time during the window: "
                  "other processes (nothing else is pinned: other people's builds and tests) and the kernel's "
                  "interrupt work; when it is high on core 1 the responder is starved, and that caps every tool "
                  "at the top rates."]
    lines += ["", "Commands (URL `http://127.0.0.1:PORT/`, the responder's port):", "", "```"]
    shown = set()
    for r in [r for r in runs + [closed] if r.command]:
        text = " ".join(["taskset", "-c", GENERATOR_CORE] + [Path(r.command[0]).name] + r.command[1:])
        text = re.sub(r"http://127\.0\.0\.1:\d+/", "URL", text)
        key = text if r.rate is None else re.sub(rf"(?<=[R ]){r.rate}\b", "RATE", text)
        if key not in shown:
            shown.add(key)
            lines.append(key)
    lines += ["```", ""]
    return "\n".join(lines)


def replace_section(path: Path, section: str) -> None:
    text = path.read_text() if path.exists() else ""
    begin = text.find(SECTION)
    if begin < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        after = text.find("\n## ", begin + len(SECTION))
        text = text[:begin] + section + ("" if after < 0 else "\n" + text[after + 1:])
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    for tool in ("wrk2", "oha", "wrk"):
        parser.add_argument(f"--{tool}", help=f"the {tool} binary (else ${'BREWPUT_' + tool.upper()} or PATH)")
    parser.add_argument("--rates", default=",".join(map(str, RATES)), help="target rates, comma-separated")
    parser.add_argument("--only", help="run only these tools (comma-separated: brewput,wrk2,oha,wrk)")
    parser.add_argument("--output", type=Path, help="replace this section in FILE (else print it)")
    args = parser.parse_args()
    if (os.cpu_count() or 1) < 2 or not shutil.which("taskset"):
        fail("needs 2 cores and taskset (util-linux): one for the responder, one for the generator")
    tools = find_tools(args)
    only = set(args.only.split(",")) if args.only else set(tools)
    rates = [int(r) for r in args.rates.split(",")]
    started = datetime.datetime.now(datetime.timezone.utc)
    load = {"before": os.getloadavg()[0]}
    responder = start_responder()
    try:
        port = int(responder.stdout.readline())
        runs = []
        for rate in rates:  # every contender at one rate, then the next rate: a burst elsewhere spoils one rate
            for contender in contenders():
                if contender.tool in only:
                    runs.append(measure(contender, tools[contender.tool], rate, port, responder.pid))
                    r = runs[-1]
                    print(f"{rate:>7,}/s {r.contender.name:<26} {r.contender.arrivals:<8} held "
                          f"{r.held_rate / rate:.3f} p99 {ms(r.p99)} ms CPU {r.cpu_us:.1f} µs/req "
                          f"others {others(r)} {r.error}", file=sys.stderr)
        closed = measure(CLOSED, tools["wrk"], None, port, responder.pid) if "wrk" in only else Run(CLOSED, None)
    finally:
        responder.kill()
        responder.wait()
    load["after"] = os.getloadavg()[0]
    section = report(runs, closed, {t: p for t, p in tools.items() if t in only}, started, load)
    if args.output:
        replace_section(args.output, section)
    else:
        print(section)


if __name__ == "__main__":
    main()
