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
# the Starbucks counter behind its registers: typed servers with customers who give up
COUNTERS = {f"starbucks/{name}.yaml" for name in ("fifo", "first-fit", "early-order")}


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


def test_every_solvable_example_is_listed():
    unsolvable = {p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples/coffee").glob("*.yaml")}
    unsolvable |= COUNTERS
    every = {p.relative_to(ROOT / "examples").as_posix() for p in (ROOT / "examples").rglob("*.yaml")
             if "studies" not in p.parts}  # study files, not models
    assert every - unsolvable == set(SOLVABLE)


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
    (["solve", "examples/coffee/finelocking.yaml"], "simultaneous possession) has no exact analytic solution here; use brewput simulate"),
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
