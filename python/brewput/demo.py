"""`brewput demo`: the coffee-shop talk reproduced with the simulator.

Runs every coffee-shop implementation in examples/coffee at 1 to 6 CPUs and
prints throughput (lattes per second) and median latency, with the talk's
headline figures beside them.
"""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from .engine.simulate import simulate
from .errors import BrewputError

IMPLEMENTATIONS = ("ideal", "locking", "finelocking", "multi-2", "multi-4",
                   "linearpipe-0", "linearpipe-1", "linearpipe-10", "multipipe-2")
CPUS = range(1, 7)
# Where the checkout keeps the example models (the package is installed from it).
COFFEE = Path(__file__).resolve().parents[2] / "examples" / "coffee"

TALK = ("The talk: ideal 250/s per cpu; locking flat at 250/s, latency 4 ms x cpus; "
        "finelocking flat at 1000/s from 4 cpus; multi-2 linear to 1500/s at 6 cpus; "
        "the unbuffered pipeline a little below the buffered ones.")
NOISE_HINT = ("With exact 1 ms stages the pipelines tie; `brewput demo --noise 0.5` gives each stage "
              "1 ± 0.25 ms, as the talk's noise, and shows what buffering buys.")


def run_coffee_study(console: Console, *, customers: int, replications: int, noise: float = 0.0) -> dict:
    if not COFFEE.is_dir():
        raise BrewputError(f"{COFFEE}: the coffee examples are missing (run the demo from a brewput checkout)")
    results = {}
    with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task("simulating the coffee shops", total=len(IMPLEMENTATIONS) * len(CPUS))
        for impl in IMPLEMENTATIONS:
            for cpus in CPUS:
                results[impl, cpus] = simulate(COFFEE / f"{impl}.yaml", params={"cpus": cpus, "noise": noise},
                                               customers=customers, replications=replications)
                progress.advance(task)
    console.print(_table(results, "Throughput (lattes per second)", lambda c: c["throughput"] * 1000))
    console.print(_table(results, "Median latency (ms)", lambda c: c["response_time"]["p50"]))
    console.print(TALK)
    if noise == 0:
        console.print(NOISE_HINT)
    return results


def _table(results: dict, title: str, figure) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("implementation")
    for cpus in CPUS:
        table.add_column(f"{cpus} cpu", justify="right")
    for impl in IMPLEMENTATIONS:
        table.add_row(impl, *(f"{figure(results[impl, cpus]['classes']['latte']):.4g}" for cpus in CPUS))
    return table
