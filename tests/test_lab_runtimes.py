"""The lab's two runtimes (crates/lab/src/runtime) on this machine's CPUs: the
talk's structural facts hold in both, and in the task runtime (Go's model,
what the talk measured) every implementation lands within 5 % of its model in
throughput and median latency at 1 and 2 CPUs.

Measurements share the machine with other work, which can only take CPU time
away: each figure is the best of several short repetitions at a raised
priority where the tests may (root), a check gets three attempts (a broken
implementation fails all of them), and a failure says how busy the machine
was (tests/test_lab_coffee.py's rules).
"""
import os

import pytest

from brewput.lab import CoffeeSettings, measure_coffee
from brewput.lab.options import RUNTIMES
from brewput.lab.predict import predict_coffee

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

NICE = -10 if os.geteuid() == 0 else None
MACHINE_CPUS = len(os.sched_getaffinity(0))
two_cpus = pytest.mark.skipif(MACHINE_CPUS < 2, reason="needs 2 CPUs")  # the CI machine has them
EVERY = ["ideal", "locking", "finelocking", "parsteam", "multi-2", "multi-4", "linearpipe-0", "linearpipe-1",
         "linearpipe-10", "splitpipe-1", "multipipe-2"]
TOLERANCE = 0.05


def settings(runtime):
    return CoffeeSettings(duration_ms=200, warmup_ms=60, repetitions=5, nice=NICE, runtime=runtime)


def best(implementation, cpus, runtime, busy):
    """Lattes per second and the median latency (ms) in the least disturbed repetition
    (the most lattes); `busy` collects how much of the CPUs other processes took."""
    res = measure_coffee(implementation, cpus, None, settings(runtime))
    busy.append(max(r["others_utilization"] or 0 for r in res["repetitions"]))
    assert res["settings"]["runtime"] == runtime
    throughput = max(r["throughput"] for r in res["repetitions"]) * 1e3
    return throughput, res["classes"]["latte"]["response_time"]["p50"]


def holds_in_one_of_three(check):
    seen, busy = [], []
    for _ in range(3):
        ok, figures = check(busy)
        seen.append(figures)
        if ok:
            return
    pytest.fail(f"never held in 3 attempts: {seen}; other processes took up to {max(busy, default=0):.0%} "
                "of the CPUs meanwhile")


@two_cpus
@pytest.mark.parametrize("runtime", RUNTIMES)
def test_locking_stays_flat_and_ideal_doubles_in_either_runtime(runtime):
    def check(busy):
        locking = [best("locking", k, runtime, busy)[0] for k in (1, 2)]
        ideal = [best("ideal", k, runtime, busy)[0] for k in (1, 2)]
        return locking[1] / locking[0] < 1.1 and ideal[1] / ideal[0] > 1.85, {"locking": locking, "ideal": ideal}
    holds_in_one_of_three(check)


@two_cpus
@pytest.mark.parametrize("implementation", ["finelocking", "linearpipe-0", "linearpipe-10", "splitpipe-1",
                                            "multipipe-2"])
def test_in_the_task_runtime_finelocking_and_the_pipelines_double_at_2_cpus(implementation):
    # Their models: 250/s per CPU up to the machines' limit of 1000/s, so 2.0x.
    def check(busy):
        x = [best(implementation, k, "tasks", busy)[0] for k in (1, 2)]
        return x[1] / x[0] > 1.85, x
    holds_in_one_of_three(check)


@two_cpus
@pytest.mark.parametrize("implementation", EVERY)
def test_in_the_task_runtime_every_implementation_is_within_5_percent_of_its_model(implementation):
    def check(busy):
        errors = {}
        for cpus in (1, 2):
            predicted = predict_coffee(implementation, cpus, None, settings("tasks"))["classes"]["latte"]
            throughput, median = best(implementation, cpus, "tasks", busy)
            errors[cpus] = (throughput / (predicted["throughput"] * 1e3) - 1,
                            median / predicted["response_time"]["p50"] - 1)
        return all(abs(e) < TOLERANCE for pair in errors.values() for e in pair), errors
    holds_in_one_of_three(check)
