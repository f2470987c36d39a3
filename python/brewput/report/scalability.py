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
