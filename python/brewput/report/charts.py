"""The report's charts, described from an experiment record (spec.py): the talk's
throughput and latency curves, the capacity planner's latency against
throughput, the talk's latency boxes, utilization per station and resource, and
the percentile spectrum. With a sweep, curves against the first swept param,
each named at its end (labels.py); without one, bars per model. Simulated
figures carry their 95 % confidence intervals (bands or error bars); where the
record holds analytic bounds, the throughput chart draws them.
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Tuple

from ..experiment.record import CHARTS
from ..figures import number
from .data import ELEMENTS, LOST, ChartData, Series
from .labels import end_labels
from .scale import fix_y_range
from .spec import GUIDE_COLOR, Bars, Box, Chart, Flag, Guide, Line, Panel, color, marker

NAMES = CHARTS
SPECTRUM_TO = 99.99
SPECTRUM_TICKS = [(2.0, "50%"), (10.0, "90%"), (100.0, "99%"), (1000.0, "99.9%"), (10000.0, "99.99%")]
BOUND_COLOR = "#555555"

Style = Tuple[str, str]      # (colour, marker)


def charts(record: dict, names: Optional[List[str]] = None) -> List[Chart]:
    """The charts a record asks for (`record["charts"]`, else all), skipping any
    it has no data for (a spectrum of solved results only, say)."""
    data = ChartData(record)
    wanted = names or record.get("charts") or list(NAMES)
    built = [BUILDERS[name](data) for name in wanted if name in BUILDERS]
    built = [chart for chart in built if chart is not None]
    saturation = data.saturation()
    if saturation is not None:   # where a load sweep's threshold broke, on every panel against the swept rate
        for panel in (panel for chart in built for panel in chart.panels):
            if panel.x_label == data.x and any(isinstance(item, Line) for item in panel.items):
                panel.guides.append(Guide("x", saturation[0], saturation[1]))
    return built


def _finite(value) -> Optional[float]:
    """A figure that can be drawn, or None (missing, NaN, or beyond what a float holds)."""
    return None if value is None or not math.isfinite(float(value)) else float(value)


def _values(rows, column) -> Optional[list]:
    if column not in rows:
        return None
    values = [_finite(v) for v in rows[column]]
    return None if all(v is None for v in values) else values


def _styles(keys) -> Dict[str, Style]:
    """A colour and a marker per key (a model, or a station or resource), in order of appearance."""
    return {key: (color(i), marker(i)) for i, key in enumerate(dict.fromkeys(keys))}


def _sweep_ticks(data: ChartData):
    """A tick at each swept value that ran, when there are few (cpus 1..6, not 1.2, 1.4 ...)."""
    values = data.ran()
    if len(values) > 12 or not all(isinstance(v, (int, float)) for v in values):
        return None
    return [(v, number(v)) for v in values]


def _at_last(data: ChartData) -> str:
    last = data.last_x()
    return f" at {last[0]}={last[1]}" if last else ""


def _scaled(values, scale: float = 1.0, floor: Optional[float] = None):
    if values is None:
        return None
    return [None if v is None else _finite(v * scale if floor is None else max(v * scale, floor)) for v in values]


def _engine_dashes(data: ChartData) -> List[Tuple[str, str]]:
    """What each dash means, when a record mixes engines (measured solid, predicted dashed)."""
    return [(data.dash(engine), engine) for engine in data.engines] if len(data.engines) > 1 else []


def _labelled(panel: Panel) -> Panel:
    """The panel with its y axis fixed (flagged points far above the rest kept off it) and
    its lines named at their ends inside it."""
    fix_y_range(panel, [guide.value for guide in panel.guides if guide.axis == "y"])
    panel.labels = end_labels([item for item in panel.items if isinstance(item, Line)], panel.y_from_zero,
                              panel.log_x, panel.y_range, below=min((note.y for note in panel.notes), default=None))
    return panel


def _flags(line: Line, unstable: List[bool], unit: str) -> List[Flag]:
    """A Flag for each of the line's unstable points: a figure that grows with the run, no
    steady state (scale.py keeps those far above the rest off the axis)."""
    return [Flag(x=line.x[k], value=line.y[k], y=line.y[k], color=line.color, unit=unit,
                 text=f"unstable: {number(line.y[k])}{unit}", line=line, index=k)
            for k, flagged in enumerate(unstable) if flagged and line.y[k] is not None]


def _panel(data: ChartData, series: List[Series], column: str, title: str, y_label: str,
           scale: float = 1.0, style_of: Optional[Callable[[Series], Style]] = None, unit: str = "") -> Panel:
    """`column` of every series: lines against the swept param, or bars without a sweep.
    A colour and marker per series base label unless `style_of` says otherwise; `unit`
    follows the value written beside an unstable point."""
    if style_of is None:
        by_base = _styles(s.base for s in series)
        style_of = lambda s: by_base[s.base]  # noqa: E731
    if data.x is not None:
        items, flags = [], []
        for s in series:
            if _values(s.rows, column) is None:
                continue
            line = Line(label=s.label, x=list(s.rows[data.x]), y=_scaled(_values(s.rows, column), scale),
                        color=style_of(s)[0], marker=style_of(s)[1], dash=s.dash, group=s.base,
                        # every figure drawn is a count, a time, a rate or a share: none below zero
                        low=_scaled(_values(s.rows, column + "_ci_low"), scale, floor=0.0),
                        high=_scaled(_values(s.rows, column + "_ci_high"), scale))
            flags += _flags(line, [i in data.unstable for i in s.rows["scenario"]], unit)
            items.append(line)
        return _labelled(Panel(title, data.x, y_label, items, x_ticks=_sweep_ticks(data),
                               engines=_engine_dashes(data), flags=flags))
    items = []
    for engine in data.engines:
        mine = [s for s in series if s.engine == engine and _values(s.rows, column) is not None]
        if not mine:
            continue
        def first(c):
            values = [(_values(s.rows, c) or [None])[0] for s in mine]
            return None if all(v is None for v in values) else values
        # an unstable scenario's bar says so under it: its height grows with the run
        items.append(Bars(label=engine if len(data.engines) > 1 else "",
                          categories=[s.base + (" (unstable)" if s.rows["scenario"].iloc[0] in data.unstable else "")
                                      for s in mine],
                          y=_scaled(first(column), scale), colors=[style_of(s)[0] for s in mine],
                          hatched=engine != data.engines[0], low=_scaled(first(column + "_ci_low"), scale, 0.0),
                          high=_scaled(first(column + "_ci_high"), scale)))
    return Panel(title, "", y_label, items)


def _bound_lines(data: ChartData, series: List[Series]) -> List[Line]:
    """Each model's asymptotic throughput bound (its solved results' `bounds`) as a thin
    dotted line: the throughput no population can pass at each swept value."""
    lines = []
    for s in series:
        bound = data.throughput_bounds(s)
        if bound is not None and any(v is not None for v in bound):
            lines.append(Line(label=f"{s.base} bound", x=list(s.rows[data.x]), y=bound, color=BOUND_COLOR,
                              dash="dot", marker=None, legend=False))
    return lines


def _rate_thresholds(data: ChartData, panel: Panel) -> bool:
    """The load runs' thresholds on the achieved rate drawn on the throughput panel: a line
    at a rate per second (achieved_rate>=190), or along the fraction of each run's target
    (achieved_rate>=0.95*target). Whether there were any."""
    to_display = data.units.rate_from("s")
    runs = [s for s in data.scenarios.values() if s["engine"] == "load" and s["params"].get(data.x) is not None]
    runs.sort(key=lambda s: s["params"][data.x])
    drawn = False
    for threshold in data.thresholds():
        if threshold.metric != "achieved_rate":
            continue
        if not threshold.of_target:
            panel.guides.append(Guide("y", threshold.value * to_display, f"threshold {threshold.text}"))
        elif runs:
            panel.items.append(Line(label=f"threshold {threshold.text}", x=[s["params"][data.x] for s in runs],
                                    y=[threshold.bound(s["results"]) * to_display for s in runs],
                                    color=GUIDE_COLOR, dash="dot", marker=None, legend=False))
        drawn = True
    return drawn


def throughput_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    panel = _panel(data, series, "throughput", "", data.rate_label(), unit=f"/{data.units.rate}")
    caption = ("Completed customers per second (per time unit for slow models) after warm-up. "
               "Higher is better; a line that flattens has hit a structural limit.")
    if data.x is not None:
        bounds = _bound_lines(data, [s for s in series if s.engine == "solve"] or series)
        if bounds:
            panel.items += bounds
            panel = _labelled(panel)
            caption += (" Dotted grey: the asymptotic bound from solve, the most the bottleneck allows "
                        "(1 / its demand) or the population allows (N / the demand of a whole cycle).")
        if _rate_thresholds(data, panel):
            panel = _labelled(panel)
            caption += " Dark red: the load runs' thresholds on the achieved rate, and the saturation point."
    return Chart("throughput", f"Throughput{'' if data.x else ' per model'}", caption, [panel]) if panel.items else None


def _statistic_title(statistic: str) -> str:
    """A response-time statistic as a panel's title: p50 is the median, p999 the 99.9th percentile."""
    from .. import _native

    if statistic == "p50":
        return "median"
    percent = dict(_native.PERCENTILES).get(statistic)
    return statistic if percent is None else f"{number(percent)}th percentile"


