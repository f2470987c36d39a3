"""Dispatch steps in the state-space engine (`solve --method ctmc`): each policy
against a Markov chain written here by hand (its states and rates, solved for
pi Q = 0, truncated where the mass left out is far below 1e-12) to 1e-9, against
the formulas where they are exact (analytic/dispatch.py: M/M/c for `shared` over
like servers, M/M/1 per station for `random`, E_c/M/1 for `round_robin`) to 1e-9,
and against the simulator's 99.9 % intervals where branches hold several steps."""
import itertools

import numpy as np
import pytest

import brewput
from brewput.analytic.chain.floor import floor_of
from brewput.analytic.chain.generate import generate
from brewput.analytic.chain.sizing import state_bound
from brewput.analytic.dispatch import dispatch
from brewput.errors import BrewputError
from brewput.model import as_model
from conftest import check
from markov import stationary

LAM = 1.5
#: The stations' service rates (a is the slow one, listed first: ties go its way).
MU = {"a": 1.0, "b": 2.0, "c": 1.5}


def dispatched(policy, branches=("a", "b"), rate=LAM, **fields):
    """One open class dispatched over one-step branches, each an exponential server."""
    stations = {name: {"servers": 1} for name in branches}
    over = {name: [{"station": name, "service": f"exp({1 / MU[name]!r})"}] for name in branches}
    route = [{"dispatch": over, "policy": policy, **fields}]
    return {"brewput": 1, "name": f"{policy}", "stations": stations,
            "classes": {"c": {"rate": rate, "route": route}}}


def by_hand(start, moves):
    """The chain reached from `start` by `moves(state)` -> [(next, rate)]: its states and pi."""
    index, order, edges = {start: 0}, [start], []
    for state in order:
        for nxt, rate in moves(state):
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            edges.append((index[state], index[nxt], rate))
    rows, cols, rates = (np.array(x) for x in zip(*edges))
    return order, stationary(rows, cols, rates, len(order))


def figures(states, pi, busy_of, jobs_of, branches=("a", "b")):
    """Per station its utilization, and the class's throughput and mean response (Little)."""
    busy = {m: sum(p * busy_of(s, i) for s, p in zip(states, pi)) for i, m in enumerate(branches)}
    jobs = sum(p * jobs_of(s) for s, p in zip(states, pi))
    throughput = sum(MU[m] * busy[m] for m in branches)
    return busy, throughput, jobs / throughput


def assert_chain_is(model, truth, rel=1e-9):
    """The chain's utilizations, throughput and mean response are `truth`'s to `rel`; the
    largest relative difference."""
    res = brewput.solve(model, method="ctmc")
    assert res["method"] == "ctmc"
    busy, throughput, response = truth
    got = [(res["stations"][m]["utilization"], u) for m, u in busy.items()]
    got += [(res["classes"]["c"]["throughput"], throughput), (res["classes"]["c"]["response_time"]["mean"], response)]
    worst = max(abs(g - t) / abs(t) for g, t in got)
    assert worst < rel, got
    return worst


N = 60  # jobs per station kept in the chains by hand: JSQ at load 1/2 leaves ~1e-18 out


def two_queues(choose, keep=N):
    """Two one-server stations (a, b) fed by one Poisson stream, each arrival sent where
    `choose(n)` says: [(station index, probability)], at most `keep` jobs at each."""
    def moves(n):
        out = []
        for i, p in choose(n):
            if n[i] < keep:
                out.append((n[:i] + (n[i] + 1,) + n[i + 1:], LAM * p))
        for i, m in enumerate(("a", "b")):
            if n[i] > 0:
                out.append((n[:i] + (n[i] - 1,) + n[i + 1:], MU[m]))
        return out
    states, pi = by_hand((0, 0), moves)
    return figures(states, pi, lambda s, i: s[i] > 0, sum)


def test_shortest_queue_with_ties_first_is_the_chain_by_hand():
    truth = two_queues(lambda n: [(0 if n[0] <= n[1] else 1, 1.0)])
    assert_chain_is(dispatched("shortest_queue"), truth)


