"""The page of `brewput balance --report DIR`: the busiest of M centres' table (exact,
approximations, simulation), the line when the busiest is overloaded, and the chart of
E[max] against M, drawn from the figures the command saved (record.json) and its seed, so
that `brewput report record.json` draws it again: the chart's simulation, seeded, gives
the same draws."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Union

from ..figures import number, with_ci
from .grid import Grid


def busiest_grid(figures) -> Grid:
    """The table balance prints, of a Busiest (planning/balance.py)."""
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


def busiest_lines(figures) -> List[Union[Grid, str]]:
    """The table, then the line when the busiest centre is expected overloaded."""
    lines: List[Union[Grid, str]] = [busiest_grid(figures)]
    top = figures.utilization(figures.exact)
    if top > 1:
        lines.append(f"The busiest centre is expected {top:.1%} busy: overloaded, though the mean is "
                     f"{figures.mean:.1%}.")
    return lines


def busiest_of(saved: dict, where: str):
    """The Busiest balance saved (its --json, record.json), its inputs checked as the command
    checks them (a chart of a billion centres is not simulated on a hand-edited record)."""
    from ..errors import BrewputError
    from ..planning.balance import Busiest, check_inputs

    figures = Busiest.from_dict(saved)
    try:
        check_inputs(figures.centres, figures.mean, figures.sigma, figures.seed)
    except BrewputError as e:
        raise BrewputError(f"{where}: {e}") from None
    return figures


def write_busiest_report(out_dir, saved: dict, command: Optional[str]) -> Path:
    from ..planning.balance_chart import busiest_chart, centres_up_to
    from .grid import grids_html
    from .page import write_page

    figures = busiest_of(saved, "the figures")
    lines = busiest_lines(figures)
    return write_page(out_dir, f"The busiest of {figures.centres:,} centres",
                      f"each utilization normal({saved['mean']}, {saved['sigma']})",
                      [busiest_chart(centres_up_to(max(figures.centres, 64)), figures.seed)], grids_html(lines[:1]),
                      saved, command, lines[1:])
