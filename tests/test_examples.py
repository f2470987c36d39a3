"""Every example model loads, simulates and obeys the laws any queueing network
obeys; the coffee shops reproduce the talk's structural numbers.

Tolerances follow conftest.py's rule (the reported 95 % CI widened to 99.9 %).
The coffee shops' stages are a deterministic 1 ms, so their figures are nearly
exact and their CIs nearly zero: there the tolerance is the widened CI or 0.1 % of
the truth, whichever is larger (the 0.1 % covers the edges of the measurement
window and the histograms' three significant digits).
"""
import pytest

import brewput
from conftest import EXAMPLES, assert_close, check, simulated, widened

FLOOR = 1e-3
MACHINES = ("grinder", "espresso", "steamer")
PIPES = ("linearpipe-0", "linearpipe-1", "linearpipe-10")

# For each example at its default parameters: the mean visits per customer to each
# station, read off its route by hand, and for a closed class (population, mean think).
EXPECTED = {
    "coffee/ideal.yaml": ({"kitchen": 4}, (4, 0.0)),          # four steps, one station
    "coffee/locking.yaml": ({"kitchen": 1}, (4, 0.0)),
    **{f"coffee/{name}.yaml": (dict.fromkeys(MACHINES + ("counter",), 1), (4, 0.0))
       for name in ("finelocking", "multi-2", "multi-4", "parsteam", "splitpipe-1") + PIPES},
    # each latte goes through one of the two shops: which one, the shared order channel
    # decides at run time (SHARED below), so each machine kind is visited once in all
    "coffee/multipipe-2.yaml": (
        {"counter": 1, **{f"{m}_{shop}": 0.5 for m in MACHINES for shop in "ab"}}, (4, 0.0)),
    # the Starbucks counter: a register, then the bar, per drink (a lost customer is no completion)
    **{f"starbucks/{name}.yaml": {drink: ({"register": 1, "bar": 1}, None) for drink in ("espresso", "drip")}
       for name in ("fifo", "first-fit")},
    "starbucks/bar.yaml": {drink: ({"bar": 1}, None) for drink in ("espresso", "drip")},
    # the expediter takes the order, then paying and the drink in parallel (a fork)
    "starbucks/early-order.yaml": {drink: ({"expediter": 1, "register": 1, "bar": 1}, None)
                                   for drink in ("espresso", "drip")},
    # a day (day:): the morning's counter and the call centre's rota, run until the day's customers have left
    "rush/coffee-morning.yaml": {drink: ({"register": 1, "bar": 1}, None) for drink in ("espresso", "drip")},
    "rush/call-centre-day.yaml": ({"agents": 1}, None),
    "rush/coffee-bar.yaml": ({"bar": 1}, None),
    "rush/web-day.yaml": ({"web": 1}, None),
    "mmc.yaml": ({"desk": 1}, None),
    "server.yaml": ({"server": 1}, None),
    "planning/call-centre.yaml": ({"agents": 1}, None),
    # PDQ's helpdesk study: one M/M/c desk at each site and merged
    **{f"helpdesk/{name}.yaml": ({"desk": 1}, None) for name in ("site-a", "site-b", "merged")},
    "helpdesk/two-sites.yaml": {"call_a": ({"desk_a": 1}, None), "call_b": ({"desk_b": 1}, None)},
    "tandem.yaml": (dict.fromkeys(("order", "brew", "pickup"), 1), None),
    # a CPU burst ends the job w.p. 0.1: 1 / 0.1 = 10 bursts, then 0.6 x 10 visits
    # to disk1 and 0.3 x 10 to disk2
    "central-server.yaml": ({"cpu": 10, "disk1": 6, "disk2": 3}, (10, 100.0)),
    # a CPU burst ends the request w.p. 0.2: 5 bursts, 2.5 disk1 and 1.5 disk2 reads
    "interactive.yaml": ({"cpu": 5, "disk1": 2.5, "disk2": 1.5}, (40, 5.0)),
    # several classes: the same pair per class
    "multiclass.yaml": {"query": ({"cpu": 3, "disk": 2}, (20, 2000.0)),
                        "report": ({"cpu": 10, "disk": 9}, (2, 0.0))},
    # load balancing: one dispatch over M servers; a random, round-robin or power-of-d
    # choice sends 1 / M of the jobs to each (ties broken by a random draw)
    **{f"balance/{size}/{policy}.yaml": ({f"s{i}": 1 / m for i in range(m)}, None)
       for size, m in (("two", 2), ("ten", 10)) for policy in ("random", "round_robin", "power_of_d", "shortest_queue",
                                                               "shared") if (m, policy) != (2, "power_of_d")},
}


