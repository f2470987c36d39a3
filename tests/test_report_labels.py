"""The names at the lines' ends never overlap: tested on their positions (labels.py), for
crowded inputs where many lines end together or near one another in x, and on the
drawings' side, that every panel is tall enough for a row (ROW of its y axis) to hold a
name in the font it is drawn in."""
import itertools

import numpy as np
import pytest

from report_records import coffee_record, starbucks_record

from brewput.report.charts import charts
from brewput.report.labels import ROW, X_NEAR, end_labels
from brewput.report.png import draw
from brewput.report.spec import Line, Panel
from brewput.report.scale import fix_y_range


def placed(lines):
    """The lines' names as a chart places them: in the panel's fixed y axis."""
    panel = Panel("", "x", "y", list(lines))
    fix_y_range(panel)
    return end_labels(lines, y_range=panel.y_range), panel.y_range


def assert_apart(labels, y_range, lines):
    xs = [x for line in lines for x in line.x]
    near = X_NEAR * (max(xs) - min(xs))
    row = ROW * (y_range[1] - y_range[0])
    assert len(labels) == len({line.group or line.label for line in lines})
    for a, b in itertools.combinations(labels, 2):
        if abs(a.x - b.x) < near:                     # beside the same stretch of x: they could touch
            assert abs(a.y - b.y) >= row * (1 - 1e-9), (a, b)
    for label in labels:                              # each whole inside the axis
        assert y_range[0] + row / 2 - 1e-9 <= label.y <= y_range[1] - row / 2 + 1e-9


def test_twelve_lines_ending_together_are_stacked_a_row_apart_inside_the_axis():
    # the coffee study's utilization: a dozen stations all near 100 % at the last value
    lines = [Line(f"station-{k}", [1, 2, 3, 4, 5, 6], [20, 40, 60, 80, 95, 99 + k / 20], "#000000")
             for k in range(12)]
    labels, y_range = placed(lines)
    assert_apart(labels, y_range, lines)
    assert max(label.y for label in labels) <= y_range[1]


def test_ends_spread_in_x_do_not_overlap_where_their_names_reach():
    # the hockey stick: each line ends at its own throughput; names of ends nearer than a
    # name's width stack even when the ends are not at the same x
    lines = [Line(name, [250, x], [4.0, y], "#000000") for name, x, y in (
        ("linearpipe-0", 896, 6.6), ("linearpipe-1", 977, 6.1), ("splitpipe-1", 982, 6.0),
        ("linearpipe-10", 978, 6.05), ("finelocking", 982, 6.02), ("parsteam", 990, 5.0),
        ("multipipe-2", 1467, 4.1), ("multi-2", 1497, 4.0), ("multi-4", 1499, 4.0), ("ideal", 1500, 4.0))]
    labels, y_range = placed(lines)
    assert_apart(labels, y_range, lines)


@pytest.mark.parametrize("seed", range(20))
def test_random_crowds_never_overlap(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 16))
    ends_x = rng.choice([6.0, 5.5, 5.0, 4.0], size=count)
    lines = [Line(f"line-{k}", [1.0, float(x)], [float(rng.uniform(0, 50)), float(rng.uniform(40, 60))], "#000000")
             for k, x in enumerate(ends_x)]
    labels, y_range = placed(lines)
    assert_apart(labels, y_range, lines)


@pytest.mark.parametrize("record", [coffee_record, starbucks_record])
def test_the_charts_names_never_overlap(record):
    for chart in charts(record()):
        for panel in chart.panels:
            lines = [item for item in panel.items if isinstance(item, Line)]
            if lines and panel.y_range is not None and not panel.log_x:
                assert_apart(panel.labels, panel.y_range, lines)


def test_every_png_panel_is_tall_enough_for_a_row_to_hold_a_name():
    for chart in charts(starbucks_record()) + charts(coffee_record()):
        figure = draw(chart)
        for ax, panel in zip(figure.axes, chart.panels):
            if not panel.labels:
                continue
            height_points = ax.get_position().height * figure.get_figheight() * 72
            size = max(text.get_fontsize() for text in ax.texts if text.get_text() == panel.labels[0].text)
            assert ROW * height_points >= 1.2 * size, (chart.name, panel.title)
