"""Names at the ends of a panel's lines, in place of a legend the eye must match
by colour: each name in its line's colour with its marker, beside the line's
last point. Lines that end together (five coffee shops at the same throughput)
get their names stacked there, none on top of another: any two names whose ends are
nearer in x than a name can be wide are at least a row (a name's height) apart."""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from .spec import LABEL_ROOM, LEADER, EndLabel, Line

# The height of a name, as a share of the panel's y range: the drawings keep each panel
# tall enough for it (png.py's rows of panels, interactive.py's PANEL_HEIGHT; tested).
ROW = 0.045
# Names of ends nearer in x than this share of the x range can collide: a name stands a
# leader off its end and is as wide as the room made for names at the right of the axis.
X_NEAR = LABEL_ROOM + LEADER
GLYPHS = {"circle": "●", "square": "■", "diamond": "◆", "triangle-up": "▲", "triangle-down": "▼",
          "x": "✕", "cross": "✚"}


def _last_point(line: Line) -> Optional[Tuple[float, float]]:
    """The line's last point drawn: at the last swept value (a hockey stick's may lie anywhere)."""
    points = [(x, y) for x, y in zip(line.x, line.y)
              if isinstance(x, (int, float)) and y is not None and math.isfinite(x) and math.isfinite(y)]
    return points[-1] if points else None


def _range(lines: Sequence[Line], from_zero: bool) -> Tuple[float, float]:
    values = [y for line in lines for y in line.y if y is not None and math.isfinite(y)]
    if not values:
        return 0.0, 1.0
    low, high = (min(values + [0.0]) if from_zero else min(values)), max(values)
    return low, high if high > low else low + (abs(low) or 1.0)


def _spread(wanted: List[float], row: float) -> List[float]:
    """Positions as near the wanted ones (sorted) as can be with a row between each two:
    names that crowd form a stack centred where they wanted to be."""
    stacks: List[List[float]] = []            # [first position, count, sum of the wanted]
    for y in wanted:
        stacks.append([y, 1, y])
        while len(stacks) > 1 and stacks[-2][0] + stacks[-2][1] * row > stacks[-1][0]:
            last = stacks.pop()
            stacks[-1][1] += last[1]
            stacks[-1][2] += last[2]
            stacks[-1][0] = stacks[-1][2] / stacks[-1][1] - (stacks[-1][1] - 1) * row / 2
    return [first + k * row for first, count, _ in stacks for k in range(count)]


def _columns(ends, x_near: float) -> List[list]:
    """The ends grouped by x: only names beside the same stretch of x can collide
    (every line of a sweep ends at its last value; a hockey stick's end anywhere)."""
    columns: List[list] = []
    for end in sorted(ends, key=lambda end: end[0][0]):
        if columns and end[0][0] - columns[-1][-1][0][0] <= x_near:
            columns[-1].append(end)
        else:
            columns.append([end])
    return columns


def _group_ends(lines: Sequence[Line]) -> List[Tuple[Tuple[float, float], Line, str]]:
    """Each group's end (lines without a group are their own): the mean of its lines' last
    points, with its first line (for the colour and marker) and the name to show."""
    groups = {}
    for line in lines:
        point = _last_point(line)
        if point is not None:
            groups.setdefault(line.group or line.label, []).append((point, line))
    return [((max(p[0] for p, _ in members), sum(p[1] for p, _ in members) / len(members)), members[0][1], name)
            for name, members in groups.items()]


def end_labels(lines: Sequence[Line], from_zero: bool = True, log_x: bool = False,
               y_range: Optional[Tuple[float, float]] = None, below: Optional[float] = None) -> List[EndLabel]:
    """A label per line (or group of lines) beside its last point, a row apart from the next
    beside the same stretch of x; kept inside the panel's y axis when it is given (`y_range`,
    a row being ROW of it), else within half a row of the lines' range; a row under `below`
    (a note written there) at most."""
    ends = [((point[0], point[1]), (line, name)) for point, line, name in _group_ends(lines)]
    if not ends:
        return []
    if log_x:
        ends = [((math.log10(x), y), line) for (x, y), line in ends]
    if y_range is None:
        low, high = _range(lines, from_zero)
        row = ROW * (high - low)
        bottom, top = low - row / 2, high + row / 2
    else:
        row = ROW * (y_range[1] - y_range[0])
        bottom, top = y_range[0] + row / 2, y_range[1] - row / 2
    if below is not None:
        top = min(top, below - row)
    # the x range the drawings make the label room from: every point's, not only the ends'
    xs = [x for line in lines for x in line.x
          if isinstance(x, (int, float)) and math.isfinite(x) and (x > 0 or not log_x)]
    xs = [math.log10(x) for x in xs] if log_x else xs
    if not (math.isfinite(row) and math.isfinite(max(xs) - min(xs))):
        return []                                    # figures near the float limits: no room to reckon
    labels = []
    for column in _columns(ends, X_NEAR * ((max(xs) - min(xs)) or 1.0)):
        column.sort(key=lambda end: (end[0][1], end[1][1]))
        ys = _spread([point[1] for point, _ in column], row)
        for k in range(len(ys) - 1, -1, -1):         # down from the top ...
            ys[k] = min(ys[k], top if k == len(ys) - 1 else ys[k + 1] - row)
        for k in range(len(ys)):                     # ... and up from the bottom
            ys[k] = max(ys[k], bottom if k == 0 else ys[k - 1] + row)
        labels += [EndLabel(x=10 ** point[0] if log_x else point[0], y=y, at=point[1],
                            text=f"{GLYPHS.get(line.marker, '—')} {name}", color=line.color)
                   for (point, (line, name)), y in zip(column, ys)]
    return labels
