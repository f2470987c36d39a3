"""Sweeps: the three spellings of a sweep's values, the cartesian product, and the
one-line errors of a bad --sweep."""
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from brewput.errors import BrewputError
from brewput.experiment.sweep import Combinations, SweepError, parse_sweeps, parse_values, sweep_values

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("text, values", [
    ("1..6", [1, 2, 3, 4, 5, 6]),
    ("3..3", [3]),
    ("-2..1", [-2, -1, 0, 1]),
    ("1,2,4,8", [1, 2, 4, 8]),
    ("0.5, 1, 2e3", [0.5, 1, 2000.0]),
    ("7", [7]),
    ("0.1:0.9:0.1", [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),  # exactly the decimals, no 0.30000000000000004
    ("0:1:0.25", [0.0, 0.25, 0.5, 0.75, 1.0]),
    ("1:10:3", [1, 4, 7, 10]),
    ("0:1:0.3", [0.0, 0.3, 0.6, 0.9]),  # the stop is included only when a step lands on it
    ("5:1:-2", [5, 3, 1]),
])
def test_each_spelling_gives_its_values(text, values):
    got = parse_values(text)
    assert got == values
    assert [type(v) for v in got] == [type(v) for v in values]  # whole numbers stay ints (cpus=2, not 2.0)


@pytest.mark.parametrize("text, problem", [
    ("", "expected numbers as a..b (whole numbers), a,b,c or start:stop:step, got ''"),
    ("x", "expected numbers as"),
    ("1..", "expected numbers as"),
    ("1,,2", "expected numbers as"),
    ("nan", "expected numbers as"),
    ("1e999", "expected numbers as"),
    ("3..1", "3..1 is empty: the end is below the start"),
    ("1.5..3", "a..b takes whole numbers (start:stop:step takes fractions)"),
    ("1:2", "expected start:stop:step"),
    ("0:1:0", "step 0 never goes from 0 to 1"),
    ("1:0:1", "step 1 never goes from 1 to 0"),
    ("1,2,1", "a value is listed twice"),
    ("1..20000", "more than 10,000 values"),
])
def test_bad_values_say_what_is_wrong(text, problem):
    with pytest.raises(SweepError) as e:
        parse_values(text)
    assert str(e.value).startswith(problem)


def test_several_sweeps_form_the_cartesian_product_first_slowest():
    sweep = parse_sweeps(["cpus=1..3", "noise=0,0.5"])
    assert sweep == {"cpus": [1, 2, 3], "noise": [0, 0.5]}
    assert list(Combinations(sweep)) == [{"cpus": c, "noise": n} for c in (1, 2, 3) for n in (0, 0.5)]
    three = Combinations({"a": [1, 2], "b": [1, 2, 3], "c": [0.1, 0.2, 0.3, 0.4]})
    assert len(three) == 2 * 3 * 4 and len({tuple(p.values()) for p in three}) == 24
    assert list(three) == [dict(zip("abc", values)) for values in
                           itertools.product([1, 2], [1, 2, 3], [0.1, 0.2, 0.3, 0.4])]
    assert three[-1] == {"a": 2, "b": 3, "c": 0.4} and three[5:7] == [three[5], three[6]]
    with pytest.raises(IndexError):
        three[24]
    assert list(Combinations({})) == [{}]


def test_a_million_combinations_are_made_on_demand():
    million = Combinations({"a": list(range(1000)), "b": list(range(1000))})
    assert len(million) == 1_000_000
    assert million[0] == {"a": 0, "b": 0} and million[999_999] == {"a": 999, "b": 999}
    assert million[123_456] == {"a": 123, "b": 456}


@pytest.mark.parametrize("options, message", [
    (["cpus"], "--sweep cpus: expected name=values, e.g. --sweep cpus=1..6"),
    (["=1..2"], "--sweep =1..2: expected name=values"),
    (["cpus=1..2", "cpus=3"], "--sweep cpus=3: cpus is swept twice"),
    (["cpus=2..1"], "--sweep cpus=2..1: 2..1 is empty"),
    (["a=1..1000", "b=1..1000", "c=1..2"], "--sweep: 2,000,000 scenarios is more than the 1,000,000 allowed"),
])
def test_bad_sweep_options_are_one_line_errors(options, message):
    with pytest.raises(BrewputError) as e:
        parse_sweeps(options)
    assert str(e.value).startswith(message)


def test_the_api_names_its_sweep_argument_not_the_option():
    import brewput

    with pytest.raises(BrewputError, match=r"^sweep: 2,000,000 scenarios is more than the 1,000,000 allowed$"):
        brewput.sweep("examples/mmc.yaml", {"c": "1..2000", "rate": "1..1000"}, "solve")


def test_a_study_sweep_entry_is_a_spelling_a_number_or_a_list():
    assert sweep_values("1..3") == [1, 2, 3]
    assert sweep_values(4) == [4]
    assert sweep_values([1, 2.5]) == [1, 2.5]
    for bad in ([], [1, "x"], True, {"a": 1}, [float("inf")]):
        with pytest.raises(SweepError):
            sweep_values(bad)


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


@pytest.mark.parametrize("args, line", [
    (["--sweep", "c=3..x"], "error: --sweep c=3..x: expected numbers as"),
    (["--sweep", "k=1..2"], "error: examples/mmc.yaml:9 params.k: cannot set unknown param 'k' (params: c, rate)"),
    (["--sweep", "c=0..2"], "error: examples/mmc.yaml:14 stations.desk.servers: expected a positive integer"),
    (["--set", "c=3", "--sweep", "name=1,2"], "error: --sweep: a swept param cannot be called 'name': the results "
                                              "table has a column of that name (scenario, model, engine, time_unit, kind, name)"),
    (["--sweep", "c=3..4", "--threads", "2"], "error: --threads: with --sweep, --workers sets how"),
    (["--workers", "2"], "error: --executor, --scheduler, --workers: only with --sweep"),
    (["--sweep", "c=3..4", "--workers", "0"], "error: --workers: expected a number from 1 to 4,096, got 0"),
    (["--sweep", "c=3..4", "--executor", "ray"], "error: --executor: expected one of local, dask, got 'ray'"),
    (["--sweep", "c=3..4", "--executor", "dask"], "error: --executor dask: needs --scheduler ADDRESS"),
    (["--sweep", "c=3..4", "--scheduler", "tcp://x:1"], "error: --scheduler: only with --executor dask"),
    (["--sweep", "c=3..4", "-o", "out.xlsx"], "error: -o out.xlsx: expected a file ending in .json, .csv, .parquet"),
    (["--sweep", "c=3..4", "-o", "no/such/dir/out.csv"], "error: -o no/such/dir/out.csv: the folder no/such/dir does"),
])
def test_the_command_line_refuses_a_bad_sweep_in_one_line(args, line):
    run = brewput("simulate", "examples/mmc.yaml", "--customers", "1000", *args)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(line), run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert run.stdout == ""


def test_a_sweep_runs_every_scenario_in_order_with_its_params():
    run = brewput("solve", "examples/mmc.yaml", "--sweep", "c=3..5", "--sweep", "rate=1,2", "--json")
    assert run.returncode == 0, run.stderr
    import json
    record = json.loads(run.stdout)
    assert record["sweep"] == {"c": [3, 4, 5], "rate": [1, 2]}
    assert [s["params"] for s in record["scenarios"]] == [{"c": c, "rate": r} for c in (3, 4, 5) for r in (1, 2)]
    for s in record["scenarios"]:
        assert s["results"]["params"] == s["params"]
        assert s["results"]["classes"]["customer"]["throughput"] == pytest.approx(s["params"]["rate"])
