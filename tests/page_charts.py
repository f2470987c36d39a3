"""The charts of a report page as the reader's browser gets them: each chart's plotly
traces, read back out of the page's `Plotly.newPlot(name, traces, ...)` calls."""
import json
import re
from pathlib import Path


def charts(page: Path) -> dict:
    """{chart name (without its `chart-` prefix): [trace, ...]} of the page in folder `page`."""
    text = (page / "index.html").read_text()
    decoder = json.JSONDecoder()
    found = {}
    for call in re.finditer(r"Plotly\.newPlot\(\s*", text):
        name, end = decoder.raw_decode(text, call.end())
        found[name.removeprefix("chart-")] = decoder.raw_decode(text, text.index("[", end))[0]
    return found
