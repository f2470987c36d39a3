"""Charts (spec.py) drawn as PNG files with matplotlib, big enough for a slide:
1600 x 900 at scale 2 (3200 x 1800 pixels) for a one-row chart, taller when
its panels take several rows.

matplotlib is imported only here, when a PNG is drawn, and only its object API
(no pyplot, so no global state and no interactive backend: Agg renders the file).
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import List, Optional, Sequence

from .spec import (BESIDE_MARKER_SIZE, GUIDE_COLOR, LABEL_ROOM, LEADER, MARKER_SIZE, Bars, Box, Chart, Flag, Guide,
                   Line, Panel, beside, label_room)

STYLES = {"solid": "-", "dash": "--", "dot": ":"}
MARKERS = {"circle": "o", "square": "s", "diamond": "D", "triangle-up": "^", "triangle-down": "v",
           "x": "x", "cross": "P"}
COLUMNS = 3
WIDTH, SLIDE_HEIGHT = 16.0, 9.0   # inches at DPI: 1600 x 900 at scale 2
DPI = 200
ROW = 4.6                         # inches per row of panels when there are several rows
TITLE = 0.7                       # inches above the panels for the chart's title
GAP, GAP_ROTATED = 0.95, 1.6      # inches between rows of panels (with rotated category names)
FONT = 13


def _plain(text: str) -> str:
    """User text (model, station, param names) as written: matplotlib would take
    `$...$` for mathematics, and fail on what does not parse."""
    return text.replace("$", r"\$")


def _floats(values: Optional[Sequence[Optional[float]]]) -> Optional[List[float]]:
    return None if values is None else [math.nan if v is None else v for v in values]


def _line_style(dash: str, marker: Optional[str], color: str, on_top: bool, steps: bool = False) -> dict:
    """How a line is drawn, in the chart and in its legend alike: a line beside another
    engine's (spec.beside) above it with smaller hollow markers, a dashed one cased in white;
    steps (held from each x to the next) as thick as a line with markers."""
    from matplotlib import patheffects

    style = {"linestyle": STYLES[dash], "color": color, "linewidth": 1.2 if marker is None and not steps else 2,
             "marker": MARKERS.get(marker, ""), "markersize": MARKER_SIZE}
    if steps:
        style["drawstyle"] = "steps-post"
    if on_top:
        style.update(markerfacecolor="white", markersize=BESIDE_MARKER_SIZE, markeredgewidth=1.3,
                     zorder=3 if dash == "dash" else 4)
        if dash == "dash":
            style["path_effects"] = [patheffects.withStroke(linewidth=4.5, foreground="white")]
    return style


def _line(ax, line: Line) -> None:
    y = _floats(line.y)
    if line.low is not None and line.high is not None:
        ax.fill_between(line.x, _floats(line.low), _floats(line.high), color=line.color, alpha=0.18, linewidth=0)
    ax.plot(line.x, y, label=_plain(line.label) if line.legend else None,
            **_line_style(line.dash, line.marker, line.color, beside(line), line.steps))


# An unstable point's mark: a hollow triangle (points), in its line's colour.
FLAG = {"linestyle": "none", "marker": "^", "markersize": 11, "markerfacecolor": "white", "markeredgewidth": 2}
UNSTABLE = "unstable (no steady state)"


def _flags(ax, panel: Panel, size: float) -> None:
    """Unstable points marked where they are, those clipped at the top edge, and the notes of
    the clipped ones' values below them (scale.py places them)."""
    for flag in panel.flags:
        ax.plot([flag.x], [flag.y], markeredgecolor=flag.color, clip_on=False, zorder=5, **FLAG)
    for note in panel.notes:
        ax.annotate(_plain(note.text), xy=(note.x, note.y), xytext=(8, 0), textcoords="offset points", va="center",
                    ha="left", fontsize=size, color=note.color, annotation_clip=False)


