"""The corpus (tests/corpus.py): the service floor where solve has no exact
answer (analytic/floor.py), refused in one line naming the file, the field and
the feature, with what would make it exact and `brewput simulate` suggested;
unstable stations and chains too long to build refused as well. One case per
refused combination: customers who give up, typed servers, preemption, measures."""
import pytest
import yaml

from corpus import Case, check, ids

BALK = "customers who balk when they see too many waiting (balk: n)"
BALK_P = "customers who balk with a probability that depends on how many wait (balk: [...])"
PATIENCE = "customers who give up waiting after their patience runs out (patience:)"
TYPED = "typed groups of servers at a station (servers: {type: count})"
RESUME = "preemptive priority, the preempted job resuming its remaining work (preempt: resume)"
RESTART = "preemptive priority, the preempted job starting a new service (preempt: restart)"
MEASURES = "times measured between marks on a route (measures:)"
ONE_STATION = "only at the one station of an open model with Poisson arrivals"


def model(stations, classes) -> dict:
    """A model file named m.yaml holding these stations and classes."""
    return {"m.yaml": yaml.safe_dump({"brewput": 1, "name": "m", "stations": stations, "classes": classes},
                                     sort_keys=False)}


def one(step, station=None, job=None) -> dict:
    """One open class c (rate 1 unless `job` says otherwise) visiting station s once."""
    return model({"s": station or {"servers": 2}},
                 {"c": {"rate": 1, **(job or {}), "route": [{"station": "s", "service": "exp(1)", **step}]}})


def two(a_step, b_step, station=None) -> dict:
    """Classes a and b, one visit each to station s."""
    return model({"s": station or {"servers": 2}}, {
        "a": {"rate": 0.5, "route": [{"station": "s", "service": "exp(1)", **a_step}]},
        "b": {"rate": 0.5, "route": [{"station": "s", "service": "exp(1)", **b_step}]}})


def bar(station, latte=None, drip=None) -> dict:
    """Typed servers at a bar: lattes on espresso machines, drip anywhere."""
    return model({"bar": {"servers": {"espresso": 2, "drip": 1}, **station}}, {
        "latte": {"rate": 0.8, "route": [{"station": "bar", "service": "exp(1)", "served_by": ["espresso"],
                                          **(latte or {})}]},
        "filter": {"rate": 0.5, "route": [{"station": "bar", "service": "exp(1)", **(drip or {})}]}})


def cpu(station=None, hi=None, lo=None, lo_service="exp(1)") -> dict:
    """Preemptive priority at station cpu: class hi over class lo."""
    return model({"cpu": {"servers": 1, "discipline": "priority", "preempt": "resume", **(station or {})}}, {
        "hi": {"rate": 0.3, "priority": 1, "route": [{"station": "cpu", "service": "exp(1)", **(hi or {})}]},
        "lo": {"rate": 0.3, "route": [{"station": "cpu", "service": lo_service, **(lo or {})}]}})


SOLVE = ["solve", "m.yaml"]
#: The formulas asked for: where they refuse a model of customers who give up, or of a
#: dispatch, that the chain follows, auto answers it by the chain (tests/test_chain_giving_up.py,
#: test_chain_dispatch.py), and their refusal is seen only when they are asked for.
FORMULAS = SOLVE + ["--method", "exact"]
STEP = "classes.c.route[0]"

