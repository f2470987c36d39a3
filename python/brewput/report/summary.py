"""The report's tables, in display units: a headline per model and the figures
against the swept param (throughput, median and p95 latency), as DataFrames."""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List

from ..figures import number, percent
from .data import ChartData

if TYPE_CHECKING:
    import pandas

FIGURES = {"throughput": "throughput", "response_time_p50": "median latency", "response_time_p95": "p95 latency"}


def headlines(data: ChartData) -> "pandas.DataFrame":
    """Per model, engine and class: the peak throughput and where it is reached,
    and at the last swept value (or the only scenario) the throughput, median
    and p95 latency, the median of each measure between marks, the share of
    customers lost (when any was) and the busiest station or resource."""
    import pandas

    rate, time = data.rate_label(), data.units.time
    last = data.last_x()
    at = f" at {last[0]}={last[1]}" if last else ""
    rows: List[Dict[str, str]] = []
    lossy = "loss_probability" in data.table and (data.table["loss_probability"].fillna(0) > 0).any()
    for s in data.class_series():
        row = {"model": s.base, "engine": s.engine}
        peak = s.rows["throughput"].astype(float)
        if data.x is not None and peak.notna().any():
            best = s.rows.loc[peak.idxmax()]
            row[f"peak {rate}"] = f"{number(best['throughput'])} at {data.x}={best[data.x]}"
        final = data.at_last_x(s) or {}
        row[f"{rate}{at}"] = number(final.get("throughput"))
        row[f"median ({time}){at}"] = number(final.get("response_time_p50"))
        row[f"p95 ({time}){at}"] = number(final.get("response_time_p95"))
        for name in data.measures():
            row[f"median {name} ({time}){at}"] = number(final.get(f"measure_{name}_p50"))
        if lossy:
            row[f"lost (%){at}"] = number(_hundred(final.get("loss_probability")))
        row[f"busiest{at}"] = _busiest(data, final)
        rows.append(row)
    return pandas.DataFrame(rows)


def _busiest(data: ChartData, final: dict) -> str:
    if not final:
        return "-"
    table = data.table
    elements = table[(table["scenario"] == final["scenario"]) & table["kind"].isin(["station", "resource"])]
    elements = elements[elements["utilization"].notna()]
    if elements.empty:
        return "-"
    top = elements.loc[elements["utilization"].astype(float).idxmax()]
    return f"{top['name']} ({percent(top['utilization'])})"


def figure_tables(data: ChartData) -> Dict[str, "pandas.DataFrame"]:
    """Each of FIGURES as a table: a row per series, a column per swept value
    (without a sweep, one table with a column per figure)."""
    import pandas

    series = data.class_series()
    if data.x is None:
        rows = [{"model": s.base, "engine": s.engine,
                 **{name: s.rows[column].iloc[0] for column, name in FIGURES.items() if column in s.rows}}
                for s in series]
        return {"figures": pandas.DataFrame(rows)}
    tables = {}
    for column, name in FIGURES.items():
        rows = []
        for s in series:
            if column in s.rows and s.rows[column].notna().any():
                rows.append({"model": s.base, "engine": s.engine,
                             **{f"{data.x}={x}": v for x, v in zip(s.rows[data.x], s.rows[column])}})
        if rows:
            tables[name.replace(" ", "_")] = pandas.DataFrame(rows)
    return tables


def _hundred(share):
    return None if share is None else 100 * share