def _guides(ax, guides: List[Guide], size: float) -> None:
    """Thresholds across the panel, named at their left end above the line; the saturation
    point up it, named along it from the bottom on its right, where past saturation only
    the flags at the top edge are (the names at the lines' ends sit by the lines' last points)."""
    for guide in guides:
        common = {"color": GUIDE_COLOR, "fontsize": size, "textcoords": "offset points", "annotation_clip": False}
        if guide.axis == "y":
            ax.axhline(guide.value, color=GUIDE_COLOR, linestyle="-.", linewidth=1.4, zorder=1.5)
            ax.annotate(_plain(guide.text), xy=(0, guide.value), xycoords=("axes fraction", "data"), xytext=(4, 3),
                        ha="left", va="bottom", **common)
        else:
            ax.axvline(guide.value, color=GUIDE_COLOR, linestyle="-.", linewidth=1.4, zorder=1.5)
            ax.annotate(_plain(guide.text), xy=(guide.value, 0), xycoords=("data", "axes fraction"), xytext=(4, 4),
                        ha="left", va="bottom", rotation=90, **common)


def _bars(ax, bars: List[Bars]) -> None:
    categories = list(dict.fromkeys(c for b in bars for c in b.categories))
    width = 0.8 / len(bars)
    for k, b in enumerate(bars):
        x = [categories.index(c) + (k - (len(bars) - 1) / 2) * width for c in b.categories]
        y = _floats(b.y)
        error = None
        if b.low is not None and b.high is not None:
            error = [[v - lo if lo is not None else 0.0 for v, lo in zip(y, b.low)],
                     [hi - v if hi is not None else 0.0 for v, hi in zip(y, b.high)]]
        ax.bar(x, y, width=width, color=b.colors, hatch="//" if b.hatched else None,
               edgecolor="white" if b.hatched else None, yerr=error, capsize=3, label=_plain(b.label))
    ax.set_xticks(range(len(categories)), [_plain(c) for c in categories], rotation=30 if len(categories) > 3 else 0, ha="right"
                  if len(categories) > 3 else "center")
    if len(bars) > 1:
        ax.legend(fontsize=FONT - 2)


def _boxes(ax, boxes: List[Box]) -> None:
    stats = [{"label": _plain(b.label), "whislo": b.p5, "q1": b.p25, "med": b.p50, "q3": b.p75, "whishi": b.p95,
              "fliers": []} for b in boxes]
    drawn = ax.bxp(stats, showfliers=False, patch_artist=True, medianprops={"color": "black", "linewidth": 2})
    for patch, b in zip(drawn["boxes"], boxes):
        patch.set_facecolor(b.color)
        patch.set_alpha(0.75)
        if b.hatched:
            patch.set_hatch("//")
    ax.tick_params(axis="x", labelrotation=30 if len(boxes) > 3 else 0)
    if len(boxes) > 3:
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


def _end_labels(ax, panel: Panel, size: float) -> None:
    """The names at the lines' ends, each joined to its line's last point by a thin leader,
    in room made for them at the right of the x axis."""
    xs = [x for item in panel.items if isinstance(item, Line) for x in item.x
          if isinstance(x, (int, float)) and math.isfinite(x)] + list(panel.x_span)
    if not xs:
        return
    low, high = min(xs), max(xs)
    if not panel.labels or not math.isfinite((high - low) * (1 + LABEL_ROOM)):
        return
    room = _label_room(ax, panel, size)
    if panel.log_x:
        ax.set_xlim(low / 1.3, high * (high / low) ** room)
        beside = (high / low) ** LEADER
        shifted = lambda x: x * beside  # noqa: E731
    else:
        span = (high - low) or abs(high) or 1.0
        ax.set_xlim(low - 0.03 * span, high + room * span)
        shifted = lambda x: x + LEADER * span  # noqa: E731
    for label in panel.labels:
        ax.annotate(_plain(label.text), xy=(label.x, label.at), xytext=(shifted(label.x), label.y), textcoords="data",
                    va="center", ha="left", fontsize=size, color=label.color,
                    arrowprops={"arrowstyle": "-", "color": label.color, "linewidth": 0.7, "shrinkA": 0,
                                "shrinkB": 3})


