"""The `brewput` command end to end: tables, JSON, overrides and one-line errors."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BREWPUT = [sys.executable, "-m", "brewput"]


def brewput(*args, cwd=ROOT):
    return subprocess.run([*BREWPUT, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_table_shows_classes_stations_and_resources():
    run = brewput("simulate", "examples/coffee/finelocking.yaml", "--set", "cpus=6", "--customers", "20000")
    assert run.returncode == 0, run.stderr
    for word in ("latte", "grinder", "espresso", "counter", "cpu", "1000"):
        assert word in run.stdout


def test_json_follows_the_results_schema():
    run = brewput("simulate", "examples/mmc.yaml", "--customers", "20000", "--replications", "3", "--json")
    assert run.returncode == 0, run.stderr
    res = json.loads(run.stdout)
    assert (res["engine"], res["method"], res["time_unit"]) == ("simulate", "des", "s")
    assert res["settings"] == {"seed": 1, "replications": 3, "customers": 20000, "horizon": None,
                               "warmup": {"customers": 2000}}
    (cls,) = res["classes"].values()
    assert set(cls["response_time"]) >= {"mean", "p50", "p90", "p95", "p99", "p999", "max", "p99_ci"}
    lo, hi = cls["throughput_ci"]
    assert lo <= cls["throughput"] <= hi
    (station,) = res["stations"].values()
    assert 0 < station["utilization"] < 1


def test_set_overrides_a_param_and_shows_in_the_results():
    run = brewput("simulate", "examples/coffee/locking.yaml", "--set", "cpus=3", "--customers", "3000", "--json")
    res = json.loads(run.stdout)
    assert res["params"]["cpus"] == 3
    assert res["classes"]["latte"]["response_time"]["p50"] == pytest.approx(12.0)


def test_horizon_stops_by_model_time():
    run = brewput("simulate", "examples/mmc.yaml", "--horizon", "5000", "--replications", "2", "--json")
    res = json.loads(run.stdout)
    assert res["settings"]["horizon"] == 5000 and res["settings"]["warmup"] == {"time": 500.0}
    # 2.7 arrivals per second for 5000 s in each of 2 replications.
    assert res["classes"]["customer"]["completed"] == pytest.approx(2 * 2.7 * 5000, rel=0.03)


def test_unstable_open_model_runs_with_a_warning(tmp_path):
    model = tmp_path / "over.yaml"
    model.write_text("brewput: 1\nname: overloaded\nstations: {desk: {servers: 1}}\n"
                     "classes: {c: {rate: 1.2, route: [{station: desk, service: exp(1)}]}}\n")
    run = brewput("simulate", model, "--customers", "2000", "--replications", "2")
    assert run.returncode == 0, run.stderr
    assert "warning: station desk: open arrivals offer utilization 1.2 >= 1" in run.stderr


@pytest.mark.parametrize("args, message", [
    (["simulate", "missing.yaml"], "missing.yaml"),
    (["simulate", "examples/mmc.yaml", "--set", "c"], "--set c: expected name=value"),
    (["simulate", "examples/mmc.yaml", "--set", "nosuch=3"], "nosuch"),
    (["simulate", "examples/mmc.yaml", "--customers", "0"], "--customers: expected a number from 1"),
    (["simulate", "examples/mmc.yaml", "--replications", "0"], "--replications: expected a number from 1"),
    (["simulate", "examples/mmc.yaml", "--customers", "10", "--horizon", "5"], "give one, not both"),
    (["simulate", "examples/mmc.yaml", "--horizon", "-1"], "--horizon: expected a positive"),
    (["simulate", "examples/mmc.yaml", "--warmup", "1.5"], "--warmup: expected a whole number"),
    (["simulate", "examples/mmc.yaml", "--set", "c=0"], "servers"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, message):
    run = brewput(*args)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert "Traceback" not in run.stderr


def test_deadlock_is_an_error_not_a_hang(tmp_path):
    model = tmp_path / "deadlock.yaml"
    model.write_text(
        "brewput: 1\nname: ring\nstations: {a: {buffer: 0}, b: {buffer: 0}}\n"
        "classes: {c: {population: 2, route: [{id: x, station: a, service: exp(1)},"
        " {station: b, service: exp(1), next: {x: 0.5, exit: 0.5}}]}}\n")
    run = brewput("simulate", model, "--customers", "1000")
    assert run.returncode == 2
    assert "deadlock.yaml: the model deadlocked" in run.stderr


def demo_throughput(*args):
    """The demo's first table: lattes per second at 1..6 cpus, per implementation."""
    run = brewput("demo", *args)
    assert run.returncode == 0, run.stderr
    throughput = {}
    for line in run.stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 7 and cells[0] not in throughput:
            throughput[cells[0]] = [float(c) for c in cells[1:]]
    return throughput


