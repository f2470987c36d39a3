"""The busiest-of-M chart: E[max of M standard normals] against M, exact beside the
approximations and the simulation, and each one's error; described with the
report's chart spec and drawn by its PNG writer."""
from __future__ import annotations

from pathlib import Path
from typing import List, Sequence

from ..errors import OptionError
from ..outputs import file_problem
from ..report.labels import end_labels
from ..report.png import write_png
from ..report.spec import Chart, Line, Panel, color, marker
from .balance import APPROXIMATIONS, busiest


# A chart of fewer points shows no trend: it runs at least this far.
LEAST_LARGEST = 64


def centres_up_to(largest: int) -> List[int]:
    """2, 4, 8, ... below `largest` (at least LEAST_LARGEST), then that."""
    largest = max(largest, LEAST_LARGEST)
    counts, m = [], 2
    while m < largest:
        counts.append(m)
        m *= 2
    return counts + [largest]


def busiest_chart(counts: Sequence[int], seed: int) -> Chart:
    rows = [busiest(m, mean=0.0, sigma=1.0, seed=seed) for m in counts]
    exact = [r.exact for r in rows]
    named = {name: [r.approximations[name] for r in rows] for name in APPROXIMATIONS}
    simulated = [r.simulated for r in rows]
    low = [r.simulated - r.simulated_half_width for r in rows]
    high = [r.simulated + r.simulated_half_width for r in rows]
    x = list(counts)

    def line(i, label, y, **band):
        return Line(label=label, x=x, y=y, color=color(i), marker=marker(i), **band)

    values = [line(0, "exact", exact)]
    values += [line(i, name, y) for i, (name, y) in enumerate(named.items(), start=1)]
    values.append(line(len(named) + 1, "simulated", simulated, low=low, high=high))
    percent = lambda ys: [100 * (y / e - 1) for y, e in zip(ys, exact)]  # noqa: E731
    errors = [line(i, name, percent(y)) for i, (name, y) in enumerate(named.items(), start=1)]
    errors.append(line(len(named) + 1, "simulated", percent(simulated), low=percent(low), high=percent(high)))
    ticks = [(m, f"{m:,}") for m in x]
    panels = [Panel("E[max of M standard normals]", "centres M", "E[max]", values, log_x=True, x_ticks=ticks),
              Panel("error against the exact value", "centres M", "error (%)", errors, log_x=True, x_ticks=ticks,
                    y_from_zero=False)]
    for panel in panels:
        panel.labels = end_labels(panel.items, panel.y_from_zero, panel.log_x)
    return Chart("busiest", "The busiest of M centres",
                 "The busiest centre's utilization is mean + sigma x E[max]; the seed's sqrt(2 ln M) "
                 f"overstates it at every M (simulation: seed {seed}, 95 % intervals).", panels)


def check_chart_path(path: Path) -> Path:
    """Refuses, before any work, a chart file that could not be written."""
    path = Path(path)
    if path.is_dir():
        raise OptionError("chart", f"{path} is a folder; expected a .png file")
    if path.suffix.lower() != ".png":
        raise OptionError("chart", f"expected a file ending in .png, got {str(path)!r}")
    problem = file_problem(path)
    if problem:
        raise OptionError("chart", f"{path}: {problem}")
    return path


def write_busiest_chart(path: Path, largest: int, seed: int) -> Path:
    chart = busiest_chart(centres_up_to(largest), seed)
    try:
        return write_png(chart, path)
    except OSError as e:
        raise OptionError("chart", f"{path}: {e.strerror or e}") from None
