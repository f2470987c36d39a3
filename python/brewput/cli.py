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
def progress_bar(enabled: bool, label: str = "simulating"):
    """A progress callback drawing a transient bar on stderr when it is a terminal."""
    if not (enabled and err.is_terminal):
        yield None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeRemainingColumn)

    count = (MofNCompleteColumn(),) if label == "scenarios" else ()
    columns = (TextColumn(label), BarColumn(), *count, TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("simulate", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


SetOption = typer.Option([], "--set", help="Override a model param: name=value (repeatable).")
SweepOption = typer.Option([], "--sweep", help="Vary a param: name=1..6, name=1,2,4,8 or name=0.1:0.9:0.1 "
                                               "(repeatable: every combination).")
OutputOption = typer.Option(None, "-o", "--output",
                            help="Write the results: .csv or .parquet (the table), .json (the whole record).")
ReportOption = typer.Option(None, "--report", help="Write an HTML report (charts, tables, models) into this folder.")
ExecutorOption = typer.Option("local", "--executor", help="Where scenarios run: local (processes) or dask.")
SchedulerOption = typer.Option(None, "--scheduler", help="The Dask scheduler's address, with --executor dask.")
WorkersOption = typer.Option(None, "--workers",
                             help="Local worker processes [default: all cores]; results do not depend on it.")


def command_line() -> str:
    """How this run was started, to be written into its record."""
    import shlex

    return shlex.join(["brewput", *sys.argv[1:]])


def run_experiment(record: dict, scenarios: list, *, output: Optional[Path], report: Optional[Path],
                   executor: str, scheduler: Optional[str], workers: Optional[int], quiet: bool) -> dict:
    """Runs the scenarios into `record` with a progress bar, writes the export and
    the report; after a Ctrl-C writes what finished and exits 130."""
    from .experiment.executors import executor as make_executor
    from .experiment.record import check_path
    from .experiment.runner import run

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
        from .experiment.record import save

        err.print(f"results: {save(record, output)}", highlight=False, soft_wrap=True)
    if report is not None:
        from .report.html import write_report

        err.print(f"report: {write_report(record, report)}", highlight=False, soft_wrap=True)


def sweep_record(model: Path, params: Optional[dict], sweeps: List[str], engine: str, options: dict):
    """The record and scenarios of `--sweep` on one model."""
    from .experiment.runner import one_model
    from .experiment.sweep import parse_sweeps

    return one_model(model, params, parse_sweeps(sweeps), engine, options, command_line())


def single_run_checks(output: Optional[Path], executor: str, scheduler: Optional[str],
                      workers: Optional[int]) -> None:
    """Without --sweep there is one run, in this process, and nothing to distribute."""
    if executor != "local" or scheduler is not None or workers is not None:
        raise BrewputError("--executor, --scheduler, --workers: only with --sweep (a single run is one scenario)")
    if output is not None:
        from .experiment.record import check_path

        check_path(output)


def single_run_outputs(model: Path, params: Optional[dict], res: dict, output: Optional[Path],
                       report: Optional[Path]) -> None:
    """-o and --report of a run without --sweep: a record of one scenario."""
    if output is None and report is None:
        return
    from .experiment.runner import finished, one_model

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
    from .experiment.runner import params_text
    from .experiment.tables import scenario_table

    for s in record["scenarios"]:
        for warning in s["results"]["warnings"]:
            err.print(f"[bold yellow]warning:[/] {params_text(s['params'])}: {warning}", highlight=False,
                      soft_wrap=True)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        out.print(scenario_table(record))
    exit_if_scenarios_failed(record)


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
    from .engine.simulate import simulate as run_simulation
    from .report.table import results_tables

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
    from .engine.solve import solve as run_solve
    from .report.table import results_tables

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
    from .experiment.study import load_study
    from .experiment.tables import pivot_table, scenario_table

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
    noise: float = typer.Option(0.0, help="Each stage lasts a uniform 1 ± noise/2 ms (the talk's random noise)."),
    report: Path = typer.Option(Path("report"), "--report", help="Folder of the HTML report."),
    workers: Optional[int] = WorkersOption,
):
    """Reproduce the coffee-shop talk: every implementation, 1 to 6 CPUs, and its report."""
    from .demo import coffee_record, print_coffee_tables

    with progress_bar(enabled=True, label="scenarios") as progress:
        record = coffee_record(customers=customers, replications=replications, noise=noise,
                               command=command_line(), workers=workers, progress=progress)
    if record["interrupted"]:
        write_outputs(record, None, report)
        err.print(f"interrupted: {len(record['scenarios'])} scenarios finished")
        raise typer.Exit(130)
    print_coffee_tables(out, record, noise)
    write_outputs(record, None, report)


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


lab_app = typer.Typer(no_args_is_help=True, help="Measure real concurrent code on this machine's CPUs, beside its model.")
app.add_typer(lab_app, name="lab")
NiceOption = typer.Option(None, "--nice", help="Run the measurement at this nice value; below 0 (higher "
                                               "priority, needs root) keeps other busy processes out of the figures.")


@lab_app.command("coffee")
@user_errors
def lab_coffee(
    impl: str = typer.Option("all", "--impl", help="all, or names: ideal, locking, finelocking, parsteam, "
                                                   "multi-N, linearpipe-N, splitpipe-N, multipipe-N."),
    cpus: Optional[str] = typer.Option(None, "--cpus", help="CPU counts, e.g. 1..6 or 1,2,4 [default: 1 to "
                                                            "this machine's count, at most 6]."),
    par: Optional[str] = typer.Option(None, "--par", help="Concurrent customers, e.g. 8 or 1..8 [default: as many as CPUs]."),
    dur: str = typer.Option("1s", "--dur", help="Measured time per repetition."),
    warmup: str = typer.Option("250ms", "--warmup", help="Discarded before each repetition's measurement."),
    repetitions: int = typer.Option(3, "--repetitions", help="Repetitions per scenario, each on a fresh kitchen."),
    grind: str = typer.Option("1ms", "--grind", help="CPU burnt grinding."),
    press: str = typer.Option("1ms", "--press", help="CPU burnt pressing the espresso."),
    steam: str = typer.Option("1ms", "--steam", help="CPU burnt steaming the milk."),
    latte: str = typer.Option("1ms", "--latte", help="CPU burnt making the latte."),
    jitter: str = typer.Option("0ms", "--jitter", help="Each stage lasts its time ± jitter/2, uniformly."),
    rate: Optional[float] = typer.Option(None, "--rate", help="Open loop: orders per second [default: closed loop]."),
    arrivals: str = typer.Option("poisson", "--arrivals", help="Open loop: poisson or constant."),
    queue: int = typer.Option(10_000, "--queue", help="Open loop: orders waiting at most; more are dropped."),
    stall: str = typer.Option("0ms", "--stall", help="Pause every --stall-every-th order's grinding this long."),
    stall_every: Optional[int] = typer.Option(None, "--stall-every", help="Which orders stall (with --stall)."),
    predict: bool = typer.Option(False, "--predict", help="Simulate each implementation's model beside it."),
    nice: Optional[int] = NiceOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
):
    """The coffee-shop talk for real: each implementation on real threads, 1 to K CPUs."""
    from .lab import CoffeeSettings, run_coffee_lab
    from .lab import options as opt
    from .lab.show import print_coffee

    settings = CoffeeSettings(
        grind_ms=opt.time_ms("--grind", grind, allow_zero=True), press_ms=opt.time_ms("--press", press, allow_zero=True),
        steam_ms=opt.time_ms("--steam", steam, allow_zero=True), latte_ms=opt.time_ms("--latte", latte, allow_zero=True),
        jitter_ms=opt.time_ms("--jitter", jitter, allow_zero=True), duration_ms=opt.time_ms("--dur", dur),
        warmup_ms=opt.time_ms("--warmup", warmup, allow_zero=True), repetitions=repetitions, rate_per_s=rate,
        arrivals=arrivals, queue=queue, stall_every=stall_every, stall_ms=opt.time_ms("--stall", stall, allow_zero=True),
        nice=nice)
    asked = opt.whole_numbers("--cpus", cpus) if cpus else list(range(1, min(6, opt.machine_cpus()) + 1))
    cpu_counts, warning = opt.capped_cpus(asked)
    if warning:
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    implementations = opt.implementations(impl)
    pars = opt.whole_numbers("--par", par) if par else None
    if output is not None:
        from .experiment.record import check_path

        check_path(output)
    with progress_bar(enabled=not as_json, label="measuring") as progress:
        record = run_coffee_lab(implementations, cpu_counts, par=pars, settings=settings, predict=predict,
                                command=command_line(),
                                progress=progress and (lambda done, total, _: progress(done, total)))
    finish_lab(record, output, report, as_json, print_coffee)


@lab_app.command("pool")
@user_errors
def lab_pool(
    tasks: int = typer.Option(100, "--tasks", help="CPU-bound tasks, all submitted at once."),
    work: str = typer.Option("10ms", "--work", help="CPU burnt by each task."),
    threads: Optional[str] = typer.Option(None, "--threads", help="Pool sizes, e.g. 1..4 [default: 1 to twice "
                                                                  "the CPUs]; a thread per task is always run too."),
    cpus: Optional[int] = typer.Option(None, "--cpus", help="CPUs to confine the run to [default: all]."),
    repetitions: int = typer.Option(3, "--repetitions", help="Repetitions per pool size."),
    nice: Optional[int] = NiceOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
):
    """Seed 003's thread-pool sizing: a fixed pool of k threads vs a thread per task, measured and modelled."""
    from .lab import options as opt
    from .lab import run_pool_lab
    from .lab.show import print_pool

    capped, warning = opt.capped_cpus([opt.machine_cpus() if cpus is None else cpus])
    if warning:
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    sizes = opt.whole_numbers("--threads", threads) if threads else list(range(1, 2 * capped[0] + 1))
    if not 1 <= repetitions <= 1000:
        raise BrewputError(f"--repetitions {repetitions}: expected 1 to 1000")
    if nice is not None and not -20 <= nice <= 19:
        raise BrewputError(f"--nice {nice}: expected -20 (highest priority) to 19")
    if output is not None:
        from .experiment.record import check_path

        check_path(output)
    with progress_bar(enabled=not as_json, label="measuring") as progress:
        record = run_pool_lab(tasks, opt.time_ms("--work", work), sizes, capped[0], repetitions=repetitions,
                              nice=nice, command=command_line(),
                              progress=progress and (lambda done, total, _: progress(done, total)))
    finish_lab(record, output, report, as_json, print_pool)


def finish_lab(record: dict, output: Optional[Path], report: Optional[Path], as_json: bool, show) -> None:
    """A lab record's export, report and table; after a Ctrl-C what finished, and exit 130."""
    from .lab.show import record_warnings

    for warning in record_warnings(record):
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    write_outputs(record, output, report)
    if as_json:
        print(json.dumps(record, indent=2))
    elif record["scenarios"]:
        show(out, record)
    if record["interrupted"]:
        err.print(f"interrupted: {len(record['scenarios'])} scenarios finished")
        raise typer.Exit(130)


def main() -> None:
    app()
