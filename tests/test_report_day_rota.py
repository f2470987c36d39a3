"""The report of a planned rota (`plan --rota METHOD [--shift TIME] --report DIR`,
report/rota_page.py): the rota's steps, the intervals the transient finds broken, the
shifts' servers and over-staffing, and each objective's figure against its bound, every
number read back from the plotly figure and the PNG's axes against the plan's record."""
import json
import subprocess
import sys
from html import escape

import pytest

from brewput.report.interactive import figure
from brewput.report.png import draw
from brewput.report.rota_page import objectives_chart, rota_chart

# docs/planning.md's rush: a bar with a rush in the second quarter hour, 5-minute services.
RUSH = """brewput: 1
name: rush
time_unit: min
day: {start: "08:00", length: 60min, interval: 15min}
stations:
  bar: {servers: [1, 1, 1, 1], off_shift: resume}
classes:
  customer:
    rate: [0.5, 2.0, 0.5, 0.5]
    route: [{station: bar, service: exp(5)}]
"""
SLOS = ["--slo", "P(wait<=30s)>=80%", "--slo", "wait_mean<=1min"]


def _plan(folder, *more):
    """plan --rota sipp with --report and -o; the page's record, the -o file and the --json print."""
    (folder / "rush.yaml").write_text(RUSH)
    argv = [sys.executable, "-m", "brewput", "plan", "rush.yaml", *SLOS, "--rota", "sipp", "--no-confirm", *more]
    done = subprocess.run(argv + ["--report", "page", "-o", "plan.json"], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    printed = subprocess.run(argv + ["--json"], cwd=folder, capture_output=True, text=True)
    assert json.loads((folder / "plan.json").read_text()) == json.loads(printed.stdout)
    return json.loads((folder / "page" / "record.json").read_text())


@pytest.fixture(scope="module")
def free(tmp_path_factory):
    return _plan(tmp_path_factory.mktemp("free"))


@pytest.fixture(scope="module")
def shifted(tmp_path_factory):
    return _plan(tmp_path_factory.mktemp("shifted"), "--shift", "45min")


def _traces(chart, k):
    axis = "x" if k == 0 else f"x{k + 1}"
    return {t.name: t for t in figure(chart).data if t.xaxis == axis and t.name}


def test_the_rota_is_steps_with_the_broken_intervals_marked(free):
    counts = [i["servers"] for i in free["intervals"]]
    assert counts == [5, 14, 5, 5]    # docs/planning.md's SIPP rota
    assert [i["start"] for i in free["intervals"]] == [0, 15, 30, 45]
    # beside the rota, what it staffs for: the model's rate
    rate = _traces(rota_chart(free), 0)["rate"]
    assert list(rate.x) == [0, 15, 30, 45, 60] and list(rate.y) == [0.5, 2.0, 0.5, 0.5, 0.5]
    traces = _traces(rota_chart(free), 1)
    steps = traces["sipp rota"]
    assert steps.line.shape == "hv" and list(steps.x) == [0, 15, 30, 45, 60] and list(steps.y) == counts + [5]
    broken = traces["sipp: broken (transient)"]
    marked = {x: y for x, y in zip(broken.x, broken.y) if y is not None}
    assert marked == {37.5: 5, 52.5: 5}   # SIPP's 08:30 and 08:45 break P(wait<=30s)>=80%
    assert [i["held"] for i in free["intervals"]] == [True, True, False, False]
    assert "shifts" not in traces and [p.title for p in rota_chart(free).panels] == ["arrival rate",
                                                                                     "servers per interval"]


def test_the_objectives_against_their_bounds(free):
    chart = objectives_chart(free)
    assert [p.title for p in chart.panels] == ["P(wait<=30s)>=80%", "wait_mean<=1min"]
    for k, (slo, scale, bound) in enumerate([("P(wait<=30s)>=80%", 100, 80.0), ("wait_mean<=1min", 1, 1.0)]):
        line = _traces(chart, k)["transient"]
        assert list(line.x) == [7.5, 22.5, 37.5, 52.5]
        assert list(line.y) == pytest.approx([i["figures"][slo] * scale for i in free["intervals"]], rel=1e-12)
        assert chart.panels[k].guides[0].value == pytest.approx(bound)
    shapes = figure(chart).layout.shapes
    assert sorted(round(s.y0, 9) for s in shapes) == [1.0, 80.0]
    # the held verdicts are the figures against the bounds
    for i in free["intervals"]:
        assert i["held"] == (i["figures"]["P(wait<=30s)>=80%"] >= 0.8 and i["figures"]["wait_mean<=1min"] <= 1)


def test_shifts_are_drawn_with_their_over_staffing(shifted):
    counts = [i["servers"] for i in shifted["intervals"]]
    shifts = shifted["shifts"]
    # three-interval shifts covering the rota: each interval's servers are the shifts started in it and the two before
    starts = shifts["starts"]
    assert shifts["covered"] == [sum(starts[max(0, i - 2):i + 1]) for i in range(4)]
    assert all(c >= n for c, n in zip(shifts["covered"], counts))
    chart = rota_chart(shifted)
    assert [p.title for p in chart.panels] == ["arrival rate", "servers per interval", "over-staffing"]
    on = _traces(chart, 1)["shifts"]
    assert on.line.dash == "dash" and list(on.y) == shifts["covered"] + [shifts["covered"][-1]]
    over = _traces(chart, 2)["shifts"]
    assert list(over.y[:4]) == [c - n for c, n in zip(shifts["covered"], counts)]
    assert sum(over.y[:4]) == shifts["over_staffing"]
    # the PNG draws the same steps
    axes = draw(chart).axes
    drawn = {line.get_label(): line for line in axes[1].get_lines()}
    assert list(drawn["shifts"].get_ydata()) == shifts["covered"] + [shifts["covered"][-1]]
    assert drawn["shifts"].get_drawstyle() == "steps-post"


def test_the_page_holds_the_table_and_the_charts(tmp_path):
    record = _plan(tmp_path, "--shift", "45min")
    html = (tmp_path / "page" / "index.html").read_text()
    assert sorted(p.name for p in (tmp_path / "page" / "charts").iterdir()) == ["rota.png", "rota_objectives.png"]
    assert "rota for bar by sipp: 7.25 server-hours" in html and "shifts starting" in html
    assert record["server_hours"] == 7.25
    # the transient's notes (its judgement before a falling rota is approximate) are on the page
    assert record["notes"] and all(escape(note) in html for note in record["notes"])
