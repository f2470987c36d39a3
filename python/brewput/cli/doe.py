"""`brewput doe`: a two-level factorial experiment on a model, and which factors matter."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from ..errors import BrewputError
from .common import PageOption, WholeOption, app, command_line, err, parse_sets, progress_bar, show_all, user_errors


@app.command("doe")
@user_errors
def doe_command(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
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
    replications: int = WholeOption(3, "--replications", help="Simulations of each run (2 or more: their spread "
                                                              "is the error the effects are judged against)."),
    customers: int = WholeOption(20_000, "--customers", help="Completed customers per simulation."),
    seed: int = WholeOption(1, "--seed", help="Seed of the first simulation; each one has its own."),
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
):
    """A two-level factorial experiment: the effects of factors and their interactions on one figure."""
    from ..model import load
    from ..planning.doe import (MAX_FACTORS, analyse, design, equation, parse_factors, parse_generators,
                                pareto_chart, run_design)
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
    loaded = load(model)
    params = parse_sets(set_)
    if params:
        loaded = loaded.with_params(**params)
    factors = parse_factors(factor, loaded)
    if len(factors) > MAX_FACTORS:
        raise BrewputError(f"--factor: at most {MAX_FACTORS} factors")
    figure = parse_figure(response, loaded, option="response")
    coded = design(factors, parse_generators(fraction, factors))
    names = [f.name for f in factors]

    def respond(results: dict) -> float:
        (part, value), *others = figure.figures(results)
        if others:
            word = "stations" if figure.kind == "share" and figure.metric == "utilization" else "classes"
            raise BrewputError(f"--response {response}: the model has several {word}; name one: " + ", ".join(
                f"{p}.{figure.metric}" for p, _ in [(part, value), *others]))
        if value is None:
            raise BrewputError(f"--response {response}: the simulation gave no such figure")
        return value

    respond(_first_result(loaded))  # refused now if the response is ambiguous, not after the runs
    with progress_bar(enabled=not as_json, label="runs") as progress:
        responses = run_design(loaded, factors, coded, respond, replications=replications, customers=customers,
                               seed=seed, progress=progress)
    analysis = analyse(coded, names, responses)
    unit = {"time": loaded.time_unit, "rate": f"per {loaded.time_unit}", "share": ""}[figure.kind]
    record = {"model": loaded.file or loaded.name, "response": response, "response_unit": unit,
              "time_unit": loaded.time_unit,
              "factors": [{"name": f.name, "low": f.low, "high": f.high} for f in factors],
              "generators": list(fraction), "replications": replications, "customers": customers, "seed": seed,
              "design": coded.tolist(), "responses": responses.tolist(), **analysis,
              "equation": equation(factors, analysis["coefficients"])}
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        from ..planning.show import doe_shown

        show_all(doe_shown(record))
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


def _first_result(model) -> dict:
    """A tiny simulation of the model, to see the response's shape before the runs."""
    from ..engine.simulate import simulate

    return simulate(model, seed=1, customers=100, replications=1)