def _response_thresholds(data: ChartData) -> Dict[str, List[Guide]]:
    """The load runs' thresholds on the response time, as lines in display units, by statistic."""
    from ..loadtest.thresholds import TIME_METRICS

    guides: Dict[str, List[Guide]] = {}
    to_display = data.units.time_from("s")
    for threshold in data.thresholds():
        if threshold.metric in TIME_METRICS and "_" not in threshold.metric:   # not service_ or lag_
            guides.setdefault(threshold.metric, []).append(
                Guide("y", threshold.value * to_display, f"threshold {threshold.text}"))
    return guides


def latency_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    unit = data.units.time
    thresholds = _response_thresholds(data)
    # the median and p95, and any other statistic a load run's threshold judged (p99<50ms)
    statistics = ["p50", "p95"] + [s for s in thresholds if s not in ("p50", "p95")]
    panels = []
    for statistic in statistics:
        title = _statistic_title(statistic)
        label = "median" if statistic == "p50" else statistic
        panel = _panel(data, series, f"response_time_{statistic}", title, f"{label} response time ({unit})",
                       unit=f" {unit}")
        if panel.items and statistic in thresholds:
            panel.guides += thresholds[statistic]
            panel = _labelled(panel)
        panels.append(panel)
    panels = [p for p in panels if p.items]
    caption = ("Response time from arrival (or the end of thinking) to completion: the median and the 95th "
               "percentile. Lower is better; rising latency at flat throughput is queueing.")
    if thresholds:
        caption += (" Dark red: the load runs' thresholds on the response time, and the rate where one broke "
                    "(the saturation point).")
    return Chart("latency", "Latency", caption, panels) if panels else None