GIVING_UP = [
    Case("floor-patience-closed-no-think", FORMULAS, model({"s": {}}, {"c": {"population": 3, "route": [
        {"station": "s", "service": "exp(1)", "patience": "exp(2)"}]}}),
        names=["m.yaml", f"{STEP}.patience", PATIENCE, ONE_STATION, "one closed class",
               "classes.c.think is not exponential of positive mean", "brewput simulate"]),
    Case("floor-balk-closed-const-think", FORMULAS, model({"s": {}}, {"c": {"population": 3, "think": "const(2)",
                                                                         "route": [{"station": "s", "service": "exp(1)",
                                                                                    "balk": 1}]}}),
         names=[f"{STEP}.balk", "classes.c.think is not exponential"]),
    Case("floor-balk-closed-beside-open", FORMULAS, model({"s": {}}, {
        "c": {"population": 3, "think": "exp(2)", "route": [{"station": "s", "service": "exp(1)", "balk": 1}]},
        "d": {"rate": 0.1, "route": [{"station": "s", "service": "exp(1)", "balk": 1}]}}),
        names=[f"{STEP}.balk", "classes.c is closed beside other classes"]),
    Case("floor-patience-closed-ten-million", SOLVE, model({"s": {"servers": 4}}, {"c": {
        "population": 10_000_000, "think": "exp(1e6)",
        "route": [{"station": "s", "service": "exp(1)", "patience": "exp(1)"}]}}),
        names=["station s", "10,000,001 states", "would take"], memory_mb=1500, timeout=30),
    Case("floor-patience-closed-buffer", FORMULAS, model({"s": {"buffer": 1}}, {"c": {
        "population": 5, "think": "exp(2)", "route": [{"station": "s", "service": "exp(1)", "patience": "exp(1)"}]}}),
        names=[f"{STEP}.patience", "stations.s.buffer can be full", "wait outside"]),
    Case("floor-balk-non-poisson", SOLVE, one({"balk": 3}, job={"rate": None, "arrivals": "const(1)"}),
         names=[f"{STEP}.balk", BALK, "classes.c.arrivals are not Poisson"]),
    Case("floor-patience-two-steps", SOLVE, model({"s": {}, "t": {}}, {"c": {"rate": 0.5, "route": [
        {"station": "s", "service": "exp(1)", "patience": "exp(2)"}, {"station": "t", "service": "exp(1)"}]}}),
        names=[f"{STEP}.patience", "classes.c.route has 2 steps"]),
    Case("floor-balk-comes-back", FORMULAS, one({"id": "a", "balk": 2, "next": {"a": 0.2, "exit": 0.8}}),
         names=[f"{STEP}.balk", "classes.c.route[0].next comes back"]),
    Case("floor-balk-two-stations", SOLVE, model({"s": {}, "t": {}}, {
        "a": {"rate": 0.2, "route": [{"station": "s", "service": "exp(1)", "balk": [0, 0.5]}]},
        "b": {"rate": 0.2, "route": [{"station": "t", "service": "exp(1)"}]}}),
        names=["classes.a.route[0].balk", BALK_P, "class a visits station s, class b station t"]),
    Case("floor-balk-lifo", SOLVE, one({"balk": 2}, station={"servers": 1, "discipline": "lifo"}),
         names=[f"{STEP}.balk", "at a fifo station of untyped servers", "stations.s.discipline is lifo"]),
    Case("floor-patience-priority", SOLVE, one({"patience": "exp(3)"}, station={"discipline": "priority"}),
         names=[f"{STEP}.patience", "stations.s.discipline is priority"]),
    Case("floor-balk-uniform-service", FORMULAS, one({"balk": 2, "service": "uniform(0, 2)"}),
         names=[f"{STEP}.balk", f"{STEP}.service is not exponential"]),
    Case("floor-patience-const", SOLVE, one({"patience": "const(2)"}),
         names=[f"{STEP}.patience", f"{STEP}.patience is not exponential"]),
    Case("floor-give-up-different-means", FORMULAS, two({"balk": 3}, {"balk": 3, "service": "exp(2)"}),
         names=["classes.a.route[0].balk", "classes.b.route[0].service has mean 2"]),
    Case("floor-give-up-different-balks", FORMULAS, two({"balk": 3}, {"balk": 4}),
         names=["classes.a.route[0].balk", "classes.b.route[0].balk differs"]),
    Case("floor-give-up-one-balks", SOLVE, two({}, {"balk": 4}),
         names=["classes.b.route[0].balk", "classes.b.route[0].balk differs"]),
    Case("floor-give-up-different-patience", SOLVE, two({"patience": "exp(1)"}, {"patience": "exp(2)"}),
         names=["classes.a.route[0].patience", PATIENCE, "classes.b.route[0].patience differs"]),
    Case("floor-balk-zero-nobody-served", SOLVE, one({"balk": 0}),
         names=[f"{STEP}.balk", "turns every arrival away"]),
    Case("floor-balk-certain-nobody-served", SOLVE, one({"balk": [1, 0]}),
         names=[f"{STEP}.balk", "turns every arrival away"]),
    Case("floor-balk-probabilities-unstable", SOLVE, one({"balk": [0, 0.1, 0.2]}, job={"rate": 4}),
         names=["station s", ">= 1", "unstable"]),
    Case("floor-patience-chain-too-long", SOLVE, one({"patience": "exp(1e9)"}, job={"rate": 1000},
                                                     station={"servers": 1}),
         names=["station s", "customers who give up", "states", "use brewput simulate"], memory_mb=1500),
    Case("floor-balk-chain-too-long", SOLVE, one({"balk": [0, 1e-9]}, job={"rate": 0.999999999},
                                                 station={"servers": 1}),
         names=["station s", "states", "would take"], memory_mb=1500),
    Case("floor-balk-ten-million-servers", SOLVE, one({"balk": 5}, station={"servers": 10_000_000}),
         names=["station s", "states", "would take"], memory_mb=1500, timeout=30),
    Case("floor-balk-list-ten-million-servers", SOLVE, one({"balk": [0, 0.5]}, station={"servers": 10_000_000}),
         names=["station s", "states", "would take"], memory_mb=1500, timeout=30),
    Case("floor-patience-method", SOLVE + ["--method", "mva"], one({"patience": "exp(3)"}),
         names=["--method", "service floor"]),
]

