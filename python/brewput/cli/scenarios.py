"""Running scenarios for a command (a sweep, a study, a single run with -o or
--report) and writing what they give: the export, the report, the failures.

Every output is checked before any work is done; the results reach stdout
before anything is written, so that a write that still fails loses nothing."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, List, Optional, Tuple, Union

import typer

from .. import shutdown
from ..errors import BrewputError
from ..outputs import folder_problem, writing
from .common import command_line, err, error_line, out, warning_line
from .progress import progress_bar


def check_outputs(output: Optional[Path] = None, report: Optional[Path] = None,
                  hgrm: Optional[Path] = None) -> None:
    """Refuses, before the run, an output it could not write: -o (a file of a
    known format in a writable folder), --report and --hgrm (folders, created
    if missing)."""
    if output is not None:
        from ..experiment.record import check_path

        try:
            check_path(output)
        except BrewputError as e:
            raise BrewputError(f"-o {e}") from None
    for option, folder in (("--report", report), ("--hgrm", hgrm)):
        if folder is not None:
            check_folder(option, Path(folder))


def check_folder(option: str, folder: Path) -> None:
    problem = folder_problem(folder)
    if problem:
        raise BrewputError(f"{option} {folder}: {problem}")


def prepare(output: Optional[Path], report: Optional[Path], executor: str, scheduler: Optional[str],
            workers: Optional[int], hgrm: Optional[Path] = None):
    """Before anything runs: the outputs checked, and the executor the options
    name (refused if its package is missing or its options do not fit)."""
    from ..experiment.executors import executor as make_executor

    check_outputs(output, report, hgrm)
    return make_executor(executor, workers=workers, scheduler=scheduler)


def announce(work, what: str, yes: bool) -> None:
    """Says on stderr what a long run will take before it starts; refuses one of
    more than a day unless `yes` (engine/work.py)."""
    from ..engine.work import check_work

    line = check_work(work, what, yes)
    if line:
        warning_line(line)


def announce_sweep(scenarios, runner, yes: bool) -> None:
    """`announce` for a sweep's simulations, estimated from some of them."""
    from ..engine.simulate import estimate
    from ..engine.work import sample_positions, sweep_work

    sampled = [scenarios[i] for i in sample_positions(len(scenarios))]
    works = [estimate(s.resolved, threads=runner.threads, **s.options) for s in sampled if s.engine == "simulate"]
    if works:
        count = round(len(scenarios) * len(works) / len(sampled))
        announce(sweep_work(count, works, getattr(runner, "workers", 1)), f"{len(scenarios):,} scenarios", yes)


def run_experiment(record: dict, scenarios, runner, *, output: Optional[Path], report: Optional[Path],
                   quiet: bool, show: Callable[[dict], None], hgrm: Optional[Path] = None, yes: bool = False) -> dict:
    """Runs the scenarios on `runner` (from `prepare`) into `record` with a
    progress bar, shows the results (`show`), then writes the export and the
    report. Exit code 130 after a Ctrl-C (what finished is shown and written), 2
    if a scenario failed or an output could not be written."""
    from ..experiment.runner import run

    announce_sweep(scenarios, runner, yes)
    with progress_bar(enabled=not quiet, label="scenarios") as progress:
        run(record, scenarios, runner, progress)
    if record["interrupted"] and not record["scenarios"]:
        err.print(f"interrupted: 0 of {len(scenarios)} scenarios finished")
        raise typer.Exit(shutdown.exit_code())
    if record["failed"] and not record["scenarios"]:
        raise BrewputError(f"every scenario failed; the first: {record['failed'][0]['error']}")
    show(record)
    written = write_outputs(record, output, report, hgrm, exit_on_failure=False)
    if record["interrupted"]:
        err.print(f"interrupted: {len(record['scenarios'])} of {len(scenarios)} scenarios finished"
                  + (" and written" if written and (output or report or hgrm) else ""))
        raise typer.Exit(shutdown.exit_code())
    exit_if_scenarios_failed(record)
    if not written:
        raise typer.Exit(2)
    return record


def write_outputs(record: dict, output: Optional[Path], report: Optional[Path], hgrm: Optional[Path] = None,
                  *, exit_on_failure: bool = True) -> bool:
    """The export (-o), the HTML report (--report) and the percentile files
    (--hgrm), each said on stderr; one that cannot be written is said as an
    error naming its path, after the others are written. True if all were."""
    writes: List[Write] = []
    if output is not None:
        from ..experiment.record import save

        writes.append(("results", output, lambda: save(record, output)))
    if report is not None:
        from ..report.html import write_report

        writes.append(("report", report, lambda: write_report(record, report)))
    if hgrm is not None:
        from ..report.hgrm import write_hgrm

        writes.append(("hgrm", hgrm, lambda: f"{hgrm} ({len(write_hgrm(record, hgrm))} .hgrm files)"))
    written = write_each(writes)
    if not written and exit_on_failure:
        raise typer.Exit(2)
    return written


