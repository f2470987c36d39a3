"""Traffic equations (visit ratios, offered load) against hand computation."""
from pathlib import Path

import pytest

import brewput
from brewput.analytic.traffic import instability_warnings, open_offered_load, step_visits

FEEDBACK = {
    "brewput": 1, "name": "feedback",
    "stations": {"cpu": {"servers": 2}, "disk": {}},
    "resources": {"bus": 1},
    "classes": {"job": {"rate": 0.1, "route": [
        {"id": "cpu", "station": "cpu", "service": 2.0, "next": {"disk": 0.75, "exit": 0.25}},
        {"id": "disk", "station": "disk", "service": "exp(1)", "uses": ["bus"], "next": "cpu"},
    ]}},
}


def test_feedback_visits_are_geometric():
    # Each pass leaves with probability 1/4: 4 cpu visits and 3 disk visits per job.
    model = brewput.Model.from_dict(FEEDBACK)
    assert step_visits(model.classes["job"]) == pytest.approx([4.0, 3.0])


def test_offered_load_is_rate_times_visits_times_service_over_servers():
    load = open_offered_load(brewput.Model.from_dict(FEEDBACK))
    assert load.stations == pytest.approx({"cpu": 0.1 * 4 * 2.0 / 2, "disk": 0.1 * 3 * 1.0})
    assert load.resources == pytest.approx({"bus": 0.3})
    assert instability_warnings(brewput.Model.from_dict(FEEDBACK)) == []


def test_overload_is_named():
    overloaded = dict(FEEDBACK, classes={"job": dict(FEEDBACK["classes"]["job"], rate=0.3)})
    (warning,) = instability_warnings(brewput.Model.from_dict(overloaded))
    assert warning.startswith("station cpu: open arrivals offer utilization 1.2 >= 1")


def test_closed_models_are_never_unstable():
    assert instability_warnings(brewput.load(Path(__file__).parent.parent / "examples/coffee/locking.yaml")) == []


def test_long_routes_solve_sparsely_and_agree_by_hand():
    # 400 steps (beyond DENSE_STEPS) in a chain whose last step returns to the first
    # with probability 3/4, and a side step taken half the time from step 10: every
    # chain step is visited 4 times, the side step 2.
    from brewput.analytic import traffic
    n = 400
    route = [{"id": f"s{i}", "station": "s", "service": 1} for i in range(n)]
    route[10]["next"] = {"side": 0.5, "s11": 0.5}
    route[-1]["next"] = {"s0": 0.75, "exit": 0.25}
    route.append({"id": "side", "station": "s", "service": 1, "next": "s11"})
    model = brewput.Model.from_dict({"brewput": 1, "name": "long", "stations": {"s": {}},
                                     "classes": {"c": {"rate": 0.001, "route": route}}})
    assert n + 1 > traffic.DENSE_STEPS
    assert step_visits(model.classes["c"]) == pytest.approx([4.0] * n + [2.0], rel=1e-12)


def _overloaded_station(step, buffer="inf", behind=False):
    """One station offered twice what its server can do; `behind`: a quick station first."""
    route = [dict(station="slow", service="exp(1)", **step)]
    if behind:
        route.insert(0, dict(station="quick", service="exp(0.1)"))
    return brewput.Model.from_dict({"brewput": 1, "stations": {"slow": {"buffer": buffer}, "quick": {}},
                                    "classes": {"c": {"rate": 2, "route": route}}})


@pytest.mark.parametrize("step, buffer", [
    ({}, 3),                         # arrivals that find it full are lost: M/M/1/4
    ({"balk": 3}, "inf"),            # nobody joins a queue of 3: M/M/1/4 again
    ({"balk": [0, 0.2, 1]}, "inf"),  # the last probability holds beyond the list
    ({"balk": [0, 0.6]}, "inf"),     # 40 % of 2 keep joining a long queue: 0.8 < 1
    ({"patience": "exp(2)"}, "inf"),  # Erlang A is stable at any load
])
def test_overload_that_the_queue_sheds_is_not_unstable(step, buffer):
    assert instability_warnings(_overloaded_station(step, buffer)) == []


def test_a_full_station_behind_one_that_sheds_the_overload_is_not_unstable():
    # the Starbucks counter: the ticket rail (a finite buffer) blocks the register, whose
    # customers balk or give up: nothing piles up without bound (examples/starbucks/fifo.yaml
    # at 8 a minute, 80 % espresso, 229 % of the bar: a mean response of 8.902 min over
    # 20,000 customers, 8.908 over 80,000; an unstable queue's doubles with the run)
    model = brewput.Model.from_dict({"brewput": 1, "stations": {"slow": {"buffer": 3}, "quick": {}},
                                     "classes": {"c": {"rate": 2, "route": [
                                         {"station": "quick", "service": "exp(0.1)", "patience": "exp(2)"},
                                         {"station": "slow", "service": "exp(1)"}]}}})
    assert instability_warnings(model) == []



@pytest.mark.parametrize("first, unstable", [({"balk": 4}, False), ({}, True)])
def test_a_full_station_first_on_a_forks_branch_blocks_the_step_before_the_fork(first, unstable):
    # examples/starbucks/early-order.yaml: the expediter, then a fork to the register and the
    # bar's ticket rail; the excess piles up at the expediter unless its customers balk
    model = brewput.Model.from_dict({"brewput": 1, "stations": {"slow": {"buffer": 3}, "quick": {}, "pay": {}},
                                     "classes": {"c": {"rate": 2, "route": [
                                         {"station": "quick", "service": "exp(0.1)", **first},
                                         {"fork": {"pay": [{"station": "pay", "service": "exp(0.1)"}],
                                                   "drink": [{"station": "slow", "service": "exp(1)"}]}}]}}})
    assert [w.split(":")[0] for w in instability_warnings(model)] == (["station slow"] if unstable else [])


