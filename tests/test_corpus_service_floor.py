"""The corpus (tests/corpus.py): malformed service-floor fields (issue 11) in model
files: typed servers (servers mapping, served_by, take, assign), customers who give
up (balk, patience), marks and measures, fork/join and dispatch, preemption. Each is
refused in one line naming the file, the field and the problem, exit 2, whether the
model is simulated or solved."""
import pytest

from corpus import Case, check, ids

SIMULATE = ["simulate", "m.yaml", "--customers", "1000", "--replications", "2"]
SOLVE = ["solve", "m.yaml"]


def floor(station: str = "{servers: {espresso: 2, drip: 1}}", step: str = "service: exp(1)", job: str = "rate: 1",
          stations: str = "") -> dict:
    """A model whose station `bar` is `station` and whose class `c` has one step at it
    with `step` (line 7 is that step)."""
    return {"m.yaml": (f"brewput: 1\nstations:\n  bar: {station}\n{stations}classes:\n  c:\n    {job}\n    route:\n"
                       f"      - {{station: bar, {step}}}\n")}


STEP = "classes.c.route[0]"


def case(name: str, files: dict, *names: str, argv=SIMULATE) -> Case:
    return Case(name, argv, files, names=["m.yaml", *names])


TYPED = [
    case("servers-mapping-count-zero", floor("{servers: {espresso: 0}}"), "stations.bar.servers.espresso",
         "positive integer"),
    case("servers-mapping-count-text", floor("{servers: {espresso: many}}"), "stations.bar.servers.espresso"),
    case("servers-mapping-count-inf", floor("{servers: {espresso: inf}}"), "stations.bar.servers.espresso"),
    case("servers-mapping-empty", floor("{servers: {}}"), "stations.bar.servers", "at least one server type"),
    case("servers-mapping-huge-total", floor("{servers: {a: 9000000, b: 9000000}}"), "stations.bar.servers",
         "too many"),
    case("servers-a-list", floor("{servers: [espresso, drip]}"), "stations.bar.servers", argv=SOLVE),
    case("servers-mapping-bad-type-name", floor("{servers: {' ': 1}}"), "stations.bar.servers"),
    case("typed-with-ps", floor("{servers: {a: 1}, discipline: ps}"), "stations.bar.discipline", "typed"),
    case("served-by-unknown-type", floor(step="service: exp(1), served_by: [grinder]"),
         f"{STEP}.served_by[0]", "unknown server type 'grinder'", "espresso, drip"),
    case("served-by-unknown-type-mapping", floor(step="served_by: {espresso: exp(1), steam: exp(2)}"),
         f"{STEP}.served_by.steam", "unknown server type", argv=SOLVE),
    case("served-by-untyped-station", floor("{servers: 2}", "service: exp(1), served_by: [espresso]"),
         f"{STEP}.served_by", "untyped"),
    case("served-by-mapping-untyped-station", floor("{servers: 1}", "served_by: {espresso: exp(1)}"),
         f"{STEP}.served_by", "untyped"),
    case("served-by-and-service", floor(step="service: exp(1), served_by: {espresso: exp(2)}"),
         f"{STEP}.served_by", "not both"),
    case("served-by-list-without-service", floor(step="served_by: [espresso]"), f"{STEP}.service",
         "missing required field"),
    case("neither-service-nor-served-by", floor(step="uses: []"), f"{STEP}.service", "missing required field",
         argv=SOLVE),
    case("served-by-empty-list", floor(step="service: exp(1), served_by: []"), f"{STEP}.served_by",
         "at least one server type"),
    case("served-by-empty-mapping", floor(step="served_by: {}"), f"{STEP}.served_by"),
    case("served-by-type-twice", floor(step="service: exp(1), served_by: [drip, drip]"), f"{STEP}.served_by[1]",
         "twice"),
    case("served-by-not-a-list", floor(step="service: exp(1), served_by: espresso"), f"{STEP}.served_by"),
    case("served-by-bad-distribution", floor(step="served_by: {espresso: exp(-1)}"), f"{STEP}.served_by.espresso"),
    case("served-by-number-key", floor(step="service: exp(1), served_by: [3]"), f"{STEP}.served_by[0]"),
    case("served-by-mapping-at-sjf", floor("{servers: {espresso: 1, drip: 1}, discipline: sjf}",
                                           "served_by: {espresso: exp(1), drip: exp(2)}"),
         f"{STEP}.served_by", "shortest job first"),
    case("take-unknown", floor("{servers: {a: 1}, take: best_fit}"), "stations.bar.take", "head, first_fit"),
    case("take-untyped", floor("{servers: 2, take: first_fit}"), "stations.bar.take", "untyped"),
    case("assign-unknown", floor("{servers: {a: 1}, assign: random}"), "stations.bar.assign",
         "longest_idle, in_order"),
    case("assign-untyped", floor("{servers: 1, assign: in_order}"), "stations.bar.assign", "untyped", argv=SOLVE),
    case("take-a-number", floor("{servers: {a: 1}, take: 1}"), "stations.bar.take"),
]

