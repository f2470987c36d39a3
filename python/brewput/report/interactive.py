"""Charts (spec.py) as interactive plotly figures for the HTML report."""
from __future__ import annotations

import math
from html import escape
from typing import List, Optional, Sequence, Tuple

from ..figures import DIGITS
from .spec import (BESIDE_MARKER_SIZE, CHARACTER, GUIDE_COLOR, LABEL_ROOM, LEADER, MARKER_SIZE, Bars, Box, Chart, Flag,
                   Line, Panel, beside, label_room)

COLUMNS = 3
# Pixels: a panel's plot (at ROW of it a name of LABEL_FONT fits: labels.py), the gap between
# rows of panels (the upper one's tick labels and axis title, the lower one's title: no more),
# the margin under the last row (its tick labels and axis title) and the font of the names
# at the lines' ends.
PANEL_HEIGHT = 360
ROW_GAP = 90
BOTTOM = 60
LABEL_FONT = 11
# Pixels across: the report's page at its widest (page.py's 1400 px less its padding), the
# figure's margins, and the space between columns of panels (a share of the width).
PAGE_WIDTH, MARGIN_LEFT, MARGIN_RIGHT = 1350, 60, 20
SPACING = 0.08


def _plain(text: str) -> str:
    """User text (model, station, param names) as written: plotly reads a few HTML tags
    in every text it draws (<b>, <br>, <a>), and decodes entities back."""
    return escape(text, quote=False)


def _clean(values: Optional[Sequence[Optional[float]]]) -> Optional[list]:
    return None if values is None else [None if v is None or math.isnan(v) else v for v in values]


