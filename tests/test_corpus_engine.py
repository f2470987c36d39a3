"""The corpus (tests/corpus.py): the simulation engine's run settings, and
models that are valid but cannot run to their end (deadlock, instability),
through the real command line: exit 2, one line naming the option or the
model, no traceback or panic, bounded time and memory."""
import subprocess
import sys

import pytest

from corpus import CLOSED, MODEL, Case, check, ids

RING = """\
brewput: 1
name: ring
stations: {a: {buffer: 0}, b: {buffer: 0}}
classes:
  c:
    population: 2
    route:
      - {id: x, station: a, service: exp(1)}
      - {station: b, service: exp(1), next: {x: 0.5, exit: 0.5}}
"""
"""Two bufferless stations feeding each other: both customers end up blocked."""

RING3 = """\
brewput: 1
stations: {a: {buffer: 0}, b: {buffer: 0}, c: {buffer: 0}}
classes:
  job:
    population: 3
    route:
      - {id: first, station: a, service: 1}
      - {station: b, service: 1}
      - {station: c, service: 1, next: {first: 0.5, exit: 0.5}}
"""
"""Three bufferless stations in a ring, full: after the first services nobody can move."""

FLOOD = """\
brewput: 1
name: flood
stations: {desk: {servers: 1}}
classes: {c: {rate: 10, route: [{station: desk, service: exp(1)}]}}
"""
"""Arrivals ten times faster than service."""

FLOOD_TWO = """\
brewput: 1
stations: {grill: {servers: 2}, till: {servers: 1}}
classes:
  burger: {rate: 3, route: [{station: grill, service: exp(0.5)}, {station: till, service: exp(0.2)}]}
  shake: {rate: 3, route: [{station: till, service: exp(0.2)}]}
"""
"""The till is offered 6 x 0.2 = 120 %: the queue there grows for ever (a
default run ends first, with a warning; a long one reaches the bound)."""

FLOOD_BESIDE_CLOSED = """\
brewput: 1
stations: {cpu: {servers: 1}, disk: {servers: 1}}
classes:
  batch: {population: 5, route: [{station: disk, service: exp(1)}]}
  web: {rate: 3, route: [{station: cpu, service: exp(0.5)}]}
"""
"""An open class offering the cpu 150 % beside a closed one (whose customers do
not count towards the bound)."""


LONG = ["--replications", "2", "--customers", "100000000"]

MANY_CLASSES = "brewput: 1\nstations: {desk: {servers: inf}}\nclasses:\n" + "".join(
    f"  c{i}: {{rate: 0.001, route: [{{station: desk, service: 1}}]}}\n" for i in range(2000))
"""2,000 classes: each replication keeps over a megabyte of figures until the summary."""


def simulate(*args, files=None, **case):
    name = next(iter(files)) if files else "m.yaml"
    return ["simulate", name, *args], (files or {"m.yaml": MODEL})


def case(id, args, names, files=None, **options):
    argv, files = simulate(*args, files=files)
    return Case(id, argv, files, names=names, **options)