GIVE_UP = [
    case("balk-probability-above-one", floor("{}", "service: exp(1), balk: [0, 0.5, 1.5]"), f"{STEP}.balk[2]",
         "probability from 0 to 1"),
    case("balk-probability-negative", floor("{}", "service: exp(1), balk: [-0.1]"), f"{STEP}.balk[0]"),
    case("balk-probability-text", floor("{}", "service: exp(1), balk: [0, often]"), f"{STEP}.balk[1]", argv=SOLVE),
    case("balk-probability-nan", floor("{}", "service: exp(1), balk: [.nan]"), f"{STEP}.balk[0]"),
    case("balk-list-empty", floor("{}", "service: exp(1), balk: []"), f"{STEP}.balk", "at least one"),
    case("balk-list-too-long", floor("{}", "service: exp(1), balk: [" + ", ".join(["0.5"] * 10_001) + "]"),
         f"{STEP}.balk", "at most 10,000"),
    case("balk-threshold-negative", floor("{}", "service: exp(1), balk: -1"), f"{STEP}.balk",
         "non-negative integer"),
    case("balk-threshold-fraction", floor("{}", "service: exp(1), balk: 2.5"), f"{STEP}.balk"),
    case("balk-threshold-huge", floor("{}", "service: exp(1), balk: 1e30"), f"{STEP}.balk", "too large"),
    case("balk-a-mapping", floor("{}", "service: exp(1), balk: {at: 3}"), f"{STEP}.balk", argv=SOLVE),
    case("balk-a-word", floor("{}", "service: exp(1), balk: sometimes"), f"{STEP}.balk"),
    case("balk-at-infinite-servers", floor("{servers: inf}", "service: exp(1), balk: 3"), f"{STEP}.balk",
         "nobody waits"),
    case("balk-at-ps", floor("{discipline: ps}", "service: exp(1), balk: [0.5]"), f"{STEP}.balk", "nobody waits"),
    case("patience-not-a-distribution", floor("{}", "service: exp(1), patience: soon"), f"{STEP}.patience"),
    case("patience-negative", floor("{}", "service: exp(1), patience: -2"), f"{STEP}.patience"),
    case("patience-bad-call", floor("{}", "service: exp(1), patience: exp(0)"), f"{STEP}.patience", argv=SOLVE),
    case("patience-a-list", floor("{}", "service: exp(1), patience: [1, 2]"), f"{STEP}.patience"),
    case("patience-at-infinite-servers", floor("{servers: inf}", "service: exp(1), patience: exp(2)"),
         f"{STEP}.patience", "nobody waits"),
    case("patience-closed-at-ps", floor("{discipline: ps}", "service: exp(1), patience: 3", "population: 2"),
         f"{STEP}.patience", "nobody waits"),
]

def marked(measures: str, marks=("ordered", "paid")) -> dict:
    """Class `c` with two steps marked `marks` and `measures` (line 6)."""
    return {"m.yaml": ("brewput: 1\nstations:\n  bar: {}\nclasses:\n  c:\n"
                       f"    measures: {measures}\n    rate: 1\n    route:\n"
                       f"      - {{station: bar, service: exp(0.1), mark: {marks[0]}}}\n"
                       f"      - {{station: bar, service: exp(0.1), mark: {marks[1]}}}\n")}


