"""`brewput solve` and `brewput compare` end to end, and the analytic solution
against the simulator on every example an analytic method covers."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLVABLE = ["helpdesk/site-a.yaml", "helpdesk/site-b.yaml", "helpdesk/merged.yaml", "mmc.yaml",
            "tandem.yaml", "central-server.yaml", "interactive.yaml", "multiclass.yaml", "starbucks/bar.yaml",
            "server.yaml", "planning/call-centre.yaml",
            "helpdesk/two-sites.yaml"]
# load balancing: every policy but joining the shortest queue has its theory (branches.py),
# exact but for power of d (a many-server mean field, marked approximate)
BALANCE = [f"balance/{size}/{policy}.yaml" for size in ("two", "ten") for policy in ("random", "round_robin", "shared")]
APPROXIMATE = ["balance/ten/power_of_d.yaml"]
# the talk's kitchens without forks (multipipe-2's two pipelines by its dispatch): the state-space
# engine, their constant stages by Erlang-k
# fits (marked approximate); and a call centre's day whose rota falls (off_shift: finish, exact through the day)
FITTED = [f"coffee/{name}.yaml" for name in ("finelocking", "ideal", "linearpipe-0", "linearpipe-1",
                                              "linearpipe-10", "locking", "multi-2", "multi-4", "multipipe-2")]
A_DAY = ["rush/call-centre-day.yaml", "rush/coffee-bar.yaml", "rush/web-day.yaml"]
# the Starbucks counter behind its registers: typed servers with customers who give up
COUNTERS = {f"starbucks/{name}.yaml" for name in ("fifo", "first-fit", "early-order")}
# kitchens that fork, and a morning of two classes through several stations
UNSOLVED = COUNTERS | {f"coffee/{name}.yaml" for name in ("parsteam", "splitpipe-1")} | \
    {f"balance/{size}/shortest_queue.yaml" for size in ("two", "ten")} | {"rush/coffee-morning.yaml"}


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def test_every_solvable_example_is_listed():
    every = {p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples").rglob("*.yaml")
             if "studies" not in p.parts}  # study files, not models
    assert every - UNSOLVED == set(SOLVABLE + BALANCE + APPROXIMATE + FITTED + A_DAY)


@pytest.mark.parametrize("example", sorted(UNSOLVED))
def test_an_unsolved_example_is_refused_in_one_line(example):
    run = brewput("solve", f"examples/{example}")
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
    assert "use brewput simulate" in run.stderr


@pytest.mark.parametrize("site, response, utilization", [
    ("site-a", 35.382060, 0.60), ("site-b", 67.006285, 0.90), ("merged", 34.990833, 0.78)])
def test_solve_json_gives_pdqs_helpdesk_table(site, response, utilization):
    run = brewput("solve", f"examples/helpdesk/{site}.yaml", "--json")
    assert run.returncode == 0, run.stderr
    res = json.loads(run.stdout)
    assert (res["engine"], res["method"]) == ("solve", "erlang-c")
    (call,) = res["classes"].values()
    (desk,) = res["stations"].values()
    assert call["response_time"]["mean"] == pytest.approx(response, rel=1e-6)
    assert desk["utilization"] == pytest.approx(utilization, rel=1e-6)
    assert call["exact"] is True and desk["exact"] is True


def test_solve_table_names_the_method():
    run = brewput("solve", "examples/central-server.yaml", "--set", "users=20")
    assert run.returncode == 0, run.stderr
    assert "exact (mva-exact)" in run.stdout and "cpu" in run.stdout


@pytest.mark.parametrize("args, message", [
    (["solve", "examples/starbucks/fifo.yaml"], "a finite buffer inside a network of 2 stations (a job that finds it "
                                                "full blocks the server it leaves: blocking after service) has no "
                                                "analytic method here; use brewput simulate"),
    (["solve", "examples/mmc.yaml", "--method", "magic"], "--method: expected one of"),
    (["solve", "examples/mmc.yaml", "--sweep", "c=2..3", "--method", "magic"], "error: --method: expected one of"),
    (["solve", "examples/mmc.yaml", "--method", "approx"], "error: --method approx: open networks are solved exactly "
                                                           "(or by the named approximation per station); use --method auto"),
    (["solve", "examples/mmc.yaml", "--set", "rate=3.5"], "utilization 1.167 >= 1, the open model is unstable"),
    (["compare", "examples/mmc.yaml", "--level", "1.5"], "--level: expected a confidence level"),
])
def test_solve_errors_are_one_line_and_exit_code_2(args, message):
    run = brewput(*args)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr


@pytest.mark.parametrize("example", SOLVABLE)
def test_every_exact_figure_lies_in_the_simulations_99_percent_interval(example):
    run = brewput("compare", f"examples/{example}", "--customers", "200000", "--replications", "5",
                  "--level", "0.99", "--json")
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)["comparison"]
    exact = [row for row in rows if row["exact"]]
    assert exact, "nothing exact to check"
    outside = [(r["figure"], r["analytic"], r["ci"]) for r in exact if not r["inside"]]
    assert not outside


@pytest.mark.parametrize("example", SOLVABLE + BALANCE + APPROXIMATE)
def test_solve_results_hold_plain_python_numbers(example):
    """No numpy scalar leaks into the results: compared, they would give numpy
    booleans that JSON cannot write (`compare --json` failed on them)."""
    import brewput

    def leaks(value, path="results"):
        if isinstance(value, dict):
            return [p for k, v in value.items() for p in leaks(v, f"{path}.{k}")]
        if isinstance(value, (list, tuple)):
            return [p for i, v in enumerate(value) for p in leaks(v, f"{path}[{i}]")]
        return [] if value is None or type(value) in (bool, int, float, str) else [f"{path}: {type(value)}"]

    assert leaks(brewput.solve(ROOT / "examples" / example)) == []


@pytest.mark.parametrize("example", BALANCE)
def test_every_exact_figure_of_a_balancer_lies_in_the_simulations_family_wise_interval(example):
    """Ten servers give some fifty exact figures: each is held to a 1 - 0.01 / k
    interval (Bonferroni over the example's k exact figures), so that the whole
    example fails by chance at most 1 % of the time, as the examples above with a
    few figures each do at 99 %."""
    k = sum(row["exact"] for row in brewput_cli_compare(example, level=0.99))
    assert k > 0, "nothing exact to check"
    exact = [row for row in brewput_cli_compare(example, level=1 - 0.01 / k) if row["exact"]]
    assert len(exact) == k
    assert not [(r["figure"], r["analytic"], r["ci"]) for r in exact if not r["inside"]]


@pytest.mark.parametrize("example", APPROXIMATE + FITTED)
def test_power_of_d_and_fitted_stages_are_marked_approximate(example):
    import brewput

    solved = brewput.solve(ROOT / "examples" / example)
    assert not any(part.get("exact") for kind in ("classes", "stations") for part in solved[kind].values())


def brewput_cli_compare(example, level):
    run = brewput("compare", f"examples/{example}", "--customers", "200000", "--replications", "5",
                  "--level", repr(level), "--json")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["comparison"]


def test_a_model_with_no_steady_state_is_refused_naming_its_file_and_station():
    run = brewput("solve", "examples/mmc.yaml", "--set", "rate=3.5")
    assert run.returncode == 2
    assert run.stderr == ("error: examples/mmc.yaml: station desk: utilization 1.167 >= 1, the open model is unstable; "
                          "no steady state exists\n")
