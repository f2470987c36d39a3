"""The experiment record: its shape, the flat table, and every export format
round-tripping (JSON the whole record; CSV and Parquet the flat table)."""
import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pandas
import pytest

import brewput
from brewput.errors import BrewputError
from brewput.experiment.executors import InProcess
from brewput.experiment.record import flat_table, load, load_table, new_record, save
from brewput.experiment.runner import one_model, run

ROOT = Path(__file__).resolve().parent.parent
TANDEM = ROOT / "examples" / "tandem.yaml"


@lru_cache(maxsize=None)
def _record(engine):
    options = {"customers": 5000, "replications": 3} if engine == "simulate" else {}
    sweep = {"c": [3, 4], "rate": [1.5, 2.7]}
    record, scenarios = one_model(ROOT / "examples" / "mmc.yaml", None, sweep, engine, options, "brewput test")
    return json.dumps(run(record, scenarios, InProcess()))


def record(engine="simulate"):
    return json.loads(_record(engine))  # a fresh copy each time


def test_a_record_has_the_contract_s_fields():
    r = record()
    assert r["brewput"] == "experiment" and r["version"] == 1
    assert r["title"] == "M/M/c queue" and r["command"] == "brewput test" and r["study"] is None
    assert r["models"]["mmc"]["file"].endswith("examples/mmc.yaml")
    assert r["models"]["mmc"]["text"] == (ROOT / "examples" / "mmc.yaml").read_text()
    assert r["sweep"] == {"c": [3, 4], "rate": [1.5, 2.7]}
    assert r["charts"] is None and r["interrupted"] is False and r["failed"] == []
    assert [s["id"] for s in r["scenarios"]] == [0, 1, 2, 3]
    for s in r["scenarios"]:
        assert (s["model"], s["engine"]) == ("mmc", "simulate")
        assert s["results"]["params"] == s["params"]  # the swept values reached the engine
    fresh = new_record(title="t")
    assert (fresh["models"], fresh["sweep"], fresh["scenarios"], fresh["interrupted"]) == ({}, {}, [], False)


def test_the_flat_table_has_a_row_per_scenario_and_class_station_resource():
    r = record()
    table = flat_table(r)
    assert list(table.columns[:8]) == ["scenario", "model", "engine", "time_unit", "c", "rate", "kind", "name"]
    assert set(table.time_unit) == {"s"}
    assert len(table) == 4 * 2  # a class and a station per scenario (M/M/c has no resources)
    for s in r["scenarios"]:
        rows = table[table.scenario == s["id"]]
        assert list(rows.kind) == ["class", "station"] and list(rows.name) == ["customer", "desk"]
        cls, station = s["results"]["classes"]["customer"], s["results"]["stations"]["desk"]
        row = rows.iloc[0]
        assert (row.c, row.rate) == (s["params"]["c"], s["params"]["rate"])
        assert row.throughput == cls["throughput"]
        assert [row.throughput_ci_low, row.throughput_ci_high] == cls["throughput_ci"]
        assert row.response_time_p95 == cls["response_time"]["p95"]
        assert row.response_time_p95_ci_high == cls["response_time"]["p95_ci"][1]
        assert row.waiting_time_mean == cls["waiting_time"]["mean"]
        assert rows.iloc[1].utilization == station["utilization"]
        assert rows.iloc[1].queue_length_ci_low == station["queue_length_ci"][0]
    assert not any("spectrum" in c for c in table.columns)  # lists stay in the JSON record


def test_resources_get_rows_of_their_own():
    record_, scenarios = one_model(ROOT / "examples" / "coffee" / "finelocking.yaml", None, {"cpus": [2, 5]},
                                   "simulate", {"customers": 2000, "replications": 2})
    table = flat_table(run(record_, scenarios, InProcess()))
    cpu = table[table.kind == "resource"]
    assert list(cpu.name) == ["cpu", "cpu"] and list(cpu.cpus) == [2, 5]
    assert cpu.utilization.between(0, 1).all()


def test_json_round_trips_the_whole_record(tmp_path):
    for engine in ("simulate", "solve"):
        r = record(engine)
        assert load(save(r, tmp_path / f"{engine}.json")) == r


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("engine", ["simulate", "solve"])
def test_csv_and_parquet_round_trip_the_flat_table(tmp_path, suffix, engine):
    r = record(engine)
    path = save(r, tmp_path / f"results{suffix}")
    expected = flat_table(r)
    loaded = load_table(path)
    assert list(loaded.columns) == list(expected.columns)
    pandas.testing.assert_frame_equal(loaded, expected, check_dtype=False, check_exact=True)
    pandas.testing.assert_frame_equal(load_table(save(r, tmp_path / "r.json")), expected)


def test_load_refuses_what_is_not_a_record(tmp_path):
    save(record("solve"), tmp_path / "r.csv")
    (tmp_path / "other.json").write_text('{"model": "x"}')
    (tmp_path / "broken.json").write_text('{"brewput": ')
    (tmp_path / "future.json").write_text('{"brewput": "experiment", "version": 9}')
    cases = {
        "r.csv": "r.csv: a .csv file holds only the results table; the whole record is in the .json export",
        "other.json": 'other.json: not a brewput experiment record (no "brewput": "experiment")',
        "broken.json": "broken.json:1: not JSON: Expecting value",
        "future.json": "future.json: record version 9; this brewput reads 1",
        "missing.json": "missing.json: no such file",
        "r.txt": "r.txt: expected a file ending in .json, .csv, .parquet, got .txt",
    }
    for name, message in cases.items():
        with pytest.raises(BrewputError) as e:
            load(tmp_path / name)
        assert str(e.value) == f"{tmp_path / name}{message[len(name):]}"


