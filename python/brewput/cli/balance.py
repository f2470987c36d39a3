"""`brewput balance`: the expected utilization of the busiest of M service centres
(seed 004), exact beside the seed's approximation, two close ones and a simulation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .common import NumberOption, WholeOption, app, out, user_errors


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
):
    """How busy the busiest of M centres is, when each one's utilization is normal(mean, sigma)."""
    from ..planning.balance import busiest

    if chart is not None:
        from ..planning.balance_chart import check_chart_path

        check_chart_path(chart)
    figures = busiest(centres, mean, sigma, seed)
    if chart is not None:
        from ..planning.balance_chart import write_busiest_chart

        write_busiest_chart(chart, centres, seed)
    if as_json:
        print(json.dumps(figures.to_dict(), indent=2))
        return
    out.print(busiest_table(figures))
    top = figures.utilization(figures.exact)
    if top > 1:
        out.print(f"The busiest centre is expected {top:.1%} busy: overloaded, though the mean is {mean:.1%}.")


def busiest_table(figures):
    from rich.table import Table

    from ..figures import number, with_ci

    table = Table(title=f"Busiest of {figures.centres:,} centres, each utilization normal({number(figures.mean)}, "
                        f"{number(figures.sigma)})", title_justify="left")
    for i, column in enumerate(("E[max of M normals]", "E[max]", "busiest utilization", "vs exact")):
        table.add_column(column, justify="left" if i == 0 else "right")

    def add(label, e_max, half=None, compared=True):
        ci = None if half is None else (e_max - half, e_max + half)
        table.add_row(label, with_ci(e_max, ci),
                      with_ci(figures.utilization(e_max), ci and [figures.utilization(v) for v in ci]),
                      f"{e_max / figures.exact - 1:+.2%}" if compared else "")

    add("exact (quadrature)", figures.exact, compared=False)
    for name, value in figures.approximations.items():
        add(name, value)
    add(f"simulated ({figures.draws:,} draws, seed {figures.seed})", figures.simulated, figures.simulated_half_width)
    return table
