"""Panels laid out tight: between rows of panels only the lower one's title and the upper
one's ticks and axis title, whatever the number of rows (a share of the height grew with
the rows: 209 px blank between the coffee study's four rows of utilization panels), and
every panel tall enough for the names at its lines' ends (labels.py's ROW)."""
from report_records import coffee_record, starbucks_record

from brewput.report.charts import charts
from brewput.report.interactive import LABEL_FONT, figure
from brewput.report.labels import ROW
from brewput.report.png import draw

# the page: a subplot title (~25 px), tick labels (~20) and an axis title (~25) between rows
MIN_GAP_PIXELS, MAX_GAP_PIXELS = 70, 100
MIN_GAP_INCHES, MAX_GAP_INCHES = 0.8, 1.0     # the PNG, at its 13 pt fonts


def grid_charts():
    built = charts(coffee_record()) + charts(starbucks_record())
    grids = [chart for chart in built if len(chart.panels) > 3]
    assert {chart.name for chart in grids} >= {"utilization"}
    return built, grids


def test_the_page_leaves_no_gap_wider_than_a_title_between_rows():
    built, grids = grid_charts()
    for chart in built:
        fig = figure(chart)
        plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
        y_axes = [name for name in fig.layout.to_plotly_json() if name.startswith("yaxis")]
        domains = sorted({tuple(fig.layout[name].domain) for name in y_axes}, reverse=True)   # a row each
        assert len(domains) > 1 or chart not in grids
        for upper, lower in zip(domains, domains[1:]):
            assert MIN_GAP_PIXELS <= (upper[0] - lower[1]) * plot <= MAX_GAP_PIXELS, chart.name
        for low, high in domains:    # a row of ROW holds a name: the labels' spacing is true on the page
            assert (high - low) * plot * ROW >= 1.2 * LABEL_FONT, chart.name


def test_the_png_leaves_no_gap_wider_than_a_title_between_rows():
    _, grids = grid_charts()
    for chart in grids:
        fig = draw(chart)
        height = fig.get_figheight()
        rows = sorted({(round(ax.get_position().y0, 6), round(ax.get_position().y1, 6))
                       for ax in fig.axes if ax.get_visible()}, reverse=True)
        assert len(rows) > 1
        for upper, lower in zip(rows, rows[1:]):
            assert MIN_GAP_INCHES <= (upper[0] - lower[1]) * height <= MAX_GAP_INCHES, chart.name
        heights = [y1 - y0 for y0, y1 in rows]
        assert max(heights) - min(heights) < 1e-6                 # every row of panels as tall