def _label_room(ax, panel: Panel, size: float) -> float:
    """spec.label_room for this axes, in points (72 to the inch)."""
    figure = ax.get_figure()
    return label_room(panel.labels, size, ax.get_position().width * figure.get_figwidth() * 72)


def _legend(ax, panel: Panel) -> None:
    """With lines named at their ends, the legend only says what each dash (and hollow
    marker) means, and what the hollow triangle of an unstable point does."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], label=_plain(engine), **_line_style(dash, "circle", "black", dash != "solid"))
               for dash, engine in panel.engines]
    if panel.flags:
        handles.append(Line2D([], [], label=UNSTABLE, markeredgecolor="black", **FLAG))
    if handles:  # clear of the lines and thresholds drawn, in the left of the panel: the names are at its right
        ax.legend(handles=handles, fontsize=FONT - 3, loc="best", bbox_to_anchor=(0, 0, 0.7, 1))


def _panel(ax, panel: Panel, crowded: bool) -> None:
    lines = [i for i in panel.items if isinstance(i, Line)]
    for line in lines:
        _line(ax, line)
    bars = [i for i in panel.items if isinstance(i, Bars)]
    if bars:
        _bars(ax, bars)
    boxes = [i for i in panel.items if isinstance(i, Box)]
    if boxes:
        _boxes(ax, boxes)
    if panel.log_x:
        ax.set_xscale("log")
    if lines:
        _end_labels(ax, panel, FONT - (4 if crowded else 2))
        _flags(ax, panel, FONT - (4 if crowded else 2))
        _guides(ax, panel.guides, FONT - (4 if crowded else 2))
    if lines:
        _legend(ax, panel)
    if panel.x_ticks:
        ax.set_xticks([v for v, _ in panel.x_ticks], [_plain(t) for _, t in panel.x_ticks])
        ax.minorticks_off()
    if panel.y_range is not None:
        ax.set_ylim(*panel.y_range)
    elif panel.y_from_zero and ax.get_ylim()[1] > 0:  # a hand-edited record's negative figures: drawn where they are
        ax.set_ylim(bottom=0)
    ax.set_title(_plain(panel.title), fontsize=FONT)
    ax.set_xlabel(_plain(panel.x_label), fontsize=FONT - 1)
    ax.set_ylabel(_plain(panel.y_label), fontsize=FONT - 1)
    ax.tick_params(labelsize=FONT - 2)
    ax.grid(True, alpha=0.3)
    ax.set_axisbelow(True)


def write_png(chart: Chart, path) -> Path:
    # Figures near the float limits (1e308 from a hand-edited record) make matplotlib's
    # tick arithmetic overflow: the chart is still drawn, without numpy's warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        draw(chart).savefig(path, dpi=DPI)
    return Path(path)


def draw(chart: Chart):
    """The chart as a matplotlib Figure (not yet rendered)."""
    from matplotlib.figure import Figure

    columns = min(len(chart.panels), COLUMNS)
    rows = math.ceil(len(chart.panels) / columns)
    height = SLIDE_HEIGHT if rows == 1 else ROW * rows + TITLE
    figure = Figure(figsize=(WIDTH, height))
    # fixed margins in inches: a layout engine would take as long as the drawing; the gap
    # between rows is the lower panel's title and the upper one's ticks and axis title, no more
    rotated = any(isinstance(item, (Bars, Box)) for panel in chart.panels for item in panel.items)
    top, bottom = TITLE + 0.1, (1.6 if rotated else 0.8)
    gap = GAP_ROTATED if rotated else GAP
    axes_height = (height - top - bottom - gap * (rows - 1)) / rows
    figure.subplots_adjust(left=0.9 / WIDTH, right=1 - 0.3 / WIDTH, top=1 - top / height, bottom=bottom / height,
                           wspace=0.25, hspace=gap / axes_height)
    axes = figure.subplots(rows, columns, squeeze=False).flatten()
    for ax, panel in zip(axes, chart.panels):
        _panel(ax, panel, crowded=columns > 1)
    for ax in axes[len(chart.panels):]:
        ax.set_visible(False)
    figure.suptitle(_plain(chart.title), y=1 - 0.2 / height, fontsize=FONT + 3)
    return figure
