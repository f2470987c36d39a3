"""`brewput simulate`, `solve` and `compare`: one model, answered by an engine
(or, with --sweep, at every combination of params)."""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer

from ..analytic.methods import DAY_METHODS, METHODS
from ..errors import BrewputError, Unstable
from ..steps import telling
from ..vocabulary import CONFIDENCE
from .common import (ExecutorOption, HgrmOption, NumberOption, OutputOption, ReportOption, SchedulerOption, SetOption,
                     SweepOption, WholeOption, WorkersOption, YesOption, app, parse_sets, show, show_line,
                     user_errors, warning_line)
from .progress import QUICK, progress_bar
from .scenarios import (announce, check_outputs, prepare, run_experiment, show_sweep, single_run_checks,
                        single_run_outputs, sweep_record)


QuantileOption = typer.Option(
    [], "--quantile", metavar="PERCENTS",
    help="Also these quantiles of every class's wait and response time, e.g. 80,97.5 (keys p80, p975).  "
         "[default: none]")
WithinOption = typer.Option(
    [], "--within", metavar="TIMES",
    help="Also the service levels P(wait <= t) and P(response <= t) of every class, e.g. 20s (or in the model's "
         "time unit).  [default: none]")


def _asked(model, params, quantiles: List[str], within: List[str]) -> dict:
    """--quantile and --within as the engines take them (percentiles.py), the times in the model's unit."""
    from ..model import load
    from ..percentiles import parse_percents, parse_times

    if not quantiles and not within:
        return {}
    return {"quantiles": parse_percents(quantiles),
            "within": parse_times(within, load(model, params=params).time_unit) if within else []}


@app.command()
@user_errors
def simulate(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    seed: int = WholeOption(1, "--seed", help="Random seed: same seed, same numbers."),
    replications: int = WholeOption(5, "--replications", help="Independent replications (for confidence intervals)."),
    customers: Optional[int] = WholeOption(None, "--customers",
                                           help="Completed customers per replication.  [default: 1,000,000]"),
    horizon: Optional[float] = NumberOption(None, "--horizon",
                                            help="Stop after this much model time instead.  [default: none]"),
    warmup: Optional[float] = NumberOption(
        None, "--warmup", help="Discarded first: customers (or model time with --horizon; on a day that repeats, "
                               "whole days run before the one measured, default 3).  [default: 10 % of the run]"),
    threads: Optional[int] = WholeOption(None, "--threads",
                                         help="Worker threads; results do not depend on it.  [default: all cores]"),
    bins: Optional[str] = typer.Option(
        None, "--bins", help="A day's figures per interval of this width (15min, or a number in the model's "
                             "time unit).  [default: the day's interval]"),
    as_json: bool = typer.Option(False, "--json", help="Print the results schema as JSON."),
    quantile: List[str] = QuantileOption,
    within: List[str] = WithinOption,
    sweep_: List[str] = SweepOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    hgrm: Optional[Path] = HgrmOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
    yes: bool = YesOption,
):
    """Simulate MODEL with the discrete-event engine (--sweep: at every combination of params)."""
    from ..engine.simulate import estimate, simulate as run_simulation
    from ..model import load
    from ..report.table import results_tables

    if warmup is not None and horizon is None:
        if warmup != int(warmup):
            raise BrewputError(f"--warmup: expected a whole number (of customers; of days on a day that repeats), "
                               f"got {warmup}")
        warmup = int(warmup)
    params = parse_sets(set_) or None
    asked = _asked(model, params, quantile, within)
    options = dict(seed=seed, replications=replications, customers=customers, horizon=horizon, warmup=warmup,
                   distribution=hgrm is not None, **asked)
    if sweep_:
        if bins is not None:
            raise BrewputError("--bins: is for one run of a day, not with --sweep")
        if threads is not None:
            raise BrewputError("--threads: with --sweep, --workers sets how scenarios share the cores")
        runner = prepare(output, report, executor, scheduler, workers, hgrm)
        record, scenarios = sweep_record(model, params, sweep_, "simulate", options)
        run_experiment(record, scenarios, runner, output=output, report=report, hgrm=hgrm, quiet=as_json,
                       show=show_sweep(as_json), yes=yes)
        return
    single_run_checks(output, report, executor, scheduler, workers, hgrm)
    loaded = load(model, params=params)
    announce(estimate(loaded, threads=threads, **options), str(model), yes)
    with progress_bar(enabled=not as_json, steps=False) as progress:
        res = run_simulation(loaded, threads=threads, progress=progress, bins=bins, **options)
    for warning in res["warnings"]:
        warning_line(warning)
    if as_json:
        print(json.dumps(res, indent=2))
    else:
        for table in results_tables(res):
            show(table)
        for note in res.get("notes", ()):
            show_line(f"note: {note}")
    single_run_outputs(model, params, res, output, report, hgrm)


