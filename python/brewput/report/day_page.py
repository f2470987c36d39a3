"""The report of a day: an experiment record without a sweep whose scenarios answer a
model with a `day:` (simulate, solve, compare: day_charts.py) or measure one (`load
--day`: day_measured.py), drawn through the day in place of the day's totals, with the
tables the commands print per interval."""
from __future__ import annotations

from pathlib import Path
from typing import List

from .day_charts import Day, day_charts, days_of
from .day_measured import measured_chart
from .day_summary import summary_grid
from .page import chart_section, make_folder, page, table_section
from .png import write_png


def is_day_record(record: dict) -> bool:
    """Whether a record is a day's: no sweep, and every scenario answered per interval."""
    return not record.get("sweep") and all(s["results"].get("intervals") for s in record["scenarios"])


def write_day_report(record: dict, out_dir) -> Path:
    """The day's page into out_dir (charts/, tables/results.csv, models/, record.json); its index.html."""
    from ..experiment.record import flat_table
    from .html import _header, _reproduce, _safe

    out = Path(out_dir)
    make_folder(out, "charts", "tables", "models")
    days = days_of(record["scenarios"], record.get("models"))
    measured = [s for s in record["scenarios"] if s["engine"] == "load"]
    charts = [(model, chart) for model, day in days.items() for chart in day_charts(day)]
    charts += [(s["model"], measured_chart(s["results"])) for s in measured]
    sections = [_header(record)]
    sections += [table_section(g.title, g.columns, g.rows) for g in map(summary_grid, days.values())]
    for k, (model, chart) in enumerate(charts):
        if len(days) + len(measured) > 1:
            chart.name, chart.title = f"{chart.name}-{_safe(model)}-{k}", f"{model}: {chart.title}"
        png = write_png(chart, out / "charts" / f"{chart.name}.png")
        sections.append(chart_section(chart, png.relative_to(out), include_plotlyjs=k == 0))
    sections.append("<h2>Tables</h2>")
    for day in days.values():
        sections += [table_html(table) for table in day_tables_of(day)]
    flat_table(record).to_csv(out / "tables" / "results.csv", index=False)
    sections.append('<p>Every figure of every scenario, the day\'s totals and a row per interval, in the '
                    'models\' own time units: <a href="tables/results.csv">tables/results.csv</a>.</p>')
    sections.append(_reproduce(record, out))
    index = out / "index.html"
    index.write_text(page(record.get("title") or "brewput report", sections), encoding="utf-8")
    return index


def day_tables_of(day: Day) -> List:
    """The tables the commands print for the day: simulate's, solve's per interval, or
    compare's methods side by side with the simulation."""
    from .day_table import day_comparison_tables, day_tables
    from .table import results_tables

    if day.solved and (day.simulated or len(day.solved) > 1):
        return day_comparison_tables({r["method"]: r for r in day.solved}, day.simulated)
    if day.solved:
        return day_tables(day.solved[0])
    return results_tables(day.simulated)


def table_html(table) -> str:
    """A printed table (text_table.py's Table) on the page, cell for cell."""
    rows = [[str(cell) for cell in row] for row in zip(*(column._cells for column in table.columns))]
    return table_section(table.title, [column.header for column in table.columns], rows)