# An output to write after the tables are shown: its label, its path, and the
# writing, which returns what to say it wrote.
Write = Tuple[str, Path, Callable[[], object]]


def write_each(writes: List[Write]) -> bool:
    """Each output, said on stderr as `label: what`; one that cannot be written
    is an error line naming its path, after the others are written. True if all were."""
    failures: List[str] = []
    for label, path, write in writes:
        try:
            err.print(f"{label}: {write()}", soft_wrap=True)
        except BrewputError as e:
            failures.append(str(e))
        except OSError as e:
            failures.append(f"{e.filename or path}: cannot write: {e.strerror or e}")
    for failure in failures:
        error_line(failure)
    return not failures


def sweep_record(model: Path, params: Optional[dict], sweeps: List[str], engine: str, options: dict):
    """The record and scenarios of `--sweep` on one model."""
    from ..experiment.runner import one_model
    from ..experiment.sweep import parse_sweeps

    return one_model(model, params, parse_sweeps(sweeps), engine, options, command_line(), where="--sweep")


def single_run_checks(output: Optional[Path], report: Optional[Path], executor: str, scheduler: Optional[str],
                      workers: Optional[int], hgrm: Optional[Path] = None) -> None:
    """Without --sweep there is one run, in this process, and nothing to distribute."""
    if executor != "local" or scheduler is not None or workers is not None:
        raise BrewputError("--executor, --scheduler, --workers: only with --sweep (a single run is one scenario)")
    check_outputs(output, report, hgrm)


def single_run_outputs(model: Path, params: Optional[dict], res: Union[dict, List[dict]], output: Optional[Path],
                       report: Optional[Path], hgrm: Optional[Path] = None) -> None:
    """-o, --report and --hgrm of a run without --sweep: a record of one scenario (or of
    one per results dict given: compare's solved and simulated answers)."""
    if output is None and report is None and hgrm is None:
        return
    from ..experiment.record import add_scenario
    from ..experiment.runner import one_model

    answers = res if isinstance(res, list) else [res]
    record, (scenario,) = one_model(model, params, {}, answers[0]["engine"], {}, command_line())
    for answer in answers:
        add_scenario(record, scenario.model, answer["engine"], scenario.params, answer)
    write_outputs(record, output, report, hgrm)


#: The failed scenarios named one per line; the rest are counted (every one is in the record).
FAILURES_SHOWN = 3


def exit_if_scenarios_failed(record: dict) -> None:
    """After the tables of what ran: a line per scenario that could not run (the first
    few), and exit code 2."""
    failed = record["failed"]
    for failure in failed[:FAILURES_SHOWN]:
        error_line(failure["error"])
    if failed:
        more = f" ({len(failed) - FAILURES_SHOWN} more not shown; -o or --json lists each under `failed`)" \
            if len(failed) > FAILURES_SHOWN else ""
        err.print(f"{len(failed)} of {len(failed) + len(record['scenarios'])} scenarios "
                  f"failed{more}; the others are in the tables and outputs above", soft_wrap=True)
        raise typer.Exit(2)


def show_sweep(as_json: bool) -> Callable[[dict], None]:
    """What `simulate --sweep` and `solve --sweep` show: the warnings, then the
    scenario table or the record as JSON."""
    def show(record: dict) -> None:
        from ..experiment.runner import params_text
        from ..report.record_tables import scenario_table

        for s in record["scenarios"]:
            for warning in s["results"]["warnings"]:
                warning_line(f"{params_text(s['params'])}: {warning}")
        if as_json:
            print(json.dumps(record, indent=2))
        else:
            out.print(scenario_table(record))
    return show


def check_json_outputs(output: Optional[Path], report: Optional[Path]) -> None:
    """A command's -o FILE.json and --report DIR, refused before any work if they
    could not be written (the folders are created when missing)."""
    if output is not None:
        if output.suffix != ".json":
            raise BrewputError(f"-o {output}: expected a .json file")
        if output.is_dir():
            raise BrewputError(f"-o {output}: is a folder; expected a .json file")
        check_folder("-o", output.parent)
    if report is not None:
        check_folder("--report", report)


def write_json(label: str, output: Path, document: dict) -> None:
    """`document` into `output` (its folder made if missing), said on stderr as `label: path`."""
    with writing(output):
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(document, indent=2), encoding="utf-8")
    err.print(f"{label}: {output}", soft_wrap=True)
