"""Model.features() and solve's allow-list: every feature of the model language
is found where a model uses it, and solve either answers a model using it or
refuses it by name; a feature solve does not know is refused too."""
import pytest

import brewput
from brewput.analytic.network import Unsupported
from brewput.analytic.support import SOLVABLE_FEATURES
from brewput.model import Model
from brewput.model.features import FEATURES, FIELDS, feature_sites
from brewput.model.schema import DispatchStep, ForkStep, JobClass, ModelSpec, Station, Step

from conftest import EXAMPLES


def model(stations, classes, name="m"):
    return Model.from_dict({"brewput": 1, "name": name, "stations": stations, "classes": classes})


def one_station(station=None, job=None, service="exp(1)", step=None):
    """One open class (rate 0.5 unless `job` says otherwise) at one station `s`."""
    job = {"rate": 0.5, **(job or {})}
    step = {"station": "s", **({} if service is None else {"service": service}), **(step or {})}
    return model({"s": station or {}}, {"c": {**job, "route": [step]}})


TWO = {"a": [{"station": "s", "service": "exp(1)"}], "b": [{"station": "t", "service": "exp(1)"}]}


def branching(step):
    """One open class whose one step is `step` (a fork or dispatch over stations s and t)."""
    return model({"s": {}, "t": {}}, {"c": {"rate": 0.5, "route": [step]}})


def in_a_day(station=None, rate=0.5, **day):
    """one_station in a day of two intervals of 1 (model/day.py)."""
    return Model.from_dict({"brewput": 1, "name": "m", "day": {"length": 2, "interval": 1, **day},
                            "stations": {"s": station or {}},
                            "classes": {"c": {"rate": rate, "route": [{"station": "s", "service": "exp(1)"}]}}})