# Stations a shared queue (dispatch policy: shared) chooses between at run time:
# only their visits together are known by hand.
SHARED = {"coffee/multipipe-2.yaml": [(f"{m}_a", f"{m}_b") for m in MACHINES],
          # ties to the first server in the file: s0 takes more than its share
          **{f"balance/{size}/{policy}.yaml": [tuple(f"s{i}" for i in range(m))]
             for size, m in (("two", 2), ("ten", 10)) for policy in ("shortest_queue", "shared")}}


#: Features with which a customer may be at several stations at once, or at none.
FORKS = {"fork-join", "partial-join"}


def run(name):
    # A day runs from its start until its customers have left: no number of customers to ask for.
    day = name.startswith("rush/")
    return simulated(EXAMPLES / name, seed=11, replications=5, **({} if day else {"customers": 100_000}))


def per_class(name, res):
    """{class: (visits, closed)} for an example (EXPECTED names the classes when
    there are several)."""
    if isinstance(EXPECTED[name], dict):
        return EXPECTED[name]
    (cls,) = res["classes"]
    return {cls: EXPECTED[name]}


def test_every_example_is_covered():
    # examples/studies/ holds study files, not models (tests/test_experiment_study.py)
    files = {p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.yaml") if "studies" not in p.parts}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_loads(name):
    assert brewput.load(str(EXAMPLES / name)) is not None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_station_littles_law(name):
    res = run(name)
    for station in res["stations"]:
        length, d_length = widened(res, ("stations", station, "queue_length"))
        x, d_x = widened(res, ("stations", station, "throughput"))
        r, d_r = widened(res, ("stations", station, "response_time"))
        assert_close(length, x * r, d_length + x * d_r + r * d_x, floor=FLOOR,
                     what=f"{name} {station}: L = X R")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_class_littles_law(name):
    res = run(name)
    flows = []
    for cls, (_, closed) in per_class(name, res).items():
        x, d_x = widened(res, ("classes", cls, "throughput"))
        r, d_r = widened(res, ("classes", cls, "response_time", "mean"))
        flows.append((x, d_x, r, d_r))
        if closed:  # every customer is thinking or in its cycle: N = X (Z + R)
            population, think = closed
            assert_close(x * (think + r), population, d_x * (think + r) + x * d_r,
                         floor=FLOOR, what=f"{name} {cls}: N = X (Z + R)")
    features = brewput.load(EXAMPLES / name).features()
    if not any(closed for _, closed in per_class(name, res).values()) and not features & FORKS:
        # An open customer is at one station from arrival to exit. (In a fork it is at
        # several at once, or at none while it waits for the join: no such law.)
        total = sum(res["stations"][s]["queue_length"] for s in res["stations"])
        d_total = sum(widened(res, ("stations", s, "queue_length"))[1] for s in res["stations"])
        completed = sum(x * r for x, _, r, _ in flows)
        tol = d_total + sum(x * d_r + r * d_x for x, d_x, r, d_r in flows)
        if "patience" in features:
            # Those who give up while waiting were present too, but are in no response time.
            assert total >= completed - max(tol, FLOOR * completed), f"{name}: sum L >= sum X R"
        elif "dispatch-shared" in features:
            # A job waiting in a dispatch's shared queue is in its response time but at no station.
            assert total <= completed + max(tol, FLOOR * completed), f"{name}: sum L <= sum X R"
        else:
            assert_close(total, completed, tol, floor=FLOOR, what=f"{name}: sum L = sum X R")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_job_conservation(name):
    res = run(name)
    classes = per_class(name, res)
    assert set(res["stations"]) == {s for visits, _ in classes.values() for s in visits}
    shared = SHARED.get(name, [])
    alone = [(station,) for station in res["stations"] if not any(station in group for group in shared)]
    for group in alone + shared:
        expect, slack = 0.0, 0.0
        for cls, (visits, _) in classes.items():
            x, d_x = widened(res, ("classes", cls, "throughput"))
            expect += sum(visits.get(station, 0) for station in group) * x
            slack += sum(visits.get(station, 0) for station in group) * d_x
        measured = [widened(res, ("stations", station, "throughput")) for station in group]
        assert_close(sum(v for v, _ in measured), expect, slack + sum(t for _, t in measured), floor=FLOOR,
                     what=f"{name} {' + '.join(group)}: X_station = sum of visits x X_class")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_utilizations_are_fractions(name):
    res = run(name)
    for station, figures in res["stations"].items():
        u = figures["utilization"]
        assert u is None or 0 <= u <= 1, (station, u)
        assert figures["busy_servers"] >= 0, station
    for resource, figures in res["resources"].items():
        assert 0 <= figures["utilization"] <= 1, (resource, figures)


# ---- the talk's structural numbers, cpus = 1..6 ----------------------------------

CPUS = range(1, 7)


def coffee(name, cpus):
    return simulated(EXAMPLES / "coffee" / f"{name}.yaml", (("cpus", cpus),),
                     seed=7, replications=3, customers=20_000)


LATTES = ("classes", "latte", "throughput")
LATENCY = ("classes", "latte", "response_time")


@pytest.mark.parametrize("cpus", CPUS)
def test_ideal_scales_with_cpus(cpus):
    res = coffee("ideal", cpus)
    check(res, LATTES, 0.25 * cpus, floor=FLOOR)
    check(res, LATENCY + ("p50",), 4.0, floor=FLOOR)


@pytest.mark.parametrize("cpus", CPUS)
def test_locking_is_flat_and_latency_grows(cpus):
    res = coffee("locking", cpus)
    check(res, LATTES, 0.25, floor=FLOOR)
    check(res, LATENCY + ("p50",), 4.0 * cpus, floor=FLOOR)  # 4 ms behind each of cpus-1


@pytest.mark.parametrize("cpus", CPUS)
def test_finelocking_flattens_at_the_grinder(cpus):
    res = coffee("finelocking", cpus)
    lattes = min(0.25 * cpus, 1.0)  # the grinder serves at most 1 latte per ms
    check(res, LATTES, lattes, floor=FLOOR)
    check(res, LATENCY + ("mean",), cpus / lattes, floor=FLOOR)  # Little: R = N / X


@pytest.mark.parametrize("cpus", CPUS)
@pytest.mark.parametrize("name", ["multi-2", "multi-4"])
def test_more_machines_scale_to_six_cpus(name, cpus):
    res = coffee(name, cpus)
    check(res, LATTES, 0.25 * cpus, floor=FLOOR)
    check(res, LATENCY + ("p50",), 4.0, floor=FLOOR)


@pytest.mark.parametrize("cpus", CPUS)
@pytest.mark.parametrize("name, machines", [(p, 1) for p in PIPES] + [("multipipe-2", 2)])
def test_pipelines_stay_under_the_structural_bound(name, machines, cpus):
    # Each latte takes 1 ms on a set's grinder and 4 ms of CPU: whatever the
    # buffers, no replication can beat min(cpus / 4, sets of machines).
    res = coffee(name, cpus)
    bound = min(0.25 * cpus, machines)
    assert res["classes"]["latte"]["throughput"] <= bound * (1 + FLOOR)
    assert res["classes"]["latte"]["response_time"]["mean"] >= 4.0 * (1 - FLOOR)


@pytest.mark.parametrize("cpus", [4, 5, 6])
def test_noise_holds_back_only_the_unbuffered_pipeline(cpus):
    # The talk: with natural variance in the stages, the unbuffered pipeline falls
    # behind fine-grained locking, and buffers of 1 or 10 win the difference back.
    def lattes(name):
        res = simulated(EXAMPLES / "coffee" / f"{name}.yaml", (("cpus", cpus), ("noise", 0.5)),
                        seed=7, replications=5, customers=100_000)
        return widened(res, LATTES)

    unbuffered, tol = lattes("linearpipe-0")
    for better in ("finelocking", "linearpipe-1", "linearpipe-10"):
        x, tol_x = lattes(better)
        assert unbuffered + tol < x - tol_x, (better, x, unbuffered)
