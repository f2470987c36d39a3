"""Seed 003's thread-pool sizing: the model against closed forms, and the
measured lesson in the forms that survive a busy machine (ratios within one
run, CPU time), with the CPU-hungry comparison given a few attempts."""
import math
import os

import pytest

from brewput.errors import BrewputError
from brewput.lab import measure_pool, predict_pool

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

NICE = -10 if os.geteuid() == 0 else None
MACHINE_CPUS = len(os.sched_getaffinity(0))


def task(res):
    return res["classes"]["task"]


def best_makespan(res):
    """The least disturbed repetition's makespan."""
    return min(r["makespan"] for r in res["repetitions"])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_pool_no_larger_than_the_cpus_runs_in_waves(threads):
    # 12 tasks of 10 ms, k <= c threads: ceil(12 / k) waves of 10 ms.
    res = predict_pool(12, 10.0, threads, 3)
    waves = math.ceil(12 / threads)
    assert task(res)["makespan"] == pytest.approx(10 * waves)
    assert task(res)["throughput"] == pytest.approx(12 / (10 * waves))
    # Wave i ends at 10 i ms and holds k tasks (the last one the rest).
    finished = [10 * (i // threads + 1) for i in range(12)]
    assert task(res)["response_time"]["mean"] == pytest.approx(sum(finished) / 12)


def test_more_threads_than_cpus_share_them_and_a_thread_per_task_ends_all_together():
    # 3 threads on 2 CPUs: waves of 3 tasks at 2/3 speed, 15 ms each.
    shared = predict_pool(12, 10.0, 3, 2)
    assert task(shared)["makespan"] == pytest.approx(60)
    assert task(shared)["response_time"]["mean"] == pytest.approx((15 + 30 + 45 + 60) / 4)
    # A thread per task: all 12 share 2 CPUs from the start and end at 12 x 10 / 2 ms.
    each = predict_pool(12, 10.0, None, 2)
    assert task(each)["makespan"] == pytest.approx(60)
    assert task(each)["response_time"]["p50"] == pytest.approx(60, rel=1e-3)
    assert each["params"] == {"threads": 12, "cpus": 2}


def test_a_measurement_runs_every_task_once():
    for threads in (1, 3, None):
        res = measure_pool(30, 1.0, threads, 1, repetitions=2, nice=NICE)
        assert task(res)["completed"] == 60
        assert res["engine"] == "lab" and len(task(res)["response_time"]["spectrum"]) == 27
        # Nothing ends before its own 1 ms of work, nor after the last task.
        assert 0.9 <= task(res)["response_time"]["spectrum"][0][1] <= task(res)["response_time"]["max"]


def test_a_thread_per_task_makes_every_task_wait_till_near_the_end():
    # Within one run, so whatever share of the CPUs other processes leave: a
    # pool of as many threads as CPUs finishes tasks steadily (mean latency
    # about half the makespan), a thread per task finishes them all at the end.
    cpus = min(2, MACHINE_CPUS)
    pool = task(measure_pool(40, 5.0, cpus, cpus, repetitions=3, nice=NICE))
    each = task(measure_pool(40, 5.0, None, cpus, repetitions=3, nice=NICE))
    assert pool["response_time"]["mean"] / pool["makespan"] < 0.65
    assert each["response_time"]["mean"] / each["makespan"] > 0.75


@pytest.mark.skipif(MACHINE_CPUS < 2, reason="needs 2 CPUs")
def test_one_thread_uses_one_cpu_and_two_finish_sooner():
    one = measure_pool(40, 5.0, 1, 2, repetitions=3, nice=NICE)
    # CPU time is the truth here, busy machine or not: one thread, one CPU.
    assert one["resources"]["cpu"]["utilization"] < 0.5 + 0.05
    for attempt in range(3):
        two = measure_pool(40, 5.0, 2, 2, repetitions=3, nice=NICE)
        if best_makespan(one) / best_makespan(two) > 1.6:
            return
        one = measure_pool(40, 5.0, 1, 2, repetitions=3, nice=NICE)
    pytest.fail(f"2 threads never finished clearly sooner than 1: {best_makespan(one)} vs {best_makespan(two)}")


def test_bad_settings_are_one_clear_error():
    with pytest.raises(BrewputError, match="^tasks 0: expected a whole number from 1 to 10,000"):
        measure_pool(0, 1.0, 1, 1)
    with pytest.raises(BrewputError, match="^threads 0: expected"):
        predict_pool(10, 1.0, 0, 1)