@contextmanager
def naming_the_model(model: Path):
    """solve's refusal of a model with no steady state names the station; the file too here."""
    try:
        yield
    except Unstable as e:
        raise Unstable(f"{model}: {e}") from None


#: The most states of a model's Markov chain (solve --method ctmc, or auto where it builds one).
MaxStatesOption = WholeOption(None, "--max-states", help="The most states of the model's Markov chain (--method ctmc, "
                                                           "or auto where no formula answers).  [default: 1,000,000]")


def solve_options(method: str, max_states: Optional[int]) -> dict:
    """solve's options as the engine takes them (max_states only when given)."""
    return {"method": method, **({} if max_states is None else {"max_states": max_states})}


@app.command()
@user_errors
def solve(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    method: str = typer.Option("auto", help=f"The analytic method: {' | '.join(METHODS)}; for a model with a "
                                            f"day: {' | '.join(DAY_METHODS)}."),
    max_states: Optional[int] = MaxStatesOption,
    from_: Optional[str] = typer.Option(
        None, "--from", metavar="STATION=JOBS,...",
        help="Start from these jobs at the stations (desk=12,back=3) and follow the model's Markov chain "
             "over --over: the expected figures through time and the time until the backlog clears.  "
             "[default: none, the steady state]"),
    over: Optional[str] = typer.Option(
        None, "--over", metavar="TIME",
        help="With --from: how long to follow the model (2h, or a number in the model's time unit).  "
             "[default: none]"),
    bins: Optional[str] = typer.Option(
        None, "--bins", metavar="TIME",
        help="With --from: the figures every this much time (10min, or a number in the model's time unit); "
             "it must divide --over.  [default: --over / 20]"),
    as_json: bool = typer.Option(False, "--json", help="Print the results schema as JSON."),
    quantile: List[str] = QuantileOption,
    within: List[str] = WithinOption,
    sweep_: List[str] = SweepOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    executor: str = ExecutorOption,
    scheduler: Optional[str] = SchedulerOption,
    workers: Optional[int] = WorkersOption,
):
    """Solve MODEL analytically (queueing theory): exact where theory is exact, marked where approximate."""
    from ..engine.solve import solve as run_solve

    params = parse_sets(set_) or None
    asked = _asked(model, params, quantile, within)
    following = from_ is not None or over is not None or bins is not None
    if following:
        from ..analytic.chain.from_options import parse_state

        if sweep_:
            raise BrewputError("--from: follows one model from a given state, not with --sweep")
        asked = {**asked, "from_state": None if from_ is None else parse_state(from_), "over": over, "bins": bins}
    if sweep_:
        runner = prepare(output, report, executor, scheduler, workers)
        record, scenarios = sweep_record(model, params, sweep_, "solve", {**solve_options(method, max_states), **asked})
        run_experiment(record, scenarios, runner, output=output, report=report, quiet=as_json,
                       show=show_sweep(as_json))
        return
    single_run_checks(output, report, executor, scheduler, workers)
    # a Markov chain's steps (each truncation, each class's passage times) can take minutes
    with naming_the_model(model), progress_bar(enabled=not as_json, label="solving", quiet=QUICK) as progress, \
            telling(progress):
        res = run_solve(model, params=params, method=method, max_states=max_states, **asked)
    if as_json:
        print(json.dumps(res, indent=2))
    else:
        from ..report.day_table import day_tables
        from ..report.table import results_tables  # only for an answer to print

        if "from" in res:
            from ..report.from_table import from_tables

            for item in from_tables(res):
                if isinstance(item, str):
                    show_line(item)
                else:
                    show(item)
        for table in day_tables(res) if "intervals" in res else results_tables(res) if res["stations"] else ():
            show(table)
        for note in res["notes"]:
            show_line(f"note: {note}")
    single_run_outputs(model, params, res, output, report)


