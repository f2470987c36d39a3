"""`brewput balance`: the expected utilization of the busiest of M service centres
(seed 004), exact beside the seed's approximation, two close ones and a simulation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..report.busiest_page import busiest_lines
from .common import NumberOption, PageOption, WholeOption, app, command_line, err, show_all, user_errors


@app.command("balance")
@user_errors
def balance(
    centres: int = WholeOption(..., "--centres", help="How many service centres share the load (2 or more)."),
    mean: float = NumberOption(0.5, "--mean", help="Each centre's mean utilization, 0 to 1."),
    sigma: float = NumberOption(0.1, "--sigma", help="The standard deviation of each centre's utilization."),
    seed: int = WholeOption(1, "--seed", help="The simulation's random seed."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    chart: Optional[Path] = typer.Option(None, "--chart", help="Also draw E[max] against M = 2, 4, 8, ... up to "
                                                               "--centres (at least 64) into this PNG file.  "
                                                               "[default: none]"),
    report: Optional[Path] = PageOption,
):
    """How busy the busiest of M centres is, when each one's utilization is normal(mean, sigma)."""
    from ..planning.balance import busiest

    if chart is not None:
        from ..planning.balance_chart import check_chart_path

        check_chart_path(chart)
    if report is not None:
        from .scenarios import check_folder

        check_folder("--report", report)
    figures = busiest(centres, mean, sigma, seed)
    lines = busiest_lines(figures)
    if as_json:
        print(json.dumps(figures.to_dict(), indent=2))
    else:
        show_all(lines)
    # The figures are shown before any file is written, so a failed write loses none of them.
    if chart is not None:
        from ..planning.balance_chart import write_busiest_chart

        write_busiest_chart(chart, centres, seed)
    if report is not None:
        from ..report.busiest_page import write_busiest_report

        err.print(f"report: {write_busiest_report(report, figures.to_dict(), command_line())}", soft_wrap=True)

