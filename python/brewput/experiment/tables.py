"""Rich tables of an experiment record: a figure against the first swept param
(one row per model, the way the talk's charts read), and every scenario's figures."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from rich.table import Table

from ..report.table import PER_SECOND, figure, number

def throughput_per_second(res: dict, cls: dict) -> Optional[float]:
    x = cls["throughput"]
    return None if x is None else x * PER_SECOND.get(res["time_unit"], 1.0)


def median_latency(res: dict, cls: dict) -> Optional[float]:
    return cls["response_time"].get("p50")


FIGURES: Dict[str, Tuple[str, Callable[[dict, dict], Optional[float]]]] = {
    "throughput": ("Throughput (per second)", throughput_per_second),
    "latency": ("Median latency ({unit})", median_latency),
}


def pivot_table(record: dict, figure_name: str, title: Optional[str] = None,
                column_label: Optional[Callable[[object], str]] = None, row_header: str = "model") -> Table:
    """`figure_name` (throughput | latency) of every class, one row per model (and
    engine, class and other swept params where there are several), one column per
    value of the first swept param (headed `name=value` unless `column_label` says)."""
    default_title, value_of = FIGURES[figure_name]
    scenarios = record["scenarios"]
    swept = list(record["sweep"])
    across, others = (swept[0], swept[1:]) if swept else (None, [])
    columns = record["sweep"][across] if across else [None]
    several_engines = len({s["engine"] for s in scenarios}) > 1
    several_classes = any(len(s["results"]["classes"]) > 1 for s in scenarios)
    units = {s["results"]["time_unit"] for s in scenarios}

    rows: Dict[tuple, Dict] = {}
    for s in scenarios:
        for name, cls in s["results"]["classes"].items():
            key = (s["model"],) + ((s["engine"],) if several_engines else ()) \
                + ((name,) if several_classes else ()) + tuple(f"{p}={s['params'][p]}" for p in others)
            rows.setdefault(key, {})[s["params"].get(across)] = value_of(s["results"], cls)

    table = Table(title=title or default_title.format(unit="/".join(sorted(units))), title_justify="left")
    table.add_column(row_header)
    for value in columns:
        label = column_label(value) if column_label else "" if across is None else f"{across}={value}"
        table.add_column(label, justify="right")
    for key, cells in rows.items():
        table.add_row(" ".join(key), *(_cell(cells.get(value)) for value in columns))
    return table


def _cell(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.4g}"


def scenario_table(record: dict) -> Table:
    """Every scenario's classes: the swept params, throughput and response times,
    with confidence intervals where the engine gives them."""
    swept = list(record["sweep"])
    several_models = len(record["models"]) > 1
    table = Table(title=f"{record['title']}: {len(record['scenarios'])} scenarios", title_justify="left")
    headers: List[str] = (["model"] if several_models else []) + swept + ["class", "throughput", "mean",
                                                                          "p50", "p95", "p99"]
    for header in headers:
        table.add_column(header, justify="left" if header in ("model", "class") else "right")
    for s in record["scenarios"]:
        for name, cls in s["results"]["classes"].items():
            rt = cls["response_time"]
            table.add_row(*([s["model"]] if several_models else []),
                          *(number(s["params"][p]) for p in swept), name, figure(cls, "throughput"),
                          *(figure(rt, k) for k in ("mean", "p50", "p95", "p99")))
    return table