def test_shortest_queue_with_random_ties_is_the_chain_by_hand():
    truth = two_queues(lambda n: [(0, 0.5), (1, 0.5)] if n[0] == n[1] else [(0 if n[0] < n[1] else 1, 1.0)])
    assert_chain_is(dispatched("shortest_queue", tie="random"), truth)
    # and not tie first's answer: the test can tell them apart
    first = two_queues(lambda n: [(0 if n[0] <= n[1] else 1, 1.0)])
    assert abs(first[2] - truth[2]) > 1e-3


def test_least_utilized_is_the_chain_by_hand():
    # one server each: busy 0 or 1; an idle station first, a (file order) when both are busy,
    # where its queue grows at 1.5 against 1: kept far longer
    truth = two_queues(lambda n: [(1 if n[0] > 0 and n[1] == 0 else 0, 1.0)], keep=250)
    assert truth[1] == pytest.approx(LAM, rel=1e-13)
    assert_chain_is(dispatched("least_utilized"), truth)


def test_least_utilized_with_random_ties_is_the_chain_by_hand():
    def choose(n):
        idle = [i for i in (0, 1) if n[i] == 0]
        return [(idle[0], 1.0)] if len(idle) == 1 else [(0, 0.5), (1, 0.5)]
    truth = two_queues(choose, keep=250)
    assert truth[1] == pytest.approx(LAM, rel=1e-13)
    assert_chain_is(dispatched("least_utilized", tie="random"), truth)


def test_round_robin_is_the_chain_by_hand():
    keep = 200  # a sees every other arrival at 0.75 of its rate: its queue is kept long

    def moves(s):
        n, turn = s[:2], s[2]
        out = [((n[0] + (turn == 0), n[1] + (turn == 1), 1 - turn), LAM)] if n[turn] < keep else []
        for i, m in enumerate(("a", "b")):
            if n[i] > 0:
                out.append((n[:i] + (n[i] - 1,) + n[i + 1:] + (turn,), MU[m]))
        return out
    states, pi = by_hand((0, 0, 0), moves)
    truth = figures(states, pi, lambda s, i: s[i] > 0, lambda s: s[0] + s[1])
    assert_chain_is(dispatched("round_robin"), truth)


def test_power_of_two_of_three_is_the_chain_by_hand():
    branches, keep = ("a", "b", "c"), 20

    def moves(n):
        out = []
        for i, j in itertools.permutations(range(3), 2):  # drawn in order: i first, each pair alike
            to = i if n[i] <= n[j] else j
            if n[to] < keep:
                out.append((n[:to] + (n[to] + 1,) + n[to + 1:], LAM / 6))
        for i, m in enumerate(branches):
            if n[i] > 0:
                out.append((n[:i] + (n[i] - 1,) + n[i + 1:], MU[m]))
        return out
    states, pi = by_hand((0, 0, 0), moves)
    truth = figures(states, pi, lambda s, i: s[i] > 0, sum, branches)
    assert_chain_is(dispatched("power_of_d", branches, d=2), truth)


@pytest.mark.parametrize("tie", ["first", "random"])
def test_shared_over_unlike_servers_is_the_chain_by_hand(tie):
    # (a busy, b busy, jobs waiting in the shared queue): an arrival takes a free server, a
    # first (or either, tie random); a server freed takes the queue's head
    def moves(s):
        a, b, q = s
        if q == 0 and not a and not b and tie == "random":
            out = [((1, 0, 0), LAM / 2), ((0, 1, 0), LAM / 2)]
        elif q == 0 and not a:
            out = [((1, b, 0), LAM)]
        elif q == 0 and not b:
            out = [((a, 1, 0), LAM)]
        else:
            out = [((a, b, q + 1), LAM)] if q < 4 * N else []
        if a:
            out.append(((1, b, q - 1) if q else (0, b, 0), MU["a"]))
        if b:
            out.append(((a, 1, q - 1) if q else (a, 0, 0), MU["b"]))
        return out
    states, pi = by_hand((0, 0, 0), moves)
    truth = figures(states, pi, lambda s, i: s[i], sum)
    assert_chain_is(dispatched("shared", tie=tie), truth)


def test_shared_over_like_servers_is_erlang_c():
    MU["d"] = MU["e"] = 1.25
    try:
        res = brewput.solve(dispatched("shared", ("d", "e"), rate=2.0), method="ctmc")
    finally:
        del MU["d"], MU["e"]
    truth = dispatch("shared", 2.0, 0.8, 2)
    assert truth.exact and truth.method == "erlang-c"
    assert res["classes"]["c"]["response_time"]["mean"] == pytest.approx(truth.response, rel=1e-9)


