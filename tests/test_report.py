"""Charts and the HTML report from experiment records (report_records.py): what
each chart draws is checked against the record's own figures, the files exist,
the page is self-contained, and `brewput report` reads records and single results.
(tests/test_report_browser.py opens the page in Chromium.)"""
import json
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from report_records import (EXAMPLES, coffee_record, mixed_no_sweep_record, mixed_record, no_sweep_record,
                            two_params_record)

from brewput.figures import number
from brewput.report.charts import NAMES, SPECTRUM_TICKS, charts
from brewput.report.html import write_report
from brewput.report.png import write_png
from brewput.report.spec import Bars, Box

PNG = b"\x89PNG\r\n\x1a\n"


def by_name(record):
    return {chart.name: chart for chart in charts(record)}


def scenario(record, model, engine="simulate", **params):
    return next(s["results"] for s in record["scenarios"]
                if s["model"] == model and s["engine"] == engine and all(s["params"][k] == v for k, v in params.items()))


# ---- what the charts draw ---------------------------------------------------------

def test_sweep_draws_a_line_per_model_in_lattes_per_second_with_ci_bands():
    record = coffee_record()
    chart = by_name(record)["throughput"]
    lines = chart.panels[0].items
    assert [line.label for line in lines] == ["ideal", "locking", "finelocking", "linearpipe-0"]
    assert chart.panels[0].y_label == "throughput (lattes per second)"
    ideal = lines[0]
    assert list(ideal.x) == [1, 2, 3, 4, 5, 6]
    assert chart.panels[0].x_ticks == [(c, str(c)) for c in range(1, 7)]
    for cpus, y, low, high in zip(ideal.x, ideal.y, ideal.low, ideal.high):
        latte = scenario(record, "ideal", cpus=cpus)["classes"]["latte"]
        assert y == pytest.approx(latte["throughput"] * 1000)          # per ms -> per s
        assert (low, high) == pytest.approx([v * 1000 for v in latte["throughput_ci"]])
    # the talk's structural numbers, roughly (noise 0.5): 250/s per cpu, locking flat at 250/s
    assert ideal.y[-1] == pytest.approx(1500, rel=0.02)
    assert lines[1].y == pytest.approx([250] * 6, rel=0.02)
    assert len({line.color for line in lines}) == 4 and {line.dash for line in lines} == {"solid"}


def test_latency_panels_are_median_and_p95_in_ms():
    record = coffee_record()
    median, p95 = by_name(record)["latency"].panels
    locking = next(line for line in median.items if line.label == "locking")
    assert locking.y == [scenario(record, "locking", cpus=c)["classes"]["latte"]["response_time"]["p50"]
                         for c in range(1, 7)]
    assert p95.y_label == "p95 response time (ms)"


def test_latency_boxes_come_from_the_spectrum_at_the_last_swept_value():
    record = coffee_record()
    chart = by_name(record)["latency_boxes"]
    assert chart.title.endswith("at cpus=6")
    boxes = chart.panels[0].items
    assert all(isinstance(b, Box) for b in boxes) and len(boxes) == 4
    spectrum = dict(scenario(record, "finelocking", cpus=6)["classes"]["latte"]["response_time"]["spectrum"])
    box = next(b for b in boxes if b.label == "finelocking")
    assert (box.p5, box.p25, box.p50, box.p75, box.p95) == tuple(spectrum[p] for p in (5, 25, 50, 75, 95))
    assert box.p5 <= box.p25 <= box.p50 <= box.p75 <= box.p95


def test_utilization_has_a_panel_per_model_and_shows_the_bottleneck_moving():
    record = coffee_record()
    panels = by_name(record)["utilization"].panels
    assert [p.title for p in panels] == ["ideal", "locking", "finelocking", "linearpipe-0"]
    fine = {line.label: line for line in panels[2].items}
    assert set(fine) == {"grinder", "espresso", "steamer", "cpu"}        # counter has servers: inf
    # fine-grained locks: the cpus are the bottleneck at 1 cpu, the grinder from 4 on
    assert fine["cpu"].y[0] > 95 and fine["grinder"].y[0] < 30
    assert fine["grinder"].y[-1] > 95 and fine["cpu"].y[-1] < 70
    # one colour per station or resource, the same in every panel
    colors = {(line.label, line.color) for panel in panels for line in panel.items}
    assert len(colors) == len({label for label, _ in colors})