def latency_throughput_chart(data: ChartData) -> Optional[Chart]:
    """The capacity planner's hockey stick: each swept point at (throughput, latency)."""
    if data.x is None:
        return None
    series = data.class_series()
    styles = _styles(s.base for s in series)
    panels = []
    for column, title in (("response_time_p50", "median"), ("response_time_p95", "95th percentile")):
        lines, flags = [], []
        for s in series:
            x, y = _values(s.rows, "throughput"), _values(s.rows, column)
            kept = [(a, b, v, i) for a, b, v, i in zip(x or [], y or [], s.rows[data.x], s.rows["scenario"])
                    if a is not None and b is not None]
            if not kept:
                continue
            line = Line(label=s.label, x=[a for a, _, _, _ in kept], y=[b for _, b, _, _ in kept],
                        color=styles[s.base][0], marker=styles[s.base][1], dash=s.dash,
                        points=[f"{data.x}={v}" for _, _, v, _ in kept], group=s.base)
            flags += _flags(line, [i in data.unstable for _, _, _, i in kept], f" {data.units.time}")
            lines.append(line)
        if lines:
            guides = _response_thresholds(data).get(column[len("response_time_"):], [])
            panels.append(_labelled(Panel(title, data.rate_label(), f"{title} response time ({data.units.time})",
                                          lines, engines=_engine_dashes(data), flags=flags, guides=list(guides))))
    caption = (f"Latency against throughput, a point per value of {data.x}: the capacity planner's hockey "
               "stick. Along the flat blade more load costs no latency; where a line turns up steeply the "
               "system is at its limit and more load only queues.")
    return Chart("latency_throughput", "Latency against throughput", caption, panels) if panels else None


def _unstable_at_last(data: ChartData, series: Series) -> str:
    """" (unstable)" where the series' scenario at the last swept value is unstable (a load
    sweep's last run often is): a distribution of a queue growing with the run, said so."""
    row = data.at_last_x(series)
    return " (unstable)" if row and row["scenario"] in data.unstable else ""


def latency_boxes_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    styles = _styles(s.base for s in series)
    boxes = []
    for s, spectrum in data.spectra_at_last_x(series):
        at = dict(zip(spectrum[0], spectrum[1]))
        if not all(_finite(at.get(p)) is not None for p in (5, 25, 50, 75, 95)):
            continue
        boxes.append(Box(label=s.label + _unstable_at_last(data, s), p5=at[5], p25=at[25], p50=at[50], p75=at[75], p95=at[95],
                         color=styles[s.base][0], hatched=s.engine != data.engines[0]))
    if not boxes:
        return None
    panel = Panel("", "", f"response time ({data.units.time})", list(boxes))
    caption = ("Each model's latency distribution, as in the talk: the box holds the middle 50 % "
               "(25th to 75th percentile, line at the median), the whiskers the middle 90 % (5th to 95th).")
    return Chart("latency_boxes", f"Latency distribution per model{_at_last(data)}", caption, [panel])