TYPED_SERVERS = [
    Case("floor-typed-head-of-line", SOLVE, bar({"take": "head"}),
         names=["stations.bar.servers", TYPED, "FCFS-ALIS", "stations.bar.take is head"]),
    Case("floor-typed-in-order", SOLVE, bar({"take": "first_fit", "assign": "in_order"}),
         names=["stations.bar.assign", "assign: in_order", "has no exact analytic solution"]),
    Case("floor-typed-priority", SOLVE, bar({"take": "first_fit", "discipline": "priority"}),
         names=["stations.bar.servers", "stations.bar.discipline is priority"]),
    Case("floor-typed-buffer", SOLVE, bar({"take": "first_fit", "buffer": 4}),
         names=["stations.bar.servers", "stations.bar.buffer is finite"]),
    # Services given per server type only (no service:), with a buffer: once a crash in the buffer's check.
    *[Case(f"floor-typed-buffer-served-by-types-{command}", [command, "m.yaml"], bar(
        {"take": "first_fit", "buffer": 4}, drip={"service": None, "served_by": {"espresso": "exp(1)",
                                                                              "drip": "exp(2)"}}),
           names=["stations.bar.servers", "stations.bar.buffer is finite", "use brewput simulate"])
      for command in ("solve", "compare")],
    Case("floor-typed-erlang-service", SOLVE, bar({"take": "first_fit"}, latte={"service": "erlang(2, 1)"}),
         names=["stations.bar.servers", "classes.latte.route[0].service is not exponential"]),
    Case("floor-typed-means-by-class", SOLVE, bar({"take": "first_fit"}, drip={"service": "exp(0.5)"}),
         names=["classes.filter.route[0].service has mean 0.5 on espresso", "classes.latte.route[0].service 1"]),
    Case("floor-typed-per-type-lognormal", SOLVE, bar({"take": "first_fit"}, drip={
        "service": None, "served_by": {"espresso": "exp(1)", "drip": "lognormal(1, 2)"}}),
        names=["classes.filter.route[0].served_by.drip is not exponential"]),
    Case("floor-typed-patience", SOLVE, bar({"take": "first_fit"}, latte={"patience": "exp(3)"}),
         names=["stations.bar.servers", "classes.latte.route[0].patience gives up at typed servers"]),
    Case("floor-typed-closed", SOLVE, model({"bar": {"servers": {"a": 1, "b": 1}}}, {
        "c": {"population": 2, "route": [{"station": "bar", "service": "exp(1)"}]}}),
        names=["stations.bar.servers", TYPED, "classes.c is closed"]),
    Case("floor-typed-network", SOLVE, model({"bar": {"servers": {"a": 1, "b": 1}}, "till": {}}, {
        "c": {"rate": 0.3, "route": [{"station": "till", "service": "exp(1)"},
                                     {"station": "bar", "service": "exp(1)"}]}}),
        names=["stations.bar.servers", "classes.c.route has 2 steps"]),
    Case("floor-typed-unstable", SOLVE, bar({"take": "first_fit"}, latte={}, drip={}) | {
        "m.yaml": bar({"take": "first_fit"})["m.yaml"].replace("rate: 0.8", "rate: 2.5")},
        names=["station bar", "latte", "unstable"]),
    Case("floor-typed-too-many-types", SOLVE, model(
        {"bar": {"servers": {f"t{i}": 9 for i in range(12)}, "take": "first_fit"}},
        {"c": {"rate": 1, "route": [{"station": "bar", "service": "exp(1)"}]}}),
        names=["station bar", "12 server types", "FCFS-ALIS", "would take"], memory_mb=1500),
]

