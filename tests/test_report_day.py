"""The report of a day (report/day_charts.py, day_page.py): every number drawn is the
record's own, read back from the plotly figure and the PNG's matplotlib axes: the rate
and the servers on through the day, per class the mean wait, the service levels and the
abandonment, the simulation with its band beside each solved method; a day of one
interval, with patience and without; and the commands that write it (compare's report of a model
without a day too)."""
import json
import math
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import brewput
from brewput.experiment.record import add_scenario, new_record
from brewput.report.day_charts import day_charts, days_of, time_text
from brewput.report.html import write_report
from brewput.report.interactive import figure
from brewput.report.png import draw

# An hour in quarter hours: a rush in the second, a rota of agents that grows (the transient
# is exact: no server goes off shift), callers who hang up.
PATIENT = """brewput: 1
name: rush
time_unit: min
day: {start: "08:00", length: 60min, interval: 15min}
stations:
  desk: {servers: [2, 4, 4, 5], off_shift: resume}
classes:
  caller:
    rate: [0.5, 1.5, 0.8, 0.4]
    route: [{station: desk, service: exp(2), patience: exp(3)}]
"""
# The same without patience, and a day of one interval.
PATIENCE_FREE = PATIENT.replace(", patience: exp(3)", "")
ONE_INTERVAL = """brewput: 1
name: one
time_unit: min
day: {start: "12:00", length: 30min, interval: 30min}
stations:
  desk: {servers: [2]}
classes:
  caller:
    rate: [0.6]
    route: [{station: desk, service: exp(2)}]
"""
METHODS = ("transient", "psa", "sipp", "lag-sipp", "mol")
WITHIN = [0.5]   # 30 s


@lru_cache(maxsize=None)
def _day(text: str, methods=METHODS, simulated=True):
    """A record of the day simulated (20 replications) and solved by each method, as compare
    writes it; a JSON round trip, as a saved record is read."""
    folder = Path(__import__("tempfile").mkdtemp())
    path = folder / "day.yaml"
    path.write_text(text)
    record = new_record(title="day", command="test", models={"day": {"file": str(path), "text": text}})
    if simulated:
        add_scenario(record, "day", "simulate", {},
                     brewput.simulate(str(path), seed=3, replications=20, within=WITHIN))
    for method in methods:
        add_scenario(record, "day", "solve", {}, brewput.solve(str(path), method=method, within=WITHIN))
    return json.dumps(record)


def day_record(text, methods=METHODS, simulated=True):
    return json.loads(_day(text, tuple(methods), simulated))


def _traces(chart, panel_title):
    """The panel's plotly traces by name (bands named `... 95 % CI`), from the figure the page embeds."""
    fig = figure(chart)
    k = [p.title for p in chart.panels].index(panel_title)
    axis = "x" if k == 0 else f"x{k + 1}"
    return {t.name: t for t in fig.data if t.xaxis == axis and t.name}


def _close(drawn, expected):
    assert len(drawn) == len(expected)
    for a, b in zip(drawn, expected):
        assert (a is None and b is None) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (drawn, expected)


def _band(trace):
    """A band's (high, low) per point: plotly's closed outline is the highs forward, the lows back."""
    n = len(trace.y) // 2
    return list(trace.y[:n]), list(trace.y[n:])[::-1]


def _charts(record):
    (day,) = days_of(record["scenarios"]).values()
    return {chart.name: chart for chart in day_charts(day)}


