"""`brewput run` (a study file), `demo` (the talk's study) and `report` (a saved record drawn)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from .. import shutdown
from ..errors import BrewputError, ModelError, OptionError
from ..outputs import writing
from .common import (ExecutorOption, HgrmOption, NumberOption, OutputOption, ReportOption, SchedulerOption,
                     WholeOption, WorkersOption, YesOption, app, command_line, err, folder_path, out, parse_sets, 
                     user_errors)
from .progress import progress_bar
from .scenarios import announce_sweep, check_folder, check_outputs, prepare, run_experiment, write_outputs


@app.command("run")
@user_errors
def run_study(
    study: Path = typer.Argument(..., help="Study file (YAML): models, sweeps, engines, charts."),
    set_: List[str] = typer.Option([], "--set", help="Override a param of every model: name=value or "
                                                    "name=expression (repeatable).  [default: the models' params]"),
    seed: Optional[int] = WholeOption(None, "--seed",
                                      help="Override the study's simulation seed.  [default: the study's]"),
    replications: Optional[int] = WholeOption(
        None, "--replications", help="Override the study's replications per scenario.  [default: the study's]"),
    customers: Optional[int] = WholeOption(
        None, "--customers", help="Override the study's completed customers per replication.  [default: the study's]"),
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    hgrm: Optional[Path] = HgrmOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
    yes: bool = YesOption,
):
    """Run a study: every model, engine and combination of swept params it names."""
    from ..experiment.study import load_study
    from ..report.record_tables import lost_any, measured_table, pivot_table, scenario_table

    runner = prepare(output, report, executor, scheduler, workers, hgrm)
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
    if hgrm is not None:
        if "simulate" not in plan.engines:
            raise BrewputError(f"--hgrm: {study} does not simulate (engines: {', '.join(plan.engines)})")
        plan = plan.with_simulate(distribution=True)
    record = plan.new_record(command_line())

    def show(record: dict) -> None:
        if as_json:
            print(json.dumps(record, indent=2))
        elif record["sweep"]:
            out.print(pivot_table(record, "throughput"))
            out.print(pivot_table(record, "latency"))
            if lost_any(record):
                out.print(pivot_table(record, "lost"))
            beside = measured_table(record)
            if beside is not None:
                out.print(beside)
        else:
            out.print(scenario_table(record))

    run_experiment(record, plan.scenarios(), runner, output=output, report=report, hgrm=hgrm, quiet=as_json,
                   show=show, yes=yes)
    if record.get("saturation"):  # the load engine's threshold broke: as `brewput load --sweep`, exit code 1
        from ..loadtest.show import saturation_line
        from .load import THRESHOLD_BROKEN

        err.print(saturation_line(record["saturation"]), soft_wrap=True)
        raise typer.Exit(THRESHOLD_BROKEN)


@app.command()
@user_errors
def demo(
    customers: int = WholeOption(20_000, "--customers", help="Completed lattes per replication."),
    replications: int = WholeOption(5, "--replications", help="Replications per scenario."),
    noise: Optional[float] = NumberOption(
        None, "--noise", help="Grind, press and steam each last a uniform 1 ± noise/2 ms; 0 for exact stages.  "
                              "[default: the study's 0.5, the talk's measured jitter]"),
    report: Path = typer.Option(Path("report"), "--report", parser=folder_path, help="Folder of the HTML report."),
    workers: Optional[int] = WorkersOption,
    yes: bool = YesOption,
):
    """Reproduce the coffee-shop talk: every implementation, 1 to 6 CPUs, and its report."""
    from ..demo import coffee_record, print_coffee_tables

    check_outputs(report=report)
    with progress_bar(enabled=True, label="scenarios") as progress:
        try:
            record = coffee_record(customers=customers, replications=replications, noise=noise,
                                   command=command_line(), workers=workers, progress=progress,
                                   announce=lambda scenarios, runner: announce_sweep(scenarios, runner, yes))
        except ModelError as e:  # the study's models refuse the noise: the option is at fault, not their files
            if noise is None:
                raise
            raise OptionError("noise", e.problem, value=f"{noise:g}") from None
    if record["interrupted"]:
        if record["scenarios"]:
            write_outputs(record, None, report)
        err.print(f"interrupted: {len(record['scenarios'])} scenarios finished")
        raise typer.Exit(shutdown.exit_code())
    print_coffee_tables(out, record)
    write_outputs(record, None, report)


@app.command()
@user_errors
def report(
    results: Path = typer.Argument(..., help="An experiment record (-o results.json), one results JSON (--json), "
                                             "or the record.json beside a page (plan, whatif, doe, fit usl)."),
    output: Path = typer.Option(..., "-o", "--output", help="The folder to write the report into."),
):
    """Write the HTML report (charts, tables, models) of RESULTS into a folder: the page it was drawn in, again."""
    from ..report.source import read_saved

    check_folder("-o", output)
    saved = read_saved(results)
    with writing(output, "-o "):
        err.print(f"report: {saved.draw(output, command_line())}", soft_wrap=True)
