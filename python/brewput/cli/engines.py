"""`brewput simulate`, `solve` and `compare`: one model, answered by an engine
(or, with --sweep, at every combination of params)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from .common import (ExecutorOption, OutputOption, ReportOption, SchedulerOption, SetOption, SweepOption,
                     WorkersOption, app, err, out, parse_sets, progress_bar, user_errors)
from .scenarios import print_sweep, run_experiment, single_run_checks, single_run_outputs, sweep_record


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
    sweep_: List[str] = SweepOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
):
    """Simulate MODEL with the discrete-event engine (--sweep: at every combination of params)."""
    from ..engine.simulate import simulate as run_simulation
    from ..report.table import results_tables

    if warmup is not None and horizon is None:
        if warmup != int(warmup):
            raise BrewputError(f"--warmup: expected a whole number of customers, got {warmup}")
        warmup = int(warmup)
    params = parse_sets(set_) or None
    options = dict(seed=seed, replications=replications, customers=customers, horizon=horizon, warmup=warmup)
    if sweep_:
        if threads is not None:
            raise BrewputError("--threads: with --sweep, --workers sets how scenarios share the cores")
        record, scenarios = sweep_record(model, params, sweep_, "simulate", options)
        run_experiment(record, scenarios, output=output, report=report, executor=executor,
                       scheduler=scheduler, workers=workers, quiet=as_json)
        print_sweep(record, as_json)
        return
    single_run_checks(output, executor, scheduler, workers)
    with progress_bar(enabled=not as_json) as progress:
        res = run_simulation(model, params=params, threads=threads, progress=progress, **options)
    single_run_outputs(model, params, res, output, report)
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
    sweep_: List[str] = SweepOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
):
    """Solve MODEL analytically (queueing theory): exact where theory is exact, marked where approximate."""
    from ..engine.solve import solve as run_solve
    from ..report.table import results_tables

    params = parse_sets(set_) or None
    if sweep_:
        record, scenarios = sweep_record(model, params, sweep_, "solve", {"method": method})
        run_experiment(record, scenarios, output=output, report=report, executor=executor,
                       scheduler=scheduler, workers=workers, quiet=as_json)
        print_sweep(record, as_json)
        return
    single_run_checks(output, executor, scheduler, workers)
    res = run_solve(model, params=params, method=method)
    single_run_outputs(model, params, res, output, report)
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
    from ..compare import compare_results
    from ..engine.simulate import simulate as run_simulation
    from ..engine.solve import solve as run_solve
    from ..report.table import comparison_table

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
    out.print(comparison_table(f"{analytic['model']}: solve ({analytic['method']}) vs simulate", rows, level,
                               analytic["time_unit"]))