PREEMPTION = [
    Case("floor-restart-uniform", SOLVE, cpu({"preempt": "restart"}, lo_service="uniform(0, 2)"),
         names=["stations.cpu.preempt", RESTART, "classes.lo.route[0].service is not exponential"]),
    Case("floor-resume-two-servers-means", SOLVE, cpu({"servers": 2}, lo_service="exp(2)"),
         names=["stations.cpu.preempt", RESUME, "classes.lo.route[0].service has mean 2", "at 2 servers"]),
    Case("floor-resume-two-servers-erlang", SOLVE, cpu({"servers": 2}, lo_service="erlang(2, 1)"),
         names=["stations.cpu.preempt", "classes.lo.route[0].service is not exponential"]),
    Case("floor-resume-buffer", SOLVE, cpu({"buffer": 3}), names=["stations.cpu.preempt", "buffer is finite"]),
    Case("floor-resume-typed", SOLVE, model({"cpu": {"servers": {"a": 1, "b": 1}, "discipline": "priority",
                                                      "preempt": "resume"}}, {
        "c": {"rate": 0.3, "route": [{"station": "cpu", "service": "exp(1)"}]}}),
        names=["stations.cpu.preempt", "at typed servers is not modelled"]),
    Case("floor-resume-patience", SOLVE, cpu(lo={"patience": "exp(2)"}),
         names=["classes.lo.route[0].patience", PATIENCE, "stations.cpu.discipline is priority"]),
    Case("floor-resume-unstable", SOLVE, cpu(lo_service="exp(3)"), names=["station cpu", "1.2 >= 1", "unstable"]),
    Case("floor-resume-closed", SOLVE, model({"cpu": {"discipline": "priority", "preempt": "resume"}}, {
        "c": {"population": 3, "route": [{"station": "cpu", "service": "exp(1)"}]}}),
        names=["stations.cpu.preempt", RESUME, "classes.c is closed"]),
]

MEASURED = [
    Case("floor-measure-from-a-mark", SOLVE, one({"mark": "ordered"}, job={"measures": {"m": ["ordered", "done"]}}),
         names=["classes.c.measures.m", MEASURES, "from arrived to done", "from ordered to done"]),
    Case("floor-measure-to-a-middle-mark", SOLVE, model({"s": {}, "t": {}}, {"c": {
        "rate": 0.3, "measures": {"queue": ["arrived", "paid"]},
        "route": [{"station": "s", "service": "exp(1)", "mark": "paid"}, {"station": "t", "service": "exp(1)"}]}}),
        names=["classes.c.measures.queue", "from arrived to paid"]),
    Case("floor-measure-between-marks-json", SOLVE + ["--json"], model({"s": {}, "t": {}}, {"c": {
        "rate": 0.3, "measures": {"bar": ["paid", "served"]},
        "route": [{"station": "s", "service": "exp(1)", "mark": "paid"},
                  {"station": "t", "service": "exp(1)", "mark": "served"}]}}),
        names=["classes.c.measures.bar", "from paid to served"]),
]