@pytest.mark.parametrize("policy, method", [("random", "mm1-split"), ("round_robin", "erlang-gm1")])
def test_random_and_round_robin_over_like_servers_are_their_formulas(policy, method):
    MU["d"] = MU["e"] = 1.0
    try:
        res = brewput.solve(dispatched(policy, ("d", "e"), rate=1.2), method="ctmc")
    finally:
        del MU["d"], MU["e"]
    truth = dispatch(policy, 1.2, 1.0, 2)
    assert truth.exact and truth.method == method
    assert res["classes"]["c"]["response_time"]["mean"] == pytest.approx(truth.response, rel=1e-9)


def test_random_weights_split_the_stream():
    # unequal weights over unlike servers: each station an M/M/1 of its share
    res = brewput.solve(dispatched("random", weights={"a": 0.3, "b": 0.7}), method="ctmc")
    for m, share in (("a", 0.3), ("b", 0.7)):
        rho = LAM * share / MU[m]
        assert res["stations"][m]["utilization"] == pytest.approx(rho, rel=1e-9)
    mean_jobs = sum(LAM * share / MU[m] / (1 - LAM * share / MU[m]) for m, share in (("a", 0.3), ("b", 0.7)))
    assert res["classes"]["c"]["response_time"]["mean"] == pytest.approx(mean_jobs / LAM, rel=1e-9)


def pipelines(policy, **fields):
    """A closed class of 4 customers, think exp(2), dispatched over two branches of two
    steps (a buffered pipeline each, of unlike speeds), then a common desk."""
    stations = {"a1": {"servers": 1}, "a2": {"servers": 1, "buffer": 1}, "b1": {"servers": 1},
                "b2": {"servers": 1, "buffer": 1}, "c1": {"servers": 1}, "desk": {"servers": 2}}
    branches = {"a": [{"station": "a1", "service": "exp(1)"}, {"station": "a2", "service": "exp(0.8)"}],
                "b": [{"station": "b1", "service": "exp(0.6)"}, {"station": "b2", "service": "exp(0.5)"}],
                "c": [{"station": "c1", "service": "exp(0.9)"}]}
    route = [{"dispatch": branches, "policy": policy, **fields}, {"station": "desk", "service": "exp(0.4)"}]
    return {"brewput": 1, "name": policy, "stations": stations,
            "classes": {"c": {"population": 4, "think": "exp(2)", "route": route}}}


@pytest.mark.parametrize("policy, fields", [("shortest_queue", {}), ("power_of_d", {"d": 2})])
def test_multi_step_branches_are_the_simulators(policy, fields):
    model = pipelines(policy, **fields)
    chain = brewput.solve(model, method="ctmc")
    sim = brewput.simulate(model, seed=7, replications=10, customers=40_000, warmup=4_000)
    check(sim, ("classes", "c", "throughput"), chain["classes"]["c"]["throughput"])
    check(sim, ("classes", "c", "response_time", "mean"), chain["classes"]["c"]["response_time"]["mean"])
    for m in ("a1", "a2", "b1", "b2", "c1", "desk"):
        check(sim, ("stations", m, "utilization"), chain["stations"][m]["utilization"])