def test_the_demand_chart_draws_the_rate_and_the_servers_of_the_record():
    record = day_record(PATIENT)
    sim = record["scenarios"][0]["results"]
    exact = record["scenarios"][1]["results"]
    chart = _charts(record)["day_demand"]
    rate = _traces(chart, "arrival rate")
    # the model's rate as steps: the exact expected arrivals over each interval's 15 minutes
    steps = rate["rate"]
    assert steps.line.shape == "hv"
    assert list(steps.x) == [0, 15, 30, 45, 60]
    _close(list(steps.y), [0.5, 1.5, 0.8, 0.4, 0.4])
    _close(list(steps.y[:4]), [i["classes"]["caller"]["arrivals"] / 15 for i in exact["intervals"]])
    # the simulated arrivals per minute at the intervals' middles, with their 95 % band
    points = rate["arrivals (simulate)"]
    assert list(points.x) == [7.5, 22.5, 37.5, 52.5]
    _close(list(points.y), [i["classes"]["caller"]["arrivals"] / 15 for i in sim["intervals"]])
    high, low = _band(rate["arrivals (simulate) 95 % CI"])
    _close(high, [i["classes"]["caller"]["arrivals_ci"][1] / 15 for i in sim["intervals"]])
    _close(low, [max(i["classes"]["caller"]["arrivals_ci"][0] / 15, 0.0) for i in sim["intervals"]])
    servers = _traces(chart, "servers on")
    _close(list(servers["desk servers on"].y), [2, 4, 4, 5, 5])
    _close(list(servers["desk busy (simulate)"].y), [i["stations"]["desk"]["busy_servers"] for i in sim["intervals"]])
    # the x axis is the time of day, ticked with the intervals' clock labels
    fig = figure(chart)
    assert list(fig.layout.xaxis.ticktext) == ["08:00", "08:15", "08:30", "08:45"]
    assert list(fig.layout.xaxis.tickvals) == [0, 15, 30, 45]


def test_each_method_is_a_line_beside_the_simulation_with_its_band():
    record = day_record(PATIENT)
    results = {s["results"]["method"] if s["engine"] == "solve" else "simulate": s["results"]
               for s in record["scenarios"]}
    chart = _charts(record)["day_caller"]
    assert [p.title for p in chart.panels] == ["mean wait", "P(wait ≤ 30 s)", "wait p90", "abandoned"]
    waits = _traces(chart, "mean wait")
    names = {"transient": "exact transient", "psa": "PSA ≈", "sipp": "SIPP ≈", "lag-sipp": "lagged SIPP ≈",
             "mol": "MOL ≈"}
    for method, name in names.items():
        expected = [i["classes"]["caller"]["waiting_time"]["mean"] for i in results[method]["intervals"]]
        _close(list(waits[name].y), expected)
        assert waits[name].line.dash == ("dash" if method == "transient" else "dot")
        assert f"{name} 95 % CI" not in waits   # solved: no band
    sim = results["simulate"]["intervals"]
    _close(list(waits["simulate"].y), [i["classes"]["caller"]["waiting_time"]["mean"] for i in sim])
    high, low = _band(waits["simulate 95 % CI"])
    _close(high, [i["classes"]["caller"]["waiting_time"]["mean_ci"][1] for i in sim])
    _close(low, [max(i["classes"]["caller"]["waiting_time"]["mean_ci"][0], 0.0) for i in sim])
    # the service level in percent, its band clipped to 0..100 %
    levels = _traces(chart, "P(wait ≤ 30 s)")
    _close(list(levels["simulate"].y), [100 * i["classes"]["caller"]["waiting_time"]["within"][0][1] for i in sim])
    high, low = _band(levels["simulate 95 % CI"])
    _close(high, [min(100 * i["classes"]["caller"]["waiting_time"]["within_ci"][0][1], 100.0) for i in sim])
    exact = results["transient"]["intervals"]
    _close(list(levels["exact transient"].y),
           [100 * i["classes"]["caller"]["waiting_time"]["within"][0][1] for i in exact])
    # the wait's 90th percentile, simulated only (solve gives no quantile per interval), with its band
    p90 = _traces(chart, "wait p90")
    assert set(p90) == {"simulate", "simulate 95 % CI"}
    _close(list(p90["simulate"].y), [i["classes"]["caller"]["waiting_time"]["p90"] for i in sim])
    high, low = _band(p90["simulate 95 % CI"])
    _close(high, [i["classes"]["caller"]["waiting_time"]["p90_ci"][1] for i in sim])
    gave_up = _traces(chart, "abandoned")
    _close(list(gave_up["exact transient"].y), [100 * i["classes"]["caller"]["abandonment"] for i in exact])
    _close(list(gave_up["simulate"].y), [100 * i["classes"]["caller"]["abandonment"] for i in sim])


