"""`brewput fit usl` (the Universal Scalability Law through measured points) and
`brewput calibrate` (a single-station model from a measured sweep)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence

import typer

from ..errors import BrewputError
from ..outputs import file_problem, writing
from .common import NumberOption, PageOption, app, command_line, err, out, show_all, user_errors

fit_app = typer.Typer(no_args_is_help=True, help="Fit a law to measured points.")
app.add_typer(fit_app, name="fit")

CHART_SUFFIXES = (".html", ".png")


def check_file_output(option: str, path: Optional[Path], suffixes: Sequence[str]) -> None:
    """Refuses, before any work, an output file that could not be written."""
    if path is None:
        return
    if path.suffix.lower() not in suffixes:
        raise BrewputError(f"{option} {path}: expected a file ending in {', '.join(suffixes)}, "
                           f"got {path.suffix or 'no suffix'}")
    problem = file_problem(path)
    if problem:
        raise BrewputError(f"{option} {path}: {problem}")


def write_text(option: str, path: Path, text: str) -> None:
    with writing(path, f"{option} "):
        path.write_text(text, encoding="utf-8")


@fit_app.command("usl")
@user_errors
def usl(
    data: Path = typer.Argument(..., help="Measurements: a .csv or .parquet table, or a .json experiment record "
                                          "(brewput lab, load --sweep, a --sweep of simulate or solve, run)."),
    n: Optional[str] = typer.Option(None, "--n", metavar="COL",
                                    help="The concurrency column (in a record: the swept param).  "
                                         "[default: found by name, or N = X x mean R for open-loop data]"),
    x: Optional[str] = typer.Option(None, "--x", metavar="COL",
                                    help="The throughput column (in a record: the class).  "
                                         "[default: found by name; in a record all classes together]"),
    model: Optional[str] = typer.Option(None, "--model", metavar="LABEL",
                                        help="In a record of several models: the one to fit.  [default: the only one]"),
    as_json: bool = typer.Option(False, "--json", help="Print the fit as JSON."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Write the fit: .json (all of it) or .csv (the points with the "
                                               "fitted values).  [default: none]"),
    chart: Optional[Path] = typer.Option(None, "--chart", metavar="FILE",
                                         help="Draw the points, the fit, the linear ideal and the Amdahl ceiling: "
                                              ".html (interactive) or .png.  [default: none]"),
    report: Optional[Path] = PageOption,
):
    """Fit the Universal Scalability Law X(N) = λN / (1 + σ(N-1) + κN(N-1)) to measured throughput."""
    from ..planning.points import read_points
    from ..planning.usl import fit_usl

    check_file_output("-o", output, (".json", ".csv"))
    check_file_output("--chart", chart, CHART_SUFFIXES)
    if report is not None:
        from .scenarios import check_folder

        check_folder("--report", report)
    points = read_points(data, n=n, x=x, model=model)
    try:
        fit = fit_usl(points.n, points.x)
    except BrewputError as e:
        raise BrewputError(f"{points.source}: {e}") from None
    result = {"source": points.source, "n": points.n_label, "x": points.x_label, "open_loop": points.open_loop,
              "time_unit": points.time_unit, **fit.as_dict()}
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        _show(fit, points)
    if output is not None:
        if output.suffix.lower() == ".json":
            write_text("-o", output, json.dumps(result, indent=1) + "\n")
        else:
            import pandas

            write_text("-o", output, pandas.DataFrame(result["points"]).to_csv(index=False))
    if chart is not None:
        from ..report.scalability import usl_chart, write_chart

        with writing(chart, "--chart "):
            write_chart(usl_chart(fit, f"Universal Scalability Law: {points.source}", points.n_label,
                                  points.x_label), chart)
    if report is not None:
        from ..report.scalability import write_usl_report

        err.print(f"report: {write_usl_report(report, result, command_line())}", soft_wrap=True)


def _show(fit, points) -> None:
    from ..report.scalability import findings, usl_grids

    coefficients, table = usl_grids(fit, points)
    show_all([coefficients, *findings(fit), table])


@app.command("calibrate")
@user_errors
def calibrate(
    record: Path = typer.Argument(..., help="A measured sweep over the arrival rate: the .json record of "
                                            "brewput load --sweep rate=..., or of simulate/solve --sweep rate=..."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Write the calibrated model file (.yaml).  [default: print it]"),
    kind: str = typer.Option("mmc", "--kind", help="The station: mmc (M/M/c, exponential service) or mg1 "
                                                   "(M/G/1, the service time's variability fitted too)."),
    servers: int = typer.Option(1, "--servers", metavar="C", help="Servers at the station (M/M/c's c)."),
    upto: Optional[float] = NumberOption(None, "--upto",
                                         help="Fit only the steps whose throughput is at most X (per the record's "
                                              "time unit) and predict the rest.  [default: every step]"),
    model: Optional[str] = typer.Option(None, "--model", metavar="LABEL",
                                        help="In a record of several models: the one to calibrate.  [default: the only one]"),
    no_utilization: bool = typer.Option(False, "--no-utilization",
                                        help="Fit the response-time curve even when the record has utilization."),
    as_json: bool = typer.Option(False, "--json", help="Print the calibration and predictions as JSON."),
):
    """Estimate a single-station model (M/M/c or M/G/1) from a measured sweep, write it, and show its
    predictions beside the measurements."""
    from ..planning.calibrate import calibrate as estimate

    check_file_output("-o", output, (".yaml", ".yml"))
    calibration = estimate(record, kind=kind, servers=servers, upto=upto, model=model,
                           use_utilization=not no_utilization)
    text = calibration.model_text()
    if as_json:
        print(json.dumps({**calibration.as_dict(), "model_file": text}, indent=2))
    else:
        from ..report.calibration import calibration_table

        out.print(calibration_table(calibration))
        if output is None:
            out.print(text, end="")
    if output is not None:
        write_text("-o", output, text)
        if not as_json:
            out.print(f"model written to {output}; try: brewput solve {output} --set rate=...")
