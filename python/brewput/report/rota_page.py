"""The report of a planned rota (`plan --rota METHOD [--shift TIME] --report DIR`): the rota
as a step chart and a table, and each objective's figure per interval by the exact
transient against its bound.

The rota chart draws the servers the method found per interval (steps), the intervals the
exact transient finds broken (marked), and with --shift the servers the shifts put on
(steps) and the over-staffing they force (servers beyond the rota, per interval).
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

from ..units import Display
from .day_rates import rates_of
from .spec import Chart, Guide, Line, color
from .time_of_day import TimeOfDay


def rota_record(model, planned, objectives, shifts=None) -> dict:
    """What the page draws, as record.json keeps it: the plan (`plan --rota --json`'s), the
    intervals' times, the objectives' bounds, each class's rate through the day and the
    model's name and time unit."""
    day = model.day.timeline
    record = {"model": model.name, "time_unit": model.time_unit, **planned.as_dict(shifts),
              "objectives": [{"slo": o.text, "op": o.op, "bound": o.value, "unit": o.unit} for o in objectives]}
    for interval, start in zip(record["intervals"], day.edges[:-1]):
        interval["start"], interval["end"] = float(start), float(start + day.interval)
    record["rates"] = {name: rate._asdict() for name, rate in rates_of(model).items()}
    return record


def _broken(axis: TimeOfDay, label: str, counts: List[int], held: List[Optional[bool]], k: int) -> Optional[Line]:
    """The intervals an objective breaks in, marked ✕ at their servers (none where all hold):
    a point at each such interval's middle, a gap at every edge between, so that no two are joined."""
    if all(h is None or h for h in held):
        return None
    x = [at for middle, edge in zip(axis.middles, axis.edges[1:]) for at in (middle, edge)]
    y = [value for c, h in zip(counts, held) for value in (c if h is False else None, None)]
    return Line(label=label, x=x, y=y, color=color(k), marker="x", dash="dot",
                points=[text for label in axis.labels for text in (label, label)])


def rota_chart(record: dict) -> Chart:
    axis = TimeOfDay(record["intervals"], record["time_unit"])
    counts = [i["servers"] for i in record["intervals"]]
    method = record["method"]
    lines = [axis.steps(f"{method} rota", counts, 0)]
    broken = _broken(axis, f"{method}: broken (transient)", counts, [i["held"] for i in record["intervals"]], 3)
    shifts = record.get("shifts")
    panels = []
    caption = (f"The servers at {record['station']} per interval, as {method} plans them (steps), the intervals "
               "where the exact transient finds an objective broken marked ✕")
    if shifts:
        lines.append(axis.steps("shifts", shifts["covered"], 1, dash="dash"))
        if shifts.get("held") is not None:
            more = _broken(axis, "shifts: broken (transient)", shifts["covered"], shifts["held"], 4)
            if more is not None:
                lines.append(more)
        over = [c - n for c, n in zip(shifts["covered"], counts)]
        panels.append(axis.panel("over-staffing", "servers beyond the rota",
                                 [axis.steps("shifts", over, 1)]))
        caption += (f"; the servers the shifts put on (dashed) and, beside, the over-staffing they force: "
                    f"{shifts['over_staffing']} server-intervals beyond the rota")
    if broken is not None:
        lines.append(broken)
    panels.insert(0, axis.panel("servers per interval", "servers", lines))
    shown = Display.of(axis.time_unit)   # rates per second for a model in ms, as every rate the report shows
    rates = [Line(label=f"{name} rate" if len(record["rates"]) > 1 else "rate", x=rate["times"],
                  y=[r * shown.rate_from(axis.time_unit) for r in rate["rates"]], color=color(5 + k), marker=None,
                  steps=rate["steps"]) for k, (name, rate) in enumerate(record["rates"].items())]
    if rates:  # what the rota staffs for, beside it
        panels.insert(0, axis.panel("arrival rate", f"arrivals {shown.per}", rates))
        caption = "The model's arrival rate through the day and the servers" + caption[len("The servers"):]
    cost = "" if record["cost"] is None else f", costing {record['cost']:,.2f}"
    return Chart("rota", f"Rota for {record['station']} by {method}: {record['server_hours']:g} server-hours{cost}",
                 caption + ".", panels)


def objectives_chart(record: dict) -> Chart:
    """Each objective's figure per interval on the rota, by the exact transient, against its bound."""
    axis = TimeOfDay(record["intervals"], record["time_unit"])
    unit = Display.of(axis.time_unit).time
    panels = []
    for k, objective in enumerate(record["objectives"]):
        scale = 100.0 if objective["unit"] == "%" else 1.0
        figures = [i["figures"].get(objective["slo"]) for i in record["intervals"]]
        line = Line(label="transient", x=list(axis.middles), y=[None if f is None else f * scale for f in figures],
                    color=color(0), marker="circle", points=list(axis.labels))
        y_label = "%" if scale != 1.0 else "share" if objective["unit"] == "fraction" else unit
        panels.append(axis.panel(objective["slo"], y_label, [line],
                                 guides=[Guide("y", objective["bound"] * scale, f"objective {objective['slo']}")]))
    return Chart("rota_objectives", "The objectives through the day",
                 "Each objective's figure in each interval on the planned rota (the worst class's, by the exact "
                 "transient: of those who arrived in the interval, with the backlog the intervals before left), "
                 "against its bound (dark red).", panels)


def rota_table_of(record: dict):
    """The table plan prints, from the record: the same cells at plan time and redrawn."""
    from ..planning.rota import RotaPlan
    from ..planning.rota_shifts import Shifts
    from .day_table import rota_table

    shifts = record.get("shifts")
    return rota_table(RotaPlan.from_dict(record), [o["slo"] for o in record["objectives"]],
                      None if shifts is None else Shifts.from_dict(shifts))


def write_rota_report(out_dir, record: dict, command: Optional[str]) -> Path:
    """The rota's page, drawn from its record alone (so that `brewput report record.json`
    draws it again): its charts, the table plan prints, what it computed (record.json)."""
    from .day_page import table_html
    from .page import write_page

    meta = f"model {record['model']}, times in {record['time_unit']}"
    return write_page(out_dir, f"Rota: {record['model']}", meta, [rota_chart(record), objectives_chart(record)],
                      [table_html(rota_table_of(record))], record, command,
                      [f"Note: {note}" for note in record.get("notes", ())])
