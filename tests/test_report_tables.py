"""The printed tables: one unit table (units.py) and one number formatter
(figures.py), headers that name their units in every time unit, labels a
queueing person and a newcomer both read right, and no markup strings.

The results dicts here are written by hand in the results schema, so each
expected cell is known exactly: 2 per minute shown per minute is 2, 0.25 per ms
shown per second is 250."""
import math

import pytest
from rich.console import Console
from rich.text import Text

from brewput.compare import Row
from brewput.figures import count, number, percent, signed_percent, with_ci
from brewput.report.record_tables import pivot_table, scenario_table
from brewput.report.table import bounds_table, class_table, comparison_table, station_table
from brewput.units import SECONDS, TIME_UNITS, Display, rate_factor, rate_in, time_factor, time_in


def text(table) -> str:
    console = Console(width=400, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def cells(table, row=0):
    """A row of the table as the strings it prints."""
    return [str(column._cells[row]) for column in table.columns]


def results(time_unit, throughput=2.0, engine="simulate", lost=0, ci=True):
    def fig(x):
        return {"value": x, "ci": [x * 0.99, x * 1.01] if ci else None}
    times = {k: v for k, v in (("mean", 3.0), ("p50", 2.5), ("p95", 9.0), ("p99", 14.0), ("max", 20.0))}
    rt = dict(times)
    for k in ("mean", "p50", "p95", "p99"):
        rt[f"{k}_ci"] = fig(times[k])["ci"]
    cls = {"throughput": throughput, "throughput_ci": fig(throughput)["ci"], "response_time": rt,
           "lost": lost, "exact": True, "method": "erlang-c"}
    station = {"utilization": 0.9, "busy_servers": 2.7, "queue_length": 10.05, "waiting": 7.35,
               "response_time": 3.72, "throughput": throughput, "exact": True, "method": "erlang-c"}
    return {"model": "m", "engine": engine, "time_unit": time_unit, "params": {}, "classes": {"call": cls},
            "stations": {"desk": station}, "resources": {}}


def record(*units_and_params, swept="c"):
    scenarios = [{"id": i, "model": f"m-{unit}", "engine": "simulate", "params": {swept: c},
                  "results": results(unit, throughput=float(c))}
                 for i, (unit, c) in enumerate(units_and_params)]
    values = list(dict.fromkeys(c for _, c in units_and_params))
    return {"title": "t", "sweep": {swept: values}, "models": {s["model"]: {} for s in scenarios},
            "scenarios": scenarios}


# ---- one unit table ---------------------------------------------------------------

def test_the_unit_table_is_the_model_language_s():
    from brewput.model import schema
    assert schema.TIME_UNITS is TIME_UNITS == ("ns", "us", "ms", "s", "min", "h")
    assert SECONDS["min"] == 60 and SECONDS["h"] == 3600 and SECONDS["us"] == 1e-6


@pytest.mark.parametrize("unit, rate, per_rate", [
    ("ns", "s", 1e9), ("us", "s", 1e6), ("ms", "s", 1e3), ("s", "s", 1.0), ("min", "min", 1.0), ("h", "h", 1.0)])
def test_throughput_is_per_second_up_to_seconds_else_per_the_model_s_unit(unit, rate, per_rate):
    shown = Display.of(unit)
    assert (shown.time, shown.rate) == (unit, rate)
    assert shown.rate_from(unit) == pytest.approx(per_rate)
    assert rate_factor("min", "h") == 60 and time_factor("h", "min") == 60 and time_factor("ms", "s") == 1e-3


def test_a_time_or_a_rate_converted_is_rounded_once():
    # Divided by 1000, not multiplied by 0.001 (which rounds twice): the lab's
    # microseconds read as milliseconds exactly as `/ 1e3` reads them.
    for value in (0.1, 0.3, 1.7, 415.5, 12345.678, 1e-7, 3.3e12):
        assert time_in(value, "us", "ms") == value / 1e3 and time_in(value, "s", "ms") == value * 1e3
        assert time_in(value, "ns", "ms") == value / 1e6 and time_in(value, "h", "ms") == value * 3600e3
        assert rate_in(value, "s", "ms") == value / 1e3 and rate_in(value, "min", "s") == value / 60
    assert time_in(415.5, "us", "ms") == 0.4155 != 415.5 * time_factor("us", "ms")
    assert time_in(None, "us", "ms") is None and rate_in(None, "s", "ms") is None
    assert time_in(90, "s", "min") == 1.5 and time_in(1.5, "min", "s") == 90


@pytest.mark.parametrize("unit, header, shown", [
    ("ns", "throughput (per second)", "2,000,000,000"), ("us", "throughput (per second)", "2,000,000"),
    ("ms", "throughput (per second)", "2000"), ("s", "throughput (per second)", "2"),
    ("min", "throughput (per minute)", "2"), ("h", "throughput (per hour)", "2")])
def test_class_table_names_its_units_in_every_time_unit(unit, header, shown):
    table = class_table(results(unit))
    headers = [c.header for c in table.columns]
    assert headers[1] == header
    assert headers[2:6] == [f"mean response ({unit})", f"p50 ({unit})", f"p95 ({unit})", f"p99 ({unit})"]
    assert cells(table)[1].startswith(shown + " ± ")
    assert cells(table)[2] == "3 ± 0.03"               # times stay in the model's unit


@pytest.mark.parametrize("unit, title, value", [
    ("ms", "Throughput (per second)", "1000"), ("s", "Throughput (per second)", "1"),
    ("min", "Throughput (per minute)", "1"), ("h", "Throughput (per hour)", "1")])
def test_run_s_pivot_table_says_the_unit_its_figures_are_in(unit, title, value):
    table = pivot_table(record((unit, 1), (unit, 2)), "throughput")
    assert table.title == title
    assert cells(table)[1] == value
    assert pivot_table(record((unit, 1)), "latency").title == f"Median latency ({unit})"


def test_a_record_mixing_units_reads_in_its_first_scenario_s_units():
    # 1 per ms is 60,000 per minute: the minutes model's row is converted, not relabelled
    table = pivot_table({**record(("min", 1)), "scenarios": record(("min", 1))["scenarios"] + [
        {**record(("ms", 1))["scenarios"][0], "id": 1}]}, "throughput")
    assert table.title == "Throughput (per minute)"
    assert [cells(table, 0)[1], cells(table, 1)[1]] == ["1", "60,000"]
    latency = pivot_table({**record(("min", 1)), "scenarios": record(("min", 1))["scenarios"] + [
        {**record(("ms", 1))["scenarios"][0], "id": 1}]}, "latency")
    assert cells(latency, 1)[1] == number(2.5 / 60_000)


def test_sweep_tables_name_their_units():
    table = scenario_table(record(("min", 3), ("min", 4)))
    headers = [c.header for c in table.columns]
    assert "throughput (per minute)" in headers and "mean response (min)" in headers and "p99 (min)" in headers
    table = scenario_table(record(("ms", 3)))
    headers = [c.header for c in table.columns]
    assert cells(table)[headers.index("throughput (per second)")].startswith("3000 ± ")


# ---- one number formatter --------------------------------------------------------

@pytest.mark.parametrize("x, shown", [
    (None, "-"), (math.nan, "-"), (0, "0"), (0.0, "0"), (5_000_000, "5,000,000"), (3.57351, "3.574"),
    (0.000123456, "0.0001235"), (1.23456e-7, "1.235e-07"), (12345.6, "12,346"), (250.0, "250"),
    (2.5e13, "2.5e+13"), (-7.25, "-7.25")])
def test_number(x, shown):
    assert number(x) == shown


def test_counts_are_whole_even_when_they_come_as_floats():
    assert count(5000000.0) == "5,000,000" and count(3) == "3" and count(None) == "-" and count(math.nan) == "-"


def test_an_interval_narrower_than_the_figure_s_rounding_is_not_shown():
    assert with_ci(1.0, [1.0 - 1.1e-16, 1.0 + 1.1e-16]) == "1"            # a deterministic figure
    assert with_ci(3.5735, [3.0369, 4.1102]) == "3.574 ± 0.54"
    # 4 digits of 3.574 end at 0.001: a half-width of 0.0004 is below the rounding, 0.0006 is not
    assert with_ci(3.574, [3.5736, 3.5744]) == "3.574"
    assert with_ci(3.574, [3.5734, 3.5746]) == "3.574 ± 0.0006"
    assert with_ci(12345.6, [12345.2, 12346.0]) == "12,346"
    assert with_ci(12345.6, [12340.0, 12351.2]) == "12,346 ± 5.6"
    assert with_ci(0.0, [0.0, 0.0]) == "0" and with_ci(0.0, [-0.1, 0.1]) == "0 ± 0.1"
    assert with_ci(2.0, None) == "2" and with_ci(None, [1, 2]) == "-" and with_ci(2.0, [None, 3]) == "2"


def test_percentages():
    assert [signed_percent(x) for x in (0.0014, -0.042, 0.2982, 1.5, None)] == ["+0.14%", "-4.2%", "+30%",
                                                                                  "+150%", "-"]
    assert percent(0.871) == "87%" and percent(None) == "-"


# ---- labels that never lie --------------------------------------------------------

def test_station_table_names_l_lq_and_the_response_time():
    table = station_table(results("min"))
    headers = [c.header for c in table.columns]
    assert headers == ["station", "utilization", "busy servers", "in station (L)", "waiting (Lq)",
                       "response time (min)", "throughput (per minute)"]
    assert "mean number of customers" in table.title
    assert cells(table)[3:6] == ["10.05", "7.35", "3.72"]
    solved = station_table(results("ms", engine="solve"))
    assert [c.header for c in solved.columns][-1] == "method" and cells(solved)[-1] == "exact (erlang-c)"
    assert cells(solved)[-2] == "2000"           # 2 per ms, per second


def test_a_deterministic_run_prints_no_interval():
    res = results("ms", ci=False)
    res["classes"]["call"]["throughput_ci"] = [0.25 - 1e-17, 0.25 + 1e-17]
    res["classes"]["call"]["throughput"] = 0.25
    assert cells(class_table(res))[1] == "250"
    assert "±" not in text(class_table(res)).split("\n")[3]


def test_lost_is_a_whole_number():
    assert cells(class_table(results("s", lost=5000000)))[-1] == "5,000,000"


def test_bounds_are_in_display_units():
    res = results("ms", engine="solve")
    res["bounds"] = {"job": {"bottleneck": "cpu", "max_throughput": 0.05, "saturation_population": 7.65,
                             "throughput": [0.015873, 0.05], "response_time": [100.0, 530.0],
                             "balanced_throughput": None, "balanced_response_time": None}}
    table = bounds_table(res)
    headers = [c.header for c in table.columns]
    assert headers[2] == "max throughput (per second)" and headers[5] == "response time (ms)"
    assert cells(table)[2:6] == ["50", "7.65", "15.87 .. 50", "100 .. 530"]


def test_compare_says_what_the_difference_is_relative_to_and_uses_styles_not_markup():
    rows = [Row("call throughput", 2.7, True, "erlang-c", 2.696, (2.672, 2.72)),
            Row("call response time p999", 23.54, False, "allen-cunneen", 18.13, (12.6, 23.6)),
            Row("desk utilization", 0.95, True, "erlang-c", 0.89, (0.88, 0.90))]
    table = comparison_table("mmc: solve vs simulate", rows, 0.95, "s")
    headers = [c.header for c in table.columns]
    assert headers[3] == "solve − simulate (% of simulate)" and headers[4] == "solve in 95% CI"
    assert "times in s" in table.title
    inside = [column for column in table.columns][-1]._cells
    assert all(isinstance(cell, Text) and "[" not in cell.plain for cell in inside)
    assert [cell.plain for cell in inside] == ["yes", "yes", "no"]
    assert [cell.style for cell in inside] == ["green", "green", "red"]
    assert cells(table, 0)[3] == "+0.15%" and cells(table, 1)[3] == "+30%"
    assert cells(table, 1)[1] == "23.54 (≈ allen-cunneen)"
    assert "[green]" not in text(table) and "[/]" not in text(table)


def test_brewput_run_on_a_model_in_minutes_prints_per_minute(tmp_path):
    # the bug: "Throughput (per second)" over per-minute figures. Solved, so each cell is exact:
    # site A's calls arrive at 0.08 per minute whatever the staff (an open, stable queue).
    import subprocess
    import sys
    from pathlib import Path

    import brewput
    site = Path(__file__).resolve().parent.parent / "examples" / "helpdesk" / "site-a.yaml"
    (tmp_path / "s.yaml").write_text(f"brewput: 1\ntitle: t\nmodels: {{a: {site}}}\nsweep: {{staff: 3..4}}\n"
                                     "engines: [solve]\n")
    run = subprocess.run([sys.executable, "-m", "brewput", "run", "s.yaml"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Throughput (per minute)" in run.stdout and "Median latency (min)" in run.stdout
    assert "per second" not in run.stdout
    median = brewput.solve(str(site), params={"staff": 4})["classes"]["call"]["response_time"]["p50"]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in run.stdout.splitlines() if line.startswith("│ a")]
    assert rows[0] == ["a", "0.08", "0.08"] and rows[1][2] == number(median)
