"""The service floor in the model language (docs/model-language.md, issue 11):
what each new field compiles to (docs/compiled-model.md), its features, its
JSON Schema and its round trip through to_yaml."""
import jsonschema
import pytest
import yaml

from brewput.model import Model, json_schema

EXP3 = {"kind": "exp", "mean": 3.0}


def model(stations, classes, **top):
    return Model.from_dict({"brewput": 1, "name": "m", **top, "stations": stations, "classes": classes})


def round_trips(m: Model) -> None:
    """to_yaml gives a file that compiles to the same engine input, and the JSON
    Schema accepts the document."""
    document = yaml.safe_load(m.to_yaml())
    assert Model.from_dict(document).compile() == m.compile()
    jsonschema.validate(document, json_schema())


BAR = {"bar": {"servers": {"espresso_machine": 2, "drip_station": 1}, "take": "first_fit", "assign": "in_order"}}
TYPED = model(BAR, {
    "latte": {"rate": 1, "route": [{"station": "bar", "service": "exp(3)", "served_by": ["espresso_machine"]}]},
    "drip": {"rate": 1, "route": [{"station": "bar", "served_by": {"drip_station": "exp(0.5)",
                                                                    "espresso_machine": "exp(0.8)"}}]},
    "any": {"rate": 0.1, "route": [{"station": "bar", "service": "exp(3)"}]},
})


def test_typed_servers_compile_to_groups_and_type_indices():
    compiled = TYPED.compile()
    assert compiled["stations"] == [{
        "name": "bar", "servers": 3, "capacity": None, "discipline": "fifo",
        "server_types": [{"name": "espresso_machine", "count": 2}, {"name": "drip_station", "count": 1}],
        "take": "first_fit", "assign": "in_order"}]
    latte, drip, any_type = (c["steps"][0] for c in compiled["classes"])
    assert latte == {"station": 0, "service": EXP3, "uses": [], "next": [[None, 1.0]], "served_by": [[0, None]]}
    assert drip["service"] is None
    assert drip["served_by"] == [[1, {"kind": "exp", "mean": 0.5}], [0, {"kind": "exp", "mean": 0.8}]]
    assert "served_by" not in any_type  # absent: every type, the step's service


def test_typed_station_reads_as_its_total_with_its_groups():
    bar = TYPED.stations["bar"]
    assert bar.servers == 3 and bar.server_types == {"espresso_machine": 2, "drip_station": 1}
    assert TYPED.stations["bar"].take == "first_fit"
    drip = TYPED.classes["drip"].route[0]
    assert [(field, s.mean) for field, s in drip.services()] == [("served_by.drip_station", 0.5),
                                                                  ("served_by.espresso_machine", 0.8)]
    assert drip.least_service_mean == 0.5


def test_typed_defaults_are_head_and_longest_idle_and_untyped_compiles_as_before():
    m = model({"bar": {"servers": {"a": 1}}, "desk": {"servers": 2}},
              {"c": {"rate": 1, "route": [{"station": "bar", "service": 1}, {"station": "desk", "service": 1}]}})
    bar, desk = m.compile()["stations"]
    assert (bar["take"], bar["assign"]) == ("head", "longest_idle")
    assert desk == {"name": "desk", "servers": 2, "capacity": None, "discipline": "fifo"}
    assert m.stations["desk"].server_types == {}


def test_typed_features():
    assert {"typed-servers", "first-fit", "assign-in-order", "per-type-service"} <= TYPED.features()
    assert "head-of-line" not in TYPED.features()
    head = model({"bar": {"servers": {"a": 1, "b": 2}}}, {"c": {"rate": 1, "route": [{"station": "bar", "service": 1}]}})
    assert {"typed-servers", "head-of-line", "multi-server"} <= head.features()
    assert "non-exponential-service" in head.features()
    # A per-type service that is not exponential is named at its type.
    from brewput.model.features import feature_sites
    odd = model(BAR, {"c": {"rate": 1, "route": [{"station": "bar", "served_by": {"drip_station": 2}}]}})
    assert feature_sites(odd)["non-exponential-service"] == "classes.c.route[0].served_by.drip_station"