def test_spectrum_is_latency_against_one_over_one_minus_p_to_99_99():
    record = coffee_record()
    chart = by_name(record)["spectrum"]
    panel = chart.panels[0]
    assert panel.log_x and panel.x_ticks == SPECTRUM_TICKS
    assert [label for _, label in SPECTRUM_TICKS] == ["50%", "90%", "99%", "99.9%", "99.99%"]
    line = next(line for line in panel.items if line.label == "locking")
    spectrum = scenario(record, "locking", cpus=6)["classes"]["latte"]["response_time"]["spectrum"]
    kept = [(p, v) for p, v in spectrum if p <= 99.99]
    assert line.x == pytest.approx([1 / (1 - p / 100) for p, _ in kept])
    assert line.y == [v for _, v in kept] and max(line.x) == pytest.approx(1e4)
    assert line.low is not None and all(lo <= y <= hi for lo, y, hi in zip(line.low, line.y, line.high))


def test_mixed_engines_draw_simulated_solid_and_solved_dashed():
    record = mixed_record()
    built = by_name(record)
    lines = built["throughput"].panels[0].items
    assert [(line.label, line.dash) for line in lines] == [("mmc (simulate)", "solid"), ("mmc (solve)", "dash"),
                                                           ("mmc bound", "dot")]
    simulated, solved, bound = lines
    # M/M/c's capacity: c servers of mean service 1 s pass at most c customers per second
    assert bound.y == pytest.approx([3, 4, 6]) and bound.marker is None and not bound.legend
    assert simulated.color == solved.color                       # one colour per model
    assert solved.low is None and simulated.low is not None      # solve has no interval
    assert solved.y == pytest.approx([scenario(record, "mmc", "solve", c=c)["classes"]["customer"]["throughput"]
                                      for c in (3, 4, 6)])
    # M/M/c's response-time percentiles are known in closed form, so solve draws latency too
    median = built["latency"].panels[0].items
    assert [line.dash for line in median] == ["solid", "dash"]
    assert median[1].y == pytest.approx([scenario(record, "mmc", "solve", c=c)["classes"]["customer"]
                                         ["response_time"]["p50"] for c in (3, 4, 6)])
    # the spectrum and the boxes are simulated only
    assert [line.label for line in built["spectrum"].panels[0].items] == ["mmc (simulate)"]
    assert [box.label for box in built["latency_boxes"].panels[0].items] == ["mmc (simulate)"]


def test_lab_measurements_are_solid_and_their_predictions_dashed():
    # `lab --predict` records hold lab and simulate scenarios for the same params; the lab's
    # results have a spectrum but no spectrum_ci. Shape only: a simulated result relabelled.
    record = coffee_record()
    measured = []
    for s in record["scenarios"]:
        lab = {**s, "id": len(record["scenarios"]) + len(measured), "engine": "lab", "results": json.loads(
            json.dumps(s["results"]))}
        for figures in lab["results"]["classes"].values():
            del figures["response_time"]["spectrum_ci"]
        measured.append(lab)
    record["scenarios"] += measured
    built = by_name(record)
    styles = {line.label: line.dash for line in built["throughput"].panels[0].items}
    assert styles["ideal (lab)"] == "solid" and styles["ideal (simulate)"] == "dash"
    spectrum = {line.label: line for line in built["spectrum"].panels[0].items}
    assert spectrum["ideal (lab)"].low is None and spectrum["ideal (simulate)"].low is not None


