"""The report: one self-contained HTML page (plotly.js inline, so it opens with
no network), the charts as PNGs, the tables as CSV, and what reproduces it (the
command, the model files, the study, the record itself).

    out_dir/index.html
    out_dir/charts/<chart>.png
    out_dir/tables/results.csv        the flat table (model units), one row per scenario and element
    out_dir/tables/<figure>.csv       throughput, median and p95 latency against the swept param
    out_dir/models/<label>.yaml       each model file's text
    out_dir/study.yaml                the study, when there was one
    out_dir/record.json               the experiment record: `brewput report record.json -o DIR` redraws it
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

from ..figures import number
from .charts import charts as build_charts
from .data import ChartData
from .from_charts import from_chart
from .from_table import clearing_table, from_tables
from .page import chart_section, make_folder, page
from .png import write_png
from .source import check_record
from .summary import figure_tables, headlines

def write_report(record: dict, out_dir) -> Path:
    """Writes the report of an experiment record into out_dir; returns index.html's path."""
    check_record(record, "the experiment record")
    from .day_page import is_day_record, table_html, write_day_report

    if is_day_record(record):  # drawn through the day, not as the day's totals
        return write_day_report(record, out_dir)
    out = Path(out_dir)
    make_folder(out, "charts", "tables", "models")
    data = ChartData(record)
    followed = [s["results"] for s in record["scenarios"] if "from" in s["results"]]   # solve --from
    charts = [from_chart(res) for res in followed] + build_charts(record)
    summary = headlines(data)
    sections = [_header(record)] + ([] if summary.empty else [_headlines(summary)])  # none: no steady state
    for k, chart in enumerate(charts):
        png = write_png(chart, out / "charts" / f"{chart.name}.png")
        sections.append(chart_section(chart, png.relative_to(out), include_plotlyjs=k == 0))
    for res in followed:
        grid_table = from_tables(res)[0]   # the table solve prints (its clearing line is the table after it)
        sections += [table_html(grid_table), table_html(clearing_table(res))]
        sections += [f"<p>Note: {escape(note)}</p>" for note in res["notes"]]
    sections.append(_tables(data, out))
    sections.append(_reproduce(record, out))
    index = out / "index.html"
    index.write_text(page(data.title, sections), encoding="utf-8")
    return index


def _header(record: dict) -> str:
    scenarios = record["scenarios"]
    models = len({s["model"] for s in scenarios})
    engines = ", ".join(sorted({s["engine"] for s in scenarios}))
    sweep = "; ".join(f"{name} = {', '.join(map(str, values))}" for name, values in (record.get("sweep") or {}).items())
    meta = f"{len(scenarios)} scenarios, {models} model{'s' if models != 1 else ''}, engine: {engines}"
    if sweep:
        meta += f"; swept: {sweep}"
    fixed = _fixed_params(record)
    if fixed:
        meta += "; every scenario: " + ", ".join(f"{name} = {value}" for name, value in fixed.items())
    if record.get("created"):
        meta += f"; made {record['created']}"
    html = f"<h1>{escape(record.get('title') or 'brewput report')}</h1>\n<p class=\"meta\">{escape(meta)}</p>"
    if record.get("interrupted"):
        html += '\n<p class="warning">This run was interrupted: only the scenarios that finished are shown.</p>'
    return html


def _fixed_params(record: dict) -> dict:
    """The model params every scenario shares and no sweep varies (the coffee study's
    noise, say): what the charts hold fixed, so the reader knows it."""
    every = [s["results"].get("params") or {} for s in record["scenarios"]]
    swept = record.get("sweep") or {}
    return {name: value for name, value in every[0].items()
            if name not in swept and all(params.get(name) == value for params in every[1:])}


def _table(frame) -> str:
    return frame.to_html(index=False, classes="figures", border=0, na_rep="-",
                         float_format=number)


def _headlines(summary) -> str:
    return "<h2>Summary</h2>\n" + _table(summary)


