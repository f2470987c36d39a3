"""The capacity report of `brewput load --sweep`, run as a person runs it against a demo
server the test starts: one worker serving each request in 4 ms (250 a second at most),
measured at 100, 200, 400 and 800 a second with `--threshold 'p99<300ms'`. At 400 the
queue grows for the whole run (150 a second more than it can serve): p99 breaks, the
sweep stops there and 800 never runs.

The report must read the runs that happened (its summary at rate=400, not the planned
800), draw the threshold and the saturation point where the reader looks for them, and
mark the run that could not hold its rate."""
import copy
import json
import subprocess
import sys

import pytest

from load_server import serving
from report_records import coffee_record

from brewput.loadtest.results import HELD_SHARE
from brewput.report.charts import charts
from brewput.report.data import ChartData
from brewput.report.interactive import figure
from brewput.report.png import draw
from brewput.report.spec import Line
from brewput.report.summary import headlines

SERVICE_MS = 4.0
RATES = [100, 200, 400, 800]
MODEL = """brewput: 1
name: one worker, 4 ms
time_unit: ms
params:
  rate: 0.1
stations:
  server:
    servers: 1
classes:
  request:
    rate: ${rate}
    route:
      - {station: server, service: const(4)}
"""


@pytest.fixture(scope="module")
def capacity(tmp_path_factory):
    folder = tmp_path_factory.mktemp("capacity")
    (folder / "server.yaml").write_text(MODEL)
    with serving(f"const({SERVICE_MS:g}ms)", workers=1) as url:
        done = subprocess.run(
            [sys.executable, "-m", "brewput", "load", url, "--sweep", "rate=" + ",".join(map(str, RATES)),
             "--arrivals", "constant", "--duration", "2s", "--threshold", "p99<300ms",
             "--predict", str(folder / "server.yaml"), "--json", "--report", str(folder / "report")],
            capture_output=True, text=True, timeout=120, cwd=folder)
    assert done.returncode == 1, done.stderr                           # a threshold broke: the saturation point
    record = json.loads(done.stdout)
    assert record["saturation"] == {"rate": 400, "broken": ["p99<300ms"]}, done.stderr
    return record, folder


def first_figure(cell):
    """The figure of a summary cell ("241.6 ± 0.9", "1,299"), "-" failing the test."""
    return float(cell.split()[0].replace(",", ""))


def measured(record):
    return {s["params"]["rate"]: s["results"] for s in record["scenarios"] if s["engine"] == "load"}


def test_the_summary_reads_the_last_run_not_the_last_planned_rate(capacity):
    record, folder = capacity
    assert record["sweep"]["rate"] == RATES and sorted(measured(record)) == [100, 200, 400]
    data = ChartData(record)
    assert data.last_x() == ("rate", 400)
    at = f"at rate={data.last_x()[1]}"                                 # as the sweep wrote it (400.0)
    row = next(row for _, row in headlines(data).iterrows() if row["engine"] == "load")
    load = measured(record)[400]["load"]
    assert first_figure(row[f"throughput (requests per second) {at}"]) == pytest.approx(load["achieved_rate"], rel=1e-3)
    response = measured(record)[400]["classes"]["request"]["response_time"]
    assert first_figure(row[f"p95 (ms) {at}"]) == pytest.approx(response["p95"], rel=1e-3)
    page = (folder / "report" / "index.html").read_text()
    assert at in page and "at rate=800" not in page
    # the x axis ticks the rates that ran: 800 would stretch it over a run that never was
    assert [v for v, _ in charts(record, ["throughput"])[0].panels[0].x_ticks] == [100, 200, 400]


def test_the_run_that_could_not_hold_its_rate_is_flagged(capacity):
    record, _ = capacity
    runs = measured(record)
    held = {rate: r["load"]["achieved_rate"] >= HELD_SHARE * r["load"]["target_rate"] for rate, r in runs.items()}
    assert held == {100: True, 200: True, 400: False}                # 250 a second at most
    panel = charts(record, ["latency"])[0].panels[0]
    flagged = {flag.x for flag in panel.flags if flag.color == next(
        line.color for line in panel.items if isinstance(line, Line) and line.label.startswith("http"))}
    assert flagged == {400}


def test_a_sweep_stopped_early_is_summarised_at_its_last_run():
    # any record whose last planned values never ran (Ctrl-C, a load sweep's saturation point)
    record = coffee_record()
    record["scenarios"] = [s for s in record["scenarios"] if s["params"]["cpus"] <= 4]
    assert record["sweep"]["cpus"][-1] == 6
    table = headlines(ChartData(record))
    for _, row in table.iterrows():
        latte = next(s["results"]["classes"]["latte"] for s in record["scenarios"]
                     if s["model"] == row["model"] and s["params"]["cpus"] == 4)
        assert first_figure(row["throughput (lattes per second) at cpus=4"]) == pytest.approx(
            latte["throughput"] * 1000, rel=1e-3)
        assert first_figure(row["median (ms) at cpus=4"]) == pytest.approx(latte["response_time"]["p50"], rel=1e-3)
    assert not any("cpus=6" in column for column in table.columns)
    assert charts(record, ["latency_boxes"])[0].title.endswith("at cpus=4")