def test_no_sweep_draws_bars_per_model():
    record = no_sweep_record()
    built = by_name(record)
    # a hockey stick needs a sweep; nobody is lost and no class has measures between marks
    assert set(built) == set(NAMES) - {"latency_throughput", "lost", "measures"}
    bars = built["throughput"].panels[0].items
    assert len(bars) == 1 and isinstance(bars[0], Bars)
    assert list(bars[0].categories) == ["ideal", "multi-2", "locking"]
    # 4 cpus: ideal and multi-2 at 1000 lattes/s, locking at 250
    assert bars[0].y == pytest.approx([1000, 1000, 250], rel=0.02)
    assert all(lo <= y <= hi for lo, y, hi in zip(bars[0].low, bars[0].y, bars[0].high))
    assert built["latency_boxes"].title == "Latency distribution per model"
    assert all(isinstance(item, Bars) for panel in built["utilization"].panels for item in panel.items)


def test_a_second_swept_param_gives_a_line_per_value():
    record = two_params_record()
    lines = by_name(record)["throughput"].panels[0].items
    assert [line.label for line in lines] == ["mmc · rate=1.0", "mmc · rate=1.5"]
    assert all(list(line.x) == [2, 3, 4] for line in lines)
    # an open queue passes what arrives: throughput is the arrival rate whatever c
    for line, rate in zip(lines, (1.0, 1.5)):
        assert line.y == pytest.approx([rate] * 3, rel=0.05)
    assert by_name(record)["spectrum"].title.endswith("at c=4")


def test_no_sweep_with_mixed_engines_groups_bars_by_engine():
    record = mixed_no_sweep_record()
    simulated, solved = by_name(record)["throughput"].panels[0].items
    assert (simulated.label, simulated.hatched, solved.label, solved.hatched) == ("simulate", False, "solve", True)
    assert list(solved.categories) == ["mmc", "site-a"] and solved.low is None
    # mmc counts in seconds, site-a in minutes: both drawn per second
    assert solved.y == pytest.approx([scenario(record, "mmc", "solve")["classes"]["customer"]["throughput"],
                                      scenario(record, "site-a", "solve")["classes"]["call"]["throughput"] / 60])


def test_study_can_ask_for_some_charts_only():
    record = coffee_record()
    record["charts"] = ["spectrum", "throughput"]
    assert [chart.name for chart in charts(record)] == ["spectrum", "throughput"]


@pytest.mark.parametrize("make", [coffee_record, mixed_record, no_sweep_record, two_params_record,
                                  mixed_no_sweep_record])
def test_every_chart_writes_a_png(tmp_path, make):
    for chart in charts(make()):
        path = write_png(chart, tmp_path / f"{chart.name}.png")
        assert path.read_bytes().startswith(PNG) and path.stat().st_size > 5000


# ---- the report ---------------------------------------------------------------------

class Links(HTMLParser):
    """Every src and href in a page, and the inline scripts' sizes."""

    def __init__(self):
        super().__init__()
        self.links, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.links += [value for name, value in attrs if name in ("src", "href") and value is not None]
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append(0)

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += len(data)

    def handle_endtag(self, tag):
        self._in_script = False


@pytest.mark.parametrize("make", [coffee_record, mixed_record, no_sweep_record])
def test_report_is_self_contained_with_pngs_tables_and_models(tmp_path, make):
    record = make()
    out = tmp_path / "report"
    index = write_report(record, out)
    assert index == out / "index.html"
    html = index.read_text()
    links = Links()
    links.feed(html)
    external = [link for link in links.links if "//" in link or link.split(":")[0] in ("http", "https")]
    assert external == [], "the page must open with no network"
    for link in links.links:                    # every relative link points at a written file
        assert (out / link).is_file(), link
    assert html.count("plotly.js v") == 1, "plotly.js inline, once"
    assert max(links.scripts) > 1_000_000
    for chart in charts(record):
        assert (out / "charts" / f"{chart.name}.png").read_bytes().startswith(PNG)
        assert f'id="chart-{chart.name}"' in html
    assert html.count('class="plotly-graph-div"') == len(charts(record))
    for label, entry in record["models"].items():
        assert (out / "models" / f"{label}.yaml").read_text() == entry["text"]
    assert json.loads((out / "record.json").read_text()) == record
    assert record["command"] in html
    table = (out / "tables" / "results.csv").read_text().splitlines()
    rows_expected = sum(len(s["results"][k]) for s in record["scenarios"] for k in ("classes", "stations", "resources"))
    # and, in a model of several classes, a row per class at each station it visits
    rows_expected += sum(len(st.get("classes") or {}) for s in record["scenarios"] if len(s["results"]["classes"]) > 1
                         for st in s["results"]["stations"].values())
    assert len(table) == 1 + rows_expected


