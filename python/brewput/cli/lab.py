"""`brewput lab coffee` and `brewput lab pool`: real concurrent code on this
machine's CPUs, measured beside its model."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..errors import BrewputError
from .common import OutputOption, ReportOption, app, command_line, err, out, progress_bar, user_errors
from .scenarios import write_outputs

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
    from ..lab import CoffeeSettings, run_coffee_lab
    from ..lab import options as opt
    from ..lab.show import print_coffee

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
        from ..experiment.record import check_path

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
    from ..lab import options as opt
    from ..lab import run_pool_lab
    from ..lab.show import print_pool

    capped, warning = opt.capped_cpus([opt.machine_cpus() if cpus is None else cpus])
    if warning:
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    sizes = opt.whole_numbers("--threads", threads) if threads else list(range(1, 2 * capped[0] + 1))
    if not 1 <= repetitions <= 1000:
        raise BrewputError(f"--repetitions {repetitions}: expected 1 to 1000")
    if nice is not None and not -20 <= nice <= 19:
        raise BrewputError(f"--nice {nice}: expected -20 (highest priority) to 19")
    if output is not None:
        from ..experiment.record import check_path

        check_path(output)
    with progress_bar(enabled=not as_json, label="measuring") as progress:
        record = run_pool_lab(tasks, opt.time_ms("--work", work), sizes, capped[0], repetitions=repetitions,
                              nice=nice, command=command_line(),
                              progress=progress and (lambda done, total, _: progress(done, total)))
    finish_lab(record, output, report, as_json, print_pool)


def finish_lab(record: dict, output: Optional[Path], report: Optional[Path], as_json: bool, show) -> None:
    """A lab record's export, report and table; after a Ctrl-C what finished, and exit 130."""
    from ..lab.show import record_warnings

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