MARKS = [
    case("measure-unknown-mark", marked("{m: [ordered, served]}"), "classes.c.measures.m[1]", "unknown mark 'served'",
         "arrived, done, ordered, paid"),
    case("measure-unknown-from", marked("{m: [payed, done]}"), "classes.c.measures.m[0]", "unknown mark"),
    case("measure-from-is-to", marked("{m: [paid, paid]}"), "classes.c.measures.m", "itself"),
    case("measure-arrived-to-arrived", marked("{m: [arrived, arrived]}"), "classes.c.measures.m", "itself",
         argv=SOLVE),
    case("measure-from-done", marked("{m: [done, paid]}"), "classes.c.measures.m", "never be measured"),
    case("measure-to-arrived", marked("{m: [ordered, arrived]}"), "classes.c.measures.m", "never be measured"),
    case("measure-one-mark", marked("{m: [paid]}"), "classes.c.measures.m", "[from mark, to mark]"),
    case("measure-three-marks", marked("{m: [arrived, paid, done]}"), "classes.c.measures.m"),
    case("measure-not-a-list", marked("{m: paid}"), "classes.c.measures.m"),
    case("measures-a-list", marked("[ordered, done]"), "classes.c.measures", "mapping"),
    case("measure-mark-a-number", marked("{m: [1, done]}"), "classes.c.measures.m"),
    case("mark-duplicate", marked("{}", ("paid", "paid")), "classes.c.route[1].mark", "duplicate mark 'paid'",
         "route[0]"),
    case("mark-reserved-arrived", marked("{}", ("arrived", "paid")), "classes.c.route[0].mark", "every class has"),
    case("mark-reserved-done", marked("{}", ("ordered", "done")), "classes.c.route[1].mark", "every class has",
         argv=SOLVE),
    case("mark-a-list", marked("{}", ("[a, b]", "paid")), "classes.c.route[0].mark", "name"),
    case("mark-empty", marked("{}", ("''", "paid")), "classes.c.route[0].mark", "name"),
]

PREEMPT = [
    case("preempt-without-priority", floor("{preempt: resume}"), "stations.bar.preempt", "discipline: priority"),
    case("preempt-with-fifo", floor("{discipline: fifo, preempt: restart}"), "stations.bar.preempt", "fifo"),
    case("preempt-with-ps", floor("{discipline: ps, preempt: resume}"), "stations.bar.preempt", argv=SOLVE),
    case("preempt-unknown", floor("{discipline: priority, preempt: always}"), "stations.bar.preempt",
         "none, resume, restart"),
    case("preempt-boolean", floor("{discipline: priority, preempt: true}"), "stations.bar.preempt"),
    case("preempt-with-uses", {"m.yaml": floor("{discipline: priority, preempt: resume}", "service: exp(1), uses: [cup]")[
        "m.yaml"].replace("stations:", "resources: {cup: 1}\nstations:")}, "preempt", "in a model with resources is not modelled"),
]

A = "[{station: bar, service: exp(1)}]"
B = "[{station: bar, service: exp(2)}]"


def branching(step: str, job: str = "rate: 0.2") -> dict:
    """Class `c` whose route is a plain step then `step` (a fork or dispatch in flow
    style, on line 9)."""
    return {"m.yaml": ("brewput: 1\nstations:\n  bar: {}\nclasses:\n  c:\n"
                       f"    {job}\n    route:\n      - {{station: bar, service: exp(1)}}\n      - {step}\n")}


def nested(depth: int, kind: str = "fork") -> str:
    step = "{station: bar, service: 1}"
    for _ in range(depth):
        step = f"{{{kind}: {{a: [{step}], b: {A}}}}}"
    return step


