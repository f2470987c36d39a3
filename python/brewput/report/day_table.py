"""The tables of a day solved per interval (analytic/timevarying/day_model.py): one per
class and its station, a row per interval, headed by how it was solved."""
from __future__ import annotations

from typing import List

from ..figures import number
from ..units import Display
from .table import _table, exactness, figure


def day_tables(res: dict) -> List:
    unit = Display.of(res["time_unit"]).time
    within = next((c["waiting_time"].get("within", []) for i in res["intervals"][:1]
                   for c in i["classes"].values()), [])
    tables = []
    for name in res["classes"]:
        station = res["classes"][name]["station"]
        how = exactness(res["classes"][name])
        table = _table(f"{name} at {station} per interval, {how} (waits and abandonment of those who "
                       f"arrived in it; L, Lq over its time)",
                       ["interval", "servers", "arrivals", f"mean wait ({unit})",
                        *(f"P(wait<={t:g})" for t, _ in within), "abandoned (%)", "utilization",
                        "in station (L)", "waiting (Lq)"])
        for i in res["intervals"]:
            c, s = i["classes"][name], i["stations"][station]
            levels = [number(p) for _, p in c["waiting_time"].get("within", [])]
            table.add_row(i["label"], number(s["servers"]), figure(c, "arrivals"), figure(c["waiting_time"], "mean"),
                          *levels, figure(c, "abandonment", 100), figure(s, "utilization"),
                          figure(s, "queue_length"), figure(s, "waiting"))
        tables.append(table)
    return tables

