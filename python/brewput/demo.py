"""`brewput demo`: the coffee-shop talk reproduced with the simulator.

Runs the coffee study (examples/studies/coffee.yaml: every coffee-shop
implementation at 1 to 6 CPUs) with fewer customers per replication than the
study file asks, so that it takes seconds, and prints throughput (lattes per
second) and median latency with the talk's headline figures beside them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from rich.console import Console

from .errors import BrewputError
from .experiment.executors import executor
from .experiment.runner import Progress, run
from .experiment.study import load_study
from .report.record_tables import pivot_table

# Where the checkout keeps the study and its models (the package is installed from it).
STUDY = Path(__file__).resolve().parents[2] / "examples" / "studies" / "coffee.yaml"

TALK = ("The talk: ideal 250/s per cpu; locking flat at 250/s, latency 4 ms x cpus; "
        "finelocking flat at 1000/s from 4 cpus; multi-2 linear to 1500/s at 6 cpus; "
        "the unbuffered pipeline a little below the buffered ones.")
NOISE_HINT = ("With exact 1 ms stages the pipelines tie; `brewput demo --noise 0.5` gives each stage "
              "1 ± 0.25 ms, as the talk's noise, and shows what buffering buys.")


def coffee_record(*, customers: int, replications: int, noise: float = 0.0, command: Optional[str] = None,
                  workers: Optional[int] = None, progress: Optional[Progress] = None) -> dict:
    """The coffee study's experiment record, simulated on local processes."""
    if not STUDY.is_file():
        raise BrewputError(f"{STUDY}: the coffee study is missing (run the demo from a brewput checkout)")
    study = load_study(STUDY).with_params(noise=noise).with_simulate(customers=customers,
                                                                     replications=replications)
    return run(study.new_record(command), study.scenarios(), executor("local", workers=workers), progress)


def print_coffee_tables(console: Console, record: dict, noise: float) -> None:
    per_cpu = dict(column_label=lambda cpus: f"{cpus} cpu", row_header="implementation")
    console.print(pivot_table(record, "throughput", "Throughput (lattes per second)", **per_cpu))
    console.print(pivot_table(record, "latency", "Median latency (ms)", **per_cpu))
    console.print(TALK)
    if noise == 0:
        console.print(NOISE_HINT)
