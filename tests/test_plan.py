"""`brewput plan`: the cheapest option that meets every objective, against
independent truths: Erlang C computed here by the Erlang B recursion (not the
solver's formula), a Jackson network of two M/M/c stations searched by brute
force here, the seed's net present value (£273,554), and simulation intervals
that must agree with the verdicts they give."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import brewput
from brewput.planning.npv import Cost, npv
from brewput.planning.plan import plan, scheduled
from brewput.planning.slo import parse_objective

ROOT = Path(__file__).resolve().parent.parent
CALL_CENTRE = ROOT / "examples" / "planning" / "call-centre.yaml"


def erlang_c(servers: int, load: float) -> float:
    """P(wait) for M/M/c with offered load `load` erlangs, by the Erlang B recursion."""
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    rho = load / servers
    return b / (1 - rho + rho * b)


def mmc(servers: int, arrival: float, service_mean: float) -> dict:
    """Mean wait, the 90th percentile of the wait and the occupancy of M/M/c (None: unstable)."""
    load = arrival * service_mean
    if load >= servers:
        return None
    waits = erlang_c(servers, load)
    drain = servers / service_mean - arrival  # the rate at which a queue empties
    p90 = 0.0 if waits <= 0.1 else math.log(waits / 0.1) / drain
    return {"wait_mean": waits / drain, "wait_p90": p90, "utilization": load / servers,
            "response_mean": waits / drain + service_mean}


def brewput_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def test_npv_is_the_seeds_worked_example():
    # Seed 004: £100,000 a year of support for three years at 10 %: 100000 + 90909 + 82645.
    assert round(npv(0.10, [100_000] * 3)) == 273_554
    assert npv(0.10, [100_000] * 3) == pytest.approx(100_000 * (1 + 1 / 1.1 + 1 / 1.21), rel=1e-15)
    # Bought now, run for three years: the purchase is not discounted, the running costs are.
    assert Cost(5000, 1200).over(4, 3, 0.1) == pytest.approx(4 * (5000 + 1200 * (1 + 1 / 1.1 + 1 / 1.21)))
    assert Cost(5000).over(4, 3, 0.1) == 20_000


@pytest.mark.parametrize("calls, aht", [(200, 3.0), (120, 4.0), (600, 2.5)])
def test_call_centre_staffing_is_erlang_c(calls, aht):
    """The fewest agents for mean wait <= 20 s, occupancy <= 85 % and 90 % answered within a
    minute, found here by walking up the agents with the recursion."""
    model = brewput.load(CALL_CENTRE).with_params(calls=calls, aht=aht)
    objectives = [parse_objective(t, model) for t in ("wait_mean<=20s", "utilization<=85%", "wait_p90<=1min")]
    arrival = calls / 60
    expected = next(n for n in range(1, 200) if (f := mmc(n, arrival, aht)) and f["wait_mean"] <= 20 / 60
                    and f["utilization"] <= 0.85 and f["wait_p90"] <= 1.0)
    record = plan(model, objectives, {"agents": list(range(1, expected + 6))}, confirm=False)
    chosen = record["options"][record["chosen"]]
    assert chosen["values"] == {"agents": expected}
    truth = mmc(expected, arrival, aht)
    figures = {f["slo"]: f["figure"] for f in chosen["figures"]}
    assert figures["wait_mean<=20s"] == pytest.approx(truth["wait_mean"], rel=1e-9)
    assert figures["utilization<=85%"] == pytest.approx(truth["utilization"], rel=1e-12)
    assert figures["wait_p90<=1min"] == pytest.approx(truth["wait_p90"], rel=1e-9, abs=1e-12)
    # Every option below the chosen one breaks some objective (or is unstable).
    for option in record["options"][:record["chosen"]]:
        assert not option["meets"]


def test_shrinkage_schedules_more_units_rounded_up():
    assert scheduled(14, 0.3) == 20  # 14 / 0.7 = 20 exactly: not 21
    assert scheduled(13, 0.3) == 19  # 18.57 -> 19
    assert scheduled(5, 0.0) == 5
    assert scheduled(2.5, 0.5) == pytest.approx(5.0)


TANDEM = """\
brewput: 1
time_unit: s
params: {a: 1, b: 1}
stations:
  front: {servers: '${a}'}
  back: {servers: '${b}'}
