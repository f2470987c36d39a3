"""An unstable point in a sweep (examples/mmc.yaml at c=2: 2.7 customers a second offered
to two servers of one a second each, 135 %) has no steady state: its wait grows with the
run, thousands of times the stable points'. The charts mark it (a hollow triangle, named
in the legend) and keep it off the y axis: taken off its line and drawn at the top edge
with "unstable" and its value written below, every stable point inside the axis, in the
description, the PNG and the interactive chart alike. An unstable point within the
stable points' range stays where it is on its line, marked."""
import pytest

from report_records import mixed_record, unstable_record

from brewput.report.charts import charts
from brewput.report.interactive import figure
from brewput.report.png import draw
from brewput.report.spec import Line

RATE = 2.7  # examples/mmc.yaml's arrival rate; each server serves exp(1): one a second


def by_name(record):
    return {chart.name: chart for chart in charts(record)}


def figures_at(record, c):
    s = next(s for s in record["scenarios"] if s["params"]["c"] == c)
    return s["results"]["classes"]["customer"]


def test_the_unstable_point_is_flagged_off_its_line_and_above_the_axis():
    record = unstable_record()
    unstable = [c for c in record["sweep"]["c"] if RATE / c >= 1]     # offered load of 100 % or more
    assert unstable == [2]
    for panel, statistic in zip(by_name(record)["latency"].panels, ("p50", "p95")):
        (line,) = [item for item in panel.items if isinstance(item, Line)]
        value = figures_at(record, 2)["response_time"][statistic]
        stable = [figures_at(record, c)["response_time"][statistic] for c in (3, 4, 6)]
        assert value > 20 * max(stable)                                # it would squash the others to zero
        assert line.x[0] == 2 and line.y[0] is None and line.low[0] is None and line.high[0] is None
        assert line.y[1:] == pytest.approx(stable)
        (flag,) = panel.flags
        assert (flag.x, flag.value, flag.color) == (2, value, line.color)
        low, high = panel.y_range
        assert flag.clipped and flag.value > high and flag.y == high   # drawn at the top edge
        assert flag.text.startswith("unstable: ") and flag.text.endswith(" s")
        assert low == 0 and max(stable) <= high <= 1.1 * max(line.high[1:])   # the axis is the stable points'
        (note,) = panel.notes                                          # its value written below it
        assert (note.x, note.text, note.color) == (2, flag.text + " ↑", line.color) and low < note.y < high


def test_an_unstable_point_within_the_range_is_flagged_where_it_is():
    # at c=2 the throughput is the two servers' capacity: on the scale, but no steady state
    panel = by_name(unstable_record())["throughput"].panels[0]
    (flag,) = panel.flags
    assert flag.x == 2 and not flag.clipped and flag.y == flag.value
    assert panel.y_range[0] <= flag.value <= panel.y_range[1]
    (line,) = [item for item in panel.items if isinstance(item, Line) and item.marker is not None]
    assert line.y[0] == flag.value and not panel.notes                 # on its line, marked, nothing written
    assert flag.value == pytest.approx(2.0, rel=0.03)                  # two servers, one a second each
    assert flag.text.startswith("unstable: 1.9") or flag.text.startswith("unstable: 2")
    assert flag.text.endswith("/s")


def test_stable_sweeps_have_no_flags():
    for chart in by_name(mixed_record()).values():
        assert all(not panel.flags for panel in chart.panels)


def test_the_png_draws_the_axis_and_the_flag_as_described():
    chart = by_name(unstable_record())["latency"]
    fig = draw(chart)
    for ax, panel in zip(fig.axes, chart.panels):
        assert ax.get_ylim() == pytest.approx(panel.y_range)
        (flag,) = panel.flags
        marks = [line for line in ax.get_lines() if line.get_marker() == "^"]
        assert len(marks) == 1 and list(marks[0].get_xdata()) == [flag.x] and list(marks[0].get_ydata()) == [flag.y]
        assert marks[0].get_markerfacecolor() == "white"
        (note,) = panel.notes
        assert [t.xy for t in ax.texts if t.get_text() == note.text] == [(note.x, note.y)]
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["unstable (no steady state)"]               # what the triangle means


def test_the_interactive_chart_draws_the_axis_and_the_flag_as_described():
    chart = by_name(unstable_record())["latency"]
    fig = figure(chart)
    flags = [trace for trace in fig.data if trace.marker.symbol == "triangle-up-open"]
    assert [(trace.x[0], trace.y[0]) for trace in flags] == [(p.flags[0].x, p.flags[0].y) for p in chart.panels]
    assert all(trace.cliponaxis is False for trace in flags)
    assert [trace.showlegend for trace in flags] == [True, False] and flags[0].name == "unstable (no steady state)"
    texts = [(a.x, a.y, a.text) for a in fig.layout.annotations if (a.text or "").startswith("unstable: ")]
    assert texts == [(p.notes[0].x, p.notes[0].y, p.notes[0].text) for p in chart.panels]
    assert list(fig.layout.yaxis.range) == pytest.approx(chart.panels[0].y_range)
    assert list(fig.layout.yaxis2.range) == pytest.approx(chart.panels[1].y_range)


def test_the_hockey_stick_flags_it_too():
    for panel in by_name(unstable_record())["latency_throughput"].panels:
        (flag,) = panel.flags
        assert flag.clipped and flag.value > panel.y_range[1]


def test_without_a_sweep_the_unstable_bar_says_so():
    record = unstable_record()
    record["scenarios"] = [s for s in record["scenarios"] if s["params"]["c"] == 2]
    record["sweep"] = {}
    bars = by_name(record)["latency"].panels[0].items[0]
    assert bars.categories == ["mmc (unstable)"]


def test_clipped_points_at_neighbouring_values_share_one_note_and_the_names_keep_below_it():
    # a note is wider than the space between swept values: one for the panel, from the first
    from brewput.report.charts import _labelled
    from brewput.report.labels import ROW
    from brewput.report.spec import Flag, Panel

    lines = [Line(f"model-{m}", [1, 2, 3, 4, 5, 6], [1.0 + m / 10, 2.0, 3.0, 900.0 + m, 950.0, 990.0], "#1f77b4")
             for m in range(6)]
    flags = [Flag(x=x, value=line.y[k], y=line.y[k], text=f"unstable: {line.y[k]:g} s", color=line.color,
                  unit=" s", line=line, index=k) for line in lines for k, x in enumerate(line.x) if x >= 4]
    panel = _labelled(Panel("", "c", "s", lines, flags=flags))
    low, high = panel.y_range
    assert high < 4 and all(line.y[3:] == [None, None, None] for line in lines)   # the stable points' axis
    row = ROW * (high - low)
    (note,) = panel.notes
    assert (note.x, note.y) == (4, pytest.approx(high - row))
    assert note.text == "18 unstable: 900 to 990 s ↑"
    assert all(label.y <= note.y - row + 1e-9 for label in panel.labels)          # never on the note
