"""A chart described once, drawn twice: as a PNG (png.py, matplotlib) and as an
interactive figure (interactive.py, plotly). The chart builders (charts.py) make
these plain descriptions; neither drawing library is imported to make them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

# matplotlib's tab10 (the usual categorical palette) with black and navy: twelve
# colours no two of which are near (CIELAB distance 27 or more, tested), one per
# model, or per station and resource; past twelve the marker still tells them apart.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#0b3d91")
# Seven markers against twelve colours: every (colour, marker) pair differs up to 84 lines.
MARKERS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "x", "cross")


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def marker(i: int) -> str:
    return MARKERS[i % len(MARKERS)]


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
    marker: Optional[str] = "circle"         # one of MARKERS, or None: a plain line (a bound)
    legend: bool = True                      # False: a guide named by its end label only
    group: Optional[str] = None              # lines of one group (a model measured and predicted)
                                             # share one name at their ends
    steps: bool = False                      # held from each x to the next (a rota, a rate per interval):
                                             # x holds the edges, the last y repeated at the last edge;
                                             # drawn without a band


def beside(line: Line) -> bool:
    """Whether a line is the second or third engine's figures of a model (solved beside
    simulated, simulated beside measured: dashed or dotted, with markers), which often lie
    on the first engine's line. Both drawings put it on top with smaller hollow markers, so
    that where the two coincide each shows (a ring in a dot); a dashed line is cased in
    white, its dashes showing on the solid line under it, and a dotted one drawn above both."""
    return line.dash != "solid" and line.marker is not None


# The markers of a line beside another engine's, against the others' (points in the PNG).
MARKER_SIZE, BESIDE_MARKER_SIZE = 6.0, 4.0


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


# Room at the right of a panel's x axis for the end labels, as a share of the x range,
# and how far a label stands off its line's end (the same in the PNG and the page).
LABEL_ROOM = 0.3
LEADER = 0.03
# A character of a name is about this share of its font size wide (both drawings).
CHARACTER = 0.6


def label_room(labels: Sequence["EndLabel"], font: float, axes_width: float) -> float:
    """Room at the right of the x axis for the longest name, as a share of the data's span:
    LABEL_ROOM, or more where a narrow panel of a grid would cut a long name. `font` and
    `axes_width` in one unit (points in the PNG, pixels on the page)."""
    needed = (max(len(label.text) for label in labels) + 2) * CHARACTER * font / axes_width
    if needed >= 0.75:
        return 3.0  # the names then take three quarters of the panel: as much as the lines may give up
    return max(LABEL_ROOM, (needed * 1.03 + LEADER) / (1 - needed))


@dataclass
class EndLabel:
    """A line's name at its right end: at (x, y), drawn with a leader to the line's
    last point (x, at) when it had to move away from it."""
    x: float
    y: float
    at: float
    text: str
    color: str


@dataclass
class Flag:
    """A point that is no steady-state figure: a model offered more than it can serve (its
    queue grows for as long as the run lasts) or a measured run whose service did not keep
    up. Marked where it is on its line; one far above the rest is taken off its line and
    drawn at the panel's top edge (`clipped`), its value written (a Note), so that it
    squashes nothing."""
    x: float
    value: float
    y: float            # where it is drawn: at its value, or at the top edge when clipped
    text: str           # "unstable: 77,914 s"
    color: str
    unit: str = ""      # after a value written: " s", "/s", " %"
    clipped: bool = False
    line: Optional["Line"] = field(default=None, repr=False, compare=False)   # the line it is a point of
    index: int = 0                                                           # ... at this index


@dataclass
class Note:
    """Words in a panel, written from (x, y) to the right: the value of the unstable points
    drawn at the top edge above them."""
    x: float
    y: float
    text: str
    color: str


@dataclass
class Guide:
    """A reference line across a panel, named beside it: a load run's threshold
    (axis "y", horizontal) or the saturation point where a threshold broke (axis "x",
    vertical)."""
    axis: str           # "x" | "y"
    value: float
    text: str


# The guides' colour: dark red, apart from the palette's red (#d62728) and the bounds' grey.
GUIDE_COLOR = "#8b0000"


@dataclass
class Panel:
    title: str
    x_label: str
    y_label: str
    items: List[Item] = field(default_factory=list)
    log_x: bool = False
    x_ticks: Optional[List[Tuple[float, str]]] = None   # (value, label)
    y_from_zero: bool = True
    labels: List[EndLabel] = field(default_factory=list)
    engines: List[Tuple[str, str]] = field(default_factory=list)   # (dash, engine) when lines mix engines
    flags: List[Flag] = field(default_factory=list)
    notes: List[Note] = field(default_factory=list)
    guides: List[Guide] = field(default_factory=list)
    y_range: Optional[Tuple[float, float]] = None   # the y axis, fixed where the chart placed names in it
    x_span: Tuple[float, ...] = ()                  # x values the axis must show beyond the lines' (a day's ends)


@dataclass
class Chart:
    name: str          # file stem: throughput, latency, latency_boxes, utilization, spectrum
    title: str
    caption: str       # how to read it
    panels: List[Panel]