def test_a_dispatch_mid_route_into_a_balking_branch_is_the_simulators():
    # a door, then the least utilized of a (a buffer of 1) and b (whose customers balk at
    # 0.3 behind one waiting), ties drawn, then a last station with a buffer
    stations = {"door": {"servers": 1}, "a": {"servers": 1, "buffer": 1}, "b": {"servers": 1, "buffer": 2},
                "out": {"servers": 1, "buffer": 1}}
    branches = {"a": [{"station": "a", "service": "exp(1)"}],
                "b": [{"station": "b", "service": "exp(1.5)", "balk": [0, 0.3]}]}
    route = [{"station": "door", "service": "exp(0.5)"},
             {"dispatch": branches, "policy": "least_utilized", "tie": "random"},
             {"station": "out", "service": "exp(0.6)"}]
    model = {"brewput": 1, "name": "mid", "stations": stations,
             "classes": {"c": {"population": 6, "think": "exp(2)", "route": route}}}
    chain = brewput.solve(model, method="ctmc")
    sim = brewput.simulate(model, seed=3, replications=10, customers=40_000, warmup=4_000)
    c = chain["classes"]["c"]
    assert c["loss_probability_by"]["balked"] > 0.01
    check(sim, ("classes", "c", "throughput"), c["throughput"])
    check(sim, ("classes", "c", "loss_probability"), c["loss_probability"])
    for m in stations:
        check(sim, ("stations", m, "utilization"), chain["stations"][m]["utilization"])
    # those who balk spent time at the door: the times of those who complete need the
    # tagged customer's chain, not built where a dispatch chooses
    assert np.isnan(c["response_time"]["mean"])
    assert "c: no response or waiting time: those who complete are timed on its tagged customer's chain, which " \
           "is not built where a dispatch step chooses" in chain["notes"]


def test_jobs_are_placed_on_route_steps_only_as_the_simulator_places_them():
    res = brewput.solve(pipelines("round_robin"), method="ctmc", from_state={"desk": 2}, over=5.0)
    assert res["method"] == "ctmc"
    with pytest.raises(BrewputError, match="station 'a1' is visited only inside a dispatch's branches"):
        brewput.solve(pipelines("round_robin"), method="ctmc", from_state={"a1": 2}, over=5.0)


def test_auto_answers_a_closed_dispatch_by_the_chain_where_the_formulas_refuse():
    # tests/test_corpus_solve_floor.py's floor-power-of-d-closed, which the formulas refuse
    branches = {f"b{i}": [{"station": f"s{i}", "service": "exp(1)"}] for i in range(3)}
    m = {"brewput": 1, "name": "m", "stations": {f"s{i}": {} for i in range(3)},
         "classes": {"c": {"population": 5, "route": [{"dispatch": branches, "policy": "power_of_d"}]}}}
    with pytest.raises(BrewputError, match="classes.c is closed"):
        brewput.solve(m, method="exact")
    auto, chain = brewput.solve(m), brewput.solve(m, method="ctmc")
    assert auto["method"] == "ctmc"
    assert auto["classes"]["c"]["throughput"] == chain["classes"]["c"]["throughput"] > 0


@pytest.mark.parametrize("policy, fields", [("shortest_queue", {}), ("power_of_d", {"d": 2}), ("round_robin", {}),
                                            ("shared", {}), ("least_utilized", {"tie": "random"})])
def test_the_bound_on_states_holds_what_the_walk_finds(policy, fields):
    floor = floor_of(as_model(pipelines(policy, **fields)).compile(), "test", constant_phases=1)
    assert len(generate(floor, 10**6).states) <= state_bound(floor)


@pytest.mark.parametrize("route, field", [
    ([{"fork": {"x": [{"station": "a", "service": "exp(1)"}], "y": [{"station": "b", "service": "exp(1)"}]}}],
     "classes.c.route: a fork step"),
    ([{"dispatch": {"x": [{"dispatch": {"p": [{"station": "a", "service": "exp(1)"}],
                                        "q": [{"station": "b", "service": "exp(1)"}]}}],
                    "y": [{"station": "b", "service": "exp(1)"}]}}],
     "classes.c.route: a dispatch step inside a branch"),
])
def test_forks_and_nested_dispatch_are_refused_in_one_line_naming_the_field(route, field):
    model = {"brewput": 1, "name": "m", "stations": {"a": {"servers": 1}, "b": {"servers": 1}},
             "classes": {"c": {"rate": 0.5, "route": route}}}
    with pytest.raises(BrewputError) as refused:
        brewput.solve(model, method="ctmc")
    message = str(refused.value)
    assert field in message and "\n" not in message, message


def test_no_tagged_customer_is_followed_where_a_dispatch_chooses():
    # the tagged customer would be a class of its own, outside its class's branch counts
    res = brewput.solve(pipelines("shortest_queue"), method="ctmc", quantiles=[90])
    assert res["classes"]["c"]["response_time"]["p90"] is None
    assert "c: no percentiles or service levels: its tagged customer's chain is not built where a dispatch step " \
           "chooses" in res["notes"]
