"""A chart described once, drawn twice: as a PNG (png.py, matplotlib) and as an
interactive figure (interactive.py, plotly). The chart builders (charts.py) make
these plain descriptions; neither drawing library is imported to make them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

# matplotlib's tab10 (the usual categorical palette), then ColorBrewer's Dark2
# less its orange (too near tab10's):
# one colour per model, or per station and resource, before any repeats
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


@dataclass
class Line:
    """y against x, with an optional confidence band (low, high)."""
    label: str
    x: Sequence
    y: Sequence[Optional[float]]
    color: str
    dash: str = "solid"            # solid | dash | dot
    low: Optional[Sequence[Optional[float]]] = None
    high: Optional[Sequence[Optional[float]]] = None
    points: Optional[Sequence[str]] = None   # what each x means, for the interactive hover


@dataclass
class Bars:
    """One bar per category, with optional error bars (low, high)."""
    label: str                      # the engine when a record mixes them, else ""
    categories: Sequence[str]
    y: Sequence[Optional[float]]
    colors: Sequence[str]
    hatched: bool = False           # a prediction beside a measurement
    low: Optional[Sequence[Optional[float]]] = None
    high: Optional[Sequence[Optional[float]]] = None


@dataclass
class Box:
    """A latency box: box = middle 50 % (p25..p75), whiskers = middle 90 % (p5..p95)."""
    label: str
    p5: float
    p25: float
    p50: float
    p75: float
    p95: float
    color: str
    hatched: bool = False


Item = Union[Line, Bars, Box]


@dataclass
class Panel:
    title: str
    x_label: str
    y_label: str
    items: List[Item] = field(default_factory=list)
    log_x: bool = False
    x_ticks: Optional[List[Tuple[float, str]]] = None   # (value, label)
    y_from_zero: bool = True


@dataclass
class Chart:
    name: str          # file stem: throughput, latency, latency_boxes, utilization, spectrum
    title: str
    caption: str       # how to read it
    panels: List[Panel]
