"""The charts as the talk drew them, and readable when eleven lines coincide:
colours no two of which are near, a marker per model, names at the lines' ends
(shared where lines end together), bands that stop at zero and carry no markers,
slide-sized PNGs, the capacity planner's latency against throughput, and the
analytic bounds on the throughput chart checked against their closed form."""
import itertools
import math
import struct

import pytest

from report_records import central_record, coffee_record, mixed_record

from brewput.report.charts import charts
from brewput.report.interactive import figure
from brewput.report.labels import ROW, end_labels
from brewput.report.png import write_png
from brewput.report.spec import MARKERS, PALETTE, Line


def by_name(record):
    return {chart.name: chart for chart in charts(record)}


def scenario(record, model, engine="simulate", **params):
    return next(s["results"] for s in record["scenarios"]
                if s["model"] == model and s["engine"] == engine and all(s["params"][k] == v for k, v in params.items()))


def cielab(hex_color):
    """sRGB (D65) to CIELAB, written out here rather than taken from the code under test."""
    def linear(c):
        return ((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92
    r, g, b = (linear(int(hex_color[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    f = [v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116 for v in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def test_no_two_colours_of_the_palette_are_near():
    # multipipe-2 and finelocking were both green (tab10's and Dark2's, 16 apart)
    assert len(PALETTE) >= 11                      # the talk's eleven coffee shops, each its own colour
    nearest = min(math.dist(cielab(a), cielab(b)) for a, b in itertools.combinations(PALETTE, 2))
    assert nearest > 25


def test_each_model_has_its_own_colour_and_marker_in_every_chart():
    built = by_name(coffee_record())
    styles = {(line.label, line.color, line.marker) for name in ("throughput", "latency", "latency_throughput")
              for panel in built[name].panels for line in panel.items}
    assert len(styles) == 4 and len({(c, m) for _, c, m in styles}) == 4
    assert {m for _, _, m in styles} <= set(MARKERS) and len({m for _, _, m in styles}) == 4


def line(label, ys, color="#000000"):
    return Line(label=label, x=list(range(1, len(ys) + 1)), y=ys, color=color)


def test_every_line_is_named_at_its_end_in_its_colour_and_no_two_names_overlap():
    lines = [line("ideal", [250, 1500], "#1f77b4"), line("multi-2", [250, 1497], "#ff7f0e"),
             line("multi-4", [250, 1499], "#2ca02c"), line("locking", [250, 250], "#d62728"),
             line("finelocking", [250, 982], "#9467bd"), line("linearpipe-0", [250, 940], "#8c564b")]
    lines[3].marker = "square"
    labels = end_labels(lines)
    assert [label.text for label in labels] == ["■ locking", "● linearpipe-0", "● finelocking", "● multi-2",
                                                "● multi-4", "● ideal"]
    colors = {line.label: line.color for line in lines}
    assert all(label.color == colors[label.text[2:]] and label.x == 2 for label in labels)
    row = ROW * 1500
    assert all(above.y - below.y >= row - 1e-9 for below, above in zip(labels, labels[1:]))
    assert labels[0].y == labels[0].at == 250                     # room enough: at its own line's end
    # two names too close stack centred where they wanted to be, each joined to its line's end
    assert (labels[1].y, labels[2].y) == pytest.approx(((940 + 982) / 2 - row / 2, (940 + 982) / 2 + row / 2))
    assert (labels[1].at, labels[2].at) == (940, 982)
    assert labels[-1].y <= 1500 + row / 2                         # crowded at the top: pushed back down


def test_coffee_charts_name_their_lines_at_the_end():
    built = by_name(coffee_record())
    for chart in ("throughput", "latency", "latency_throughput", "spectrum", "utilization"):
        for panel in built[chart].panels:          # each panel names its own lines, every one of them
            assert sorted(label.text.split(" ", 1)[1] for label in panel.labels) == sorted(
                line.label for line in panel.items)


def test_bands_stop_at_zero_and_draw_no_markers():
    record = coffee_record()
    latte = scenario(record, "locking", cpus=1)["classes"]["latte"]
    latte["throughput_ci"] = [-0.1, 0.6]           # a wide interval from a short lab run
    built = by_name(record)
    locking = next(line for line in built["throughput"].panels[0].items if line.label == "locking")
    assert locking.low[0] == 0.0 and locking.high[0] == pytest.approx(600)
    fig = figure(built["throughput"])
    bands = [trace for trace in fig.data if trace.fill == "toself"]
    assert bands and all(trace.mode == "lines" for trace in bands)
    assert min(y for trace in bands for y in trace.y if y is not None) >= 0
    texts = [a.text for a in fig.layout.annotations]
    assert "■ locking" in texts                    # the end labels are in the interactive chart too


def png_size(path):
    with open(path, "rb") as f:
        header = f.read(24)
    return struct.unpack(">II", header[16:24])


def test_pngs_are_slide_sized(tmp_path):
    built = by_name(coffee_record())
    assert png_size(write_png(built["throughput"], tmp_path / "t.png")) == (3200, 1800)   # 1600 x 900 at 2x
    width, height = png_size(write_png(built["utilization"], tmp_path / "u.png"))
    assert width == 3200 and height >= 1800


def test_latency_against_throughput_is_each_swept_point_at_its_throughput_and_latency():
    record = coffee_record()
    chart = by_name(record)["latency_throughput"]
    median, p95 = chart.panels
    assert median.x_label == "throughput (lattes per second)" and p95.y_label == "95th percentile response time (ms)"
    locking = next(line for line in median.items if line.label == "locking")
    for cpus, x, y in zip(range(1, 7), locking.x, locking.y):
        latte = scenario(record, "locking", cpus=cpus)["classes"]["latte"]
        assert x == pytest.approx(latte["throughput"] * 1000) and y == latte["response_time"]["p50"]
    # the hockey stick: locking's throughput stays near 250/s while its latency climbs 4 ms per cpu
    assert max(locking.x) - min(locking.x) < 10 and locking.y[-1] > 5 * locking.y[0]


def test_throughput_chart_draws_the_asymptotic_bounds_of_a_model_solve_answers():
    # Central server: demands cpu 10 x 2 ms, disk1 6 x 3 ms, disk2 3 x 5 ms per job, think 100 ms.
    # Asymptotic bound: X(N) <= min(N / (D + Z), 1 / D_max) with D = 53 ms, D_max = 20 ms.
    record = central_record()
    lines = by_name(record)["throughput"].panels[0].items
    bound = next(line for line in lines if line.label == "central bound")
    assert bound.dash == "dot" and bound.marker is None
    assert bound.y == pytest.approx([min(n / 153, 1 / 20) * 1000 for n in (1, 4, 8, 16)])
    simulated = next(line for line in lines if line.label == "central (simulate)")
    assert all(y <= b * 1.02 for y, b in zip(simulated.y, bound.y))
    assert "asymptotic bound" in by_name(record)["throughput"].caption


def test_no_bounds_where_solve_has_none():
    lines = by_name(coffee_record())["throughput"].panels[0].items
    assert all(not line.label.endswith("bound") for line in lines)
    assert by_name(mixed_record())["throughput"].panels[0].items[-1].label == "mmc bound"


def test_a_model_measured_and_predicted_has_one_name_and_the_dashes_a_legend():
    # `lab --predict` records hold lab and simulate scenarios for the same params (shape only:
    # the simulated results relabelled as measured)
    record = coffee_record()
    record["scenarios"] += [{**s, "id": len(record["scenarios"]) + k, "engine": "lab"}
                            for k, s in enumerate(record["scenarios"])]
    panel = by_name(record)["throughput"].panels[0]
    assert len(panel.items) == 8
    assert sorted(label.text.split(" ", 1)[1] for label in panel.labels) == [
        "finelocking", "ideal", "linearpipe-0", "locking"]
    assert panel.engines == [("solid", "lab"), ("dash", "simulate")]
    ideal = [line for line in panel.items if line.group == "ideal"]
    label = next(label for label in panel.labels if label.text.endswith(" ideal"))
    assert label.at == pytest.approx(sum(line.y[-1] for line in ideal) / 2)
    assert by_name(coffee_record())["throughput"].panels[0].engines == []      # one engine: no dash legend


@pytest.mark.parametrize("name", ["x^2$_$", "$\\frac{", "<b>bold</b> &amp; [/] %{y}"])
def test_user_text_is_drawn_as_written(tmp_path, name):
    # matplotlib reads $...$ as mathematics (and fails on what does not parse); plotly reads HTML tags
    import copy

    record = copy.deepcopy(coffee_record())
    for s in record["scenarios"]:
        if s["model"] == "ideal":
            s["model"] = name
            s["results"]["classes"] = {name: s["results"]["classes"]["latte"]}
    record["models"][name] = record["models"].pop("ideal")
    record["title"] = name
    built = by_name(record)
    for chart in built.values():
        write_png(chart, tmp_path / f"{chart.name}.png")
    fig = figure(built["throughput"])
    escaped = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert escaped in {trace.name for trace in fig.data}
    assert not any("<b>" in (a.text or "") for a in fig.layout.annotations)


def test_solved_and_simulated_are_told_apart_by_line_style():
    # one model, one colour: simulated solid with its 95 % band and filled markers, solved dashed
    # on top of it, cased in white, with smaller hollow markers; the legends say which is which
    from brewput.report.png import draw

    chart = by_name(mixed_record())["latency"]
    for panel in chart.panels:
        simulated, solved = (next(line for line in panel.items if line.label == f"mmc ({engine})")
                             for engine in ("simulate", "solve"))
        assert simulated.color == solved.color
        assert (simulated.dash, solved.dash) == ("solid", "dash")
        assert simulated.low is not None and solved.low is None
        assert panel.engines == [("solid", "simulate"), ("dash", "solve")]
    for ax in draw(chart).axes:
        drawn = {line.get_linestyle(): line for line in ax.get_lines() if line.get_marker() == "o"}
        simulated, solved = drawn["-"], drawn["--"]
        assert solved.get_markerfacecolor() == "white" and simulated.get_markerfacecolor() != "white"
        assert solved.get_markersize() < simulated.get_markersize() and solved.get_zorder() > simulated.get_zorder()
        assert solved.get_path_effects()                                   # the white casing
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["simulate", "solve"]
        assert [h.get_linestyle() for h in legend.legend_handles] == ["-", "--"]
        assert legend.legend_handles[1].get_markerfacecolor() == "white"
    traces = list(figure(chart).data)
    names = [trace.name for trace in traces]
    simulated, solved = names.index("mmc (simulate)"), names.index("mmc (solve)")
    assert simulated < solved                                              # drawn on top of it
    assert traces[solved].line.dash == "dash" and traces[solved].marker.symbol == "circle-open"
    assert traces[simulated].line.dash == "solid" and traces[simulated].marker.symbol == "circle"
    casing = traces[solved - 1]
    assert casing.line.color == "white" and casing.line.width > traces[solved].line.width and casing.showlegend is False