def test_the_png_draws_the_same_numbers():
    record = day_record(PATIENT)
    chart = _charts(record)["day_caller"]
    axes = draw(chart).axes
    exact = record["scenarios"][1]["results"]["intervals"]
    drawn = {line.get_label(): list(line.get_ydata()) for line in axes[0].get_lines()}
    _close(drawn["exact transient"], [i["classes"]["caller"]["waiting_time"]["mean"] for i in exact])
    demand = draw(_charts(record)["day_demand"]).axes[1]
    steps = next(line for line in demand.get_lines() if line.get_label() == "desk servers on")
    assert steps.get_drawstyle() == "steps-post"
    assert list(steps.get_xdata()) == [0, 15, 30, 45, 60] and list(steps.get_ydata()) == [2, 4, 4, 5, 5]


def test_the_transient_is_marked_where_a_falling_rota_makes_it_approximate():
    falling = PATIENT.replace("[2, 4, 4, 5]", "[2, 4, 3, 2]")
    record = day_record(falling, methods=("transient",), simulated=False)
    exact = record["scenarios"][0]["results"]
    assert not all(i["classes"]["caller"]["exact"] for i in exact["intervals"])
    waits = _traces(_charts(record)["day_caller"], "mean wait")
    assert set(waits) == {"transient ≈"}
    # on hover each interval says which of its figures are exact
    assert list(waits["transient ≈"].text) == [f"{i['label']} {'exact' if i['classes']['caller']['exact'] else '≈'}"
                                               for i in exact["intervals"]]
    assert "≈" in waits["transient ≈"].text[0] and "exact" in waits["transient ≈"].text[-1]
    _close(list(waits["transient ≈"].y), [i["classes"]["caller"]["waiting_time"]["mean"] for i in exact["intervals"]])


def _rate_trace(record):
    (day,) = days_of(record["scenarios"], record["models"]).values()
    return _traces(day_charts(day)[0], "arrival rate")["rate"]


def test_the_rate_is_the_models_own_where_the_record_keeps_the_model(tmp_path):
    record = day_record(PATIENT, methods=())          # simulated only: no solve to give it
    rate = _rate_trace(record)
    assert rate.line.shape == "hv" and list(rate.x) == [0, 15, 30, 45, 60]
    assert list(rate.y) == [0.5, 1.5, 0.8, 0.4, 0.4]
    # read from the text the record keeps when the file is gone
    record["models"]["day"]["file"] = str(tmp_path / "moved.yaml")
    assert list(_rate_trace(record).y) == [0.5, 1.5, 0.8, 0.4, 0.4]
    # and none where the record keeps no model: the solved expected arrivals then
    record["models"]["day"]["text"] = None
    assert "rate" not in _traces(_charts(record)["day_demand"], "arrival rate")


def test_a_piecewise_linear_rate_is_drawn_as_its_line():
    linear = PATIENT.replace("rate: [0.5, 1.5, 0.8, 0.4]", "rate: {linear: [[0, 0.2], [20, 1.5], [60, 0.3]]}")
    rate = _rate_trace(day_record(linear, methods=()))
    assert rate.line.shape is None and rate.x[0] == 0 and rate.x[-1] == 60 and len(rate.x) > 100
    expected = np.interp(list(rate.x), [0, 20, 60], [0.2, 1.5, 0.3])
    assert np.allclose(list(rate.y), expected, rtol=1e-12, atol=1e-12)


def test_no_abandonment_panel_without_patience():
    chart = _charts(day_record(PATIENCE_FREE))["day_caller"]
    assert [p.title for p in chart.panels] == ["mean wait", "P(wait ≤ 30 s)", "wait p90"]


