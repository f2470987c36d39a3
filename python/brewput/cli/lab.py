"""`brewput lab coffee` and `brewput lab pool`: real concurrent code on this
machine's CPUs, measured beside its model.

Every option arrives as text and is parsed and bounded by lab/options.py (the
one home of the lab's limits), so that a bad one is refused in one line naming
it before anything is measured."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .. import shutdown
from ..lab.settings import CoffeeSettings
from .common import (OutputOption, ReportOption, YesOption, app, command_line, err, folder_path, option_name, out,
                     user_errors, warning_line)
from .progress import progress_bar
from .scenarios import announce, check_outputs, write_outputs
from .setting_option import setting_option

lab_app = typer.Typer(no_args_is_help=True, help="Measure real concurrent code on this machine's CPUs, beside its model.")
app.add_typer(lab_app, name="lab")
NiceOption = setting_option(CoffeeSettings, "nice")
RepetitionsOption = setting_option(CoffeeSettings, "repetitions")
HgrmOption = typer.Option(None, "--hgrm", metavar="DIR", parser=folder_path, help="Write each measured latency distribution as an .hgrm file "
                                               "(HdrHistogram's percentile format) into this folder.  [default: none]")


@lab_app.command("coffee")
@user_errors
def lab_coffee(
    impl: str = typer.Option("all", "--impl", help="all, or names: ideal, locking, finelocking, parsteam, "
                                                   "multi-N, linearpipe-N, splitpipe-N, multipipe-N."),
    cpus: Optional[str] = typer.Option(None, "--cpus", metavar="COUNTS", help="CPU counts, e.g. 1..6 or 1,2,4 [default: 1 to "
                                                            "this machine's count, at most 6]."),
    par: Optional[str] = typer.Option(None, "--par", metavar="COUNTS", help="Concurrent customers, e.g. 8 or 1..8 [default: as many as CPUs]."),
    dur: str = setting_option(CoffeeSettings, "duration_ms", "--dur"),
    warmup: str = setting_option(CoffeeSettings, "warmup_ms", "--warmup"),
    repetitions: str = RepetitionsOption,
    grind: str = setting_option(CoffeeSettings, "grind_ms", "--grind"),
    press: str = setting_option(CoffeeSettings, "press_ms", "--press"),
    steam: str = setting_option(CoffeeSettings, "steam_ms", "--steam"),
    latte: str = setting_option(CoffeeSettings, "latte_ms", "--latte"),
    jitter: str = setting_option(CoffeeSettings, "jitter_ms", "--jitter"),
    runtime: Optional[str] = setting_option(CoffeeSettings, "runtime"),
    rate: Optional[str] = setting_option(CoffeeSettings, "rate_per_s", "--rate"),
    arrivals: str = setting_option(CoffeeSettings, "arrivals"),
    queue: str = setting_option(CoffeeSettings, "queue"),
    stall: str = setting_option(CoffeeSettings, "stall_ms", "--stall"),
    stall_every: Optional[str] = setting_option(CoffeeSettings, "stall_every"),
    predict: bool = typer.Option(False, "--predict", help="Simulate each implementation's model beside it."),
    nice: Optional[str] = NiceOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    hgrm: Optional[Path] = HgrmOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
    yes: bool = YesOption,
):
    """The coffee-shop talk for real: each implementation on real threads, 1 to K CPUs."""
    from ..lab import run_coffee_lab
    from ..lab import options as opt
    from ..lab.native import require_lab
    from ..lab.show import print_coffee

    require_lab()
    settings = CoffeeSettings(
        grind_ms=opt.time_ms("grind_ms", grind), press_ms=opt.time_ms("press_ms", press),
        steam_ms=opt.time_ms("steam_ms", steam), latte_ms=opt.time_ms("latte_ms", latte),
        jitter_ms=opt.time_ms("jitter_ms", jitter), duration_ms=opt.time_ms("duration_ms", dur),
        warmup_ms=opt.time_ms("warmup_ms", warmup), repetitions=opt.whole_number("repetitions", repetitions),
        rate_per_s=None if rate is None else opt.rate_per_s("rate_per_s", rate), arrivals=arrivals,
        queue=opt.whole_number("queue", queue),
        stall_every=None if stall_every is None else opt.whole_number("stall_every", stall_every),
        stall_ms=opt.time_ms("stall_ms", stall), nice=None if nice is None else opt.whole_number("nice", nice),
        **({} if runtime is None else {"runtime": runtime.split(",")[0]}))
    runtimes = None if runtime is None else runtime.split(",")
    settings.check()
    implementations = opt.implementations(impl)
    pars = opt.whole_numbers("par", par) if par is not None else None
    asked = opt.whole_numbers("cpus", cpus) if cpus is not None else list(range(1, min(6, opt.machine_cpus()) + 1))
    check_outputs(output, report, hgrm)
    cpu_counts, warning = opt.capped_cpus(asked, option_name)
    if warning:
        warning_line(warning)
    with progress_bar(enabled=not as_json, label="measuring") as progress:
        record = run_coffee_lab(implementations, cpu_counts, par=pars, settings=settings, predict=predict,
                                runtimes=runtimes, distribution=hgrm is not None, command=command_line(),
                                progress=progress, announce=lambda work: announce(work, "the lab", yes))
    finish_lab(record, output, report, hgrm, as_json, print_coffee)


@lab_app.command("pool")
@user_errors
def lab_pool(
    tasks: str = typer.Option("100", "--tasks", metavar="N", help="CPU-bound tasks, all submitted at once."),
    work: str = typer.Option("10ms", "--work", metavar="TIME", help="CPU burnt by each task."),
    threads: Optional[str] = typer.Option(None, "--threads", metavar="COUNTS", help="Pool sizes, e.g. 1..4 [default: 1 to twice "
                                                                  "the CPUs]; a thread per task is always run too."),
    cpus: Optional[str] = typer.Option(None, "--cpus", metavar="N", help="CPUs to confine the run to [default: all]."),
    repetitions: str = RepetitionsOption,
    nice: Optional[str] = NiceOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    hgrm: Optional[Path] = HgrmOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment record as JSON."),
    yes: bool = YesOption,
):
    """Seed 003's thread-pool sizing: a fixed pool of k threads vs a thread per task, measured and modelled."""
    from ..lab import options as opt
    from ..lab import run_pool_lab
    from ..lab.native import require_lab
    from ..lab.show import print_pool

    require_lab()
    task_count, work_ms = opt.whole_number("tasks", tasks), opt.time_ms("work_ms", work)
    asked = opt.machine_cpus() if cpus is None else opt.whole_number("cpus", cpus)
    sizes = opt.whole_numbers("threads", threads) if threads is not None else None
    reps = opt.whole_number("repetitions", repetitions)
    nice_value = None if nice is None else opt.whole_number("nice", nice)
    check_outputs(output, report, hgrm)
    capped, warning = opt.capped_cpus([asked], option_name)
    if warning:
        warning_line(warning)
    with progress_bar(enabled=not as_json, label="measuring") as progress:
        record = run_pool_lab(task_count, work_ms, sizes or list(range(1, 2 * capped[0] + 1)), capped[0],
                              repetitions=reps, nice=nice_value, distribution=hgrm is not None,
                              command=command_line(), progress=progress,
                              announce=lambda work: announce(work, "the lab", yes))
    finish_lab(record, output, report, hgrm, as_json, print_pool)


def finish_lab(record: dict, output: Optional[Path], report: Optional[Path], hgrm: Optional[Path], as_json: bool,
               show) -> None:
    """A lab record's table (or JSON) first, then its export, report and .hgrm
    files: an output that cannot be written loses no measurement (exit 2 after
    the tables, the error naming the path); after a Ctrl-C what finished, and 130."""
    from ..lab.show import record_warnings

    for warning in record_warnings(record):
        warning_line(warning)
    if as_json:
        print(json.dumps(record, indent=2))
    elif record["scenarios"]:
        show(out, record)
    written = write_outputs(record, output, report, hgrm, exit_on_failure=False)
    if record["interrupted"]:
        err.print(f"interrupted: {len(record['scenarios'])} scenarios finished")
        raise typer.Exit(shutdown.exit_code())
    if not written:
        raise typer.Exit(2)


from . import lab_talk  # noqa: E402,F401  (registers `brewput lab talk`, which adds to lab_app)
