"""One HTML page of brewput's: the style, a chart as an interactive figure with
its PNG beside it, a table, and the page around them. The experiment report
(html.py) and the planning reports (planning.py) are both made of these."""
from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import List, Optional, Sequence

from ..errors import BrewputError
from .interactive import to_html_div
from .png import write_png
from .spec import Chart

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1.5em; color: #222; }
h1 { margin-bottom: 0.2em; } .meta { color: #666; margin-top: 0; }
table.figures { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0 1.5em; }
table.figures th, table.figures td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
table.figures th { background: #f4f4f4; } table.figures td:first-child { text-align: left; }
.chart { margin: 2em 0; } .caption { color: #444; max-width: 60em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; } .warning { color: #a40; font-weight: bold; }
"""


def page(title: str, sections: List[str]) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(sections) + "\n</body>\n</html>\n")


def chart_section(chart: Chart, png: Path, include_plotlyjs: bool) -> str:
    return (f'<div class="chart" id="{escape(chart.name)}">\n<h2>{escape(chart.title)}</h2>\n'
            f'<p class="caption">{escape(chart.caption)} <a href="{escape(png.as_posix())}">PNG</a></p>\n'
            f"{to_html_div(chart, include_plotlyjs)}\n</div>")


def table_section(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table of text cells (already formatted, as the command prints them)."""
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = "\n".join("<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<h2>{escape(title)}</h2>\n<table class=\"figures\">\n<tr>{head}</tr>\n{body}\n</table>"


def make_folder(out: Path, *subfolders: str) -> None:
    try:
        for sub in ("", *subfolders):
            (out / sub).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BrewputError(f"{out}: cannot create the report folder: {e.strerror or e}") from None


def write_page(out_dir, title: str, meta: str, charts: Sequence[Chart], tables: Sequence[str],
               record: dict, command: Optional[str] = None, notes: Sequence[str] = ()) -> Path:
    """A report page of a planning command: its charts (interactive, and as PNGs
    under charts/), its tables, its notes and what it computed (record.json)."""
    out = Path(out_dir)
    make_folder(out, "charts")
    sections = [f"<h1>{escape(title)}</h1>\n<p class=\"meta\">{escape(meta)}</p>"]
    sections += [f"<p>{escape(note)}</p>" for note in notes]
    for k, chart in enumerate(charts):
        png = write_png(chart, out / "charts" / f"{chart.name}.png")
        sections.append(chart_section(chart, png.relative_to(out), include_plotlyjs=k == 0))
    sections += list(tables)
    (out / "record.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    reproduce = ["<h2>Reproduce</h2>"]
    if command:
        reproduce.append(f"<p>The command that made it:</p>\n<pre>{escape(command)}</pre>")
    reproduce.append('<p>Everything it computed: <a href="record.json">record.json</a>.</p>')
    sections.append("\n".join(reproduce))
    index = out / "index.html"
    index.write_text(page(title, sections), encoding="utf-8")
    return index