FORK = "classes.c.route[1]"
BRANCHES = [
    case("fork-one-branch", branching(f"{{fork: {{a: {A}}}}}"), f"{FORK}.fork", "at least two branches"),
    case("dispatch-one-branch", branching(f"{{dispatch: {{a: {A}}}}}"), f"{FORK}.dispatch", "at least two branches"),
    case("fork-no-branches", branching("{fork: {}}"), f"{FORK}.fork", "at least one branch", argv=SOLVE),
    case("fork-branches-a-list", branching(f"{{fork: [{A}, {B}]}}"), f"{FORK}.fork", "mapping"),
    case("fork-empty", branching("{fork: }"), f"{FORK}.fork"),
    case("branch-empty", branching(f"{{fork: {{a: [], b: {B}}}}}"), f"{FORK}.fork.a", "at least one step"),
    case("branch-not-a-list", branching(f"{{fork: {{a: {{station: bar, service: 1}}, b: {B}}}}}"),
         f"{FORK}.fork.a", "expected a list"),
    case("branch-a-word", branching(f"{{dispatch: {{a: espresso, b: {B}}}}}"), f"{FORK}.dispatch.a", "list",
         argv=SOLVE),
    case("branch-step-unknown-station", branching(f"{{fork: {{a: [{{station: cup, service: 1}}], b: {B}}}}}"),
         f"{FORK}.fork.a[0].station", "unknown station 'cup'"),
    case("branch-step-bad-service", branching(f"{{fork: {{a: [{{station: bar, service: exp(-1)}}], b: {B}}}}}"),
         f"{FORK}.fork.a[0].service"),
    case("fork-and-dispatch", branching(f"{{fork: {{a: {A}, b: {B}}}, dispatch: {{a: {A}, b: {B}}}}}"),
         f"{FORK}.dispatch", "not both"),
    case("fork-with-station", branching(f"{{fork: {{a: {A}, b: {B}}}, station: bar}}"), f"{FORK}.station",
         "unknown field"),
    case("fork-with-policy", branching(f"{{fork: {{a: {A}, b: {B}}}, policy: shared}}"), f"{FORK}.policy",
         "unknown field"),
    case("dispatch-with-join", branching(f"{{dispatch: {{a: {A}, b: {B}}}, join: any}}"), f"{FORK}.join",
         "unknown field"),
    case("join-above-branches", branching(f"{{fork: {{a: {A}, b: {B}}}, join: 3}}"), f"{FORK}.join",
         "more branches than the fork's 2"),
    case("join-zero", branching(f"{{fork: {{a: {A}, b: {B}}}, join: 0}}"), f"{FORK}.join", "all, any or a number"),
    case("join-negative", branching(f"{{fork: {{a: {A}, b: {B}}}, join: -1}}"), f"{FORK}.join", argv=SOLVE),
    case("join-fraction", branching(f"{{fork: {{a: {A}, b: {B}}}, join: 1.5}}"), f"{FORK}.join"),
    case("join-word", branching(f"{{fork: {{a: {A}, b: {B}}}, join: most}}"), f"{FORK}.join", "all, any"),
    case("join-boolean", branching(f"{{fork: {{a: {A}, b: {B}}}, join: true}}"), f"{FORK}.join"),
    case("policy-unknown", branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: fastest}}"), f"{FORK}.policy",
         "round_robin"),
    case("policy-a-number", branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: 2}}"), f"{FORK}.policy"),
    case("d-above-branches", branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: power_of_d, d: 3}}"),
         f"{FORK}.d", "from 2 to 2"),
    case("d-one", branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: power_of_d, d: 1}}"), f"{FORK}.d",
         "at least 2"),
    case("d-fraction", branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: power_of_d, d: 2.5}}"), f"{FORK}.d"),
    case("d-without-power-of-d", branching(f"{{dispatch: {{a: {A}, b: {B}}}, d: 2}}"), f"{FORK}.d",
         "power_of_d", argv=SOLVE),
    case("weights-not-summing-to-one", branching(f"{{dispatch: {{a: {A}, b: {B}}}, weights: {{a: 0.5, b: 0.4}}}}"),
         f"{FORK}.weights", "sum to 1"),
    case("weights-unknown-branch", branching(f"{{dispatch: {{a: {A}, b: {B}}}, weights: {{a: 0.5, c: 0.5}}}}"),
         f"{FORK}.weights.c", "unknown branch 'c'"),
    case("weights-above-one", branching(f"{{dispatch: {{a: {A}, b: {B}}}, weights: {{a: 1.5, b: -0.5}}}}"),
         f"{FORK}.weights.a", "probability"),
    case("weights-a-list", branching(f"{{dispatch: {{a: {A}, b: {B}}}, weights: [0.5, 0.5]}}"), f"{FORK}.weights"),
    case("weights-with-round-robin",
         branching(f"{{dispatch: {{a: {A}, b: {B}}}, policy: round_robin, weights: {{a: 0.5, b: 0.5}}}}"),
         f"{FORK}.weights", "policy: random"),
    case("shared-branch-starting-with-a-fork",
         branching(f"{{dispatch: {{a: [{nested(1)}], b: {B}}}, policy: shared}}"), f"{FORK}.dispatch.a[0]",
         "first station"),
    case("next-to-another-branch",
         branching("{fork: {a: [{station: bar, service: 1, next: y}], b: [{id: y, station: bar, service: 1}]}}"),
         f"{FORK}.fork.a[0].next", "outside this branch"),
    case("next-from-route-into-a-branch",
         {"m.yaml": branching(f"{{fork: {{a: [{{id: y, station: bar, service: 1}}], b: {B}}}}}")["m.yaml"].replace(
             "{station: bar, service: exp(1)}\n", "{station: bar, service: exp(1), next: y}\n", 1)},
         "classes.c.route[0].next", "outside this route"),
    case("next-from-branch-to-route",
         {"m.yaml": branching(f"{{fork: {{a: [{{station: bar, service: 1, next: top}}], b: {B}}}}}")[
             "m.yaml"].replace("{station: bar, service: exp(1)}\n", "{id: top, station: bar, service: exp(1)}\n", 1)},
         f"{FORK}.fork.a[0].next", "outside this branch", argv=SOLVE),
    case("next-unknown-in-branch", branching(f"{{dispatch: {{a: [{{station: bar, service: 1, next: nowhere}}], "
                                             f"b: {B}}}}}"), f"{FORK}.dispatch.a[0].next", "unknown step id"),
    case("branch-never-ends",
         branching(f"{{fork: {{a: [{{id: x, station: bar, service: 1, next: x}}], b: {B}}}}}"), f"{FORK}.fork.a[0]",
         "never end its branch"),
    case("branch-loop-never-ends",
         branching(f"{{dispatch: {{a: {A}, b: [{{id: x, station: bar, service: 1}}, "
                   f"{{station: bar, service: 1, next: x}}]}}}}", "population: 2"), f"{FORK}.dispatch.b[0]",
         "never end its branch"),
    case("fork-next-never-exits",
         branching(f"{{id: f, fork: {{a: {A}, b: {B}}}, next: f}}"), "classes.c.route[0]",
         "never exit"),
    case("duplicate-id-across-branches",
         branching("{fork: {a: [{id: x, station: bar, service: 1}], b: [{id: x, station: bar, service: 1}]}}"),
         f"{FORK}.fork.b[0].id", "duplicate step id 'x'", "route[1].fork.a[0]"),
    case("duplicate-mark-across-branches",
         branching("{fork: {a: [{mark: m, station: bar, service: 1}], b: [{mark: m, station: bar, service: 1}]}}"),
         f"{FORK}.fork.b[0].mark", "duplicate mark 'm'"),
    case("fork-mark-reserved", branching(f"{{fork: {{a: {A}, b: {B}}}, mark: done}}"), f"{FORK}.mark",
         "every class has"),
    case("fork-id-exit", branching(f"{{fork: {{a: {A}, b: {B}}}, id: exit}}"), f"{FORK}.id", "reserved"),
    case("nesting-beyond-the-limit", branching(nested(9)), "classes.c.route[1]" + ".fork.a[0]" * 8 + ".fork",
         "at most 8 deep"),
    case("nesting-dispatch-beyond-the-limit", branching(nested(12, "dispatch")), "at most 8 deep", argv=SOLVE),
    case("branch-name-empty", branching(f"{{fork: {{'': {A}, b: {B}}}}}"), f"{FORK}.fork", "name"),
]

