"""The x axis of a day's charts: the model's time from the start of the day, ticked with
the intervals' clock labels (`day.start`: 08:00, 08:15, ...), the same for the day's
figures (day_charts.py) and a planned rota (rota_page.py). A figure of an interval is
drawn at its middle; what holds through an interval (a rate, servers on) as steps."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from .labels import end_labels
from .scale import fix_y_range
from .spec import Guide, Line, Panel, color

# The most clock labels on the x axis: more would overlap in a panel a third of the page wide;
# a label every STRIDES intervals, the least that keeps to it (a quarter hour's 4 is each hour).
MOST_TICKS = 5
STRIDES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 48, 96)


class TimeOfDay:
    """The intervals of a day (dicts with start, end and label, as results and plans give them)."""

    def __init__(self, intervals: Sequence[dict], time_unit: str):
        self.time_unit = time_unit
        self.labels = [i["label"] for i in intervals]
        self.edges = [i["start"] for i in intervals] + [intervals[-1]["end"]]
        self.middles = [(i["start"] + i["end"]) / 2 for i in intervals]

    def ticks(self) -> List[Tuple[float, str]]:
        """The intervals' starts labelled with their clock times, at most MOST_TICKS of them."""
        every = next((k for k in STRIDES if -(-len(self.labels) // k) <= MOST_TICKS),
                     -(-len(self.labels) // MOST_TICKS))
        return [(start, label) for k, (start, label) in enumerate(zip(self.edges, self.labels)) if k % every == 0]

    def panel(self, title: str, y_label: str, items: list, engines: Sequence[Tuple[str, str]] = (),
              guides: Optional[List[Guide]] = None) -> Panel:
        """A panel against the time of day over the whole day, its y axis fixed (showing the
        guides) and its lines named at their ends."""
        clock = ":" in self.labels[0]   # labelled from day.start (08:00), else by the time itself (1000 ms)
        x_label = f"time of day ({self.time_unit} from {self.labels[0]})" if clock else f"time ({self.time_unit})"
        panel = Panel(title, x_label, y_label, items,
                      x_ticks=self.ticks(), engines=list(engines), guides=list(guides or []),
                      x_span=(self.edges[0], self.edges[-1]))
        fix_y_range(panel, [guide.value for guide in panel.guides if guide.axis == "y"])
        panel.labels = end_labels([item for item in items if isinstance(item, Line)], panel.y_from_zero, False,
                                  panel.y_range)
        return panel

    def steps(self, label: str, values: Sequence[Optional[float]], k: int, dash: str = "solid",
              intervals: Optional[Sequence[dict]] = None) -> Line:
        """What holds through each interval (the axis's, or those given: an engine's own), as
        steps from its start to its end."""
        edges = self.edges if intervals is None else [i["start"] for i in intervals] + [intervals[-1]["end"]]
        return Line(label=label, x=list(edges), y=list(values) + [values[-1]], color=color(k), marker=None,
                    dash=dash, steps=True)