def test_demo_reproduces_the_talk():
    throughput = demo_throughput("--noise", "0")      # exact stages: the structural numbers exactly
    assert throughput["ideal"] == [250, 500, 750, 1000, 1250, 1500]
    assert throughput["locking"] == [250] * 6
    assert throughput["finelocking"] == [250, 500, 750, 1000, 1000, 1000]
    assert throughput["multi-2"] == [250, 500, 750, 1000, 1250, 1500]


def test_demo_with_noise_shows_what_buffering_buys():
    throughput = demo_throughput("--noise", "0.5")
    # The unbuffered pipeline falls behind the buffered ones once the grinder saturates.
    assert throughput["linearpipe-0"][5] < 0.95 * throughput["linearpipe-1"][5]
    # Nothing is shared: 250/s per CPU on average, jitter or not (a sampled estimate).
    assert throughput["ideal"] == pytest.approx([250, 500, 750, 1000, 1250, 1500], rel=2e-3)


def test_set_takes_an_expression_of_the_model_s_params():
    # locking.yaml's customers are `${cpus}`; cpus=2+1 is cpus=3, whose p50 is 12 ms (the test above).
    run = brewput("simulate", "examples/coffee/locking.yaml", "--set", "cpus=2+1", "--customers", "3000", "--json")
    assert run.returncode == 0, run.stderr
    res = json.loads(run.stdout)
    assert res["params"]["cpus"] == 3
    assert res["classes"]["latte"]["response_time"]["p50"] == pytest.approx(12.0)


MARKUP_MODEL = """\
brewput: 1
name: "[/] shop :x: [link=https://x]"
stations:
  "[/]": {servers: 2}
  "[bold]": {servers: inf}
classes:
  ":x:":
    rate: 1
    route:
      - {station: "[/]", service: exp(1)}
      - {station: "[bold]", service: 1}
"""


@pytest.mark.parametrize("command", [["solve"], ["simulate", "--customers", "2000", "--replications", "2"],
                                     ["compare", "--customers", "2000", "--replications", "2"]])
