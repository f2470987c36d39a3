"""`brewput demo`: the coffee-shop talk reproduced with the simulator.

Runs the coffee study (examples/studies/coffee.yaml: every coffee-shop
implementation at 1 to 6 CPUs, 1 ms stages with the talk's noise) with fewer
customers per replication than the study file asks, so that it takes seconds,
and prints throughput (lattes per second) and median latency with the talk's
headline figures beside them.
"""
from __future__ import annotations

from typing import Callable, Optional

from rich.console import Console

from .bundled import EXAMPLES
from .errors import BrewputError
from .experiment.executors import executor
from .experiment.runner import Progress, run
from .experiment.study import load_study
from .report.record_tables import pivot_table

STUDY = EXAMPLES / "studies" / "coffee.yaml"

TALK = ("The talk: ideal 250/s per cpu; locking flat at 250/s, latency 4 ms x cpus; "
        "finelocking flat at 1000/s from 4 cpus; multi-2 linear to 1500/s at 6 cpus; "
        "the unbuffered pipeline below the buffered ones.")


def coffee_record(*, customers: int, replications: int, noise: Optional[float] = None,
                  command: Optional[str] = None, workers: Optional[int] = None,
                  progress: Optional[Progress] = None, announce: Optional[Callable] = None) -> dict:
    """The coffee study's experiment record, simulated on local processes, with
    the study's noise unless `noise` says otherwise; `announce(scenarios, runner)`
    is told what will run before it does (a long run is said first)."""
    if not STUDY.is_file():
        raise BrewputError(f"{STUDY}: the coffee study is missing from the installed package (reinstall brewput)")
    study = load_study(STUDY)
    if noise is not None:
        study = study.with_params(noise=noise)
    study = study.with_simulate(customers=customers, replications=replications)
    scenarios, runner = study.scenarios(), executor("local", workers=workers)
    if announce is not None:
        announce(scenarios, runner)
    return run(study.new_record(command), scenarios, runner, progress)


def noise_line(record: dict) -> str:
    """What the stages were: the reader of a table of simulated lattes needs it."""
    noise = record["scenarios"][0]["results"]["params"]["noise"]
    if noise == 0:
        return "Exact 1 ms stages (--noise 0): the pipelines tie; the talk's noise, 0.5, shows what buffering buys."
    return (f"Grind, press and steam each last a uniform 1 ± {noise / 2:g} ms, the latte 1 ms (--noise {noise:g}; "
            "the talk's jitter run: 0.5, 500 µs); --noise 0 gives exact stages.")


def print_coffee_tables(console: Console, record: dict) -> None:
    per_cpu = dict(column_label=lambda cpus: f"{cpus} cpu", row_header="implementation")
    console.print(pivot_table(record, "throughput", "Throughput (lattes per second)", **per_cpu))
    console.print(pivot_table(record, "latency", "Median latency (ms)", **per_cpu))
    console.print(noise_line(record))
    console.print(TALK)