def test_the_threshold_and_the_saturation_point_are_drawn_with_their_values(capacity):
    record, _ = capacity
    built = {chart.name: chart for chart in charts(record)}
    median, p95, p99 = built["latency"].panels              # p99 has a panel of its own: the threshold judged it
    assert p99.title == "99th percentile" and p99.y_label == "p99 response time (ms)"
    (line,) = [item for item in p99.items if item.label.startswith("http")]
    assert line.y[:2] == pytest.approx([measured(record)[r]["classes"]["request"]["response_time"]["p99"]
                                        for r in (100, 200)])
    (threshold,) = [g for g in p99.guides if g.axis == "y"]
    assert (threshold.value, threshold.text) == (pytest.approx(300.0), "threshold p99<300ms")   # ms, the record's unit
    assert p99.y_range[0] <= 300 <= p99.y_range[1]
    assert not [g for g in median.guides + p95.guides if g.axis == "y"]
    for panel in built["latency"].panels + built["throughput"].panels:
        (saturation,) = [g for g in panel.guides if g.axis == "x"]
        assert (saturation.value, saturation.text) == (400, "saturation: at 400/s p99<300ms broke")
    # the PNG and the page draw them where the description says
    axes = draw(built["latency"]).axes
    horizontal = [l for l in axes[2].get_lines() if list(l.get_ydata()) == [300, 300]]
    vertical = [l for ax in axes for l in ax.get_lines() if list(l.get_xdata()) == [400, 400]]
    assert len(horizontal) == 1 and len(vertical) == 3
    assert {"threshold p99<300ms", "saturation: at 400/s p99<300ms broke"} <= {t.get_text() for t in axes[2].texts}
    fig = figure(built["latency"])
    shapes = [(s.x0, s.x1, s.y0, s.y1, s.yref) for s in fig.layout.shapes]
    assert (0, 1, 300, 300, "y3") in shapes and sum(s[:2] == (400, 400) for s in shapes) == 3
    texts = [a.text for a in fig.layout.annotations]
    assert "threshold p99&lt;300ms" in texts and texts.count("saturation: at 400/s p99&lt;300ms broke") == 3


def test_thresholds_on_the_achieved_rate_are_drawn_on_the_throughput(capacity):
    record, _ = capacity
    record = copy.deepcopy(record)
    for results in measured(record).values():
        results["load"]["thresholds"] += [{"threshold": "achieved_rate>=150", "figure": 1.0, "held": True},
                                          {"threshold": "achieved_rate>=0.95*target", "figure": 1.0, "held": True}]
    panel = charts(record, ["throughput"])[0].panels[0]
    assert [(g.value, g.text) for g in panel.guides if g.axis == "y"] == [(150, "threshold achieved_rate>=150")]
    (along,) = [line for line in panel.items if line.label == "threshold achieved_rate>=0.95*target"]
    assert along.x == [100, 200, 400] and along.y == pytest.approx([95, 190, 380]) and along.dash == "dot"


def test_a_study_sweeping_the_rate_in_its_models_unit_has_the_saturation_at_that_value(capacity):
    # examples/studies/server.yaml sweeps rate in requests per ms; the record's saturation is per second
    record, _ = capacity
    record = copy.deepcopy(record)
    record["sweep"]["rate"] = [r / 1000 for r in record["sweep"]["rate"]]
    for s in record["scenarios"]:
        s["params"]["rate"] /= 1000
    panel = charts(record, ["throughput"])[0].panels[0]
    (saturation,) = [g for g in panel.guides if g.axis == "x"]
    assert saturation.value == pytest.approx(0.4)


def test_the_distributions_at_the_last_run_say_it_was_unstable(capacity):
    # the sweep's last run is the one that could not hold its rate: its boxes and spectrum say so
    record, _ = capacity
    built = {chart.name: chart for chart in charts(record)}
    assert built["latency_boxes"].title.endswith(f"at rate={record['sweep']['rate'][2]}")
    boxes = {box.label for box in built["latency_boxes"].panels[0].items}
    assert any(label.startswith("http") and label.endswith(" (unstable)") for label in boxes)
    names = {label.text.split(" ", 1)[1] for label in built["spectrum"].panels[0].labels}
    assert any(name.startswith("http") and name.endswith(" (unstable)") for name in names)


def test_unstable_points_at_one_rate_share_one_note_of_their_range(capacity):
    # at 400/s the measured run and the simulated model both ran away: one note, their range
    record, _ = capacity
    panel = charts(record, ["latency"])[0].panels[0]
    clipped = [flag for flag in panel.flags if flag.clipped]
    assert {flag.x for flag in clipped} == {400} and len(clipped) == 2
    low, high = sorted(flag.value for flag in clipped)
    (note,) = panel.notes
    assert note.x == 400 and note.text.startswith("2 unstable: ") and note.text.endswith(" ms ↑")
    assert [first_figure(part) for part in note.text[len("2 unstable: "):-len(" ms ↑")].split(" to ")] == pytest.approx(
        [low, high], rel=1e-3)