classes:
  job:
    rate: 3
    route:
      - {station: front, service: exp(0.5)}
      - {station: back, service: exp(0.9)}
"""


def test_the_cheapest_of_two_varied_resources_is_the_brute_force_cheapest(tmp_path):
    """A Jackson tandem: the mean response is the sum of two M/M/c means; the back
    servers cost three times the front ones, over three years at 8 %."""
    path = tmp_path / "tandem.yaml"
    path.write_text(TANDEM)
    model = brewput.load(path)
    objectives = [parse_objective("mean<2s", model)]
    costs = {"a": Cost(1000, 200), "b": Cost(3000, 500)}
    record = plan(model, objectives, {"a": list(range(1, 7)), "b": list(range(1, 9))}, costs=costs, years=3,
                  rate=0.08, confirm=False)
    best = None
    for a in range(1, 7):
        for b in range(1, 9):
            front, back = mmc(a, 3, 0.5), mmc(b, 3, 0.9)
            if front is None or back is None or front["response_mean"] + back["response_mean"] >= 2:
                continue
            cost = a * (1000 + npv(0.08, [200] * 3)) + b * (3000 + npv(0.08, [500] * 3))
            if best is None or cost < best[0]:
                best = (cost, {"a": a, "b": b})
    chosen = record["options"][record["chosen"]]
    assert chosen["values"] == best[1]
    assert chosen["cost"] == pytest.approx(best[0], rel=1e-12)


def test_a_field_by_its_path_is_the_same_as_its_param():
    model = brewput.load(ROOT / "examples" / "mmc.yaml")
    objectives = [parse_objective("wait_mean<1s", model)]
    by_param = plan(model, objectives, {"c": list(range(1, 9))}, confirm=False)
    by_path = plan(model, objectives, {"stations.desk.servers": list(range(1, 9))}, confirm=False)
    assert [o["figures"] for o in by_param["options"]] == [o["figures"] for o in by_path["options"]]
    assert by_param["chosen"] == by_path["chosen"] == 3  # c = 4: Erlang C's wait 0.30 s at 2.7/s


def test_the_confirming_simulation_agrees_with_its_intervals():
    model = brewput.load(ROOT / "examples" / "mmc.yaml")
    objectives = [parse_objective(t, model) for t in ("wait_mean<1s", "utilization<0.95")]
    record = plan(model, objectives, {"c": list(range(1, 9))}, seed=3)
    chosen, below = record["confirmed"]
    assert chosen["values"] == {"c": 4} and below["values"] == {"c": 3}
    for confirmed in record["confirmed"]:
        for f in confirmed["figures"]:
            low, high = f["interval"]
            bound = 1.0 if f["slo"].startswith("wait") else 0.95
            assert low <= f["figure"] <= high
            assert f["verdict"] == ("held" if high < bound else "broken" if low >= bound else "undecided")
    # c = 4 waits 0.30 s (Erlang C), far below 1 s; c = 3 waits 2.72 s, far above it.
    assert chosen["meets"] and [f["verdict"] for f in below["figures"]][0] == "broken"
    truth = mmc(4, 2.7, 1.0)["wait_mean"]
    low, high = chosen["figures"][0]["interval"]
    assert low < truth < high


def test_a_model_solve_cannot_answer_is_simulated():
    model = brewput.load(ROOT / "examples" / "balance" / "two" / "shortest_queue.yaml")
    objectives = [parse_objective("utilization<0.9", model)]
    record = plan(model, objectives, {"load": [0.5]}, confirm=False)
    (option,) = record["options"]
    assert option["engine"] == "simulate" and option["exact"] is False


def test_the_command_prints_the_options_and_writes_the_plan(tmp_path):
    done = brewput_cli("plan", CALL_CENTRE, "--vary", "agents=9..16", "--slo", "wait_mean<=20s",
                       "--slo", "utilization<=85%", "--slo", "wait_p90<=1min", "--shrinkage", "30%",
                       "--cost", "agents=0,42000", "--years", "3", "--discount", "5%", "--no-confirm",
                       "-o", tmp_path / "plan.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "plan.json").read_text())
    chosen = record["options"][record["chosen"]]
    assert chosen["values"] == {"agents": 14} and chosen["scheduled"] == {"agents": 20}
    assert chosen["cost"] == pytest.approx(20 * npv(0.05, [42000] * 3))
    assert "<- chosen" in done.stdout and "chosen: agents=14" in done.stdout
    assert "agents=20 scheduled" in done.stdout


def test_no_option_meeting_every_objective_is_one_line(tmp_path):
    done = brewput_cli("plan", ROOT / "examples" / "mmc.yaml", "--vary", "c=1..3", "--slo", "wait_mean<1s",
                       "--no-confirm")
    *progress, error = done.stderr.splitlines()
    assert done.returncode == 2 and error.startswith("error: no option meets every objective (wait_mean<1s)")
    assert [line.split(":")[0] for line in progress] == ["options 1/3", "options 2/3", "options 3/3"], done.stderr


def test_the_call_centre_in_docs_planning_is_what_the_command_prints():
    from brewput.figures import number
    from brewput.planning.show import figure_text, summary

    doc = (ROOT / "docs" / "planning.md").read_text()
    done = brewput_cli("plan", CALL_CENTRE, "--vary", "agents=1..30", "--slo", "wait_mean<=20s", "--slo",
                       "utilization<=85%", "--slo", "wait_p90<=1min", "--shrinkage", "30%", "--cost",
                       "agents=0,42000", "--discount", "5%", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    pasted = doc.split("chosen: agents=14", 1)[1].split("```", 1)[0]
    assert " ".join(("chosen: agents=14" + pasted).split()) == " ".join(summary(record).split())
    assert record["objective_units"] == ["s", "%", "min"]
    for option in record["options"][12:15]:
        figures = [f"{figure_text(f['kind'], f['figure'], 'min', unit)} {'ok' if f['held'] else 'NO'}"
                   for f, unit in zip(option["figures"], record["objective_units"])]
        agents, value, rota = option["values"]["agents"], number(option["cost"]), option["scheduled"]["agents"]
        bold = "**" if agents == 14 else ""
        row = (f"| {bold}{agents}{bold} | {' | '.join(figures)} | {bold}{value}{bold} | {bold}{rota}{bold} |")
        assert row in doc, row


def test_each_objective_is_shown_in_the_unit_it_was_written_in():
    """A model counting in minutes, objectives in s, ms, min, a fraction and per second:
    each figure printed in its objective's unit, equal to Erlang C's computed here."""
    from brewput.figures import number

    done = brewput_cli("plan", CALL_CENTRE, "--vary", "agents=13,14", "--slo", "wait_mean<=20s", "--slo",
                       "call.wait_mean<=20000ms", "--slo",
                       "wait_p90<=1min", "--slo", "utilization<=0.85", "--slo", "throughput>=0.05", "--no-confirm")
    assert done.returncode == 0, done.stderr
    rows = {line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[3:8]]
            for line in done.stdout.splitlines() if line.startswith("│")}
    per_minute = 200 / 60
    for agents in (13, 14):
        truth = mmc(agents, per_minute, 3.0)  # minutes
        wait_s, wait_ms, p90, occupancy, throughput = rows[str(agents)]
        assert wait_s.rsplit(" ", 1)[0] == f"{number(truth['wait_mean'] * 60)} s"
        assert wait_ms.rsplit(" ", 1)[0] == f"{number(truth['wait_mean'] * 60_000)} ms"
        assert p90.rsplit(" ", 1)[0] == f"{number(truth['wait_p90'])} min"
        assert occupancy.rsplit(" ", 1)[0] == number(truth["utilization"])
        assert throughput.rsplit(" ", 1)[0] == f"{number(per_minute / 60)}/s"
    assert rows["13"][0] == "17.12 s ok" and rows["13"][2].endswith("NO")  # not 0.2853 min beside 20 s


@pytest.mark.parametrize("objective, problem", [("loss<0%", "no figure is below 0"),
                                                ("throughput<0", "no figure is below 0"),
                                                ("P(wait<=20s)>100%", "no share is above 100 %"),
                                                ("utilization>1", "no share is above 100 %")])
def test_an_objective_nothing_could_meet_is_refused_before_the_search(objective, problem):
    from brewput.errors import OptionError

    model = brewput.load(CALL_CENTRE)
    with pytest.raises(OptionError, match=rf"{problem}: nothing could meet it") as refused:
        parse_objective(objective, model)
    assert refused.value.fields == ("slo",) and refused.value.value == objective
    for reachable in ("loss<=0%", "P(wait<=20s)>=100%", "utilization<1"):  # at the bound: asked for, not refused
        assert parse_objective(reachable, model).text == reachable