def utilization_chart(data: ChartData) -> Optional[Chart]:
    elements = data.table[data.table["kind"].isin(ELEMENTS) & data.table["utilization"].notna()]
    styles = _styles(elements["name"])
    panels = []
    for model in data.models:
        series = data.element_series(model)
        panel = _panel(data, series, "utilization", model, "utilization (%)", scale=100.0,
                       style_of=lambda s: styles[s.rows["name"].iloc[0]], unit=" %")
        if panel.items:
            panels.append(panel)
    caption = ("How busy each station (servers serving) and resource (tokens held) is, named at the end "
               "of its line, one colour per name in every panel; a station with typed servers also has a "
               "line per type (bar · espresso_machine: the share of that type's servers serving). The one "
               "at 100 % is the bottleneck; as the swept param grows the bottleneck can move from one to "
               "another.")
    return Chart("utilization", "Utilization per station and resource", caption, panels) if panels else None


def spectrum_chart(data: ChartData) -> Optional[Chart]:
    series = data.class_series()
    styles = _styles(s.base for s in series)
    lines = []
    for s, (percents, values, intervals) in data.spectra_at_last_x(series):
        keep = [i for i, p in enumerate(percents) if 0 <= p <= SPECTRUM_TO and _finite(values[i]) is not None]
        if not keep:
            continue
        if intervals and any(_finite(v) is None for i in keep for v in intervals[i]):
            intervals = None
        x = [1.0 / (1.0 - percents[i] / 100.0) for i in keep]
        low = [max(intervals[i][0], 0.0) for i in keep] if intervals else None
        high = [intervals[i][1] for i in keep] if intervals else None
        unstable = _unstable_at_last(data, s)
        lines.append(Line(label=s.label + unstable, x=x, y=[values[i] for i in keep], color=styles[s.base][0],
                          marker=styles[s.base][1], dash=s.dash, low=low, high=high,
                          points=[f"p{percents[i]:g}" for i in keep], group=s.base + unstable))
    if not lines:
        return None
    panel = _labelled(Panel("", "percentile", f"response time ({data.units.time})", list(lines),
                            log_x=True, x_ticks=SPECTRUM_TICKS, engines=_engine_dashes(data)))
    caption = ("The whole latency distribution, HdrHistogram style: response time at each percentile, "
               "the tail stretched out on a log axis of 1/(1-p). A flat line is a constant latency; a steep "
               "rise at the right is a long tail. The far tail rests on few customers: mind its band.")
    return Chart("spectrum", f"Latency percentile spectrum{_at_last(data)}", caption, [panel])


def lost_chart(data: ChartData) -> Optional[Chart]:
    """The share of arriving customers lost, a panel per reason (a full station,
    balking at the queue, running out of patience), with 95 % intervals."""
    series = data.class_series()
    words = {"full": "the station was full", "balked": "balked at the queue", "reneged": "ran out of patience"}
    panels = [_panel(data, series, f"{LOST}{reason}", words.get(reason, reason), "customers lost (%)", scale=100.0,
                     unit=" %")
              for reason in data.loss_reasons()]
    panels = [p for p in panels if p.items]
    caption = ("The share of arriving customers lost, for each reason: turned away by a full station, "
               "balking at the length of the queue they saw, or giving up after waiting longer than their "
               "patience. Each band is the 95 % interval over replications.")
    return Chart("lost", "Lost customers", caption, panels) if panels else None


def measures_chart(data: ChartData) -> Optional[Chart]:
    """The median of each measure between marks beside the response time's."""
    names = data.measures()
    if not names:
        return None
    series = data.class_series()
    unit = data.units.time
    panels = [_panel(data, series, "response_time_p50", "response time (arrival to done)", f"median ({unit})",
                     unit=f" {unit}")]
    panels += [_panel(data, series, f"measure_{name}_p50", name, f"median ({unit})", unit=f" {unit}")
               for name in names]
    panels = [p for p in panels if p.items]
    caption = ("Latency measured between marks on the route (the class's measures, e.g. from ordering or "
               "from paying to the drink), beside the response time from arrival to done: the median of "
               "each, over the customers who reached both marks.")
    return Chart("measures", "Latency between marks", caption, panels) if len(panels) > 1 else None


BUILDERS: Dict[str, Callable[[ChartData], Optional[Chart]]] = {
    "throughput": throughput_chart,
    "latency": latency_chart,
    "latency_throughput": latency_throughput_chart,
    "latency_boxes": latency_boxes_chart,
    "utilization": utilization_chart,
    "spectrum": spectrum_chart,
    "lost": lost_chart,
    "measures": measures_chart,
}
