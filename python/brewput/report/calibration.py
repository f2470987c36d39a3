"""A calibration (planning/calibrate.py) as a table: per step the measured and the
predicted mean response and utilization, with the relative error."""
from __future__ import annotations

from ..figures import number, percent, signed_percent


def calibration_table(calibration):
    from rich.table import Table

    c = calibration
    scv = "" if c.scv is None else f", squared cv {number(c.scv.value)} ({c.scv.interval(c.level)})"
    title = (f"{c.source}: mean service time {number(c.service.value)} {c.time_unit} "
             f"({c.service.interval(c.level)}){scv}, by the {c.method}; predicted by solve on the calibrated model")
    table = Table(title=title, title_justify="left")
    unit = c.time_unit
    columns = ("scenario", f"throughput (per {unit})", f"measured R ({unit})", f"predicted R ({unit})", "error",
               "measured U", "predicted U", "fitted")
    for k, column in enumerate(columns):
        table.add_column(column, justify="left" if k == 0 else "right")
    for row in c.predictions():
        table.add_row(str(row["scenario"]), number(row["throughput"]), number(row["response"]),
                      number(row["predicted_response"]) if row["predicted_response"] is not None else "unstable",
                      signed_percent(row["response_error"]), percent(row["utilization"]),
                      percent(row["predicted_utilization"]), "yes" if row["fitted"] else "no")
    return table
