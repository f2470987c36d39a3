"""The corpus (tests/corpus.py): the lab's options. Every one of them with NaN,
infinities, negatives, huge and tiny values, bad units, garbage and empty text:
one line naming the option, exit 2, refused before anything is measured (so
each case takes well under a second of CPU, whatever it asks for)."""
import pytest

from corpus import Case, check, ids


def coffee(case_id, *args, names=None):
    option = next(a for a in args if a.startswith("-"))
    return Case(f"lab-coffee-{case_id}", ["lab", "coffee", *args], names=names or [option], timeout=30, max_lines=1)


def pool(case_id, *args, names=None):
    option = next(a for a in args if a.startswith("-"))
    return Case(f"lab-pool-{case_id}", ["lab", "pool", *args], names=names or [option], timeout=30, max_lines=1)


CASES = [
    # Times: each stage, the jitter, the window, the warm-up, the stall.
    coffee("grind-huge", "--grind", "1e30ms", names=["--grind 1e30ms"]),
    coffee("grind-overflow", "--grind", "1e400s", names=["--grind 1e400s"]),
    coffee("grind-tiny", "--grind", "1e-30ms", names=["--grind 1e-30ms"]),
    coffee("press-negative", "--press", "-1ms", names=["--press -1ms"]),
    coffee("steam-nan", "--steam", "nanms", names=["--steam"]),
    coffee("latte-no-unit", "--latte", "5", names=["--latte 5"]),
    coffee("latte-bad-unit", "--latte", "5parsecs", names=["--latte 5parsecs"]),
    coffee("jitter-empty", "--jitter", "", names=["--jitter"]),
    coffee("jitter-above-twice-a-stage", "--jitter", "3ms", names=["--jitter 3ms"]),
    *[coffee(f"runtime-{what}", "--runtime", value, names=["--runtime", "tasks or threads"])
      for what, value in (("unknown", "goroutines"), ("empty", ""), ("case", "Tasks"), ("number", "2"),
                          ("list-with-an-unknown", "tasks,fibres"), ("list-with-an-empty", "tasks,"),
                          ("list-of-commas", ",,"))],
    coffee("runtime-twice", "--runtime", "threads,threads", names=["--runtime threads,threads", "once"]),
    coffee("dur-huge", "--dur", "1e30s", names=["--dur 1e30s"]),
    coffee("dur-infinite", "--dur", "1e400s", names=["--dur 1e400s"]),
    coffee("dur-tiny", "--dur", "1e-30s", names=["--dur 1e-30s"]),
    coffee("dur-zero", "--dur", "0s", names=["--dur 0s"]),
    coffee("dur-garbage", "--dur", "soon", names=["--dur soon"]),
    coffee("warmup-negative", "--warmup", "-5s", names=["--warmup -5s"]),
    coffee("warmup-week", "--warmup", "168h", names=["--warmup 168h"]),
    coffee("stall-huge", "--stall", "1e9s", "--stall-every", "2", names=["--stall 1e9s"]),
    coffee("stall-without-which", "--stall", "5ms", names=["--stall 5ms", "--stall-every"]),
    # Rates, counts and ranges.
    coffee("rate-tiny", "--rate", "1e-300", names=["--rate 1e-300"]),
    coffee("rate-infinite", "--rate", "inf", names=["--rate inf"]),
    coffee("rate-overflow", "--rate", "1e400", names=["--rate 1e400"]),
    coffee("rate-nan", "--rate", "nan", names=["--rate nan"]),
    coffee("rate-garbage", "--rate", "fast", names=["--rate fast"]),
    coffee("rate-zero", "--rate", "0", names=["--rate 0"]),
    coffee("queue-negative", "--queue", "-1", "--rate", "10", names=["--queue -1"]),
    coffee("queue-huge", "--queue", "1000000000000", "--rate", "10", names=["--queue 1000000000000"]),
    coffee("queue-fraction", "--queue", "2.5", "--rate", "10", names=["--queue 2.5"]),
    coffee("arrivals-unknown", "--arrivals", "bursty", "--rate", "10", names=["--arrivals bursty"]),
    coffee("repetitions-zero", "--repetitions", "0", names=["--repetitions 0"]),
    coffee("repetitions-huge", "--repetitions", "99999999999999999999", names=["--repetitions"]),
    coffee("repetitions-garbage", "--repetitions", "many", names=["--repetitions many"]),
    coffee("stall-every-zero", "--stall", "1ms", "--stall-every", "0", names=["--stall-every 0"]),
    coffee("stall-every-empty", "--stall-every", "", names=["--stall-every"]),
    coffee("par-zero", "--par", "0", names=["--par 0"]),
    coffee("par-huge-range", "--par", "1..99999999999", names=["--par 1..99999999999"]),
    coffee("par-backwards", "--par", "8..1", names=["--par 8..1"]),
    coffee("par-garbage", "--par", "lots", names=["--par lots"]),
    coffee("cpus-negative", "--cpus", "-2", names=["--cpus -2"]),
    coffee("cpus-huge", "--cpus", "1,2,100000", names=["--cpus 1,2,100000"]),
    coffee("cpus-empty", "--cpus", "", names=["--cpus"]),
    coffee("nice-too-low", "--nice", "-21", names=["--nice -21"]),
    coffee("nice-garbage", "--nice", "kind", names=["--nice kind"]),
    coffee("impl-unknown", "--impl", "espresso", names=["--impl espresso"]),
    coffee("impl-number-huge", "--impl", "multi-99999999999999999999", names=["--impl multi-99999999999999999999"]),
    coffee("impl-empty", "--impl", ",", names=["--impl"]),
    coffee("predict-unequal-stages", "--grind", "2ms", "--predict", names=["--predict"]),
    coffee("predict-open-loop", "--rate", "10", "--predict", names=["--predict"]),
    # Outputs are checked before anything is measured.
    coffee("output-bad-suffix", "-o", "out.txt", names=["out.txt"]),
    coffee("output-missing-folder", "-o", "nowhere/out.json", names=["nowhere"]),
    Case("lab-coffee-report-is-a-file", ["lab", "coffee", "--report", "taken"], {"taken": "a file"},
         names=["--report", "taken"], timeout=30, max_lines=1),
    Case("lab-coffee-hgrm-is-a-file", ["lab", "coffee", "--hgrm", "taken"], {"taken": "a file"},
         names=["--hgrm", "taken"], timeout=30, max_lines=1),
    # The pool's options.
    pool("work-huge", "--work", "1e30ms", names=["--work 1e30ms"]),
    pool("work-zero", "--work", "0ms", names=["--work 0ms"]),
    pool("work-nan", "--work", "nan", names=["--work nan"]),
    pool("work-bad-unit", "--work", "10kg", names=["--work 10kg"]),
    pool("tasks-zero", "--tasks", "0", names=["--tasks 0"]),
    pool("tasks-huge", "--tasks", "1e9", names=["--tasks 1e9"]),
    pool("tasks-negative", "--tasks", "-5", names=["--tasks -5"]),
    pool("threads-huge", "--threads", "1..1000000", names=["--threads 1..1000000"]),
    pool("threads-garbage", "--threads", "some", names=["--threads some"]),
    pool("cpus-zero", "--cpus", "0", names=["--cpus 0"]),
    pool("cpus-range", "--cpus", "1..2", names=["--cpus 1..2"]),
    pool("repetitions-negative", "--repetitions", "-3", names=["--repetitions -3"]),
    pool("nice-too-high", "--nice", "20", names=["--nice 20"]),
    pool("work-empty", "--work", "", names=["--work"]),
    pool("tasks-empty", "--tasks", "", names=["--tasks"]),
    pool("threads-empty", "--threads", "", names=["--threads"]),
    pool("threads-zero-in-list", "--threads", "1,0,2", names=["--threads 1,0,2"]),
    Case("lab-pool-hgrm-is-a-file", ["lab", "pool", "--hgrm", "taken"], {"taken": "a file"},
         names=["--hgrm", "taken"], timeout=30, max_lines=1),
    coffee("par-empty", "--par", "", names=["--par"]),
    coffee("repetitions-empty", "--repetitions", "", names=["--repetitions"]),
    coffee("warmup-garbage", "--warmup", "a bit", names=["--warmup a bit"]),
    coffee("queue-garbage", "--queue", "deep", "--rate", "10", names=["--queue deep"]),
    # Within bounds, but more threads than a capped address space holds (each
    # reserves its stack): the system's refusal is the error, never a panic.
    # (The tasks runtime runs the same customers and baristas as tasks.)
    *[Case(f"lab-{what}-threads-beyond-memory", ["lab", *args, "--cpus", "1", "--repetitions", "1"],
           names=["lab: cannot start", "thread"], memory_mb=2048, timeout=60, max_lines=1)
      for what, args in (("coffee-customers", ["coffee", "--impl", "ideal", "--par", "4096", "--dur", "10ms",
                                               "--runtime", "threads"]),
                         ("coffee-pipelines", ["coffee", "--impl", "multipipe-1024", "--dur", "10ms",
                                               "--runtime", "threads"]),
                         ("pool", ["pool", "--tasks", "10000", "--work", "1us", "--threads", "10000"]))],
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