def test_a_day_of_one_interval():
    record = day_record(ONE_INTERVAL, methods=("transient",))
    charts = _charts(record)
    steps = _traces(charts["day_demand"], "servers on")["desk servers on"]
    assert list(steps.x) == [0, 30] and list(steps.y) == [2, 2]
    waits = _traces(charts["day_caller"], "mean wait")
    sim = record["scenarios"][0]["results"]["intervals"][0]
    assert list(waits["simulate"].x) == [15]
    _close(list(waits["simulate"].y), [sim["classes"]["caller"]["waiting_time"]["mean"]])
    assert list(figure(charts["day_caller"]).layout.xaxis.ticktext) == ["12:00"]


def test_the_quantiles_asked_in_place_of_the_90th(tmp_path):
    path = tmp_path / "day.yaml"
    path.write_text(PATIENT)
    record = new_record(title="day", command="test", models={"day": {"file": str(path), "text": PATIENT}})
    sim = brewput.simulate(str(path), seed=3, replications=10, quantiles=[80, 97.5])
    add_scenario(record, "day", "simulate", {}, sim)
    chart = _charts(json.loads(json.dumps(record)))["day_caller"]
    assert [p.title for p in chart.panels] == ["mean wait", "wait p80", "wait p97.5", "abandoned"]
    _close(list(_traces(chart, "wait p97.5")["simulate"].y),
           [i["classes"]["caller"]["waiting_time"]["p975"] for i in sim["intervals"]])


def test_a_simulation_binned_apart_from_the_solved_day_is_drawn_at_its_own_intervals(tmp_path):
    path = tmp_path / "day.yaml"
    path.write_text(PATIENT)
    record = new_record(title="day", command="test", models={"day": {"file": str(path), "text": PATIENT}})
    sim = brewput.simulate(str(path), seed=3, replications=10, bins="30min")
    add_scenario(record, "day", "simulate", {}, sim)
    add_scenario(record, "day", "solve", {}, brewput.solve(str(path), method="transient"))
    charts = _charts(json.loads(json.dumps(record)))
    waits = _traces(charts["day_caller"], "mean wait")
    assert list(waits["simulate"].x) == [15, 45] and list(waits["exact transient"].x) == [7.5, 22.5, 37.5, 52.5]
    busy = _traces(charts["day_demand"], "servers on")["desk busy (simulate)"]
    assert list(busy.x) == [15, 45]


def test_a_solved_day_alone_and_a_simulated_day_alone():
    solved = day_record(PATIENT, methods=("transient",), simulated=False)
    charts = _charts(solved)
    assert set(_traces(charts["day_caller"], "mean wait")) == {"exact transient"}
    simulated = day_record(PATIENT, methods=())
    charts = _charts(simulated)
    assert set(_traces(charts["day_demand"], "arrival rate")) == {"arrivals (simulate)", "arrivals (simulate) 95 % CI"}


def test_the_page_of_a_day(tmp_path):
    index = write_report(day_record(PATIENT), tmp_path / "report")
    html = index.read_text()
    assert sorted(p.name for p in (tmp_path / "report" / "charts").iterdir()) == ["day_caller.png", "day_demand.png"]
    assert html.count('class="plotly-graph-div"') == 2
    assert "mean wait (min) of those served who arrived in each interval" in html   # compare's table
    assert (tmp_path / "report" / "tables" / "results.csv").exists()


def test_time_text():
    assert time_text(0.5, "min") == "30 s"
    assert time_text(20, "s") == "20 s"
    assert time_text(90, "min") == "90 min"
    assert time_text(120, "min") == "2 h"
    assert time_text(0.3, "ms") == "300 us"


def _brewput(*args, cwd):
    return subprocess.run([sys.executable, "-m", "brewput", *args], cwd=cwd, capture_output=True, text=True)


