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

from ..figures import number
from .labels import ROW
from .spec import Line, Note, Panel

# The colour of a note on several lines' points (one line's is in its colour).
NOTE_COLOR = "#333333"

# A flagged point higher than the stable points by more than this share of their range
# would squash them: it is drawn at the top edge instead.
OFF_SCALE = 0.25
# Room above the highest point (and below the lowest when the axis does not start at
# zero), as a share of the range: the names at the top of a stack stay inside the axis.
HEADROOM = 0.06


def _finite(values) -> List[float]:
    return [float(v) for v in values or () if v is not None and math.isfinite(v)]


def fix_y_range(panel: Panel, more: Optional[List[float]] = None) -> Optional[Tuple[float, float]]:
    """Sets the panel's y axis from its lines but their flagged points, their bands and
    `more` (figures that must show, as a threshold); takes the flagged points far above
    them off their lines to the top edge, with a note of their values. None where figures
    near the float limits leave no range to reckon (the drawing then scales itself)."""
    lines = [item for item in panel.items if isinstance(item, Line)]
    flagged = {(id(flag.line), flag.index) for flag in panel.flags}
    values = _finite([v for line in lines for seq in (line.y, line.low, line.high)
                      for k, v in enumerate(seq or ()) if (id(line), k) not in flagged] + (more or []))
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
        if flag.clipped and flag.line is not None:     # off its line: the line would leave the axis
            for seq in (flag.line.y, flag.line.low, flag.line.high):
                if seq is not None:
                    seq[flag.index] = None
    panel.notes = _notes(panel, ROW * (top - bottom))
    panel.y_range = (bottom, top)
    return panel.y_range


def _notes(panel: Panel, row: float) -> List[Note]:
    """The values of the points drawn at the top edge, in one note a row below it from the
    first of them: one point's in its line's colour, several as their range (no steady state:
    which is which matters less than that they ran away). One note, not one a point: a note
    is wider than the space between swept values. The names at the lines' ends keep below it."""
    clipped = [flag for flag in panel.flags if flag.clipped]
    if not clipped:
        return []
    x, y = min(flag.x for flag in clipped), clipped[0].y - row
    if len(clipped) == 1:
        return [Note(x, y, f"{clipped[0].text} ↑", clipped[0].color)]
    values = sorted(flag.value for flag in clipped)
    unit = clipped[0].unit
    return [Note(x, y, f"{len(clipped)} unstable: {number(values[0])} to {number(values[-1])}{unit} ↑", NOTE_COLOR)]