def _rgba(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _line_traces(line: Line, show_legend: bool) -> list:
    import plotly.graph_objects as go

    traces = []
    if line.low is not None and line.high is not None:
        band = [(x, lo, hi) for x, lo, hi in zip(line.x, _clean(line.low), _clean(line.high))
                if lo is not None and hi is not None]
        if band:
            xs = [x for x, _, _ in band]
            # mode "lines": without it plotly marks every corner of the band's outline
            traces.append(go.Scatter(
                x=xs + xs[::-1], y=[hi for _, _, hi in band] + [lo for _, lo, _ in band][::-1], mode="lines",
                fill="toself", fillcolor=_rgba(line.color, 0.18), line={"width": 0}, hoverinfo="skip",
                legendgroup=line.label, showlegend=False, name=_plain(f"{line.label} 95 % CI")))
    hover = f"%{{text}}: %{{y:.{DIGITS}g}}<extra>%{{fullData.name}}</extra>" if line.points else None
    on_top = beside(line)
    if on_top and line.dash == "dash":  # cased in white: its dashes show where it lies on the solid line
        traces.append(go.Scatter(x=list(line.x), y=_clean(line.y), mode="lines", line={"color": "white", "width": 5},
                                 hoverinfo="skip", legendgroup=line.label, showlegend=False))
    symbol = line.marker or "circle"
    # plotly's marker sizes are pixels across, the PNG's points: 7 px beside the PNG's 6 pt, as before
    size = (BESIDE_MARKER_SIZE if on_top else MARKER_SIZE) * 7 / MARKER_SIZE
    traces.append(go.Scatter(
        x=list(line.x), y=_clean(line.y), mode="lines" if line.marker is None else "lines+markers",
        name=_plain(line.label), legendgroup=line.label, showlegend=show_legend and line.legend,
        line={"color": line.color, "dash": line.dash, "width": 1.2 if line.marker is None and not line.steps else 2,
              **({"shape": "hv"} if line.steps else {})},
        marker={"size": size, "symbol": f"{symbol}-open" if on_top else symbol},
        text=[_plain(p) for p in line.points] if line.points else None, hovertemplate=hover))
    return traces


UNSTABLE = "unstable (no steady state)"


def _flag_trace(flag: Flag, show_legend: bool):
    """An unstable point: a hollow triangle in the line's colour (at the top edge when
    clipped), its value on hover; one entry in the legend says what the triangles mean."""
    import plotly.graph_objects as go

    return go.Scatter(x=[flag.x], y=[flag.y], mode="markers", name=UNSTABLE, legendgroup=UNSTABLE,
                      showlegend=show_legend, cliponaxis=False,
                      marker={"symbol": "triangle-up-open", "size": 13, "color": flag.color, "line": {"width": 2}},
                      hovertemplate=_plain(flag.text) + "<extra></extra>")


def _notes(fig, panel: Panel, row: int, col: int) -> List[dict]:
    """The values of the points drawn at the top edge (scale.py's notes), as annotations."""
    subplot = fig.get_subplot(row, col)
    x_ref, y_ref = (axis.plotly_name.replace("axis", "") for axis in (subplot.xaxis, subplot.yaxis))
    return [{"x": math.log10(note.x) if panel.log_x else note.x, "y": note.y, "xref": x_ref, "yref": y_ref,
             "text": _plain(note.text), "showarrow": False, "xanchor": "left", "xshift": 8,
             "font": {"color": note.color, "size": LABEL_FONT}} for note in panel.notes]


def _guides(fig, panel: Panel, row: int, col: int) -> Tuple[List[dict], List[dict]]:
    """The panel's thresholds (across it, named at the left above the line) and saturation
    point (up it, named along it from the bottom on its right, as png.py) as shapes and
    annotations, set on the figure at once."""
    subplot = fig.get_subplot(row, col)
    x_ref, y_ref = (axis.plotly_name.replace("axis", "") for axis in (subplot.xaxis, subplot.yaxis))
    line = {"color": GUIDE_COLOR, "width": 1.4, "dash": "dashdot"}
    font = {"color": GUIDE_COLOR, "size": LABEL_FONT}
    shapes, annotations = [], []
    for guide in panel.guides:
        if guide.axis == "y":
            shapes.append({"type": "line", "xref": f"{x_ref} domain", "x0": 0, "x1": 1, "yref": y_ref,
                           "y0": guide.value, "y1": guide.value, "line": line})
            annotations.append({"xref": f"{x_ref} domain", "x": 0, "yref": y_ref, "y": guide.value,
                                "text": _plain(guide.text), "showarrow": False, "xanchor": "left",
                                "yanchor": "bottom", "font": font})
        else:
            shapes.append({"type": "line", "xref": x_ref, "x0": guide.value, "x1": guide.value,
                           "yref": f"{y_ref} domain", "y0": 0, "y1": 1, "line": line})
            annotations.append({"xref": x_ref, "x": guide.value, "yref": f"{y_ref} domain", "y": 0,
                                "text": _plain(guide.text), "showarrow": False, "textangle": -90,
                                "xanchor": "left", "yanchor": "bottom", "xshift": 2, "font": font})
    return shapes, annotations


def _panel_width(chart: Chart) -> float:
    """A panel's plot width in pixels on the report's page, to make room for long names: the
    page is at most PAGE_WIDTH wide (page.py), plotly's legend at the right takes its longest
    name, the panels share the rest with make_subplots' spacing between them."""
    names = [item.label for panel in chart.panels for item in panel.items
             if isinstance(item, Line) and item.legend] or [""]
    legend = max(len(name) for name in names) * CHARACTER * 12 + 40
    columns = min(len(chart.panels), COLUMNS)
    plot = PAGE_WIDTH - MARGIN_LEFT - MARGIN_RIGHT - legend
    return max(plot * (1 - SPACING * (columns - 1)) / columns, 1.0)


def _end_labels(fig, panel: Panel, row: int, col: int, width: float) -> List[dict]:
    """The names at the lines' ends as annotations, each with a thin leader to its line's
    last point, in room made for them at the right of the x axis (panels `width` pixels
    wide). Returned, to be set on the figure at once (one call per label would take seconds
    for eleven models)."""
    xs = [x for item in panel.items if isinstance(item, Line) for x in item.x
          if isinstance(x, (int, float)) and math.isfinite(x)] + list(panel.x_span)
    if not xs:
        return []
    low, high = min(xs), max(xs)
    if panel.log_x:
        low, high = math.log10(low), math.log10(high)
    span = (high - low) or abs(high) or 1.0
    if not panel.labels or not math.isfinite(span * (1 + LABEL_ROOM)):
        return []
    room = label_room(panel.labels, LABEL_FONT, width)
    fig.update_xaxes(range=[low - 0.03 * span, high + room * span], row=row, col=col)
    subplot = fig.get_subplot(row, col)
    x_ref, y_ref = (axis.plotly_name.replace("axis", "") for axis in (subplot.xaxis, subplot.yaxis))
    annotations = []
    for label in panel.labels:
        x = math.log10(label.x) if panel.log_x else label.x
        annotations.append({
            "x": x, "y": label.at, "ax": x + LEADER * span, "ay": label.y, "xref": x_ref, "yref": y_ref,
            "axref": x_ref, "ayref": y_ref, "text": _plain(label.text), "xanchor": "left", "align": "left",
            "showarrow": True, "arrowhead": 0, "arrowwidth": 0.7, "arrowcolor": label.color,
            "font": {"color": label.color, "size": LABEL_FONT}})
    return annotations


def _bar_trace(bars: Bars, show_legend: bool):
    import plotly.graph_objects as go

    y = _clean(bars.y)
    error = None
    if bars.low is not None and bars.high is not None:
        error = {"type": "data", "symmetric": False,
                 "array": [None if v is None or hi is None else hi - v for v, hi in zip(y, _clean(bars.high))],
                 "arrayminus": [None if v is None or lo is None else v - lo for v, lo in zip(y, _clean(bars.low))]}
    return go.Bar(x=[_plain(c) for c in bars.categories], y=y, name=_plain(bars.label), legendgroup=bars.label, showlegend=show_legend,
                  marker={"color": list(bars.colors), "pattern": {"shape": "/" if bars.hatched else ""}},
                  error_y=error)


def _box_trace(box: Box):
    import plotly.graph_objects as go

    return go.Box(x=[_plain(box.label)], q1=[box.p25], median=[box.p50], q3=[box.p75], lowerfence=[box.p5],
                  upperfence=[box.p95], name=_plain(box.label), marker={"color": box.color}, showlegend=False,
                  fillcolor=_rgba(box.color, 0.55), boxpoints=False,
                  hoverinfo="y")


def figure(chart: Chart, titled: bool = True):
    from plotly.subplots import make_subplots

    columns = min(len(chart.panels), COLUMNS)
    rows = math.ceil(len(chart.panels) / columns)
    # the gap between rows in pixels, not a share of the height: a share grew with the rows
    # (0.12 of a four-row chart's height left 209 px blank between the panels)
    plot_height = PANEL_HEIGHT * rows + ROW_GAP * (rows - 1)
    fig = make_subplots(rows=rows, cols=columns, subplot_titles=[_plain(p.title) for p in chart.panels],
                        horizontal_spacing=SPACING, vertical_spacing=ROW_GAP / plot_height if rows > 1 else 0.1)
    shown: List[str] = []
    width = _panel_width(chart)
    labels: List[dict] = []
    shapes: List[dict] = []
    for k, panel in enumerate(chart.panels):
        row, col = k // columns + 1, k % columns + 1
        # plotly draws in the order given: the lines beside another engine's go on top of it, dotted last
        for item in sorted(panel.items, key=lambda item: isinstance(item, Line) and beside(item)
                           and (1 if item.dash == "dash" else 2)):
            first = item.label not in shown
            shown.append(item.label)
            if isinstance(item, Line):
                traces = _line_traces(item, first)
            elif isinstance(item, Bars):
                traces = [_bar_trace(item, first and bool(item.label))]
            else:
                traces = [_box_trace(item)]
            for trace in traces:
                fig.add_trace(trace, row=row, col=col)
        for flag in panel.flags:
            fig.add_trace(_flag_trace(flag, UNSTABLE not in shown), row=row, col=col)
            shown.append(UNSTABLE)
        labels += _end_labels(fig, panel, row, col, width) + _notes(fig, panel, row, col)
        more_shapes, more_labels = _guides(fig, panel, row, col)
        shapes += more_shapes
        labels += more_labels
        fig.update_xaxes(title_text=_plain(panel.x_label), row=row, col=col)
        fig.update_yaxes(title_text=_plain(panel.y_label), row=row, col=col, rangemode="tozero" if panel.y_from_zero else None)
        if panel.y_range is not None:
            fig.update_yaxes(range=list(panel.y_range), row=row, col=col)
        if panel.log_x:
            fig.update_xaxes(type="log", row=row, col=col)
        if panel.x_ticks:
            fig.update_xaxes(tickvals=[v for v, _ in panel.x_ticks], ticktext=[_plain(t) for _, t in panel.x_ticks],
                             row=row, col=col)
    fig.update_layout(annotations=list(fig.layout.annotations) + labels, shapes=shapes)
    top = 80 if titled else 40
    fig.update_layout(title={"text": _plain(chart.title) if titled else ""}, template="plotly_white", barmode="group",
                      height=plot_height + top + BOTTOM,
                      margin={"t": top, "l": MARGIN_LEFT, "r": MARGIN_RIGHT, "b": BOTTOM})
    return fig


def to_html_div(chart: Chart, include_plotlyjs: bool) -> str:
    """The figure as a <div> and its script (untitled: the page heads it); plotly.js
    inline when asked (once per page)."""
    return figure(chart, titled=False).to_html(full_html=False, include_plotlyjs=include_plotlyjs,
                                 div_id=f"chart-{chart.name}",
                                 config={"displaylogo": False, "responsive": True})