#: A small model using each feature, and the field where it is first used.
EXAMPLE = {
    "open-class": (one_station(), "classes.c.rate"),
    "closed-class": (model({"s": {}}, {"c": {"population": 3, "route": [{"station": "s", "service": "exp(1)"}]}}),
                     "classes.c.population"),
    "think-time": (model({"s": {}}, {"c": {"population": 3, "think": "exp(2)",
                                           "route": [{"station": "s", "service": "exp(1)"}]}}), "classes.c.think"),
    "non-poisson-arrivals": (one_station(job={"rate": None, "arrivals": "erlang(2, 2)"}), "classes.c.arrivals"),
    "multi-class": (model({"s": {}}, {"a": {"rate": 0.2, "route": [{"station": "s", "service": "exp(1)"}]},
                                      "b": {"rate": 0.3, "route": [{"station": "s", "service": "exp(1)"}]}}),
                    "classes"),
    "class-priorities": (model({"s": {"discipline": "priority"}}, {
        "a": {"rate": 0.2, "route": [{"station": "s", "service": "exp(1)"}]},
        "b": {"rate": 0.3, "priority": -1, "route": [{"station": "s", "service": "exp(1)"}]}}), "classes.b.priority"),
    "probabilistic-routing": (model({"s": {}, "t": {}}, {"c": {"rate": 0.2, "route": [
        {"station": "s", "service": "exp(1)", "next": {"u": 0.5, "exit": 0.5}},
        {"id": "u", "station": "t", "service": "exp(1)"}]}}), "classes.c.route[0].next"),
    "feedback": (model({"s": {}, "t": {}}, {"c": {"rate": 0.2, "route": [
        {"id": "a", "station": "s", "service": "exp(1)"},
        {"station": "t", "service": "exp(1)", "next": {"a": 0.25, "exit": 0.75}}]}}), "classes.c.route[1].next"),
    "finite-buffer": (one_station({"buffer": 3}), "stations.s.buffer"),
    "resource-tokens": (Model.from_dict({"brewput": 1, "name": "m", "resources": {"r": 1}, "stations": {"s": {}},
                                         "classes": {"c": {"population": 2, "route": [
                                             {"station": "s", "service": "exp(1)", "uses": ["r"]}]}}}),
                        "classes.c.route[0].uses"),
    "fifo": (one_station(), "stations.s.discipline"),
    "lifo": (one_station({"discipline": "lifo"}), "stations.s.discipline"),
    "priority": (one_station({"discipline": "priority"}), "stations.s.discipline"),
    "sjf": (one_station({"discipline": "sjf"}, service="uniform(0, 2)"), "stations.s.discipline"),
    "ps": (one_station({"discipline": "ps"}), "stations.s.discipline"),
    "infinite-servers": (one_station({"servers": "inf"}), "stations.s.servers"),
    "multi-server": (one_station({"servers": 2}), "stations.s.servers"),
    "non-exponential-service": (one_station(service="erlang(2, 1)"), "classes.c.route[0].service"),
    "typed-servers": (one_station({"servers": {"a": 1, "b": 1}}), "stations.s.servers"),
    "head-of-line": (one_station({"servers": {"a": 1, "b": 1}}), "stations.s.take"),
    "first-fit": (one_station({"servers": {"a": 1, "b": 1}, "take": "first_fit"}), "stations.s.take"),
    "assign-in-order": (one_station({"servers": {"a": 1, "b": 1}, "assign": "in_order"}), "stations.s.assign"),
    "per-type-service": (one_station({"servers": {"a": 1, "b": 1}}, service=None,
                                     step={"served_by": {"a": "exp(1)", "b": "exp(2)"}}), "classes.c.route[0].served_by"),
    "balk-threshold": (one_station(step={"balk": 3}), "classes.c.route[0].balk"),
    "balk-probabilities": (one_station(step={"balk": [0, 0.5, 1]}), "classes.c.route[0].balk"),
    "patience": (one_station(step={"patience": "exp(4)"}), "classes.c.route[0].patience"),
    "measures": (one_station(job={"measures": {"m": ["arrived", "paid"]}}, step={"mark": "paid"}),
                 "classes.c.measures"),
    "preempt-resume": (one_station({"discipline": "priority", "preempt": "resume"}), "stations.s.preempt"),
    "preempt-restart": (one_station({"discipline": "priority", "preempt": "restart"}), "stations.s.preempt"),
    "fork-join": (branching({"fork": TWO}), "classes.c.route[0].fork"),
    "partial-join": (branching({"fork": TWO, "join": "any"}), "classes.c.route[0].join"),
    "dispatch-random": (branching({"dispatch": TWO}), "classes.c.route[0].dispatch"),
    **{f"dispatch-{policy.replace('_', '-')}": (branching({"dispatch": TWO, "policy": policy}),
                                                "classes.c.route[0].policy")
       for policy in ("round_robin", "shortest_queue", "power_of_d", "least_utilized", "shared")},
    "day": (in_a_day(), "day"),
    "initial-jobs": (in_a_day(at_start={"s": 2}), "day.at_start"),
    "time-varying-rate": (in_a_day(rate=[0.5, 1.0]), "classes.c.rate"),
    "tie-random": (branching({"dispatch": TWO, "policy": "shortest_queue", "tie": "random"}),
                   "classes.c.route[0].tie"),
    "rota": (in_a_day({"servers": [1, 2]}), "stations.s.servers"),
    "off-shift-resume": (in_a_day({"servers": [1, 2], "off_shift": "resume"}), "stations.s.off_shift"),
    "off-shift-restart": (in_a_day({"servers": [1, 2], "off_shift": "restart"}), "stations.s.off_shift"),
}


def test_every_feature_has_an_example_using_it_where_said():
    assert set(EXAMPLE) == set(FEATURES)
    for feature, (example, site) in EXAMPLE.items():
        assert feature in example.features(), feature
        assert feature_sites(example)[feature] == site, feature


#: Features no formula covers whose example here the state-space engine answers (analytic/chain/).
ANSWERED_BY_THE_CHAIN = {"resource-tokens"}
#: ... and those it answers truncated, when asked (--method ctmc): auto's refusal says so.
ANSWERED_BY_THE_CHAIN_TRUNCATED = {"dispatch-least-utilized", "dispatch-shortest-queue", "tie-random"}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_solve_answers_or_refuses_each_feature_by_name(feature):
    example, site = EXAMPLE[feature]
    if feature in SOLVABLE_FEATURES:
        result = brewput.solve(example)
        assert all(c["throughput"] > 0 for c in result["classes"].values())
    elif feature in ANSWERED_BY_THE_CHAIN:
        result = brewput.solve(example)  # no formula: auto builds the model's Markov chain
        assert result["method"] == "ctmc" and all(c["throughput"] > 0 for c in result["classes"].values())
    else:
        # A feature may come only with others solve refuses too (typed servers take
        # head or first_fit): the first of them by name is the one refused.
        uncovered = sorted(example.features() - SOLVABLE_FEATURES)
        assert feature in uncovered
        refused = uncovered[0]
        with pytest.raises(Unsupported) as caught:
            brewput.solve(example)
        hint = (", or --method ctmc: its Markov chain, truncated where the open arrivals could pile up"
                if feature in ANSWERED_BY_THE_CHAIN_TRUNCATED else "")
        assert str(caught.value) == (f"m: {feature_sites(example)[refused]}: {FEATURES[refused]} has no exact "
                                     f"analytic solution here; use brewput simulate{hint}")
        if hint:
            result = brewput.solve(example, method="ctmc")
            assert result["method"] == "ctmc" and all(c["throughput"] > 0 for c in result["classes"].values())