def _tables(data: ChartData, out: Path) -> str:
    from ..experiment.record import flat_table

    flat_table(data.record).to_csv(out / "tables" / "results.csv", index=False)
    labels = {"throughput": data.rate_label(), "median_latency": f"median latency ({data.units.time})",
              "p95_latency": f"p95 latency ({data.units.time})",
              "figures": f"{data.rate_label()}; latencies in {data.units.time}"}
    html = ["<h2>Tables</h2>",
            '<p>Every figure of every scenario, one row per scenario and class, station, resource or class at a '
            'station, in the '
            'models\' own time units: <a href="tables/results.csv">tables/results.csv</a>.</p>']
    for name, frame in figure_tables(data).items():
        frame.to_csv(out / "tables" / f"{name}.csv", index=False)
        html.append(f'<h3>{escape(labels.get(name, name))} <a href="tables/{name}.csv">CSV</a></h3>')
        html.append(_table(frame))
    flat = flat_table(data.record)
    for kind, title, name in ELEMENT_TABLES:
        frame = _element_table(flat[flat["kind"] == kind], list(data.record["sweep"]))
        if frame is not None:
            frame.to_csv(out / "tables" / f"{name}.csv", index=False)
            html.append(f'<h3>{escape(title)}, in the models\' time units, 95 % intervals in brackets '
                        f'<a href="tables/{name}.csv">CSV</a></h3>')
            html.append(_table(frame))
    return "\n".join(html)


#: The element tables under the class figures: (kind of flat_table row, title, file).
ELEMENT_TABLES = (("station", "Stations", "stations"), ("class at station", "Classes at each station",
                                                        "classes_at_stations"))
#: Their figures, where some scenario has them.
ELEMENT_FIGURES = ("utilization", "queue_length", "waiting", "response_time", "throughput")


def _element_table(rows, swept):
    """A row per scenario and station (or class at a station): its figures, each with its
    interval where the engine gave one (simulated); None where there are no such rows."""
    if rows.empty:
        return None

    def column(name):
        return rows[name] if name in rows else [None] * len(rows)

    shown = rows[["model", "engine", *swept, "name"]].reset_index(drop=True)
    for figure in ELEMENT_FIGURES:
        if figure in rows and rows[figure].notna().any():
            shown[figure] = [_with_interval(*cells) for cells in
                             zip(column(figure), column(f"{figure}_ci_low"), column(f"{figure}_ci_high"))]
    return shown


def _with_interval(value, low, high) -> str:
    if value is None or value != value:
        return "-"
    if low is None or high is None or low != low or high != high:
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"


def _reproduce(record: dict, out: Path) -> str:
    (out / "record.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    html = ["<h2>Reproduce</h2>"]
    if record.get("command"):
        html.append(f"<p>The command that made these results:</p>\n<pre>{escape(record['command'])}</pre>")
    html.append('<p>The whole experiment record is <a href="record.json">record.json</a>; '
                "<code>brewput report record.json -o DIR</code> redraws this report from it.</p>")
    if record.get("study"):
        (out / "study.yaml").write_text(record["study"], encoding="utf-8")
        html.append('<details><summary>The study: <a href="study.yaml">study.yaml</a></summary>'
                    f"<pre>{escape(record['study'])}</pre></details>")
    for label, entry in (record.get("models") or {}).items():
        text = entry.get("text")
        if text is None:
            continue
        name = f"{_safe(label)}.yaml"
        (out / "models" / name).write_text(text, encoding="utf-8")
        source = f" (from {escape(entry['file'])})" if entry.get("file") else ""
        html.append(f'<details><summary>Model {escape(label)}: <a href="models/{escape(name)}">models/'
                    f"{escape(name)}</a>{source}</summary><pre>{escape(text)}</pre></details>")
    return "\n".join(html)


def _safe(label: str) -> str:
    """A model label as a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label).lstrip(".") or "model"