def test_summary_names_the_peak_and_the_bottleneck(tmp_path):
    html = write_report(coffee_record(), tmp_path).read_text()
    summary = html[html.index("<h2>Summary</h2>"):html.index("</table>")]
    assert "peak throughput" in summary and "busiest at cpus=6" in summary
    assert "kitchen (100%)" in summary        # locking: the one kitchen is the bottleneck


def test_interrupted_run_says_so(tmp_path):
    record = coffee_record()
    record["interrupted"] = True
    record["scenarios"] = record["scenarios"][:5]
    html = write_report(record, tmp_path).read_text()
    assert "interrupted" in html


# ---- brewput report -------------------------------------------------------------------

def brewput(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "brewput", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_report_from_a_record_and_from_single_results(tmp_path):
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(no_sweep_record()))
    folder = tmp_path / ("a-folder-whose-path-is-longer-than-a-pipe's-80-columns" * 2)
    done = brewput("report", str(record_file), "-o", str(folder))
    assert done.returncode == 0, done.stderr
    # the path in one piece, to copy (rich wraps at 80 columns in a pipe unless told)
    assert (folder / "index.html").is_file() and done.stderr == f"report: {folder / 'index.html'}\n"
    single = brewput("simulate", str(EXAMPLES / "mmc.yaml"), "--customers", "3000", "--json")
    (tmp_path / "single.json").write_text(single.stdout)
    done = brewput("report", str(tmp_path / "single.json"), "-o", str(tmp_path / "b"))
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "b" / "index.html").read_text()
    assert "M/M/c queue" in html and html.count('class="plotly-graph-div"') == 5


@pytest.mark.parametrize("content, message", [
    (None, "missing.json: no such file"),
    ("scenario,model\n0,m\n", "bad.csv: a .csv export holds only the results table"),
    ("{not json", "bad.json:1: not JSON"),
    ("[1, 2]", "bad.json: not a brewput experiment record"),
    ('{"brewput": "experiment", "version": 1, "sweep": {}, "scenarios": []}', "scenarios: expected a non-empty"),
    ('{"brewput": "experiment", "version": 1, "sweep": {"c": [1]}, "scenarios": '
     '[{"id": 0, "model": "m", "engine": "simulate", "params": {}, "results": {"classes": {}, "time_unit": "s"}}]}',
     "scenarios[0].params: missing the swept param c"),
])
def test_cli_report_bad_input_is_one_line_and_exit_2(tmp_path, content, message):
    name = "missing.json" if content is None else ("bad.csv" if content.startswith("scenario") else "bad.json")
    if content is not None:
        (tmp_path / name).write_text(content)
    done = brewput("report", name, "-o", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


def test_the_page_tables_each_station_and_each_class_at_it_with_intervals(tmp_path):
    import csv

    import brewput
    from brewput.experiment.record import as_record

    results = brewput.simulate(EXAMPLES / "multiclass.yaml", customers=20_000, replications=3, seed=1)
    html = write_report(as_record(results), tmp_path).read_text()
    assert "<h3>Stations, in the models' time units" in html and "<h3>Classes at each station" in html
    rows = list(csv.DictReader((tmp_path / "tables" / "classes_at_stations.csv").open()))
    expected = {f"{station} · {name}": figures for station, s in results["stations"].items()
                for name, figures in (s.get("classes") or {}).items()}
    assert {row["name"] for row in rows} == set(expected) and len(expected) >= 3
    for row in rows:
        figures = expected[row["name"]]
        low, high = figures["utilization_ci"]
        assert row["utilization"] == f"{number(figures['utilization'])} [{number(low)}, {number(high)}]"
        assert f"<td>{row['response_time']}</td>" in html
    stations = list(csv.DictReader((tmp_path / "tables" / "stations.csv").open()))
    assert [row["name"] for row in stations] == list(results["stations"])