def test_typed_servers_round_trip():
    round_trips(TYPED)


GIVE_UP = model({"cashier": {"servers": 2}, "bar": {}}, {
    "walk_in": {"rate": 1, "route": [{"station": "cashier", "service": "exp(1)", "balk": 8},
                                     {"station": "bar", "service": "exp(0.5)", "patience": "exp(5)"}]},
    "regular": {"population": 3, "route": [{"station": "cashier", "service": "exp(1)",
                                            "balk": [0, 0, 0.1, 0.3, 0.6, 1], "patience": 2}]},
})


def test_balk_and_patience_compile():
    walk_in, regular = GIVE_UP.compile()["classes"]
    assert walk_in["steps"][0]["balk"] == {"threshold": 8} and "patience" not in walk_in["steps"][0]
    assert walk_in["steps"][1]["patience"] == {"kind": "exp", "mean": 5.0} and "balk" not in walk_in["steps"][1]
    assert regular["steps"][0]["balk"] == {"probabilities": [0.0, 0.0, 0.1, 0.3, 0.6, 1.0]}
    assert regular["steps"][0]["patience"] == {"kind": "const", "value": 2.0}
    assert {"balk-threshold", "balk-probabilities", "patience"} <= GIVE_UP.features()
    assert GIVE_UP.classes["walk_in"].route[0].balk == 8


def test_balk_threshold_zero_and_a_one_value_list_are_models():
    m = model({"s": {}}, {"c": {"rate": 1, "route": [{"station": "s", "service": 1, "balk": 0},
                                                     {"station": "s", "service": 1, "balk": [0.25]}]}})
    first, second = m.compile()["classes"][0]["steps"]
    assert first["balk"] == {"threshold": 0} and second["balk"] == {"probabilities": [0.25]}


def test_balk_and_patience_round_trip():
    round_trips(GIVE_UP)


MARKED = model({"expediter": {}, "cashier": {}}, {
    "latte": {"rate": 1, "measures": {"from_order": ["ordered", "done"], "from_paying": ["paid", "done"],
                                      "whole": ["arrived", "done"]},
              "route": [{"station": "expediter", "service": "exp(0.2)", "mark": "ordered"},
                        {"station": "cashier", "service": "exp(1)", "mark": "paid"}]},
    "plain": {"rate": 1, "route": [{"station": "cashier", "service": "exp(1)"}]},
})


def test_marks_and_measures_compile_to_indices():
    latte, plain = MARKED.compile()["classes"]
    assert latte["marks"] == ["arrived", "done", "ordered", "paid"]
    assert [step["mark"] for step in latte["steps"]] == [2, 3]
    assert latte["measures"] == [{"name": "from_order", "from": 2, "to": 1}, {"name": "from_paying", "from": 3, "to": 1},
                                 {"name": "whole", "from": 0, "to": 1}]
    assert "marks" not in plain and "measures" not in plain and "mark" not in plain["steps"][0]
    assert MARKED.classes["latte"].marks == ["arrived", "done", "ordered", "paid"]
    assert MARKED.classes["plain"].marks == ["arrived", "done"]
    assert "measures" in MARKED.features()


def test_a_mark_without_measures_still_compiles_its_marks():
    m = model({"s": {}}, {"c": {"rate": 1, "route": [{"station": "s", "service": 1, "mark": "half"}]}})
    (job,) = m.compile()["classes"]
    assert job["marks"] == ["arrived", "done", "half"] and job["measures"] == [] and job["steps"][0]["mark"] == 2
    assert "measures" not in m.features()


def test_marks_round_trip():
    round_trips(MARKED)