def _compare_day(model: Path, params, asked: dict, as_json: bool, output: Optional[Path], report: Optional[Path],
                 **simulation) -> None:
    """A day: every method of report/day_table.py's COMPARED per interval, beside the
    simulation where this brewput simulates days (else said in a note); -o and --report
    a record of the simulation and each method."""
    from ..engine.simulate import simulate as run_simulation
    from ..engine.solve import solve as run_solve
    from ..report.day_table import COMPARED, day_comparison_tables

    solved = {m: run_solve(model, params=params, method=m, **asked) for m in COMPARED}
    simulated, notes = None, []
    try:
        with progress_bar(enabled=not as_json, steps=False) as progress:
            simulated = run_simulation(model, params=params, progress=progress, **simulation, **asked)
    except BrewputError as e:
        notes.append(f"simulate: {e}")
    if as_json:
        print(json.dumps({"solve": solved, "simulate": simulated, "notes": notes}, indent=2))
    else:
        for table in day_comparison_tables(solved, simulated):
            show(table)
        simulation_notes = [f"simulate: {n}" for n in (simulated or {}).get("notes", ())]
        for note in [*notes, *simulation_notes, *(n for res in solved.values() for n in res["notes"])]:
            show_line(f"note: {note}")
    single_run_outputs(model, params, [*([simulated] if simulated else []), *solved.values()], output, report)


@app.command()
@user_errors
def compare(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    set_: List[str] = SetOption,
    method: str = typer.Option("auto", help=f"The analytic method: {' | '.join(METHODS)}."),
    max_states: Optional[int] = MaxStatesOption,
    seed: int = WholeOption(1, "--seed", help="Random seed of the simulation."),
    replications: int = WholeOption(5, "--replications", help="Replications of the simulation."),
    customers: Optional[int] = WholeOption(None, "--customers",
                                           help="Completed customers per replication.  [default: 1,000,000]"),
    level: float = NumberOption(CONFIDENCE, "--level",
                                help="Confidence level of the intervals the analytic figures are tested against."),
    as_json: bool = typer.Option(False, "--json", help="Print both results and the comparison as JSON."),
    quantile: List[str] = QuantileOption,
    within: List[str] = WithinOption,
    output: Optional[Path] = OutputOption,
    report: Optional[Path] = ReportOption,
    yes: bool = YesOption,
):
    """Solve and simulate MODEL, and show them side by side."""
    from ..compare import compare_results
    from ..engine.simulate import simulate as run_simulation
    from ..engine.solve import solve as run_solve
    from ..report.table import comparison_table

    if not 0 < level < 1:
        raise BrewputError(f"--level: expected a confidence level between 0 and 1, got {level}")
    check_outputs(output, report)
    params = parse_sets(set_) or None
    asked = _asked(model, params, quantile, within)
    from ..engine.simulate import estimate
    from ..model import load

    loaded = load(model, params=params)
    if loaded.day is not None:
        announce(estimate(loaded, seed=seed, replications=replications, **asked), str(model), yes)
        return _compare_day(model, params, asked, as_json, output, report, seed=seed, replications=replications)
    with naming_the_model(model):
        analytic = run_solve(model, params=params, method=method, max_states=max_states, **asked)
    announce(estimate(loaded, seed=seed, replications=replications, customers=customers, **asked), str(model), yes)
    with progress_bar(enabled=not as_json, steps=False) as progress:
        simulated = run_simulation(model, params=params, seed=seed, replications=replications,
                                   customers=customers, progress=progress, **asked)
    rows = compare_results(analytic, simulated, level)
    if as_json:
        print(json.dumps({"solve": analytic, "simulate": simulated,
                          "comparison": [row.as_dict() for row in rows]}, indent=2))
    else:
        show(comparison_table(f"{analytic['model']}: solve ({analytic['method']}) vs simulate", rows, level,
                              analytic["time_unit"]))
    single_run_outputs(model, params, [simulated, analytic], output, report)
