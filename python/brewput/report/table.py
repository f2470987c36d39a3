"""Rich tables of a results dict: per class, per station, per resource."""
from __future__ import annotations

import math
from typing import Optional, Sequence

from rich.table import Table

PER_SECOND = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}


def number(x: Optional[float]) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x == 0 or 1e-3 <= abs(x) < 1e6:
        return f"{x:.4g}"
    return f"{x:.3e}"


def figure(holder: dict, key: str) -> str:
    """A figure of a results dict, with its confidence interval when it has one."""
    return with_ci(holder.get(key), holder.get(f"{key}_ci"))


def exactness(holder: dict) -> str:
    """For analytic results: `exact (method)` or `≈ method`."""
    return f"exact ({holder['method']})" if holder["exact"] else f"≈ {holder['method']}"


def with_ci(x: Optional[float], ci: Optional[Sequence[float]]) -> str:
    """`x ± half-width` when there is an interval worth showing."""
    text = number(x)
    if ci is not None and None not in ci and x is not None:
        half = (ci[1] - ci[0]) / 2
        if half > 0:
            text += f" ± {half:.2g}"
    return text


def class_table(res: dict) -> Table:
    unit = res["time_unit"]
    per_second = PER_SECOND.get(unit)
    table = Table(title=f"{res['model']}: classes (times in {unit})", title_justify="left")
    table.add_column("class")
    table.add_column(f"throughput /{unit}", justify="right")
    if per_second and per_second != 1.0:
        table.add_column("per s", justify="right")
    for name in ("mean", "p50", "p95", "p99"):
        table.add_column(name, justify="right")
    solved = res["engine"] == "solve"
    if solved:
        table.add_column("method")
    else:
        table.add_column("max", justify="right")
        table.add_column("lost", justify="right")
    for name, c in res["classes"].items():
        rt = c["response_time"]
        cells = [name, figure(c, "throughput")]
        if per_second and per_second != 1.0:
            cells.append(number(c["throughput"] * per_second if c["throughput"] is not None else None))
        cells += [figure(rt, k) for k in ("mean", "p50", "p95", "p99")]
        cells += [exactness(c)] if solved else [number(rt["max"]), f"{c['lost']:,}"]
        table.add_row(*cells)
    return table


def station_table(res: dict) -> Table:
    table = Table(title="stations", title_justify="left")
    solved = res["engine"] == "solve"
    columns = ("station", "utilization", "busy servers", "queue length", "waiting", "response", "throughput")
    for column in columns + (("method",) if solved else ()):
        table.add_column(column, justify="right" if column in columns[1:] else "left")
    for name, s in res["stations"].items():
        cells = [figure(s, k) for k in
                 ("utilization", "busy_servers", "queue_length", "waiting", "response_time", "throughput")]
        table.add_row(name, *cells, *([exactness(s)] if solved else []))
    return table


def resource_table(res: dict) -> Table:
    table = Table(title="resources", title_justify="left")
    for column in ("resource", "utilization", "in use"):
        table.add_column(column, justify="left" if column == "resource" else "right")
    for name, r in res["resources"].items():
        table.add_row(name, figure(r, "utilization"), figure(r, "in_use"))
    return table


def interval(pair) -> str:
    if pair is None:
        return "-"
    low, high = pair
    return f"{number(low) if low is not None else '…'} .. {number(high) if high is not None else '…'}"


def bounds_table(res: dict) -> Table:
    """Bottleneck, saturation population and the bounds of each class (analytic results)."""
    table = Table(title="bounds", title_justify="left")
    for column in ("class", "bottleneck", "max throughput", "saturation N*", "throughput", "response time",
                   "balanced throughput", "balanced response"):
        table.add_column(column, justify="left" if column in ("class", "bottleneck") else "right")
    for name, b in res["bounds"].items():
        table.add_row(name, b["bottleneck"], number(b["max_throughput"]), number(b["saturation_population"]),
                      interval(b["throughput"]), interval(b["response_time"]),
                      interval(b["balanced_throughput"]), interval(b["balanced_response_time"]))
    return table


def results_tables(res: dict) -> list:
    tables = [class_table(res), station_table(res)]
    if res["resources"]:
        tables.append(resource_table(res))
    if res.get("bounds"):
        tables.append(bounds_table(res))
    return tables


def comparison_table(title: str, rows, level: float) -> Table:
    """`brewput compare`: analytic beside simulated, figure by figure."""
    table = Table(title=title, title_justify="left")
    for column in ("figure", "solve", "simulate", "difference", f"in {level:.0%} CI"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    for row in rows:
        analytic = number(row.analytic) + ("" if row.exact else f" (≈ {row.method})")
        simulated = with_ci(row.simulated, row.ci)
        diff = "-" if row.relative_difference is None else f"{row.relative_difference:+.2%}"
        inside = {None: "-", True: "[green]yes[/]", False: "[red]no[/]"}[row.inside]
        table.add_row(row.figure, analytic, simulated, diff, inside)
    return table