def test_preempt_compiles_only_when_set():
    m = model({"cpu": {"servers": 2, "discipline": "priority", "preempt": "resume"},
               "disk": {"discipline": "priority", "preempt": "restart"}, "net": {"discipline": "priority"}},
              {"c": {"rate": 1, "route": [{"station": s, "service": "exp(0.1)"} for s in ("cpu", "disk", "net")]}})
    cpu, disk, net = m.compile()["stations"]
    assert (cpu["preempt"], disk["preempt"]) == ("resume", "restart") and "preempt" not in net
    assert {"preempt-resume", "preempt-restart"} <= m.features()
    round_trips(m)


def const(value):
    return {"kind": "const", "value": float(value)}


FLOOR = model({name: {} for name in ("grinder", "espresso", "steamer", "counter", "a1", "a2", "b1", "b2")}, {
    "latte": {"rate": 0.2, "measures": {"from_order": ["ordered", "done"]}, "route": [
        {"station": "grinder", "service": 1, "mark": "ordered"},
        {"fork": {"coffee": [{"station": "espresso", "service": 1}],
                  "milk": [{"id": "steam", "station": "steamer", "service": 1, "next": {"steam": 0.5, "exit": 0.5}}]},
         "join": "any", "mark": "joined", "id": "split"},
        {"station": "counter", "service": 1},
        {"dispatch": {"a": [{"station": "a1", "service": 1}, {"station": "a2", "service": 1, "mark": "via_a"}],
                      "b": [{"station": "b1", "service": 1}, {"station": "b2", "service": 1}]},
         "weights": {"a": 0.7, "b": 0.3}},
    ]},
})


def test_fork_and_dispatch_compile_to_one_list_of_steps_with_scopes():
    """The route's own steps first at their route index, then each branch's steps
    (breadth first); next: null ends the innermost scope."""
    steps = FLOOR.compile()["classes"][0]["steps"]
    at = lambda station, nxt, scope=None, **more: {"station": station, "service": const(1), "uses": [],
                                                  "next": nxt, **({} if scope is None else {"scope": scope}), **more}
    assert steps == [
        at(0, [[1, 1.0]], mark=2),
        {"kind": "fork", "branches": [4, 5], "join": 1, "next": [[2, 1.0]], "mark": 3},
        at(3, [[3, 1.0]]),
        {"kind": "dispatch", "branches": [6, 8], "policy": "random", "weights": [0.7, 0.3], "next": [[None, 1.0]]},
        at(1, [[None, 1.0]], 1),
        at(2, [[5, 0.5], [None, 0.5]], 1),
        at(4, [[7, 1.0]], 3),
        at(5, [[None, 1.0]], 3, mark=4),
        at(6, [[9, 1.0]], 3),
        at(7, [[None, 1.0]], 3),
    ]
    assert FLOOR.classes["latte"].marks == ["arrived", "done", "ordered", "joined", "via_a"]
    assert FLOOR.compile()["classes"][0]["measures"] == [{"name": "from_order", "from": 2, "to": 1}]


def test_dispatch_policies_compile_their_own_fields():
    def dispatch(**fields):
        m = model({"s": {}, "t": {}, "u": {}}, {"c": {"rate": 1, "route": [{"dispatch": {
            name: [{"station": name, "service": 1}] for name in ("s", "t", "u")}, **fields}]}})
        return m.compile()["classes"][0]["steps"][0]

    assert dispatch() == {"kind": "dispatch", "branches": [1, 2, 3], "policy": "random",
                          "weights": [1 / 3] * 3, "next": [[None, 1.0]]}
    assert dispatch(policy="power_of_d")["d"] == 2
    assert dispatch(policy="power_of_d", d=3)["d"] == 3
    assert dispatch(weights={"t": 1})["weights"] == [0.0, 1.0, 0.0]  # a branch not named is never drawn
    for policy in ("round_robin", "shortest_queue", "least_utilized", "shared"):
        assert dispatch(policy=policy) == {"kind": "dispatch", "branches": [1, 2, 3], "policy": policy,
                                           "next": [[None, 1.0]]}