def test_the_allow_list_names_only_features_of_the_table():
    assert SOLVABLE_FEATURES <= set(FEATURES)


def test_a_feature_solve_does_not_know_is_refused_by_name(monkeypatch):
    example = one_station()
    monkeypatch.setattr(Model, "features", lambda self: frozenset({"fifo", "open-class", "teleportation"}))
    with pytest.raises(Unsupported, match=r"^m: the feature teleportation has no exact analytic solution here; "
                                          r"use brewput simulate$"):
        brewput.solve(example, method="exact")
    # auto: the formulas' refusal, and the chain (which does not read features) named, since
    # it would follow this open queue truncated
    with pytest.raises(Unsupported, match=r"^m: the feature teleportation has no exact analytic solution here; "
                                          r"use brewput simulate, or --method ctmc: its Markov chain, truncated "
                                          r"where the open arrivals could pile up$"):
        brewput.solve(example)


def test_every_field_of_the_language_is_classified():
    """A field added to the model language must say which features it brings,
    else solve would answer models using it as if it were not there."""
    for part, spec in (("model", ModelSpec), ("station", Station), ("class", JobClass), ("step", Step),
                       ("fork", ForkStep), ("dispatch", DispatchStep)):
        assert set(spec.fields) == set(FIELDS[part]), part
    brought = {feature for part in FIELDS.values() for field in part.values() for feature in field}
    assert brought == set(FEATURES)


def test_examples_use_what_their_files_say():
    assert brewput.load(EXAMPLES / "mmc.yaml").features() == {"open-class", "fifo", "multi-server"}
    assert brewput.load(EXAMPLES / "multiclass.yaml").features() == {
        "closed-class", "think-time", "multi-class", "multi-server", "ps", "fifo", "probabilistic-routing",
        "feedback"}
    finelocking = brewput.load(EXAMPLES / "coffee/finelocking.yaml")
    assert "resource-tokens" in finelocking.features()


def test_a_backward_jump_that_cannot_be_reached_is_no_loop():
    # Step 0 skips step 1, whose jump back to step 0 is never taken.
    unreachable = model({"s": {}, "t": {}}, {"c": {"rate": 0.2, "route": [
        {"id": "a", "station": "s", "service": "exp(1)", "next": "b"},
        {"station": "t", "service": "exp(1)", "next": "a"},
        {"id": "b", "station": "t", "service": "exp(1)"}]}})
    assert "feedback" not in unreachable.features()
    # A loop through a later step back to an earlier one, three steps long.
    three = model({"s": {}}, {"c": {"rate": 0.1, "route": [
        {"station": "s", "service": "exp(1)"},
        {"id": "b", "station": "s", "service": "exp(1)"},
        {"station": "s", "service": "exp(1)", "next": {"b": 0.5, "exit": 0.5}}]}})
    assert feature_sites(three)["feedback"] == "classes.c.route[2].next"


def test_a_probability_of_zero_is_no_routing_choice_and_an_unvisited_station_asks_nothing():
    m = model({"s": {}, "idle": {"discipline": "lifo", "servers": "inf", "buffer": 1}}, {"c": {"rate": 0.2, "route": [
        {"station": "s", "service": "exp(1)", "next": {"exit": 1.0, "u": 0.0}},
        {"id": "u", "station": "s", "service": "exp(1)"}]}})
    assert m.features() == {"open-class", "fifo"}


def test_a_long_route_is_read_without_recursion():
    steps = [{"id": f"s{i}", "station": "s", "service": "exp(1)"} for i in range(5000)]
    steps[-1]["next"] = {"s0": 0.5, "exit": 0.5}
    long = model({"s": {}}, {"c": {"rate": 1e-5, "route": steps}})
    assert feature_sites(long)["feedback"] == "classes.c.route[4999].next"
