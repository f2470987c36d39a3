"""The `brewput` command line: typer for the options, rich for what is printed.

Every user error ends as one line on stderr and exit code 2; nothing here
computes, it only reads options, calls the engines and prints.
"""
from __future__ import annotations

import functools
import sys
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, List, Optional

import typer
from rich.console import Console

from .errors import BrewputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="How fast will this service system be, where will it saturate, what should I change?")
# Piped output gets room for the tables instead of rich's 80 columns.
out = Console(width=None if sys.stdout.isatty() else 130)
err = Console(stderr=True)


def user_errors(command):
    """Turns BrewputError into one line on stderr and exit code 2, Ctrl-C into
    `interrupted` and 130 (__main__ does the same for Ctrl-C during start-up)."""
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except BrewputError as e:
            err.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
            raise typer.Exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(130)
    return wrapper


def parse_sets(pairs: List[str]) -> Dict[str, float]:
    """`--set name=value` pairs as numbers."""
    params: Dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            if not (sep and name.strip()):
                raise ValueError
            number = float(value)
        except ValueError:
            raise BrewputError(f"--set {pair}: expected name=number, e.g. --set cpus=4") from None
        params[name.strip()] = int(number) if number.is_integer() and "." not in value else number
    return params


@contextmanager
def progress_bar(enabled: bool):
    """A progress callback drawing a transient bar on stderr when it is a terminal."""
    if not (enabled and err.is_terminal):
        yield None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    columns = (TextColumn("simulating"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("simulate", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


SetOption = typer.Option([], "--set", help="Override a model param: name=value (repeatable).")


@app.command()
@user_errors
def simulate(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    seed: int = typer.Option(1, help="Random seed: same seed, same numbers."),
    replications: int = typer.Option(5, help="Independent replications (for confidence intervals)."),
    customers: Optional[int] = typer.Option(None, help="Completed customers per replication [default: 1,000,000]."),
    horizon: Optional[float] = typer.Option(None, help="Stop after this much model time instead."),
    warmup: Optional[float] = typer.Option(
        None, help="Discarded first: customers (or model time with --horizon) [default: 10 % of the run]."),
    threads: Optional[int] = typer.Option(None, help="Worker threads [default: all cores]; results do not depend on it."),
    as_json: bool = typer.Option(False, "--json", help="Print the results schema as JSON."),
):
    """Simulate MODEL with the discrete-event engine."""
    from .engine.simulate import simulate as run_simulation
    from .report.table import results_tables

    if warmup is not None and horizon is None:
        if warmup != int(warmup):
            raise BrewputError(f"--warmup: expected a whole number of customers, got {warmup}")
        warmup = int(warmup)
    with progress_bar(enabled=not as_json) as progress:
        res = run_simulation(model, params=parse_sets(set_) or None, seed=seed, replications=replications,
                             customers=customers, horizon=horizon, warmup=warmup, threads=threads,
                             progress=progress)
    for warning in res["warnings"]:
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if as_json:
        print(json.dumps(res, indent=2))
        return
    for table in results_tables(res):
        out.print(table)


@app.command()
@user_errors
def solve(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    method: str = typer.Option("auto", help="auto | exact | approx | mva | bard-schweitzer | linearizer."),
    as_json: bool = typer.Option(False, "--json", help="Print the results schema as JSON."),
):
    """Solve MODEL analytically (queueing theory): exact where theory is exact, marked where approximate."""
    from .engine.solve import solve as run_solve
    from .report.table import results_tables

    res = run_solve(model, params=parse_sets(set_) or None, method=method)
    if as_json:
        print(json.dumps(res, indent=2))
        return
    for table in results_tables(res):
        out.print(table)
    for note in res["notes"]:
        out.print(f"note: {note}", highlight=False)


@app.command()
@user_errors
def compare(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    method: str = typer.Option("auto", help="Analytic method (see brewput solve)."),
    seed: int = typer.Option(1, help="Random seed of the simulation."),
    replications: int = typer.Option(5, help="Replications of the simulation."),
    customers: Optional[int] = typer.Option(None, help="Completed customers per replication [default: 1,000,000]."),
    level: float = typer.Option(0.95, help="Confidence level of the intervals the analytic figures are tested against."),
    as_json: bool = typer.Option(False, "--json", help="Print both results and the comparison as JSON."),
):
    """Solve and simulate MODEL, and show them side by side."""
    from .compare import compare_results
    from .engine.simulate import simulate as run_simulation
    from .engine.solve import solve as run_solve
    from .report.table import comparison_table

    if not 0 < level < 1:
        raise BrewputError(f"--level: expected a confidence level between 0 and 1, got {level}")
    params = parse_sets(set_) or None
    analytic = run_solve(model, params=params, method=method)
    with progress_bar(enabled=not as_json) as progress:
        simulated = run_simulation(model, params=params, seed=seed, replications=replications,
                                   customers=customers, progress=progress)
    rows = compare_results(analytic, simulated, level)
    if as_json:
        print(json.dumps({"solve": analytic, "simulate": simulated,
                          "comparison": [row.as_dict() for row in rows]}, indent=2))
        return
    out.print(comparison_table(f"{analytic['model']}: solve ({analytic['method']}) vs simulate", rows, level))


@app.command()
@user_errors
def demo(
    customers: int = typer.Option(20_000, help="Completed lattes per run."),
    replications: int = typer.Option(2, help="Replications per run."),
    noise: float = typer.Option(0.0, help="Each stage lasts a uniform 1 ± noise/2 ms (the talk's random noise)."),
):
    """Reproduce the coffee-shop talk: every implementation, 1 to 6 CPUs."""
    from .demo import run_coffee_study

    run_coffee_study(out, customers=customers, replications=replications, noise=noise)


@app.command()
@user_errors
def report(
    results: Path = typer.Argument(..., help="An experiment record (-o results.json) or one results JSON (--json)."),
    output: Path = typer.Option(..., "-o", "--output", help="The folder to write the report into."),
):
    """Write the HTML report (charts, tables, models) of RESULTS into a folder."""
    from .report.html import write_report
    from .report.source import read_record

    err.print(f"report: {write_report(read_record(results), output)}", highlight=False)


def main() -> None:
    app()
