"""The tables of a day solved per interval (analytic/timevarying/day_model.py): one per
class and its station, a row per interval, headed by how it was solved."""
from __future__ import annotations

from typing import List, Optional, Sequence

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



#: The methods `compare` sets side by side for a day, exact first.
COMPARED = ("transient", "psa", "sipp", "lag-sipp", "mol")


def day_comparison_tables(solved: dict, simulated: Optional[dict]) -> List:
    """Per class, a row per interval: the mean wait of those served by each method (and
    P(wait <= t) for each t asked), beside the simulation's with its interval when given."""
    first = next(iter(solved.values()))
    unit = Display.of(first["time_unit"]).time
    tables = []
    for name in first["classes"]:
        station = first["classes"][name]["station"]
        within = [t for t, _ in first["intervals"][0]["classes"][name]["waiting_time"].get("within", [])]
        shown = [("mean wait", unit, None)] + [(f"P(wait<={t:g})", "", k) for k, t in enumerate(within)]
        for title, in_unit, k in shown:
            table = _table(f"{name} at {station}: {title}{f' ({in_unit})' if in_unit else ''} of those served "
                           f"who arrived in each interval", ["interval", "servers",
                                                              *(["simulate"] if simulated else []),
                                                              *(f"{m}{'' if solved[m]['intervals'][0]['classes'][name]['exact'] else ' ≈'}"
                                                                for m in solved)])
            for i, interval in enumerate(first["intervals"]):
                row = [interval["label"], number(interval["stations"][station]["servers"])]
                if simulated:
                    row.append(_figure_of(simulated["intervals"][i]["classes"][name]["waiting_time"], k))
                row += [_figure_of(res["intervals"][i]["classes"][name]["waiting_time"], k) for res in solved.values()]
                table.add_row(*row)
            tables.append(table)
    return tables


def _figure_of(waiting: dict, k: Optional[int]) -> str:
    """The mean (k None) or the k-th service level asked, with its interval when simulated."""
    if k is None:
        return figure(waiting, "mean")
    levels, cis = waiting.get("within") or [], waiting.get("within_ci")
    if len(levels) <= k:
        return number(None)
    return figure({"p": levels[k][1], "p_ci": cis[k] if cis else None}, "p")


def rota_table(plan, slos: Sequence[str], shifts=None) -> object:
    """A planned rota (planning/rota.py): servers per interval, each interval's figure for
    each objective (`slos`, as written) and whether the exact transient says it holds there; with shifts
    (planning/rota_shifts.py), those starting and on in each interval too; confirmed, the
    simulation's verdict on the rota worked."""
    def costing(counts) -> str:
        return "" if plan.price is None else f" costing {plan.cost(counts):,.2f} at {plan.price:g} a server-hour"

    hours = "" if shifts is None else (f", in shifts {plan.hours(shifts.covered):g} server-hours"
                                       f"{costing(shifts.covered)} ({shifts.over} server-intervals over the needs)")
    judged = "each interval judged by the exact transient"
    if all(h is None for h in plan.held):
        simulated = plan.simulated and any(v is not None for figures in plan.worst for v in figures.values())
        judged = "the exact transient does not solve this day" + (": figures simulated" if simulated else "")
    table = _table(f"rota for {plan.station} by {plan.method}: {plan.server_hours:g} server-hours"
                   f"{costing(plan.counts)}{hours}, {judged}", ["interval", "servers",
                                                              *slos, "held",
                                                              *(["shifts starting", "on in shifts", "held in shifts"]
                                                                if shifts else []),
                                                              *(["simulated"] if plan.simulated else [])])
    for i, (label, count, held, figures) in enumerate(zip(plan.labels, plan.counts, plan.held, plan.worst)):
        table.add_row(label, str(count), *(number(figures[slo]) for slo in slos),
                      "" if held is None else "held" if held else "broken",
                      *([str(shifts.starts[i]), str(shifts.covered[i]),
                         "" if shifts.held is None else "held" if shifts.held[i] else "broken"] if shifts else []),
                      *([plan.simulated[i]] if plan.simulated else []))
    return table