FORK = "a job split into parallel branches that join again (fork:)"
PARTIAL = "a fork that goes on when some of its branches ended (join: any or k)"
ROUND_ROBIN = "a dispatch to the branches in turn (dispatch:, policy: round_robin)"
SHARED = "one shared queue in front of a dispatch's branches (dispatch:, policy: shared)"


def split(kind, fields=None, count=2, branch=None, stations=None, job=None, extra=None) -> dict:
    """One class c whose route is one fork or dispatch (`kind`) of `count` branches,
    each one step at its own station s0, s1, ... (`branch` adds to each step)."""
    step = {kind: {f"b{i}": [{"station": f"s{i}", "service": "exp(1)", **(branch or {})}] for i in range(count)},
            **(fields or {})}
    classes = {"c": {"rate": 0.5, **(job or {}), "route": [step]}, **(extra or {})}
    return model({**{f"s{i}": {} for i in range(count)}, **(stations or {})}, classes)


BRANCHES = [
    Case("floor-fork-two-join-of-three", SOLVE, split("fork", {"join": 2}, count=3),
         names=["classes.c.route[0].fork", FORK, "join waits for 2 of 3 branches"]),
    Case("floor-fork-any-of-three", SOLVE, split("fork", {"join": "any"}, count=3),
         names=["classes.c.route[0].fork", "join waits for 1 of 3 branches"]),
    Case("floor-fork-different-means", SOLVE, split("fork") | {"m.yaml": split("fork")["m.yaml"].replace(
        "exp(1)", "exp(2)", 1)}, names=["classes.c.route[0].fork", "service has mean 1, the first branch's 2"]),
    Case("floor-fork-two-step-branch", SOLVE, model({"s0": {}, "s1": {}, "t": {}}, {"c": {"rate": 0.5, "route": [
        {"fork": {"b0": [{"station": "s0", "service": "exp(1)"}, {"station": "t", "service": "exp(1)"}],
                  "b1": [{"station": "s1", "service": "exp(1)"}]}}]}}),
        names=["classes.c.route[0].fork", "branch classes.c.route[0].fork.b0 is 2 steps"]),
    Case("floor-fork-then-a-station", SOLVE, model({"s0": {}, "s1": {}, "t": {}}, {"c": {"rate": 0.5, "route": [
        {"fork": {"b0": [{"station": "s0", "service": "exp(1)"}], "b1": [{"station": "s1", "service": "exp(1)"}]}},
        {"station": "t", "service": "exp(1)"}]}}), names=["classes.c.route[0].fork", "classes.c.route has 2 steps"]),
    Case("floor-fork-closed", SOLVE, split("fork", job={"rate": None, "population": 4}),
         names=["classes.c.route[0].fork", FORK, "classes.c is closed"]),
    Case("floor-fork-erlang-arrivals", SOLVE, split("fork", job={"rate": None, "arrivals": "erlang(2, 2)"}),
         names=["classes.c.route[0].fork", "classes.c.arrivals are not Poisson"]),
    Case("floor-fork-two-classes", SOLVE, split("fork", extra={"d": {"rate": 0.1, "route": [
        {"station": "s0", "service": "exp(1)"}]}}), names=["classes.c.route[0].fork", "2 classes"]),
    Case("floor-fork-two-servers", SOLVE, split("fork", stations={"s1": {"servers": 2}}),
         names=["stations.s1.servers is not one untyped server"]),
    Case("floor-fork-lognormal", SOLVE, split("fork", branch={"service": "lognormal(1, 1)"}),
         names=["classes.c.route[0].fork.b0[0].service is not exponential"]),
    Case("floor-fork-patience", SOLVE, split("fork", branch={"patience": "exp(2)"}),
         names=["classes.c.route[0].fork.b0[0].patience", "inside a fork's branch is not modelled"]),
    Case("floor-fork-same-station", SOLVE, model({"s0": {}}, {"c": {"rate": 0.2, "route": [
        {"fork": {"b0": [{"station": "s0", "service": "exp(1)"}], "b1": [{"station": "s0", "service": "exp(1)"}]}}]}}),
        names=["classes.c.route[0].fork", "branches share station s0"]),
    Case("floor-fork-nested", SOLVE, model({"s0": {}, "s1": {}, "s2": {}}, {"c": {"rate": 0.2, "route": [
        {"fork": {"b0": [{"station": "s0", "service": "exp(1)"}], "b1": [{"fork": {
            "x": [{"station": "s1", "service": "exp(1)"}], "y": [{"station": "s2", "service": "exp(1)"}]}}]}}]}}),
        names=["classes.c.route[0].fork", "branch classes.c.route[0].fork.b1 is a fork"]),
    Case("floor-fork-unstable", SOLVE, split("fork", job={"rate": 1.5}), names=["classes.c.route[0].fork", "unstable"]),
    Case("floor-fork-too-many-branches", SOLVE, split("fork", count=40, job={"rate": 0.1}),
         names=["classes.c.route[0].fork", "40 branches", "32"]),
    Case("floor-round-robin-two-servers", SOLVE, split("dispatch", {"policy": "round_robin"},
                                                       stations={"s0": {"servers": 2}}),
         names=["classes.c.route[0].policy", ROUND_ROBIN, "stations.s0.servers is not one untyped server"]),
    Case("floor-round-robin-two-steps", SOLVE, model({"s0": {}, "s1": {}, "t": {}}, {"c": {"rate": 0.5, "route": [
        {"dispatch": {"b0": [{"station": "s0", "service": "exp(1)"}, {"station": "t", "service": "exp(1)"}],
                      "b1": [{"station": "s1", "service": "exp(1)"}]}, "policy": "round_robin"}]}}),
        names=["classes.c.route[0].policy", "is 2 steps"]),
    Case("floor-shared-buffer", SOLVE, split("dispatch", {"policy": "shared"}, stations={"s1": {"buffer": 2}}),
         names=["classes.c.route[0].policy", SHARED, "stations.s1 is not fifo with no buffer"]),
    Case("floor-shared-different-means", SOLVE, split("dispatch", {"policy": "shared"}, count=3) | {
        "m.yaml": split("dispatch", {"policy": "shared"}, count=3)["m.yaml"].replace("exp(1)", "exp(0.5)", 2)},
        names=["b2[0].service has mean 1, the first branch's 0.5"]),
    Case("floor-power-of-d-closed", FORMULAS, split("dispatch", {"policy": "power_of_d"}, count=3,
                                                 job={"rate": None, "population": 5}),
         names=["classes.c.route[0].policy", "classes.c is closed"]),
    Case("floor-shortest-queue", SOLVE, split("dispatch", {"policy": "shortest_queue"}),
         names=["classes.c.route[0].policy", "policy: shortest_queue", "has no exact analytic solution here"]),
    Case("floor-least-utilized", SOLVE, split("dispatch", {"policy": "least_utilized"}),
         names=["classes.c.route[0].policy", "policy: least_utilized"]),
    Case("floor-dispatch-unstable", SOLVE, split("dispatch", {"policy": "round_robin"}, job={"rate": 2}),
         names=["classes.c.route[0].policy", ">= 1", "unstable"]),
    Case("floor-random-dispatch-with-fork", SOLVE, model({"s0": {}, "s1": {}, "s2": {}}, {"c": {
        "rate": 0.2, "route": [{"dispatch": {"b0": [{"station": "s0", "service": "exp(1)"}], "b1": [{"fork": {
            "x": [{"station": "s1", "service": "exp(1)"}], "y": [{"station": "s2", "service": "exp(1)"}]}}]}}]}}),
        names=["classes.c.route[0].dispatch.b1[0].fork", FORK, "branch classes.c.route[0].dispatch.b1 is a fork"]),
]

CASES = GIVING_UP + TYPED_SERVERS + PREEMPTION + MEASURED + BRANCHES


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