STUDY = "brewput: 1\nmodels: {m: m.yaml}\nengines: [solve]\n"

ELSEWHERE = [  # the same classes, reached by the other commands that read a model
    case("compare-join-above-branches", branching(f"{{fork: {{a: {A}, b: {B}}}, join: 5}}"), f"{FORK}.join",
         argv=["compare", "m.yaml"]),
    case("compare-served-by-untyped", floor("{servers: 2}", "service: exp(1), served_by: [espresso]"),
         f"{STEP}.served_by", argv=["compare", "m.yaml"]),
    case("study-balk-too-high", {"s.yaml": STUDY, **floor("{}", "service: exp(1), balk: [2]")}, f"{STEP}.balk[0]",
         argv=["run", "s.yaml"]),
    case("study-weights-unknown-branch",
         {"s.yaml": STUDY, **branching(f"{{dispatch: {{a: {A}, b: {B}}}, weights: {{z: 1}}}}")}, f"{FORK}.weights.z",
         argv=["run", "s.yaml"]),
    case("simulate-set-typed-count", {"m.yaml": floor("{servers: {espresso: '${n}'}}")["m.yaml"].replace(
        "stations:", "params: {n: 1}\nstations:")}, "stations.bar.servers.espresso",
        argv=[*SIMULATE, "--set", "n=0"]),
]

CASES = TYPED + GIVE_UP + MARKS + PREEMPT + BRANCHES + ELSEWHERE


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