def test_names_that_look_like_markup_print_as_written(tmp_path, command):
    model = tmp_path / "[red]shop.yaml"
    model.write_text(MARKUP_MODEL)
    run = brewput(command[0], model.name, *command[1:], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    for text in ("[/] shop :x: [link=https://x]", "│ [/] ", "[bold]", ":x:"):
        assert text in run.stdout, text
    assert "❌" not in run.stdout


def test_a_sweep_with_markup_in_values_paths_and_names_writes_and_reports(tmp_path):
    model = tmp_path / "[/]" / "[bold]m.yaml"
    model.parent.mkdir(parents=True)
    model.write_text(MARKUP_MODEL.replace("servers: 2", "servers: '${n}'").replace("brewput: 1", "brewput: 1\n"
                                                                                     "params: {n: 2}"))
    run = brewput("solve", model, "--sweep", "n=2,3", "-o", tmp_path / "[x].json", "--report", tmp_path / ":x:")
    assert run.returncode == 0, run.stderr
    assert f"results: {tmp_path / '[x].json'}" in run.stderr
    assert "[/] shop :x: [link=https://x]" in (tmp_path / ":x:" / "index.html").read_text()
    assert run.stdout.count(":x:") == 3  # the title, and the class at n=2 and n=3
    assert json.loads((tmp_path / "[x].json").read_text())["title"] == "[/] shop :x: [link=https://x]"


def test_results_reach_stdout_when_writing_them_fails_after_the_run(tmp_path):
    # A link to /dev/full passes every check made before the run; writing it fails.
    target = tmp_path / "full.json"
    target.symlink_to("/dev/full")
    run = brewput("solve", "examples/mmc.yaml", "--sweep", "c=3,4", "-o", target, "--json")
    assert run.returncode == 2
    record = json.loads(run.stdout)
    assert [s["params"] for s in record["scenarios"]] == [{"c": 3}, {"c": 4}]
    assert run.stderr.strip() == f"error: {target}: cannot write: No space left on device"


def test_parquet_without_pyarrow_is_refused_before_running(monkeypatch, tmp_path):
    from brewput.errors import BrewputError
    from brewput.experiment.record import check_path

    check_path(tmp_path / "r.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # find_spec then says: not installed
    # the package, which a wheel file's user can install too (the extra 'brewput[parquet]' names nothing there)
    with pytest.raises(BrewputError, match=r"r\.parquet: writing Parquet needs pyarrow: pip install pyarrow$"):
        check_path(tmp_path / "r.parquet")
    check_path(tmp_path / "r.csv")


def test_reading_parquet_without_pyarrow_says_what_to_install(monkeypatch, tmp_path):
    import pandas

    from brewput.errors import BrewputError
    from brewput.experiment.record import load_table
    from brewput.planning.points import read_points

    table = tmp_path / "t.parquet"
    pandas.DataFrame({"n": [1, 2, 4], "throughput": [1.0, 1.9, 3.5]}).to_parquet(table)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "fastparquet", None)  # pandas' other Parquet reader
    for read in (load_table, read_points):
        with pytest.raises(BrewputError, match=r"t\.parquet: reading Parquet needs pyarrow: pip install pyarrow$"):
            read(table)


def test_dask_without_distributed_is_refused_before_running(monkeypatch):
    from brewput.cli.common import user_message
    from brewput.errors import BrewputError
    from brewput.experiment.executors import DaskCluster, executor

    assert isinstance(executor("dask", scheduler="tcp://127.0.0.1:8786"), DaskCluster)
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(BrewputError, match=r"^executor dask: needs .* pip install distributed$") as e:
        executor("dask", scheduler="tcp://127.0.0.1:8786")
    assert user_message(e.value).startswith("--executor dask: needs Dask's distributed package")


def flat(text: str) -> str:
    """Help text on one line, as written: click wraps lines, even at a name's hyphen."""
    return re.sub(r"(\w-) (\w)", r"\1\2", " ".join(text.split()))


def command_helps():
    """(command words, help text) of every command and sub-command."""
    import typer

    from brewput.cli import app

    def walk(command, words):
        if hasattr(command, "commands"):  # a group
            for name, sub in command.commands.items():
                yield from walk(sub, words + [name])
        else:
            yield words, command

    return list(walk(typer.main.get_command(app), []))


def test_every_option_of_every_command_shows_its_default_in_help():
    from brewput.engine.simulate import DEFAULT_CUSTOMERS

    commands = command_helps()
    assert {"simulate", "solve", "compare", "run", "demo", "report"} <= {" ".join(w) for w, _ in commands}
    for words, command in commands:
        run = brewput(*words, "--help")
        assert run.returncode == 0, run.stderr
        shown = flat(run.stdout)
        context = command.context_class(command)
        for param in command.params:
            flag = getattr(param, "is_flag", False) or param.name in ("help", "version")
            if param.param_type_name != "option" or flag or param.required:
                continue
            _, described = param.get_help_record(context)
            assert "[default: " in described, f"brewput {' '.join(words)} {param.opts}: {described}"
            assert flat(described) in shown, f"brewput {' '.join(words)} {param.opts}"
        assert "<bool>" not in run.stdout
    simulate_help = " ".join(brewput("simulate", "--help").stdout.split())
    assert f"[default: {DEFAULT_CUSTOMERS:,}]" in simulate_help


def test_solve_help_lists_every_method_it_accepts():
    from brewput.analytic.methods import METHODS
    from brewput.engine.solve import solve

    text = flat(brewput("solve", "--help").stdout)
    assert " | ".join(METHODS) in text
    for method in METHODS:  # each one listed is accepted (a closed network, which every method solves)
        assert solve(ROOT / "examples" / "central-server.yaml", method=method)["classes"]


def test_an_output_in_a_folder_brewput_cannot_write_is_refused(monkeypatch, tmp_path):
    import os

    from brewput.cli.scenarios import check_outputs
    from brewput.errors import BrewputError

    check_outputs(tmp_path / "r.csv", tmp_path / "report", tmp_path / "hgrm")
    # As root every folder is writable; os.access is what brewput asks, so it is what is faked.
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(BrewputError, match=r"^-o .*r.csv: cannot write there \(permission denied\)$"):
        check_outputs(tmp_path / "r.csv")
    for option in ("report", "hgrm"):
        with pytest.raises(BrewputError, match=rf"^--{option} .*new/{option}: cannot write in .* \(permission denied\)$"):
            check_outputs(**{option: tmp_path / "new" / option})


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_that_says_it_is_writable_but_takes_no_file_is_refused_before_any_work():
    # As root os.access says yes to /proc, which makes no file: a sweep ran to its end,
    # then failed to write its record (hunt_inputs, `run -o /proc/out.json`).
    run = brewput("simulate", "examples/mmc.yaml", "--sweep", "c=3..4", "-o", "/proc/out.json", "--report",
                  "/proc/report")
    assert run.returncode == 2 and run.stderr.startswith("error: -o /proc/out.json: cannot write there ("), run.stderr
    assert len(run.stderr.splitlines()) == 1, run.stderr
    assert not [p for p in Path("/proc").glob(".brewput-*")]
