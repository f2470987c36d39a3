"""Charts (spec.py) drawn as PNG files with matplotlib.

matplotlib is imported only here, when a PNG is drawn, and only its object API
(no pyplot, so no global state and no interactive backend: Agg renders the file).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import List, Optional, Sequence

from .spec import Bars, Box, Chart, Line, Panel

STYLES = {"solid": "-", "dash": "--", "dot": ":"}
COLUMNS = 3
PANEL = (5.2, 3.8)   # inches per panel
TITLE = 0.5          # inches above the panels for the chart's title


def _floats(values: Optional[Sequence[Optional[float]]]) -> Optional[List[float]]:
    return None if values is None else [math.nan if v is None else v for v in values]


def _line(ax, line: Line) -> None:
    y = _floats(line.y)
    if line.low is not None and line.high is not None:
        ax.fill_between(line.x, _floats(line.low), _floats(line.high), color=line.color, alpha=0.18, linewidth=0)
    ax.plot(line.x, y, linestyle=STYLES[line.dash], color=line.color, marker="o", markersize=3, label=line.label)


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
               edgecolor="white" if b.hatched else None, yerr=error, capsize=3, label=b.label)
    ax.set_xticks(range(len(categories)), categories, rotation=30 if len(categories) > 3 else 0, ha="right"
                  if len(categories) > 3 else "center", fontsize=8)
    if len(bars) > 1:
        ax.legend(fontsize=7)


def _boxes(ax, boxes: List[Box]) -> None:
    stats = [{"label": b.label, "whislo": b.p5, "q1": b.p25, "med": b.p50, "q3": b.p75, "whishi": b.p95,
              "fliers": []} for b in boxes]
    drawn = ax.bxp(stats, showfliers=False, patch_artist=True, medianprops={"color": "black"})
    for patch, b in zip(drawn["boxes"], boxes):
        patch.set_facecolor(b.color)
        patch.set_alpha(0.75)
        if b.hatched:
            patch.set_hatch("//")
    ax.tick_params(axis="x", labelrotation=30 if len(boxes) > 3 else 0, labelsize=8)
    if len(boxes) > 3:
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


def _panel(ax, panel: Panel, legend: bool) -> None:
    lines = [i for i in panel.items if isinstance(i, Line)]
    for line in lines:
        _line(ax, line)
    if legend and len(lines) > 1:
        ax.legend(fontsize=7)
    bars = [i for i in panel.items if isinstance(i, Bars)]
    if bars:
        _bars(ax, bars)
    boxes = [i for i in panel.items if isinstance(i, Box)]
    if boxes:
        _boxes(ax, boxes)
    if panel.log_x:
        ax.set_xscale("log")
    if panel.x_ticks:
        ax.set_xticks([v for v, _ in panel.x_ticks], [t for _, t in panel.x_ticks])
        ax.minorticks_off()
    if panel.y_from_zero:
        ax.set_ylim(bottom=0)
    ax.set_title(panel.title, fontsize=10)
    ax.set_xlabel(panel.x_label)
    ax.set_ylabel(panel.y_label)
    ax.grid(True, alpha=0.3)
    ax.set_axisbelow(True)


def write_png(chart: Chart, path) -> Path:
    from matplotlib.figure import Figure

    columns = min(len(chart.panels), COLUMNS)
    rows = math.ceil(len(chart.panels) / columns)
    width, height = PANEL[0] * columns, PANEL[1] * rows + TITLE
    figure = Figure(figsize=(width, height))
    # fixed margins in inches: a layout engine would take as long as the drawing
    rotated = any(isinstance(item, (Bars, Box)) for panel in chart.panels for item in panel.items)
    figure.subplots_adjust(left=0.75 / width, right=1 - 0.2 / width, top=1 - (TITLE + 0.1) / height,
                           bottom=(0.95 if rotated else 0.55) / height, wspace=0.3,
                           hspace=(1.3 if rotated else 0.9) / PANEL[1])
    axes = figure.subplots(rows, columns, squeeze=False).flatten()
    labels = None
    for ax, panel in zip(axes, chart.panels):
        # a legend where the lines differ from the panel before (not twice for median and p95)
        shown, labels = labels, [item.label for item in panel.items]
        _panel(ax, panel, legend=labels != shown)
    for ax in axes[len(chart.panels):]:
        ax.set_visible(False)
    figure.suptitle(chart.title, y=1 - 0.15 / height)
    path = Path(path)
    figure.savefig(path, dpi=100)
    return path
