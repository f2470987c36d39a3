"""A Universal Scalability Law fit (planning/usl.py) as people read it: a table of
its coefficients with their intervals, the peak and the ceiling, a table of the
points with the fit's residuals and R(N), and a chart of the points, the fit with
its confidence band, the linear ideal λN and Amdahl's ceiling λ/σ."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..figures import number
from .grid import Grid
from .labels import end_labels
from .spec import Chart, Line, Panel, color

CURVE_POINTS = 200


def coefficient_table(fit, title: str) -> Grid:
    share = f"{fit.level * 100:g} %"
    grid = Grid(title, ["coefficient", "estimate", "std. error", f"{share} interval"])
    for name, c in (("σ contention", fit.sigma), ("κ coherency", fit.kappa), ("λ throughput of one", fit.lam)):
        interval = "-" if c.std_error != c.std_error else f"{number(c.low)} .. {number(c.high)}"
        grid.rows.append([name, number(c.estimate), number(c.std_error), interval])
    return grid


def findings(fit) -> List[str]:
    """The lines under the table: the peak (or why there is none), the ceiling, the residual error."""
    lines = []
    if fit.peak_n is None:
        lines.append(fit.kappa_note)
    else:
        lines.append(f"peak: N* = floor(sqrt((1 - σ) / κ)) = {fit.peak_n}, X_max = X(N*) = "
                     f"{number(fit.peak_throughput)}")
    if fit.sigma_note is not None:
        lines.append(fit.sigma_note)
    elif fit.ceiling is None:
        lines.append("Amdahl ceiling: none (σ = 0: no contention measured)")
    else:
        lines.append(f"Amdahl ceiling λ/σ = {number(fit.ceiling)}")
    lines.append(f"residual standard error {number(fit.residual_sd)} on {fit.df} degrees of freedom")
    return lines


def points_table(fit, n_label: str, x_label: str, time_unit: Optional[str]) -> Grid:
    unit = f" ({time_unit})" if time_unit else ""
    grid = Grid("Points: measured, fitted, and R(N) = N / X(N) by Little's law",
                [n_label, x_label, "fitted", "residual", f"R(N){unit}"], left=0)
    for n, x, f, r in zip(fit.n, fit.x, fit.fitted, fit.response_time(fit.n)):
        grid.rows.append([number(float(n)), number(float(x)), number(float(f)), number(float(x - f)),
                          number(float(r))])
    return grid


def usl_grids(fit, points) -> List[Grid]:
    """The coefficients and the points of a fit of `points` (planning/points.py)."""
    how = " (open loop: N = X x mean R per step, Little's law)" if points.open_loop else ""
    return [coefficient_table(fit, f"Universal Scalability Law fit of {points.description}, "
                                   f"{len(points.n)} points{how}"),
            points_table(fit, points.n_label, points.x_label, points.time_unit)]


def usl_chart(fit, title: str, n_label: str, x_label: str) -> Chart:
    top = float(max(fit.n.max(), fit.peak_n or 0) * 1.1)
    grid = np.linspace(min(1.0, float(fit.n.min())), top, CURVE_POINTS)
    low, high = fit.interval(grid)
    items = [
        Line("measured", [float(v) for v in fit.n], [float(v) for v in fit.x], color(0), marker="circle"),
        Line(f"USL fit ({fit.level * 100:g} % band)", grid.tolist(), fit.throughput(grid).tolist(), color(1),
             low=np.maximum(low, 0).tolist(), high=high.tolist(), marker=None),
    ]
    ideal = fit.lam.estimate * grid
    shown = grid[ideal <= 1.2 * max(float(fit.x.max()), fit.ceiling or 0)]   # the ideal only as far as the chart's height
    items.append(Line("linear ideal λN", shown.tolist(), (fit.lam.estimate * shown).tolist(), color(7),
                      dash="dot", marker=None))
    if fit.peak_n is not None:
        items.append(Line(f"peak N* = {fit.peak_n}", [float(fit.peak_n)], [fit.peak_throughput], color(3),
                          marker="diamond"))
    if fit.ceiling is not None:
        items.append(Line("Amdahl ceiling λ/σ", [float(grid[0]), top], [fit.ceiling, fit.ceiling], color(3),
                          dash="dash", marker=None))
    caption = ("The measured throughput against concurrency, the least-squares Universal Scalability Law "
               "through it with its confidence band, the linear ideal λN and Amdahl's ceiling λ/σ.")
    panel = Panel("Throughput against concurrency", n_label, x_label, items)
    panel.labels = end_labels(items)
    return Chart("usl", title, caption, [panel])


def write_chart(chart: Chart, path) -> None:
    """The chart as a PNG, or as a page of its own (.html) with plotly.js inline."""
    from pathlib import Path

    path = Path(path)
    if path.suffix.lower() == ".png":
        from .png import write_png

        write_png(chart, path)
        return
    from .interactive import figure

    figure(chart).write_html(str(path), include_plotlyjs=True, full_html=True,
                             config={"displaylogo": False, "responsive": True})


def usl_fit_of(result: dict, where: str):
    """The fit and the points of what `fit usl` computed (its --json, -o and record.json):
    the kept points fitted again, which gives the kept fit (least squares of the same
    numbers), checked against it so that a page is never drawn of another fit."""
    from ..errors import BrewputError
    from ..planning.points import Points
    from ..planning.usl import fit_usl

    points = Points(n=[p["n"] for p in result["points"]], x=[p["throughput"] for p in result["points"]],
                    n_label=result["n"], x_label=result["x"], source=result["source"],
                    open_loop=result["open_loop"], time_unit=result["time_unit"])
    try:
        fit = fit_usl(points.n, points.x)
    except BrewputError as e:
        raise BrewputError(f"{where}: {e}") from None
    kept = [result[name]["estimate"] for name in ("sigma", "kappa", "lambda")]
    if not np.allclose([fit.sigma.estimate, fit.kappa.estimate, fit.lam.estimate], kept, rtol=1e-9, atol=1e-12):
        raise BrewputError(f"{where}: its points fit σ, κ, λ = {number(fit.sigma.estimate)}, "
                           f"{number(fit.kappa.estimate)}, {number(fit.lam.estimate)}, not the fit it keeps "
                           f"({', '.join(map(number, kept))}): write it again with fit usl")
    return fit, points


def write_usl_report(out_dir, result: dict, command: Optional[str]):
    """fit usl's page, from what the command computed alone (so that `brewput report
    record.json` draws it again): the chart, the coefficients and the points, the findings."""
    from .grid import grids_html
    from .page import write_page

    fit, points = usl_fit_of(result, "the fit")
    title = f"Universal Scalability Law: {points.source}"
    return write_page(out_dir, title, f"{len(points.n)} points of {points.description}",
                      [usl_chart(fit, title, points.n_label, points.x_label)], grids_html(usl_grids(fit, points)),
                      result, command, findings(fit))