def test_the_commands_write_the_day(tmp_path):
    (tmp_path / "day.yaml").write_text(PATIENT)
    done = _brewput("simulate", "day.yaml", "--within", "30s", "--report", "sim", "-o", "sim.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sim" / "charts" / "day_caller.png").exists()
    done = _brewput("solve", "day.yaml", "--json", cwd=tmp_path)
    (tmp_path / "solved.json").write_text(done.stdout)
    done = _brewput("report", "solved.json", "-o", "solved", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "solved" / "charts" / "day_demand.png").exists()
    done = _brewput("compare", "day.yaml", "--report", "both", "-o", "both.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    saved = json.loads((tmp_path / "both.json").read_text())
    assert [s["engine"] for s in saved["scenarios"]] == ["simulate"] + ["solve"] * 5
    assert [s["results"]["method"] for s in saved["scenarios"][1:]] == list(METHODS)
    chart = (tmp_path / "both" / "index.html").read_text()
    assert "lagged SIPP" in chart and "exact transient" in chart


def test_a_malformed_interval_is_one_line(tmp_path):
    record = day_record(PATIENT, methods=("transient",), simulated=False)
    record["scenarios"][0]["results"]["intervals"][2]["classes"]["caller"]["arrivals"] = "many"
    (tmp_path / "bad.json").write_text(json.dumps(record))
    done = _brewput("report", "bad.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: bad.json: scenarios[0].results.intervals[2].classes.caller.arrivals: "
                                   "expected a number, got 'many'")


def test_intervals_that_name_other_classes_are_one_line(tmp_path):
    record = day_record(PATIENT, methods=("transient",), simulated=False)
    results = record["scenarios"][0]["results"]
    results["intervals"][3]["classes"]["walk-in"] = results["intervals"][3]["classes"].pop("caller")
    (tmp_path / "bad.json").write_text(json.dumps(record))
    (tmp_path / "one.json").write_text(json.dumps(results))
    done = _brewput("report", "bad.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: bad.json: scenarios[0].results.intervals[3].classes: expected those of "
                                   "intervals[0] (caller), got walk-in")
    done = _brewput("report", "one.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: one.json: intervals[3].classes: expected those of intervals[0] (caller), got walk-in"


def test_a_study_of_a_day_simulated_and_solved_is_drawn_through_the_day(tmp_path):
    (tmp_path / "day.yaml").write_text(PATIENT)
    (tmp_path / "study.yaml").write_text("brewput: 1\ntitle: the day twice\nmodels: {desk: day.yaml}\n"
                                         "engines: [simulate, solve]\n")
    done = _brewput("run", "study.yaml", "--report", "page", "-o", "study.json", "--workers", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "customer" not in done.stdout and "caller" in done.stdout   # the scenario table printed, no traceback
    assert sorted(p.name for p in (tmp_path / "page" / "charts").iterdir()) == ["day_caller.png", "day_demand.png"]
    record = json.loads((tmp_path / "study.json").read_text())
    chart = _charts(record)["day_caller"]
    waits = _traces(chart, "mean wait")
    solved = next(s["results"] for s in record["scenarios"] if s["engine"] == "solve")
    assert set(waits) == {"simulate", "simulate 95 % CI", "exact transient"}
    _close(list(waits["exact transient"].y), [i["classes"]["caller"]["waiting_time"]["mean"] for i in solved["intervals"]])


def test_a_sweep_of_a_solved_day_is_reported_from_its_totals(tmp_path):
    (tmp_path / "day.yaml").write_text(PATIENT.replace("name: rush\n", "name: rush\nparams: {mean: 2}\n")
                                       .replace("service: exp(2)", "service: 'exp(${mean})'"))
    done = _brewput("solve", "day.yaml", "--sweep", "mean=1,2", "--report", "page", "-o", "swept.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # a sweep is drawn as any sweep (the day's totals: solve gives its throughput, no response time)
    assert [p.name for p in (tmp_path / "page" / "charts").iterdir()] == ["throughput.png"]
    record = json.loads((tmp_path / "swept.json").read_text())
    assert [s["params"]["mean"] for s in record["scenarios"]] == [1, 2]


def test_a_day_in_milliseconds_draws_its_rates_per_second():
    web = """brewput: 1
name: web
time_unit: ms
day: {length: 2s, interval: 500ms}
stations:
  web: {servers: [1, 2, 3, 2]}
classes:
  request:
    rate: [0.05, 0.15, 0.3, 0.1]
    route: [{station: web, service: exp(5)}]
"""
    record = day_record(web, methods=("transient",))
    rate = _rate_trace(record)
    assert list(rate.y) == pytest.approx([50, 150, 300, 100, 100], rel=1e-12)   # per ms x 1000
    sim = record["scenarios"][0]["results"]["intervals"]
    points = _traces(_charts(record)["day_demand"], "arrival rate")["arrivals (simulate)"]
    _close(list(points.y), [i["classes"]["request"]["arrivals"] / 0.5 for i in sim])   # per 0.5 s
    assert _charts(record)["day_demand"].panels[0].y_label == "arrivals per second"


def test_the_summary_gives_each_engines_day_and_its_worst_interval():
    from brewput.figures import number
    from brewput.report.day_summary import summary_grid

    record = day_record(PATIENT)
    (day,) = days_of(record["scenarios"], record["models"]).values()
    grid = summary_grid(day)
    assert grid.columns[-1] == "lowest P(wait ≤ 30 s) (%)"
    rows = {row[1]: row for row in grid.rows}
    assert set(rows) == {"simulate", "exact transient", "PSA ≈", "SIPP ≈", "lagged SIPP ≈", "MOL ≈"}
    for s in record["scenarios"]:
        r = s["results"]
        row = rows["simulate" if s["engine"] == "simulate" else
                   {"transient": "exact transient", "psa": "PSA ≈", "sipp": "SIPP ≈", "lag-sipp": "lagged SIPP ≈",
                    "mol": "MOL ≈"}[r["method"]]]
        figures = [i["classes"]["caller"] for i in r["intervals"]]
        assert row[2] == number(sum(f["arrivals"] for f in figures))
        lost = sum(f["abandoned"] for f in figures)
        assert row[3] == f"{number(lost)} ({number(100 * lost / sum(f['arrivals'] for f in figures))} %)"
        waits = [(f["waiting_time"]["mean"], i["label"]) for f, i in zip(figures, r["intervals"])]
        longest = max(waits)
        assert row[4] == f"{number(longest[0])} at {longest[1]}"
        lowest = min((f["waiting_time"]["within"][0][1], i["label"]) for f, i in zip(figures, r["intervals"]))
        assert row[5] == f"{number(100 * lowest[0])} at {lowest[1]}"


def test_approximations_alone_are_dotted():
    record = day_record(PATIENT, methods=("psa", "mol"), simulated=False)
    waits = _traces(_charts(record)["day_caller"], "mean wait")
    assert {name: t.line.dash for name, t in waits.items()} == {"PSA ≈": "dot", "MOL ≈": "dot"}
    assert _charts(record)["day_caller"].panels[0].engines == []   # one dash: no legend of dashes


def test_compare_of_a_model_without_a_day_reports_both_engines(tmp_path):
    examples = Path(__file__).resolve().parent.parent / "examples"
    done = _brewput("compare", str(examples / "mmc.yaml"), "--customers", "20000", "--replications", "2",
                    "--report", "page", "-o", "both.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "both.json").read_text())
    assert [s["engine"] for s in record["scenarios"]] == ["simulate", "solve"]
    charts = sorted(p.name for p in (tmp_path / "page" / "charts").iterdir())
    assert "throughput.png" in charts and not any(name.startswith("day_") for name in charts)
    html = (tmp_path / "page" / "index.html").read_text()
    assert '"name":"simulate"' in html and '"name":"solve"' in html   # each engine's bars, side by side


def test_a_station_of_infinitely_many_servers_has_its_busy_servers_only():
    walk = PATIENT.replace("stations:\n", "stations:\n  walk: {servers: inf}\n").replace(
        "route: [{station: desk,", "route: [{station: walk, service: exp(1)}, {station: desk,")
    record = day_record(walk, methods=())
    sim = record["scenarios"][0]["results"]["intervals"]
    servers = _traces(_charts(record)["day_demand"], "servers on")
    assert "walk servers on" not in servers and "desk servers on" in servers
    _close(list(servers["walk busy (simulate)"].y), [i["stations"]["walk"]["busy_servers"] for i in sim])
