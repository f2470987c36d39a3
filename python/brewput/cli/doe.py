"""`brewput doe`: a two-level factorial experiment on a model, and which factors matter."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from .common import (PageOption, WholeOption, YesOption, app, command_line, err, parse_sets, show_all, user_errors,
                     warning_line)
from .progress import progress_bar
from .scenarios import announce


@app.command("doe")
@user_errors
def doe_command(
    model: Optional[Path] = typer.Argument(None, help="Model file (YAML), or --lab for a kitchen measured here."),
    factor: List[str] = typer.Option([], "--factor", metavar="NAME=LOW,HIGH",
                                     help="A factor and its two levels (repeatable, 2 to 12): a param "
                                          "(cpus=1,4) or a field by its path (stations.grinder.servers=1,2).  "
                                          "[default: none; give two or more]"),
    fraction: List[str] = typer.Option([], "--fraction", metavar="GEN",
                                       help="A generator of a fractional design: D=ABC or noise=cpus*buffer (the "
                                            "factors by name, or by letter in the order given) (repeatable).  "
                                            "[default: the full design]"),
    response: str = typer.Option("throughput", "--response", metavar="FIGURE",
                                 help="The figure analysed: throughput, mean, p50 ... p999, wait_mean, "
                                      "utilization or loss, CLASS. or STATION. before it where there are several."),
    replications: int = WholeOption(3, "--replications", help="Simulations (or measurements) of each run, 2 or "
                                                              "more: their spread is the error the effects are "
                                                              "judged against."),
    customers: int = WholeOption(20_000, "--customers", help="Completed customers per simulation."),
    seed: int = WholeOption(1, "--seed", help="Seed of the first simulation; each one has its own."),
    lab: Optional[str] = typer.Option(None, "--lab", metavar="KITCHEN",
                                      help="Measure the lab's kitchen instead of simulating a model: coffee "
                                           "(factors cpus, par, grind, press, steam, latte, jitter; times in ms).  "
                                           "[default: a model]"),
    impl: Optional[str] = typer.Option(None, "--impl", metavar="NAME",
                                       help="With --lab: the implementation, e.g. linearpipe-1.  [default: none]"),
    cpus: Optional[int] = WholeOption(None, "--cpus", help="With --lab: the CPUs, unless they are a factor.  "
                                                           "[default: this machine's]"),
    dur: str = typer.Option("500ms", "--dur", metavar="TIME", help="With --lab: measured time per observation."),
    warmup: str = typer.Option("100ms", "--warmup", metavar="TIME",
                               help="With --lab: discarded before each observation."),
    set_: List[str] = typer.Option([], "--set", help="Override a model param: name=value (repeatable).  "
                                                     "[default: the model's params]"),
    chart: Optional[Path] = typer.Option(None, "--chart", metavar="FILE.png",
                                         help="Draw the effects' |t| (a Pareto chart) into this PNG.  "
                                              "[default: none]"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE.json",
                                          help="Write the design, the responses and the fit as JSON.  "
                                               "[default: none]"),
    report: Optional[Path] = PageOption,
    as_json: bool = typer.Option(False, "--json", help="Print the experiment as JSON."),
    yes: bool = YesOption,
):
    """A two-level factorial experiment: the effects of factors and their interactions on one figure."""
    from ..model import load
    from ..planning.doe import (MAX_FACTORS, analyse, design, equation, parse_factors, parse_generators,
                                pareto_chart, run_design, simulated)
    from ..planning.slo import parse_figure
    from .scenarios import check_json_outputs, write_json

    check_json_outputs(output, report)
    if chart is not None:
        from ..planning.balance_chart import check_chart_path

        check_chart_path(chart)
    if not 2 <= replications <= 1000:
        raise BrewputError(f"--replications {replications}: expected 2 to 1,000 (their spread is the error)")
    if not 100 <= customers <= 10_000_000:
        raise BrewputError(f"--customers {customers}: expected 100 to 10,000,000")
    if (model is None) == (lab is None):
        raise BrewputError("brewput doe: name a MODEL to simulate or --lab coffee to measure, one of them")
    if lab is not None:
        factors, parts, measure, name = _lab(lab, impl, cpus, dur, warmup, factor, set_)
    else:
        lab_only = [name for name, given in (("--impl", impl), ("--cpus", cpus)) if given is not None]
        if lab_only:
            raise BrewputError(f"{lab_only[0]}: for the lab's kitchen; add --lab coffee, or drop it")
        loaded = load(model)
        params = parse_sets(set_)
        if params:
            loaded = loaded.with_params(**params)
        factors, parts, name = parse_factors(factor, loaded), loaded, loaded.file or loaded.name
        measure = simulated(loaded, customers, seed)
    if len(factors) > MAX_FACTORS:
        raise BrewputError(f"--factor: at most {MAX_FACTORS} factors")
    figure = parse_figure(response, parts, option="response")
    coded = design(factors, parse_generators(fraction, factors))
    names = [f.name for f in factors]
    if lab is None:  # a simulation per run and replication, each of one replication
        from ..engine.simulate import estimate
        from ..engine.work import sweep_work

        one = estimate(parts, customers=customers, replications=1, seed=seed)
        announce(sweep_work(len(coded) * replications, [one], 1), f"{len(coded) * replications:,} simulations",
                 yes)

    owners = list(getattr(parts, figure.owner))
    if figure.scope is None and len(owners) > 1:
        raise BrewputError(f"--response {response}: the model has several {figure.owner}; name one: "
                           + ", ".join(f"{o}.{figure.metric}" for o in owners))

    def respond(results: dict) -> float:
        ((_, value),) = figure.figures(results)
        if value is None:
            raise BrewputError(f"--response {response}: the {'lab' if lab else 'simulation'} gave no such figure")
        return value

    # A run's warnings (an unstable run, whose mean measures only its length; a busy
    # machine) are the fit's too: each said once, with the factor values of its run.
    warnings: dict = {}

    def measure_warned(values: dict, k: int) -> dict:
        results = measure(values, k)
        at = ", ".join(f"{name}={value:g}" for name, value in values.items())
        for warning in results.get("warnings") or ():
            warnings.setdefault(f"run {at}: {warning}")
        return results

    time_unit = "ms" if lab is not None else parts.time_unit
    with progress_bar(enabled=not as_json, label="runs") as progress:
        responses = run_design(factors, coded, measure_warned, respond, replications=replications,
                               progress=progress)
    analysis = analyse(coded, names, responses)
    unit = {"time": time_unit, "rate": f"per {time_unit}", "share": ""}[figure.kind]
    record = {"model": name, "engine": "lab" if lab is not None else "simulate", "response": response,
              "response_unit": unit, "time_unit": time_unit,
              "factors": [{"name": f.name, "low": f.low, "high": f.high} for f in factors],
              "generators": list(fraction), "replications": replications, "customers": customers, "seed": seed,
              "design": coded.tolist(), "responses": responses.tolist(), **analysis,
              "equation": equation(factors, analysis["coefficients"]), "warnings": list(warnings)}
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        from ..planning.show import doe_shown

        show_all(doe_shown(record))
    for warning in warnings:
        warning_line(warning)
    if warnings:
        warning_line("the coefficients above are fitted to these runs' figures too; read them with care")
    if chart is not None:
        from ..report.png import write_png

        try:
            err.print(f"chart: {write_png(pareto_chart(analysis, response, unit), chart)}", soft_wrap=True)
        except OSError as e:
            raise BrewputError(f"--chart {chart}: {e.strerror or e}") from None
    if output is not None:
        write_json("doe", output, record)
    if report is not None:
        from ..planning.report import write_doe_report

        index = write_doe_report(report, record, command_line(), pareto_chart(analysis, response, unit))
        err.print(f"report: {index}", soft_wrap=True)


def _lab(kitchen: str, impl: Optional[str], cpus: Optional[int], dur: str, warmup: str, factor: List[str],
         set_: List[str]):
    """The factors, the figures' owners, the measurement and the name of a lab experiment."""
    from ..lab.coffee import CoffeeSettings
    from ..lab.native import require_lab
    from ..lab.options import check_implementation, machine_cpus, time_ms
    from ..planning.lab_factors import Parts, measured, parse_lab_factors

    if kitchen != "coffee":
        raise BrewputError(f"--lab {kitchen}: expected coffee (the talk's kitchen)")
    if impl is None:
        raise BrewputError("--impl: name the implementation to measure, e.g. --impl linearpipe-1")
    if set_:
        raise BrewputError("--set: sets a model's params; the lab's settings are factors or fixed")
    require_lab()
    check_implementation(impl)  # an OptionError names its option (cli/common.py's OPTION_NAMES)
    settings = CoffeeSettings(duration_ms=time_ms("duration_ms", dur), warmup_ms=time_ms("warmup_ms", warmup))
    settings.check()
    if cpus is not None and not 1 <= cpus <= machine_cpus():
        raise BrewputError(f"--cpus {cpus}: expected 1 to this machine's {machine_cpus()}")
    factors = parse_lab_factors(factor, impl, settings)
    return factors, Parts(), measured(impl, settings, cpus or machine_cpus()), f"lab coffee {impl}"
