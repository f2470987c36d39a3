"""`brewput run` (a study file), `demo` (the talk's study) and `report` (a saved record drawn)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from .common import (ExecutorOption, OutputOption, ReportOption, SchedulerOption, WorkersOption, app,
                     command_line, err, out, parse_sets, progress_bar, user_errors)
from .scenarios import exit_if_scenarios_failed, run_experiment, write_outputs


@app.command("run")
@user_errors
def run_study(
    study: Path = typer.Argument(..., help="Study file (YAML): models, sweeps, engines, charts."),
    set_: List[str] = typer.Option([], "--set", help="Override a param of every model: name=value (repeatable)."),
    seed: Optional[int] = typer.Option(None, help="Override the study's simulation seed."),
    replications: Optional[int] = typer.Option(None, help="Override the study's replications per scenario."),
    customers: Optional[int] = typer.Option(None, help="Override the study's completed customers per replication."),
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
):
    """Run a study: every model, engine and combination of swept params it names."""
    from ..experiment.study import load_study
    from ..report.record_tables import pivot_table, scenario_table

    plan = load_study(study)
    params = parse_sets(set_)
    if params:
        plan = plan.with_params(**params)
    overrides = {name: value for name, value in
                 (("seed", seed), ("replications", replications), ("customers", customers)) if value is not None}
    if overrides:
        if "simulate" not in plan.engines:
            raise BrewputError(f"--{', --'.join(overrides)}: {study} does not simulate (engines: "
                               f"{', '.join(plan.engines)})")
        if "customers" in overrides and plan.engines["simulate"].get("horizon") is not None:
            # One way of stopping: customers replace the study's horizon, and its
            # warm-up in model time with it.
            overrides.update(horizon=None, warmup=None)
        plan = plan.with_simulate(**overrides)
    record = plan.new_record(command_line())
    run_experiment(record, plan.scenarios(), output=output, report=report, executor=executor,
                   scheduler=scheduler, workers=workers, quiet=as_json)
    if as_json:
        print(json.dumps(record, indent=2))
    elif record["sweep"]:
        out.print(pivot_table(record, "throughput"))
        out.print(pivot_table(record, "latency"))
    else:
        out.print(scenario_table(record))
    exit_if_scenarios_failed(record)


@app.command()
@user_errors
def demo(
    customers: int = typer.Option(20_000, help="Completed lattes per replication."),
    replications: int = typer.Option(5, help="Replications per scenario."),
    noise: Optional[float] = typer.Option(None, help="Each stage lasts a uniform 1 ± noise/2 ms; 0 for exact stages.  [default: the study's 0.5, the talk's measured jitter]"),
    report: Path = typer.Option(Path("report"), "--report", help="Folder of the HTML report."),
    workers: Optional[int] = WorkersOption,
):
    """Reproduce the coffee-shop talk: every implementation, 1 to 6 CPUs, and its report."""
    from ..demo import coffee_record, print_coffee_tables

    with progress_bar(enabled=True, label="scenarios") as progress:
        record = coffee_record(customers=customers, replications=replications, noise=noise,
                               command=command_line(), workers=workers, progress=progress)
    if record["interrupted"]:
        write_outputs(record, None, report)
        err.print(f"interrupted: {len(record['scenarios'])} scenarios finished")
        raise typer.Exit(130)
    print_coffee_tables(out, record)
    write_outputs(record, None, report)


@app.command()
@user_errors
def report(
    results: Path = typer.Argument(..., help="An experiment record (-o results.json) or one results JSON (--json)."),
    output: Path = typer.Option(..., "-o", "--output", help="The folder to write the report into."),
):
    """Write the HTML report (charts, tables, models) of RESULTS into a folder."""
    from ..report.html import write_report
    from ..report.source import read_record

    err.print(f"report: {write_report(read_record(results), output)}", highlight=False)
