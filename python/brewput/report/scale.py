"""The y axis of a panel of lines, fixed before drawing so that the names at the lines'
ends (labels.py) are placed in the range the reader sees, the same in the PNG and on
the page.

It spans the steady-state points, their bands and whatever else the panel holds. A
flagged point (spec.Flag: an unstable model, a measured run that did not keep up) far
above them is kept off it: drawn at the top edge, its value written beside it.

Clipped rather than drawn on a log axis: a flagged figure is no steady state (an
unstable queue's wait grows with the run: examples/mmc.yaml at c=2 waits 77,812 s on
average over a million customers a replication, 155,630 s over two million), so its
size deserves no room on the scale, and a log axis would squeeze the differences between the stable points that
the chart is there to compare (0.72 against 0.98 s in examples/mmc.yaml at c=6 and 4).
"""
from __future__ import annotations

import math
from typing import List, Optional, Tuple

from .labels import ROW
from .spec import Line, Panel

# A flagged point higher than the stable points by more than this share of their range
# would squash them: it is drawn at the top edge instead.
OFF_SCALE = 0.25
# Room above the highest point (and below the lowest when the axis does not start at
# zero), as a share of the range: the names at the top of a stack stay inside the axis.
HEADROOM = 0.06


def _finite(values) -> List[float]:
    return [float(v) for v in values or () if v is not None and math.isfinite(v)]


def fix_y_range(panel: Panel, more: Optional[List[float]] = None) -> Optional[Tuple[float, float]]:
    """Sets the panel's y axis (and where its flags are drawn) from its lines, their bands
    and `more` (figures that must show, as a threshold); None where figures near the float
    limits leave no range to reckon (the drawing then scales itself)."""
    lines = [item for item in panel.items if isinstance(item, Line)]
    values = _finite([v for line in lines for seq in (line.y, line.low, line.high) for v in seq or ()] + (more or []))
    if not values:
        values = _finite([flag.value for flag in panel.flags])
    if not values:
        return None
    low, high = min(values), max(values)
    if panel.y_from_zero and high > 0:
        low = min(low, 0.0)
    span = (high - low) or abs(high) or 1.0
    for flag in panel.flags:
        flag.clipped = flag.value > high + OFF_SCALE * span
    kept = [flag.value for flag in panel.flags if not flag.clipped]
    low, high = min([low] + kept), max([high] + kept)
    span = (high - low) or abs(high) or 1.0
    top = high + HEADROOM * span
    bottom = low if panel.y_from_zero and low == 0 else low - HEADROOM * span
    if not math.isfinite(top - bottom):
        return None
    for flag in panel.flags:
        flag.y = top if flag.clipped else flag.value
    _place_texts(panel, ROW * (top - bottom))
    panel.y_range = (bottom, top)
    return panel.y_range


def _place_texts(panel: Panel, row: float) -> None:
    """Each flag's text a row below it, and a row below the text of the flag above it at the
    same x (a model and its measurement both unstable at one rate): never one on another."""
    by_x: dict = {}
    for flag in panel.flags:
        by_x.setdefault(flag.x, []).append(flag)
    for flags in by_x.values():
        above = None
        for flag in sorted(flags, key=lambda flag: -flag.y):
            flag.text_y = flag.y - row if above is None else min(flag.y - row, above - row)
            above = flag.text_y
