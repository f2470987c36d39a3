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
    table.add_column("max", justify="right")
    table.add_column("lost", justify="right")
    for name, c in res["classes"].items():
        rt = c["response_time"]
        cells = [name, with_ci(c["throughput"], c["throughput_ci"])]
        if per_second and per_second != 1.0:
            cells.append(number(c["throughput"] * per_second if c["throughput"] is not None else None))
        cells += [with_ci(rt[k], rt[f"{k}_ci"]) for k in ("mean", "p50", "p95", "p99")]
        cells += [number(rt["max"]), f"{c['lost']:,}"]
        table.add_row(*cells)
    return table


def station_table(res: dict) -> Table:
    table = Table(title="stations", title_justify="left")
    for column in ("station", "utilization", "busy servers", "queue length", "waiting", "response", "throughput"):
        table.add_column(column, justify="left" if column == "station" else "right")
    for name, s in res["stations"].items():
        table.add_row(name, *(with_ci(s[k], s[f"{k}_ci"]) for k in
                              ("utilization", "busy_servers", "queue_length", "waiting", "response_time",
                               "throughput")))
    return table


def resource_table(res: dict) -> Table:
    table = Table(title="resources", title_justify="left")
    for column in ("resource", "utilization", "in use"):
        table.add_column(column, justify="left" if column == "resource" else "right")
    for name, r in res["resources"].items():
        table.add_row(name, with_ci(r["utilization"], r["utilization_ci"]), with_ci(r["in_use"], r["in_use_ci"]))
    return table


def results_tables(res: dict) -> list:
    tables = [class_table(res), station_table(res)]
    if res["resources"]:
        tables.append(resource_table(res))
    return tables