def test_join_counts():
    def join(value):
        m = model({"s": {}}, {"c": {"rate": 1, "route": [{"fork": {
            name: [{"station": "s", "service": 1}] for name in "abc"}, **({} if value is None else {"join": value})}]}})
        return m.compile()["classes"][0]["steps"][0]["join"]

    assert [join(None), join("all"), join("any"), join(2), join(3)] == [3, 3, 1, 2, 3]


def test_nested_branches_and_next_within_a_branch():
    inner = {"fork": {"x": [{"station": "s", "service": 1}], "y": [{"station": "s", "service": 2}]}}
    m = model({"s": {}}, {"c": {"population": 2, "route": [
        {"dispatch": {"p": [{"id": "first", "station": "s", "service": 1, "next": "last"},
                            {"station": "s", "service": 5},
                            {"id": "last", **inner}],
                      "q": [{"station": "s", "service": 1, "next": "exit"}, {"station": "s", "service": 3}]},
         "policy": "round_robin"}]}})
    steps = m.compile()["classes"][0]["steps"]
    # 0: the dispatch; 1-3: branch p (3 is the inner fork); 4-5: branch q; 6, 7: the inner fork's branches.
    assert steps[0]["branches"] == [1, 4] and steps[3]["branches"] == [6, 7]
    assert steps[1]["next"] == [[3, 1.0]] and steps[4]["next"] == [[None, 1.0]]  # exit ends branch q
    assert [s.get("scope") for s in steps] == [None, 0, 0, 0, 0, 0, 3, 3]
    assert m.classes["c"].scopes() == [None, 0, 0, 0, 0, 0, 3, 3]
    assert m.classes["c"].branch_starts(3) == [6, 7]
    # Visits: each dispatch branch half the time (an even split), the inner fork's branches with
    # it; p's second step and q's second are skipped (next: last, next: exit).
    from brewput.analytic.traffic import step_visits
    assert step_visits(m.classes["c"]) == pytest.approx([1, 0.5, 0, 0.5, 0.5, 0, 0.5, 0.5])


def test_fork_and_dispatch_features_and_sites():
    from brewput.model.features import feature_sites
    sites = feature_sites(FLOOR)
    assert sites["fork-join"] == "classes.latte.route[1].fork"
    assert sites["partial-join"] == "classes.latte.route[1].join"
    assert sites["dispatch-random"] == "classes.latte.route[3].dispatch"
    assert sites["feedback"] == "classes.latte.route[1].fork.milk[0].next"  # a loop inside a branch
    assert sites["probabilistic-routing"] == "classes.latte.route[1].fork.milk[0].next"
    assert "partial-join" not in model({"s": {}}, {"c": {"rate": 1, "route": [{"fork": {
        "a": [{"station": "s", "service": 1}], "b": [{"station": "s", "service": 1}]}, "join": 2}]}}).features()


def test_fork_and_dispatch_round_trip():
    round_trips(FLOOR)


def test_the_compiled_example_in_the_docs_is_what_compile_gives():
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "compiled-model.md").read_text()
    section = text[text.index("## The service floor"):]
    example = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    m = model({"bar": {"servers": {"espresso_machine": 2, "drip_station": 1}, "take": "first_fit"},
               "cpu": {"servers": 2, "discipline": "priority", "preempt": "resume"}}, {
        "latte": {"rate": 1, "measures": {"from_order": ["ordered", "done"]}, "route": [
            {"station": "bar", "service": "exp(3)", "served_by": ["espresso_machine"], "mark": "ordered", "balk": 8,
             "patience": "exp(5)"},
            {"fork": {"drip": [{"station": "bar", "served_by": {"drip_station": "exp(0.5)",
                                                                "espresso_machine": "exp(0.8)"}}],
                      "cpu": [{"station": "cpu", "service": "exp(1)"}]}}]}})
    compiled = m.compile()
    del compiled["resources"]
    assert compiled == example
