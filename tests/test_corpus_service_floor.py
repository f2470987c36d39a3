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
        "m.yaml"].replace("stations:", "resources: {cup: 1}\nstations:")}, "classes.c.route[0].uses", "preempt",
        "resource tokens"),
]

CASES = TYPED + GIVE_UP + MARKS + PREEMPT


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
