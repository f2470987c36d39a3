"""`brewput balance`: the expected utilization of the busiest of M service centres
(seed 004), exact beside the seed's approximation, two close ones and a simulation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from ..report.grid import Grid
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
    lines = [busiest_grid(figures)]
    top = figures.utilization(figures.exact)
    if top > 1:
        lines.append(f"The busiest centre is expected {top:.1%} busy: overloaded, though the mean is {mean:.1%}.")
    if as_json:
        print(json.dumps(figures.to_dict(), indent=2))
    else:
        show_all(lines)
    # The figures are shown before any file is written, so a failed write loses none of them.
    if chart is not None:
        from ..planning.balance_chart import write_busiest_chart

        write_busiest_chart(chart, centres, seed)
    if report is not None:
        from ..planning.balance_chart import busiest_chart, centres_up_to
        from ..report.grid import grids_html
        from ..report.page import write_page

        index = write_page(report, f"The busiest of {centres:,} centres", f"each utilization normal({mean}, {sigma})",
                           [busiest_chart(centres_up_to(max(centres, 64)), seed)], grids_html(lines[:1]),
                           figures.to_dict(), command_line(), lines[1:])
        err.print(f"report: {index}", soft_wrap=True)


def busiest_grid(figures) -> Grid:
    from ..figures import number, with_ci

    grid = Grid(f"Busiest of {figures.centres:,} centres, each utilization normal({number(figures.mean)}, "
                f"{number(figures.sigma)})", ["E[max of M normals]", "E[max]", "busiest utilization", "vs exact"])

    def add(label, e_max, half=None, compared=True):
        ci = None if half is None else (e_max - half, e_max + half)
        grid.rows.append([label, with_ci(e_max, ci),
                          with_ci(figures.utilization(e_max), ci and [figures.utilization(v) for v in ci]),
                          f"{e_max / figures.exact - 1:+.2%}" if compared else ""])

    add("exact (quadrature)", figures.exact, compared=False)
    for name, value in figures.approximations.items():
        add(name, value)
    add(f"simulated ({figures.draws:,} draws, seed {figures.seed})", figures.simulated, figures.simulated_half_width)
    return grid
