"""The report's charts, described from an experiment record (spec.py): the talk's
throughput and latency curves, its latency boxes, utilization per station and
resource, and the percentile spectrum. With a sweep, curves against the first
swept param; without one, bars per model. Simulated figures carry their 95 %
confidence intervals (bands or error bars).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional

from .data import ChartData, Series
from .spec import Bars, Box, Chart, Line, Panel, color

NAMES = ("throughput", "latency", "latency_boxes", "utilization", "spectrum")
SPECTRUM_TO = 99.99
SPECTRUM_TICKS = [(2.0, "50%"), (10.0, "90%"), (100.0, "99%"), (1000.0, "99.9%"), (10000.0, "99.99%")]


def charts(record: dict, names: Optional[List[str]] = None) -> List[Chart]:
    """The charts a record asks for (`record["charts"]`, else all), skipping any
    it has no data for (a spectrum of solved results only, say)."""
    data = ChartData(record)
    wanted = names or record.get("charts") or list(NAMES)
    built = (BUILDERS[name](data) for name in wanted if name in BUILDERS)
    return [chart for chart in built if chart is not None]


def _values(rows, column) -> Optional[list]:
    if column not in rows:
        return None
    values = [None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) for v in rows[column]]
    return None if all(v is None for v in values) else values


def _colors(series: List[Series]) -> Dict[str, str]:
    return {base: color(i) for i, base in enumerate(dict.fromkeys(s.base for s in series))}


def _x_label(data: ChartData) -> str:
    return data.x or ""


def _sweep_ticks(data: ChartData):
    """A tick at each swept value, when there are few (cpus 1..6, not 1.2, 1.4 ...)."""
    values = data.record["sweep"][data.x]
    return [(v, f"{v:g}") for v in values] if len(values) <= 12 else None


def _at_last(data: ChartData) -> str:
    last = data.last_x()
    return f" at {last[0]}={last[1]}" if last else ""


def _panel(data: ChartData, series: List[Series], column: str, title: str, y_label: str,
           scale: float = 1.0, color_of: Optional[Callable[[Series], str]] = None) -> Panel:
    """`column` of every series: lines against the swept param, or bars without a sweep.
    Colours are one per series base label unless `color_of` says otherwise."""
    if color_of is None:
        by_base = _colors(series)
        color_of = lambda s: by_base[s.base]  # noqa: E731
    def scaled(values):
        return None if values is None else [None if v is None else v * scale for v in values]
    if data.x is not None:
        items = [Line(label=s.label, x=list(s.rows[data.x]), y=scaled(_values(s.rows, column)),
                      color=color_of(s), dash=s.dash,
                      low=scaled(_values(s.rows, column + "_ci_low")),
                      high=scaled(_values(s.rows, column + "_ci_high")))
                 for s in series if _values(s.rows, column) is not None]
        return Panel(title, _x_label(data), y_label, items, x_ticks=_sweep_ticks(data))
    items = []
    for engine in data.engines:
        mine = [s for s in series if s.engine == engine and _values(s.rows, column) is not None]
        if not mine:
            continue
        def first(c):
            values = [(_values(s.rows, c) or [None])[0] for s in mine]
            return None if all(v is None for v in values) else values
        items.append(Bars(label=engine if len(data.engines) > 1 else "", categories=[s.base for s in mine], y=scaled(first(column)),
                          colors=[color_of(s) for s in mine], hatched=engine != data.engines[0],
                          low=scaled(first(column + "_ci_low")), high=scaled(first(column + "_ci_high"))))
    return Panel(title, "", y_label, items)


def throughput_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    panel = _panel(data, series, "throughput", "", data.rate_label())
    caption = ("Completed customers per second (per time unit for slow models) after warm-up. "
               "Higher is better; a line that flattens has hit a structural limit.")
    return Chart("throughput", f"Throughput{'' if data.x else ' per model'}", caption, [panel]) if panel.items else None


def latency_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    unit = data.units.time
    panels = [_panel(data, series, "response_time_p50", "median", f"median response time ({unit})"),
              _panel(data, series, "response_time_p95", "95th percentile", f"p95 response time ({unit})")]
    panels = [p for p in panels if p.items]
    caption = ("Response time from arrival (or the end of thinking) to completion: the median and the 95th "
               "percentile. Lower is better; rising latency at flat throughput is queueing.")
    return Chart("latency", "Latency", caption, panels) if panels else None


def latency_boxes_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    colors = _colors(series)
    boxes = []
    for s, spectrum in data.spectra_at_last_x(series):
        at = dict(zip(spectrum[0], spectrum[1]))
        if not all(p in at for p in (5, 25, 50, 75, 95)):
            continue
        boxes.append(Box(label=s.label, p5=at[5], p25=at[25], p50=at[50], p75=at[75], p95=at[95],
                         color=colors[s.base], hatched=s.engine != data.engines[0]))
    if not boxes:
        return None
    panel = Panel("", "", f"response time ({data.units.time})", list(boxes))
    caption = ("Each model's latency distribution, as in the talk: the box holds the middle 50 % "
               "(25th to 75th percentile, line at the median), the whiskers the middle 90 % (5th to 95th).")
    return Chart("latency_boxes", f"Latency distribution per model{_at_last(data)}", caption, [panel])


def utilization_chart(data: ChartData) -> Optional[Chart]:
    elements = data.table[data.table["kind"].isin(["station", "resource"]) & data.table["utilization"].notna()]
    names = elements["name"]
    colors = {name: color(i) for i, name in enumerate(dict.fromkeys(names))}
    panels = []
    for model in data.models:
        series = data.element_series(model)
        panel = _panel(data, series, "utilization", model, "utilization (%)", scale=100.0,
                       color_of=lambda s: colors[s.rows["name"].iloc[0]])
        if panel.items:
            panels.append(panel)
    caption = ("How busy each station (servers serving) and resource (tokens held) is. The one at 100 % "
               "is the bottleneck; as the swept param grows the bottleneck can move from one to another.")
    return Chart("utilization", "Utilization per station and resource", caption, panels) if panels else None


def spectrum_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    colors = _colors(series)
    lines = []
    for s, (percents, values, intervals) in data.spectra_at_last_x(series):
        keep = [i for i, p in enumerate(percents) if p <= SPECTRUM_TO]
        x = [1.0 / (1.0 - percents[i] / 100.0) for i in keep]
        low = [intervals[i][0] for i in keep] if intervals else None
        high = [intervals[i][1] for i in keep] if intervals else None
        lines.append(Line(label=s.label, x=x, y=[values[i] for i in keep], color=colors[s.base],
                          dash=s.dash, low=low, high=high, points=[f"p{percents[i]:g}" for i in keep]))
    if not lines:
        return None
    panel = Panel("", "percentile", f"response time ({data.units.time})", list(lines),
                  log_x=True, x_ticks=SPECTRUM_TICKS)
    caption = ("The whole latency distribution, HdrHistogram style: response time at each percentile, "
               "the tail stretched out on a log axis of 1/(1-p). A flat line is a constant latency; a steep "
               "rise at the right is a long tail. The far tail rests on few customers: mind its band.")
    return Chart("spectrum", f"Latency percentile spectrum{_at_last(data)}", caption, [panel])


BUILDERS: Dict[str, Callable[[ChartData], Optional[Chart]]] = {
    "throughput": throughput_chart,
    "latency": latency_chart,
    "latency_boxes": latency_boxes_chart,
    "utilization": utilization_chart,
    "spectrum": spectrum_chart,
}
