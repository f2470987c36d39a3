"""`brewput plan` with demand that varies: each scenario (an arrival rate) gets its
own cheapest decision (servers), checked against Erlang C computed here from its
closed form (the sum over states, with factorials: not the solver's formula nor
test_plan.py's Erlang B recursion), and no scenario's value is ever priced or
counted as units."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import brewput
from brewput.planning.per_scenario import plan_per_scenario
from brewput.planning.roles import DECISION, DEMAND, role
from brewput.planning.slo import parse_objective

ROOT = Path(__file__).resolve().parent.parent
MMC = ROOT / "examples" / "mmc.yaml"  # service exp(1) s, `c` servers, arrivals at `rate` a second
CALL_CENTRE = ROOT / "examples" / "planning" / "call-centre.yaml"
RATES = [0.5, 2.7, 5.5]
SERVERS = list(range(1, 13))
BOUND = 0.25  # the mean wait, seconds


def mmc_wait(c: int, rate: float, mean_service: float = 1.0) -> float:
    """M/M/c's mean wait by Erlang C's closed form; infinity when unstable."""
    a = rate * mean_service
    if a >= c:
        return math.inf
    top = a**c / math.factorial(c) * c / (c - a)
    waits = top / (sum(a**k / math.factorial(k) for k in range(c)) + top)
    return waits / (c / mean_service - rate)


def cheapest(rate: float) -> int:
    return next(c for c in SERVERS if mmc_wait(c, rate) <= BOUND)


def brewput_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_each_rate_gets_the_fewest_servers_erlang_c_allows():
    model = brewput.load(MMC)
    record = plan_per_scenario(model, [parse_objective(f"wait_mean<={BOUND}s", model)], {"c": SERVERS},
                               {"rate": RATES}, confirm=False)
    assert [p["scenario"] for p in record["plans"]] == [{"rate": r} for r in RATES]
    assert [cheapest(r) for r in RATES] == [2, 5, 8]  # the truth differs per rate: one answer would not do
    for one, rate in zip(record["plans"], RATES):
        chosen = one["options"][one["chosen"]]
        assert chosen["values"] == {"c": cheapest(rate)}
        for option in one["options"]:
            c = option["values"]["c"]
            assert option["cost"] == c  # the servers alone: the rate is never counted as units
            if option["problem"] is None:
                assert option["figures"][0]["figure"] == pytest.approx(mmc_wait(c, rate), rel=1e-9)
                assert option["meets"] == (mmc_wait(c, rate) <= BOUND)
            else:
                assert mmc_wait(c, rate) == math.inf


def test_the_command_infers_the_rate_is_demand_says_so_and_answers_per_rate(tmp_path):
    done = brewput_cli("plan", MMC, "--vary", f"rate={','.join(map(str, RATES))}", "--vary", "c=1..12",
                       "--slo", f"wait_mean<={BOUND}s", "--cost", "c=1000,200", "-o", tmp_path / "plan.json")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "demand" in line or "decision" in line]
    assert said == ["plan: rate is demand (the arrivals of class customer): a scenario, answered on its own; c is a "
                    "decision (the servers of station desk). Say otherwise with --decide NAME=VALUES or --scenario "
                    "NAME=VALUES"]
    record = json.loads((tmp_path / "plan.json").read_text())
    assert record["scenarios"] == {"rate": RATES} and record["vary"] == {"c": SERVERS}
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == len(RATES)  # one table, a row per scenario
    for one, rate, row in zip(record["plans"], RATES, rows):
        c = cheapest(rate)
        chosen = one["options"][one["chosen"]]
        assert chosen["values"] == {"c": c}
        assert chosen["purchase"] == 1000 * c and chosen["cost"] == pytest.approx(c * (1000 + 3 * 200))
        # Confirmed by simulation: the chosen option first, then the one below it; Erlang C's wait
        # lies in the chosen option's 95 % interval.
        assert one["confirmed"][0]["values"] == {"c": c} and one["confirmed"][1]["values"] == {"c": c - 1}
        low, high = one["confirmed"][0]["figures"][0]["interval"]
        assert low <= mmc_wait(c, rate) <= high
        cells = [cell.strip() for cell in row.split("│")[1:-1]]
        assert cells[:2] == [f"{rate:g}", str(c)]
        if one["confirmed"][0]["meets"]:
            assert cells[-1] == "yes"
        else:
            assert cells[-1].startswith("not: wait_mean<=0.25s ")


def test_a_scenario_said_so_is_not_inferred_and_gives_the_same_answers():
    done = brewput_cli("plan", MMC, "--scenario", f"rate={','.join(map(str, RATES))}", "--vary", "c=1..12",
                       "--slo", f"wait_mean<={BOUND}s", "--no-confirm", "--json")
    assert done.returncode == 0, done.stderr
    assert not [line for line in done.stderr.splitlines() if "demand" in line or "decision" in line]
    record = json.loads(done.stdout)
    assert [p["options"][p["chosen"]]["values"]["c"] for p in record["plans"]] == [cheapest(r) for r in RATES]


def test_decide_makes_demand_a_decision_as_the_user_says():
    done = brewput_cli("plan", MMC, "--decide", "rate=0.5,2.7", "--vary", "c=1..12", "--slo",
                       f"wait_mean<={BOUND}s", "--no-confirm", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert "plans" not in record and record["vary"] == {"rate": [0.5, 2.7], "c": SERVERS}
    chosen = record["options"][record["chosen"]]
    assert chosen["values"] == {"rate": 0.5, "c": 2} and chosen["cost"] == 2.5  # what was asked for: both units


def test_a_scenario_no_option_meets_says_so_in_its_row_and_the_others_are_answered(tmp_path):
    done = brewput_cli("plan", MMC, "--vary", "rate=2.7,20", "--vary", "c=1..12", "--slo", f"wait_mean<={BOUND}s",
                       "--no-confirm", "-o", tmp_path / "plan.json")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (f"error: no option meets every objective (wait_mean<={BOUND}s) at "
                                            "rate=20 in the values tried: widen --vary or relax --slo")
    rows = {cells[0]: cells for cells in ([c.strip() for c in line.split("│")[1:-1]]
                                           for line in done.stdout.splitlines() if line.startswith("│"))}
    assert rows["2.7"][1:3] == ["5", "solve"]
    assert rows["20"][1:] == ["-", "-", "-", "-", "no option meets every objective"]
    record = json.loads((tmp_path / "plan.json").read_text())
    assert [p["chosen"] is None for p in record["plans"]] == [False, True]


@pytest.mark.parametrize("args, message", [
    (["--vary", "rate=1,2"], "error: --vary: rate is demand, and there is nothing to decide: vary what you can buy "
                             "or set too, e.g. --vary servers=1..64 (or --decide NAME=VALUES to choose demand)"),
    (["--vary", "rate=1,2", "--vary", "c=1..4", "--cost", "rate=5"],
     "error: --cost rate: rate is demand (a scenario), not something to buy; a cost is per unit of a decision (c)"),
    (["--vary", "c=1..4", "--scenario", "c=1,2"], "error: --scenario c: c is varied twice (also --vary)"),
    (["--vary", "c=1..4", "--scenario", "rate=0"], None),
    (["--vary", "c=1..4", "--vary", "stations.desk.servers=2,3"],
     "error: --vary stations.desk.servers: the model computes it from param c, also varied (--vary c); vary one "
     "of them"),
])
def test_what_cannot_be_planned_is_one_line(args, message):
    done = brewput_cli("plan", MMC, "--slo", "mean<10s", *args)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    if message is None:
        assert lines[0].startswith("error: --scenario rate=0: ")
    else:
        assert lines[0] == message


def test_without_demand_the_plan_is_as_it_was():
    done = brewput_cli("plan", MMC, "--vary", "c=3..5", "--slo", "wait_mean<=1s", "--no-confirm", "--json")
    assert done.returncode == 0
    assert done.stderr == ""  # no line about roles
    record = json.loads(done.stdout)
    assert "plans" not in record and "scenarios" not in record and record["options"][record["chosen"]]["values"] == \
        {"c": 4}


def test_the_report_holds_each_scenarios_answer(tmp_path):
    done = brewput_cli("plan", MMC, "--vary", "rate=0.5,2.7", "--vary", "c=1..8", "--slo", f"wait_mean<={BOUND}s",
                       "--no-confirm", "--report", tmp_path / "report")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "report" / "record.json").read_text())
    assert [p["options"][p["chosen"]]["values"] for p in record["plans"]] == [{"c": 2}, {"c": 5}]
    page = (tmp_path / "report" / "index.html").read_text()
    assert "the cheapest option for each scenario of rate" in page
    assert "rate=0.5: chosen: c=2, 2 units" in page and "rate=2.7: chosen: c=5, 5 units" in page


@pytest.mark.parametrize("name, kind, changes", [
    ("calls", DEMAND, ["the arrivals of class call"]),
    ("aht", DEMAND, ["the service time of class call"]),
    ("agents", DECISION, ["the servers of station agents"]),
    ("stations.agents.servers", DECISION, ["the servers of station agents"]),
    ("classes.call.rate", DEMAND, ["the arrivals of class call"]),
])
def test_a_name_is_demand_when_all_it_changes_is_what_the_customers_bring(name, kind, changes):
    found = role(brewput.load(CALL_CENTRE), name, [1, 2, 3])
    assert found.kind == kind and [what for _, what in found.changes] == changes


def test_a_population_is_demand_and_a_name_that_changes_servers_too_is_a_decision():
    model = brewput.Model(brewput=1, params={"users": 5, "both": 2},
                          stations={"cpu": {"servers": "${both}"}},
                          classes={"user": {"population": "${users + both}", "think": "exp(1)",
                                            "route": [{"station": "cpu", "service": "exp(0.2)"}]}})
    assert role(model, "users", [5, 10]).kind == DEMAND
    both = role(model, "both", [1, 3])
    assert both.kind == DECISION and both.changes_demand
    assert [what for _, what in both.changes] == ["the servers of station cpu", "the population of class user"]


def test_the_scenarios_in_docs_planning_are_what_the_command_prints():
    from brewput.figures import number
    from brewput.planning.show import figure_text

    doc = (ROOT / "docs" / "planning.md").read_text()
    command = doc.split("### Staffing for each call volume", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    args = command.replace("\\\n", " ").replace("'", "").split()[2:]  # after `brewput plan`
    done = brewput_cli("plan", *[str(ROOT / a) if a.startswith("examples/") else a for a in args], "--json")
    assert done.returncode == 0, done.stderr
    said = next(line for line in done.stderr.splitlines() if line.startswith("plan: calls"))
    assert said in doc
    record = json.loads(done.stdout)
    for one in record["plans"]:
        option = one["options"][one["chosen"]]
        figures = [figure_text(f["kind"], f["figure"], "min", unit)
                   for f, unit in zip(option["figures"], record["objective_units"])]
        row = (f"| {one['scenario']['calls']} | {option['values']['agents']} | {' | '.join(figures)} | "
               f"{number(option['cost'])} | {option['scheduled']['agents']} | "
               f"{'yes' if one['confirmed'][0]['meets'] else 'no'} |")
        assert row in doc, row
    # Erlang C's closed form (minutes): the fewest agents meeting all three objectives, per volume.
    for one in record["plans"]:
        per_minute = one["scenario"]["calls"] / 60
        fewest = next(c for c in range(1, 41) if mmc_wait(c, per_minute, 3.0) * 60 <= 20
                      and per_minute * 3 / c <= 0.85 and _p90(c, per_minute, 3.0) <= 1)
        assert one["options"][one["chosen"]]["values"] == {"agents": fewest}
        assert one["options"][one["chosen"]]["scheduled"] == {"agents": math.ceil(fewest / 0.7)}


def _p90(c: int, rate: float, mean_service: float) -> float:
    """M/M/c's 90th percentile of the wait: P(W > t) = C e^(-(c/S - rate) t)."""
    waits = mmc_wait(c, rate, mean_service) * (c / mean_service - rate)  # Erlang C's P(wait)
    return 0.0 if waits <= 0.1 else math.log(waits / 0.1) / (c / mean_service - rate)


def test_a_field_computed_from_a_varied_param_through_another_is_refused(tmp_path):
    # `servers` reads `total`, which reads `c`: varying c and servers at once would let the
    # field's values replace c's, and the plan would price options that differ only in name
    model = brewput.Model.from_dict({"brewput": 1, "params": {"c": 2, "spare": 1, "total": "${c + spare}"},
                                     "stations": {"s": {"servers": "${total}"}},
                                     "classes": {"k": {"rate": 1, "route": [{"station": "s", "service": "exp(1)"}]}}})
    assert model.params_behind("stations.s.servers") == {"c", "spare", "total"}
    assert model.params_behind("classes.k.rate") == set()
    path = tmp_path / "m.yaml"
    path.write_text(model.to_yaml())
    done = brewput_cli("plan", path, "--slo", "mean<10s", "--vary", "spare=0,1", "--vary", "stations.s.servers=3,4")
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "error: --vary stations.s.servers: the model computes it from param spare, also varied (--vary spare); "
        "vary one of them"]