CASES = [
    # --replications: 1 to 100,000 whole replications
    case("replications-zero", ["--replications", "0"], ["--replications"]),
    case("replications-negative", ["--replications", "-3"], ["--replications"]),
    case("replications-fraction", ["--replications", "2.5"], ["--replications"]),
    case("replications-beyond-max", ["--replications", "100001"], ["--replications"]),
    case("replications-huge", ["--replications", "1e30"], ["--replications"]),
    case("replications-nan", ["--replications", "nan"], ["--replications"]),
    case("replications-text", ["--replications", "five"], ["--replications"]),
    # --threads: 1 to 1,024
    case("threads-zero", ["--threads", "0"], ["--threads"]),
    case("threads-negative", ["--threads", "-1"], ["--threads"]),
    case("threads-beyond-max", ["--threads", "1025"], ["--threads"]),
    case("threads-fraction", ["--threads", "1.5"], ["--threads"]),
    case("threads-inf", ["--threads", "inf"], ["--threads"]),
    # --seed: 0 to 2^64 - 1
    case("seed-negative", ["--seed", "-1"], ["--seed"]),
    case("seed-2-to-the-64", ["--seed", "18446744073709551616"], ["--seed"]),
    case("seed-fraction", ["--seed", "0.5"], ["--seed"]),
    case("seed-nan", ["--seed", "nan"], ["--seed"]),
    # --customers and --warmup (customers): whole, up to 4,000,000,000
    case("customers-zero", ["--customers", "0"], ["--customers"]),
    case("customers-beyond-max", ["--customers", "4000000001"], ["--customers"]),
    case("customers-inf", ["--customers", "inf"], ["--customers"]),
    case("warmup-customers-beyond-max", ["--customers", "10", "--warmup", "1e12"], ["--warmup"]),
    case("warmup-customers-negative", ["--customers", "10", "--warmup", "-1"], ["--warmup"]),
    # --horizon and --warmup (time): positive, finite, at most 1e12
    case("horizon-zero", ["--horizon", "0"], ["--horizon"]),
    case("horizon-negative", ["--horizon", "-5"], ["--horizon"]),
    case("horizon-inf", ["--horizon", "inf"], ["--horizon"]),
    case("horizon-1e300", ["--horizon", "1e300"], ["--horizon"]),
    case("warmup-time-1e300", ["--horizon", "10", "--warmup", "1e300"], ["--warmup"]),
    case("warmup-time-nan", ["--horizon", "10", "--warmup", "nan"], ["--warmup"]),
    case("customers-and-horizon", ["--customers", "10", "--horizon", "10"], ["--customers", "--horizon"]),
    # the figures every replication keeps, bounded before the run starts
    case("replications-times-classes", ["--replications", "100000", "--customers", "10"],
         ["many.yaml", "replications: at most"], files={"many.yaml": MANY_CLASSES}),
    case("replications-times-classes-horizon", ["--replications", "5000", "--horizon", "1"],
         ["many.yaml", "replications: at most"], files={"many.yaml": MANY_CLASSES}),
    # deadlock: every customer blocked; by customers or by a horizon, never a hang
    case("deadlock-ring", ["--customers", "1000"], ["m.yaml", "deadlocked"], files={"m.yaml": RING}),
    case("deadlock-ring-horizon", ["--horizon", "1000"], ["m.yaml", "deadlocked"], files={"m.yaml": RING}),
    case("deadlock-ring-long-warmup", ["--horizon", "1000", "--warmup", "1e9"], ["m.yaml", "deadlocked"],
         files={"m.yaml": RING}),
    case("deadlock-full-ring", ["--replications", "3"], ["ring3.yaml", "deadlocked"], files={"ring3.yaml": RING3}),
    # unstable: the queue grows until the engine's bound, in bounded memory
    case("unstable-flood", [], ["flood.yaml", "unstable"], files={"flood.yaml": FLOOD}, memory_mb=2048),
    case("unstable-flood-horizon", ["--horizon", "1e6"], ["flood.yaml", "unstable"], files={"flood.yaml": FLOOD},
         memory_mb=2048),
    case("unstable-flood-one-replication", ["--replications", "1", "--customers", "4000000000"],
         ["flood.yaml", "unstable"], files={"flood.yaml": FLOOD}, memory_mb=2048),
    # (the queues grow by one customer per time unit: a long run reaches the bound)
    case("unstable-two-classes", LONG, ["two.yaml", "unstable"], files={"two.yaml": FLOOD_TWO}, memory_mb=2048),
    case("unstable-beside-closed", LONG, ["mixed.yaml", "unstable"], files={"mixed.yaml": FLOOD_BESIDE_CLOSED},
         memory_mb=2048),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)


def test_settings_at_their_maxima_run(tmp_path):
    """The largest settings brewput accepts run, in bounded time and memory:
    100,000 replications (linear in their number), the largest seed, 1,024 threads."""
    (tmp_path / "m.yaml").write_text(CLOSED)
    done = subprocess.run(
        [sys.executable, "-m", "brewput", "simulate", "m.yaml", "--replications", "100000", "--customers", "1",
         "--seed", str(2**64 - 1), "--threads", "1024", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"replications": 100000' in done.stdout