def brewput_cli(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


@pytest.mark.parametrize("suffix", [".json", ".csv", ".parquet"])
def test_minus_o_writes_each_format_from_the_command_line(tmp_path, suffix):
    out = tmp_path / f"results{suffix}"
    run = brewput_cli("simulate", "examples/mmc.yaml", "--sweep", "c=3..4", "--customers", "3000",
                      "--replications", "2", "--workers", "2", "-o", out)
    assert run.returncode == 0, run.stderr
    assert f"results: {out}" in run.stderr
    table = load_table(out)
    assert list(table.c) == [3, 3, 4, 4] and list(table.kind) == ["class", "station"] * 2
    if suffix == ".json":
        assert load(out)["command"].startswith("brewput simulate examples/mmc.yaml --sweep c=3..4")


def test_without_sweep_the_json_is_unchanged_and_minus_o_holds_one_scenario(tmp_path):
    args = ("simulate", "examples/tandem.yaml", "--customers", "3000", "--replications", "2", "--json")
    plain = brewput_cli(*args)
    exported = brewput_cli(*args, "-o", tmp_path / "one.json")
    assert plain.returncode == exported.returncode == 0, exported.stderr
    assert plain.stdout == exported.stdout
    res = json.loads(plain.stdout)
    assert res == brewput.simulate(TANDEM, customers=3000, replications=2)  # the results schema, as before
    r = load(tmp_path / "one.json")
    assert r["sweep"] == {} and len(r["scenarios"]) == 1
    assert r["scenarios"][0]["params"] == {} and r["scenarios"][0]["results"] == res


@pytest.mark.parametrize("command", [
    ["simulate", "examples/coffee/locking.yaml", "--sweep", "cpus=1..3", "--customers", "2000",
     "--replications", "2"],
    ["solve", "examples/mmc.yaml", "--sweep", "c=3..5"],
    ["solve", "examples/mmc.yaml"],  # no sweep: a report of one scenario
])
def test_report_writes_the_page_and_the_record_it_draws(tmp_path, command):
    report = tmp_path / "report"
    run = brewput_cli(*command, "--report", report, "-o", tmp_path / "r.json")
    assert run.returncode == 0, run.stderr
    index = report / "index.html"
    assert f"report: {index}" in run.stderr and index.is_file()
    record = load(tmp_path / "r.json")
    assert record["command"] == f"brewput {' '.join(command)} --report {report} -o {tmp_path / 'r.json'}"
    page = index.read_text()
    assert record["title"] in page and record["command"] in page  # the page says how to reproduce it


def test_a_scenario_that_cannot_run_is_recorded_and_the_others_kept(tmp_path):
    # M/M/3 with mean service 1: rate 3 and 3.5 offer 100 % and more, which solve refuses.
    out = tmp_path / "results.json"
    run = brewput_cli("solve", "examples/mmc.yaml", "--sweep", "rate=2,3,2.7,3.5", "-o", out)
    assert run.returncode == 2
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: mmc at rate=3: station desk: utilization 1 >= 1, the open model is unstable; no steady state exists",
        "error: mmc at rate=3.5: station desk: utilization 1.167 >= 1, the open model is unstable; "
        "no steady state exists"]
    assert "2 of 4 scenarios failed" in run.stderr
    saved = load(out)
    assert [(s["id"], s["params"]) for s in saved["scenarios"]] == [(0, {"rate": 2}), (2, {"rate": 2.7})]
    assert [(f["id"], f["params"]) for f in saved["failed"]] == [(1, {"rate": 3}), (3, {"rate": 3.5})]
    # the kept ones are the exact Erlang C answers (M/M/3 at rate 2.7: 3.7235)
    assert saved["scenarios"][1]["results"]["classes"]["customer"]["response_time"]["mean"] \
        == pytest.approx(3.72350, rel=1e-5)
    assert "2.7" in run.stdout


def test_when_every_scenario_fails_there_is_one_line_and_no_output(tmp_path):
    out = tmp_path / "results.json"
    run = brewput_cli("solve", "examples/mmc.yaml", "--sweep", "rate=3,4", "-o", out)
    assert run.returncode == 2
    *progress, error = run.stderr.strip().splitlines()
    assert error == ("error: every scenario failed; the first: mmc at rate=3: station desk: utilization 1 >= 1, "
                     "the open model is unstable; no steady state exists")
    # a line per scenario as it finished, in a pipe (cli/progress.py), saying it failed
    # (in the order they finished, which worker processes do not fix)
    assert [line.split(":")[0] for line in progress] == ["scenarios 1/2", "scenarios 2/2"]
    assert sorted(line.split(": ")[1].split(" (")[0] for line in progress) == [
        "mmc solve rate=3 failed", "mmc solve rate=4 failed"]
    assert not out.exists()


def test_many_scenarios_that_cannot_run_are_counted_not_each_printed(tmp_path):
    # rate 3 and above offer M/M/3 100 % or more: seven fail; three are named, the rest counted,
    # and every one is in the record
    out = tmp_path / "results.json"
    run = brewput_cli("solve", "examples/mmc.yaml", "--sweep", "rate=2..9", "-o", out)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len([line for line in lines if line.startswith("error:")]) == 3, run.stderr
    assert lines[-1].startswith("7 of 8 scenarios failed (4 more not shown; -o or --json lists each under `failed`)")
    assert len(json.loads(out.read_text())["failed"]) == 7
