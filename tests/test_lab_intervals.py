"""The lab's intervals over repetitions and its conclusions: a figure's
interval is the t-interval of the independent repetitions' own figures
(checked against scipy); the pool's conclusion tells the fastest size from the
model's best only when the repetitions differ significantly (Welch's test,
checked against scipy), and a record measured on a busy machine says it is
not trusted, built here so that the machine's own load does not decide."""

import numpy as np
import pytest
from rich.console import Console
from scipy import stats

from brewput.lab.results import with_intervals
from brewput.lab.show import pool_conclusion, print_coffee


def _times_us(mean_ms, p50_ms):
    """A Rust `Times` (microseconds) with a mean and a p50, every other named percentile as the p50."""
    from brewput.lab.results import SPECTRUM

    return {"count": 100, "mean_us": mean_ms * 1e3, "max_us": p50_ms * 3e3,
            "percentiles": [[p, p50_ms * 1e3] for p in SPECTRUM]}


def _block(mean, p50):
    """A response_time block (ms) measured over all repetitions: a mean and a p50, no other percentile."""
    from brewput.lab.results import NAMED

    return {"mean": mean, **{name: None for name, _ in NAMED}, "p50": p50}


def test_a_figures_interval_is_the_t_interval_of_its_repetitions_about_the_figure():
    means, medians = [10.0, 11.5, 9.8, 10.9], [8.0, 8.4, 7.9, 8.3]
    block = with_intervals(_block(10.5, 8.15), [_times_us(m, p) for m, p in zip(means, medians)])
    for key, values, figure in (("mean", means, 10.5), ("p50", medians, 8.15)):
        half = stats.t.ppf(0.975, len(values) - 1) * np.std(values, ddof=1) / np.sqrt(len(values))
        assert block[f"{key}_ci"] == pytest.approx([figure - half, figure + half])
    assert block["p99_ci"] is None  # a figure not measured over all has no interval
    one = with_intervals(_block(10.0, 8.0), [_times_us(10.0, 8.0)])
    assert one["mean_ci"] is None and one["p50_ci"] is None


def _pool_record(makespans, others):
    """A pool record: each size's repetitions' makespans (ms), the model's
    makespans (2 threads its best), other processes' share in each repetition."""
    predicted = {2: 40.0, 4: 40.0, 100: 40.0, 1: 80.0}
    scenarios = []
    for threads, spans in makespans.items():
        mean = float(np.mean(spans))
        ci = None
        if len(spans) > 1:
            half = stats.t.ppf(0.975, len(spans) - 1) * np.std(spans, ddof=1) / np.sqrt(len(spans))
            ci = [mean - half, mean + half]
        scenarios.append({"model": "pool", "engine": "lab", "params": {"threads": threads}, "results": {
            "classes": {"task": {"makespan": mean, "makespan_ci": ci}},
            "repetitions": [{"makespan": m, "others_utilization": others} for m in spans]}})
        scenarios.append({"model": "pool", "engine": "simulate", "params": {"threads": threads},
                          "results": {"classes": {"task": {"makespan": predicted[threads]}}}})
    return {"scenarios": scenarios}


def test_the_pool_tells_the_fastest_from_the_models_best_only_when_significant():
    overlapping = {2: [41.0, 44.0, 40.5], 100: [40.0, 43.5, 41.0]}
    line = pool_conclusion(_pool_record(overlapping, 0.01))
    assert line.startswith("Fastest measured 100 threads") and "indistinguishable at 95 % from 2 threads" in line
    assert stats.ttest_ind(overlapping[2], overlapping[100], equal_var=False).pvalue > 0.05
    apart = {2: [50.0, 51.0, 50.5], 100: [40.0, 40.5, 41.0]}
    assert stats.ttest_ind(apart[2], apart[100], equal_var=False).pvalue < 0.05
    assert "significantly faster than 2 threads (the model's best size)" in pool_conclusion(_pool_record(apart, 0.01))
    same = pool_conclusion(_pool_record({2: [40.0, 41.0], 4: [45.0, 46.0]}, 0.01))
    assert same.startswith("Fastest measured 2 threads") and "the model's best size too" in same
    assert "one repetition cannot tell" in pool_conclusion(_pool_record({2: [41.0], 100: [40.0]}, 0.01))


def test_a_busy_pool_record_says_it_is_not_trusted():
    line = pool_conclusion(_pool_record({2: [300.0, 260.0, 290.0], 100: [255.0, 250.0, 262.0]}, 0.57))
    assert line.startswith("Not trusted: other processes took 57% of the CPUs meanwhile; fastest measured 100 "
                           "threads")


def test_a_busy_coffee_record_says_it_is_not_trusted():
    def measured(others):
        return {"model": "coffee shop: ideal", "engine": "lab", "params": {"cpus": 1}, "results": {
            "time_unit": "ms", "settings": {"load": {"kind": "closed"}, "cpus_used": 1, "runtime": "tasks"},
            "classes": {"latte": {"throughput": 0.25, "throughput_ci": [0.24, 0.26],
                                  "response_time": {"p50": 4.0, "p50_ci": [3.9, 4.1]}}},
            "repetitions": [{"others_utilization": others}]}}

    for others, opening in ((0.02, "Measured on this machine"),
                            (0.57, "Not trusted: other processes took 57% of the CPUs meanwhile; measured on")):
        console = Console(record=True, width=400)
        print_coffee(console, {"sweep": {"cpus": [1]}, "scenarios": [measured(others)]})
        text = console.export_text()
        assert opening in text and "250 ± 10" in text, text