@pytest.mark.parametrize("step, buffer, behind", [
    ({}, "inf", False),
    ({"balk": [0, 0.5]}, "inf", False),  # half of 2 keep joining: exactly the server's rate
    ({}, 3, True),                       # a full station further on blocks the one before it
])
def test_overload_that_piles_up_is_named(step, buffer, behind):
    (warning,) = instability_warnings(_overloaded_station(step, buffer, behind))
    assert warning.startswith("station slow: open arrivals offer utilization")


def _register_beside_a_rail(rail_buffer):
    """examples/starbucks/early-order.yaml in small: an expediter whose customers give up,
    then a fork to a register (3 servers of mean 0.5: 6 a time unit) and a bar of 2 servers
    of mean 1 behind a ticket rail of `rail_buffer`. 8 arrive a time unit: 133 % of the
    register if all reached it."""
    return brewput.Model.from_dict({"brewput": 1, "stations": {
        "expediter": {}, "register": {"servers": 3}, "bar": {"servers": 2, "buffer": rail_buffer}},
        "classes": {"c": {"rate": 8, "route": [
            {"station": "expediter", "service": "exp(0.1)", "patience": "exp(2)"},
            {"fork": {"pay": [{"station": "register", "service": "exp(0.5)"}],
                      "drink": [{"station": "bar", "service": "exp(1)"}]}}]}}})


def test_a_branch_beside_a_full_rail_gets_no_more_than_the_rail_passes():
    # the fork waits for room on the rail, so at most 2 a time unit reach the register (33 %)
    model = _register_beside_a_rail(8)
    assert instability_warnings(model) == []
    assert open_offered_load(model, growing=True).stations["register"] == pytest.approx(2 * 0.5 / 3)


def test_the_register_beside_a_full_rail_stays_bounded_in_the_simulation():
    # the truth behind the test above: the register's waiting does not grow with the run
    # (an unstable queue's mean doubles when the run does), and it serves what the bar passes
    model = _register_beside_a_rail(8)
    short, long = (brewput.simulate(model, customers=n, seed=7, replications=2)["stations"]["register"]
                   for n in (20_000, 80_000))
    assert long["utilization_ci"][0] <= 2 * 0.5 / 3  # the bar is saturated: the bound is met, not passed
    assert abs(long["queue_length"] - short["queue_length"]) < 0.1 * short["queue_length"]


def test_a_branch_beside_an_unbounded_rail_is_still_named():
    # with room always on the bar, the fork never waits: all 8 reach the register
    (warning, *_) = instability_warnings(_register_beside_a_rail("inf"))
    assert warning.startswith("station register: open arrivals offer utilization 1.33")


@pytest.mark.parametrize("mean, unstable", [(0.8, False), (1.5, True)])
def test_a_station_gets_no_more_than_the_station_before_it_serves(mean, unstable):
    # 2 arrive, the first station serves at most 1 (its customers give up the rest), so the
    # second is offered 0.8 or 1.5 of its capacity, not 1.6 or 3
    model = brewput.Model.from_dict({"brewput": 1, "stations": {"first": {}, "second": {}},
                                     "classes": {"c": {"rate": 2, "route": [
                                         {"station": "first", "service": "exp(1)", "patience": "exp(1)"},
                                         {"station": "second", "service": f"exp({mean})"}]}}})
    assert open_offered_load(model, growing=True).stations["second"] == pytest.approx(mean)
    assert [w.split(":")[0] for w in instability_warnings(model)] == (["station second"] if unstable else [])


def test_typed_servers_cap_by_the_types_that_may_serve():
    # only the 2 espresso machines (mean 1) make espresso: at most 2 a time unit pass the bar
    model = brewput.Model.from_dict({"brewput": 1, "stations": {
        "expediter": {}, "register": {"servers": 3},
        "bar": {"servers": {"espresso_machine": 2, "drip_station": 1}, "buffer": 8}},
        "classes": {"espresso": {"rate": 8, "route": [
            {"station": "expediter", "service": "exp(0.1)", "patience": "exp(2)"},
            {"fork": {"pay": [{"station": "register", "service": "exp(0.5)"}],
                      "drink": [{"station": "bar", "service": "exp(1)", "served_by": ["espresso_machine"]}]}}]}}})
    assert open_offered_load(model, growing=True).stations["register"] == pytest.approx(2 * 0.5 / 3)


@pytest.mark.parametrize("typed", [False, True])
def test_a_service_that_takes_no_time_passes_without_end(typed):
    # a bar whose drinks take no time caps nothing behind it (once a division by zero)
    bar = {"servers": {"espresso_machine": 2}, "buffer": 8} if typed else {"servers": 2, "buffer": 8}
    drink = {"station": "bar", "service": 0, **({"served_by": ["espresso_machine"]} if typed else {})}
    model = brewput.Model.from_dict({"brewput": 1, "stations": {"expediter": {}, "register": {"servers": 3},
                                                                "bar": bar},
        "classes": {"espresso": {"rate": 8, "route": [
            {"station": "expediter", "service": "exp(0.1)", "patience": "exp(2)"},
            {"fork": {"pay": [{"station": "register", "service": "exp(0.5)"}], "drink": [drink]}}]}}})
    # the register is offered all the expediter passes: 8 a time unit at most 1 / 0.1 = 10
    assert open_offered_load(model, growing=True).stations["register"] == pytest.approx(8 * 0.5 / 3)
