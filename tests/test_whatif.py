"""`brewput whatif`: a model beside variants of itself. PDQ's helpdesk merger
(its published 34.990830 min and 78 %) by pooling the two desks of one model,
and every case against Erlang C computed here by the Erlang B recursion."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import brewput
from brewput.planning.whatif import Case, cases_from, parse_case, whatif

ROOT = Path(__file__).resolve().parent.parent
TWO_SITES = ROOT / "examples" / "helpdesk" / "two-sites.yaml"


def erlang_c_mean_response(servers: int, arrival: float, service_mean: float) -> float:
    load = arrival * service_mean
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    rho = load / servers
    waits = b / (1 - rho + rho * b)
    return waits / (servers / service_mean - arrival) + service_mean


def figures(record, name):
    return next(row for row in record["cases"] if row["name"] == name)


def test_pooling_the_two_desks_is_pdqs_merged_helpdesk():
    record = whatif(brewput.load(TWO_SITES), [Case("merge", ("merge desk_a,desk_b",))])
    before, after = record["cases"]
    assert before["classes"]["call_a"]["mean"] == pytest.approx(35.382060, rel=1e-6)  # PDQ's site A
    assert before["classes"]["call_b"]["mean"] == pytest.approx(67.006285, rel=1e-6)  # PDQ's site B
    for call in ("call_a", "call_b"):
        assert after["classes"][call]["mean"] == pytest.approx(34.990830, rel=1e-6)  # PDQ's combined
    assert after["stations"] == {"desk_a": {"utilization": pytest.approx(0.78, rel=1e-12)}}
    merged = brewput.solve(ROOT / "examples" / "helpdesk" / "merged.yaml")
    assert after["classes"]["call_a"]["p95"] == pytest.approx(merged["classes"]["call"]["response_time"]["p95"])


@pytest.mark.parametrize("case, call_b", [
    ("add-server desk_b", erlang_c_mean_response(7, 0.18, 30)),
    ("add-server desk_b+3", erlang_c_mean_response(9, 0.18, 30)),
    ("classes.call_b.route.0.service=exp(25)", erlang_c_mean_response(6, 0.18, 25)),
    ("staff_b=8", erlang_c_mean_response(8, 0.18, 30)),
    ("pooled and one more: merge desk_a,desk_b; add-server desk_a", erlang_c_mean_response(11, 0.26, 30)),
])
def test_each_edit_is_erlang_c_of_the_edited_desk(case, call_b):
    parsed = parse_case(case)
    record = whatif(brewput.load(TWO_SITES), [parsed])
    row = figures(record, parsed.name)
    assert row["engine"] == "solve" and row["exact"]
    assert row["classes"]["call_b"]["mean"] == pytest.approx(call_b, rel=1e-9)


def test_a_case_with_no_steady_state_says_so():
    record = whatif(brewput.load(TWO_SITES), [parse_case("rate_b=0.25")])  # 6 staff serve 0.2 a minute at most
    row = figures(record, "rate_b=0.25")
    assert "unstable" in row["problem"] and row["classes"] == {}


def test_a_case_solve_cannot_answer_is_simulated():
    model = ROOT / "examples" / "balance" / "two" / "shortest_queue.yaml"
    record = whatif(brewput.load(model), [parse_case("load=0.5")])
    for row in record["cases"]:
        assert row["engine"] == "simulate" and not row["exact"]
    # Half the load, far shorter responses (each server's utilization is the load, within noise).
    base, half = record["cases"]
    assert half["classes"]["job"]["mean"] < base["classes"]["job"]["mean"]
    assert sum(s["utilization"] for s in half["stations"].values()) == pytest.approx(1.0, rel=0.05)


def test_merging_stations_inside_branches_visits_the_pooled_one():
    model = brewput.load(ROOT / "examples" / "balance" / "two" / "random.yaml")
    pooled = model.with_merged("s0", "s1")
    assert list(pooled.stations) == ["s0"] and pooled.stations["s0"].servers == 2
    import yaml

    def visits(part):
        if isinstance(part, dict):
            here = [part["station"]] if "station" in part else []
            return here + [v for x in part.values() for v in visits(x)]
        return [v for x in part for v in visits(x)] if isinstance(part, list) else []

    assert set(visits(yaml.safe_load(model.to_yaml())["classes"])) == {"s0", "s1"}
    assert set(visits(yaml.safe_load(pooled.to_yaml())["classes"])) == {"s0"}  # both branches (labels kept)


def test_the_command_prints_the_cases_with_their_changes(tmp_path):
    done = subprocess.run([sys.executable, "-m", "brewput", "whatif", str(TWO_SITES), "--merge", "desk_a,desk_b",
                           "--add-server", "desk_b", "-o", str(tmp_path / "w.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "w.json").read_text())
    assert [row["name"] for row in record["cases"]] == ["as it is", "merge desk_a,desk_b", "add-server desk_b"]
    assert "(-47.8%)" in done.stdout  # call_b: 67.01 -> 34.99 min
    assert "pooled" in done.stdout


def test_cases_keep_the_order_given():
    cases = cases_from(["a,b"], ["c"], ["x: y=1; z=2", "w=3"])
    assert [(c.name, c.edits) for c in cases] == [("merge a,b", ("merge a,b",)), ("add-server c", ("add-server c",)),
                                                   ("x", ("y=1", "z=2")), ("w=3", ("w=3",))]


def test_the_merger_in_docs_planning_is_what_the_command_gives():
    from brewput.planning.show import figure_text
    from brewput.planning.whatif import change

    doc = (ROOT / "docs" / "planning.md").read_text()
    record = whatif(brewput.load(TWO_SITES), cases_from(["desk_a,desk_b"], ["desk_b"], []))
    base = record["cases"][0]
    for row in record["cases"]:
        cells = [row["name"]]
        for call in ("call_a", "call_b"):
            value = row["classes"][call]["mean"]
            delta = change(value, base["classes"][call]["mean"])
            cells.append(figure_text("time", value, "min") + ("" if row is base else f" ({delta:+.1%})"))
        for desk in ("desk_a", "desk_b"):
            if desk not in row["stations"]:
                cells.append("pooled")
                continue
            value = row["stations"][desk]["utilization"]
            delta = change(value, base["stations"][desk]["utilization"])
            cells.append(figure_text("share", value, "min") + ("" if row is base else f" ({delta:+.1%})"))
        assert "| " + " | ".join(cells) + " |" in doc, cells


def test_stations_named_in_any_text_are_merged_and_given_servers(tmp_path):
    """A station may be called `café` or `desk b`: the edits find it by that name and give
    what they give the ASCII-named model (PDQ's merged helpdesk, Erlang C)."""
    renamed = tmp_path / "two-sites.yaml"
    renamed.write_text(TWO_SITES.read_text().replace("desk_a", "café").replace("desk_b", "desk b"))
    written = whatif(brewput.load(renamed), cases_from(["café, desk b"], ["desk b+2"], []))
    plain = whatif(brewput.load(TWO_SITES), cases_from(["desk_a,desk_b"], ["desk_b+2"], []))
    for mine, theirs in zip(written["cases"], plain["cases"]):
        assert mine["classes"] == theirs["classes"]
    assert figures(written, "merge café, desk b")["classes"]["call_a"]["mean"] == pytest.approx(34.990830, rel=1e-6)
    assert figures(written, "add-server desk b+2")["classes"]["call_b"]["mean"] == pytest.approx(
        erlang_c_mean_response(8, 0.18, 30), rel=1e-9)
