"""Running scenarios for a command (a sweep, a study, a single run with -o or
--report) and writing what they give: the export, the report, the failures."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from .common import command_line, err, out, progress_bar


def run_experiment(record: dict, scenarios: list, *, output: Optional[Path], report: Optional[Path],
                   executor: str, scheduler: Optional[str], workers: Optional[int], quiet: bool) -> dict:
    """Runs the scenarios into `record` with a progress bar, writes the export and
    the report; after a Ctrl-C writes what finished and exits 130."""
    from ..experiment.executors import executor as make_executor
    from ..experiment.record import check_path
    from ..experiment.runner import run

    if output is not None:
        check_path(output)
    runner = make_executor(executor, workers=workers, scheduler=scheduler)
    with progress_bar(enabled=not quiet, label="scenarios") as progress:
        run(record, scenarios, runner, progress)
    if record["failed"] and not record["scenarios"] and not record["interrupted"]:
        raise BrewputError(f"every scenario failed; the first: {record['failed'][0]['error']}")
    write_outputs(record, output, report)
    if record["interrupted"]:
        err.print(f"interrupted: {len(record['scenarios'])} of {len(scenarios)} scenarios finished"
                  + (" and written" if output or report else ""))
        raise typer.Exit(130)
    return record


def write_outputs(record: dict, output: Optional[Path], report: Optional[Path]) -> None:
    """The export (-o) and the HTML report (--report), each said on stderr."""
    if output is not None:
        from ..experiment.record import save

        err.print(f"results: {save(record, output)}", highlight=False, soft_wrap=True)
    if report is not None:
        from ..report.html import write_report

        err.print(f"report: {write_report(record, report)}", highlight=False, soft_wrap=True)


def sweep_record(model: Path, params: Optional[dict], sweeps: List[str], engine: str, options: dict):
    """The record and scenarios of `--sweep` on one model."""
    from ..experiment.runner import one_model
    from ..experiment.sweep import parse_sweeps

    return one_model(model, params, parse_sweeps(sweeps), engine, options, command_line())


def single_run_checks(output: Optional[Path], executor: str, scheduler: Optional[str],
                      workers: Optional[int]) -> None:
    """Without --sweep there is one run, in this process, and nothing to distribute."""
    if executor != "local" or scheduler is not None or workers is not None:
        raise BrewputError("--executor, --scheduler, --workers: only with --sweep (a single run is one scenario)")
    if output is not None:
        from ..experiment.record import check_path

        check_path(output)


def single_run_outputs(model: Path, params: Optional[dict], res: dict, output: Optional[Path],
                       report: Optional[Path]) -> None:
    """-o and --report of a run without --sweep: a record of one scenario."""
    if output is None and report is None:
        return
    from ..experiment.runner import finished, one_model

    record, scenarios = one_model(model, params, {}, res["engine"], {}, command_line())
    record["scenarios"] = finished(scenarios, {0: res})
    write_outputs(record, output, report)


def exit_if_scenarios_failed(record: dict) -> None:
    """After the tables of what ran: a line per scenario that could not run, and exit code 2."""
    for failure in record["failed"]:
        err.print(f"[bold red]error:[/] {failure['error']}", highlight=False, soft_wrap=True)
    if record["failed"]:
        err.print(f"{len(record['failed'])} of {len(record['failed']) + len(record['scenarios'])} scenarios "
                  f"failed; the others are in the tables and outputs above", highlight=False)
        raise typer.Exit(2)


def print_sweep(record: dict, as_json: bool) -> None:
    from ..experiment.runner import params_text
    from ..report.record_tables import scenario_table

    for s in record["scenarios"]:
        for warning in s["results"]["warnings"]:
            err.print(f"[bold yellow]warning:[/] {params_text(s['params'])}: {warning}", highlight=False,
                      soft_wrap=True)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        out.print(scenario_table(record))
    exit_if_scenarios_failed(record)
