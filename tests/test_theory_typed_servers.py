"""Typed servers under FCFS-ALIS (brewput.analytic.typed_servers, the Adan-Weiss
product form) against the Markov chain of the same system, built here from its
dynamics, not from the product form: the state is the ordered list of waiting
customers' types, what each individual server is serving (or idle), and the idle
servers in the order they became idle. An arrival takes the longest-idle server
that may serve it, else joins the end of the line; a server that finishes takes
the first waiting customer it may serve, else joins the end of the idle list.
The line is truncated at a length whose stationary mass is checked negligible.
"""

import numpy as np
import pytest

import markov
import theory
from brewput.analytic.typed_servers import fcfs_alis
from brewput.errors import BrewputError


def markov_chain(arrival_rates, servers, service_rates, served_by, line):
    """Stationary measures of the FCFS-ALIS chain with at most `line` waiting."""
    customers = list(arrival_rates)
    unit_type = [t for t in servers for _ in range(servers[t])]  # one entry per individual server
    able = [[t in served_by[c] for t in unit_type] for c in customers]
    start = ((), (-1,) * len(unit_type), tuple(range(len(unit_type))))
    index, states, rows, cols, rates = {start: 0}, [start], [], [], []
    serving_events = []  # (state, customer, unit, rate) of service completions

    def add(frm, to, rate):
        if to not in index:
            index[to] = len(states)
            states.append(to)
        rows.append(frm)
        cols.append(index[to])
        rates.append(rate)

    n = 0
    while n < len(states):
        queue, serving, idle = states[n]
        for c, name in enumerate(customers):
            chosen = next((u for u in idle if able[c][u]), None)
            if chosen is not None:
                add(n, (queue, serving[:chosen] + (c,) + serving[chosen + 1:],
                        tuple(u for u in idle if u != chosen)), arrival_rates[name])
            elif len(queue) < line:
                add(n, (queue + (c,), serving, idle), arrival_rates[name])
        for u, c in enumerate(serving):
            if c < 0:
                continue
            rate = service_rates[unit_type[u]]
            serving_events.append((n, c, u, rate))
            taken = next((i for i, w in enumerate(queue) if able[w][u]), None)
            if taken is None:
                add(n, (queue, serving[:u] + (-1,) + serving[u + 1:], idle + (u,)), rate)
            else:
                add(n, (queue[:taken] + queue[taken + 1:], serving[:u] + (queue[taken],) + serving[u + 1:], idle),
                    rate)
        n += 1
    size = len(states)
    pi = markov.stationary(rows, cols, rates, size)

    lam = np.array([arrival_rates[c] for c in customers])
    kinds = list(servers)
    waiting = np.zeros((size, len(customers)))
    busy = np.zeros((size, len(kinds)))
    finds_none = np.zeros((size, len(customers)))
    full = np.zeros(size)
    for n, (queue, serving, idle) in enumerate(states):
        for w in queue:
            waiting[n, w] += 1
        for u, c in enumerate(serving):
            busy[n, kinds.index(unit_type[u])] += c >= 0
        for c in range(len(customers)):
            finds_none[n, c] = not any(able[c][u] for u in idle)
        full[n] = len(queue) == line
    wait = pi @ waiting / lam
    matching = {}
    for n, c, u, rate in serving_events:
        key = (customers[c], unit_type[u])
        matching[key] = matching.get(key, 0.0) + pi[n] * rate
    service = np.array([sum(r / service_rates[t] for (cc, t), r in matching.items() if cc == c)
                        for c in customers]) / lam
    return dict(wait=dict(zip(customers, wait)), response=dict(zip(customers, wait + service)),
                matching=matching, utilization=dict(zip(kinds, pi @ busy / [servers[t] for t in kinds])),
                waiting_probability=dict(zip(customers, pi @ finds_none)), full_line=pi @ full, states=size)


MODELS = {
    # N: type a only the flexible server may serve; b either.
    "N": (dict(a=0.28, b=0.44), dict(flex=1, dedicated=1), dict(flex=1.0, dedicated=1.5),
          dict(a=["flex"], b=["flex", "dedicated"]), 10),
    # W: two servers, a and c each dedicated to one, b flexible.
    "W": (dict(a=0.15, b=0.2, c=0.2), dict(m1=1, m2=1), dict(m1=1.0, m2=2.0),
          dict(a=["m1"], b=["m1", "m2"], c=["m2"]), 7),
    # The coffee bar: two espresso machines, one drip station; drip may also go to a machine.
    "bar": (dict(latte=0.5, drip=0.7), dict(espresso=2, drip_station=1), dict(espresso=1.0, drip_station=2.0),
            dict(latte=["espresso"], drip=["drip_station", "espresso"]), 10),
    # A cycle (matching rates not fixed by the marginals): every type has two of three servers.
    "cycle": (dict(a=0.12, b=0.18, c=0.15), dict(m1=1, m2=1, m3=1), dict(m1=1.0, m2=1.3, m3=0.8),
              dict(a=["m1", "m2"], b=["m2", "m3"], c=["m3", "m1"]), 6),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_product_form_matches_the_markov_chain(name):
    rates, servers, service, served_by, line = MODELS[name]
    truth = markov_chain(rates, servers, service, served_by, line)
    # The truncated chain differs from the infinite one by a multiple of the mass on its
    # boundary (about 40 times it here, shrinking as the boundary moves out).
    assert truth["full_line"] < 1e-5
    result = fcfs_alis(rates, servers, service, served_by)
    assert result.exact
    tol = 1e-3
    for c in rates:
        assert result.wait[c] == pytest.approx(truth["wait"][c], rel=tol), c
        assert result.response[c] == pytest.approx(truth["response"][c], rel=tol), c
        assert result.waiting_probability[c] == pytest.approx(truth["waiting_probability"][c], rel=tol), c
        assert result.throughput[c] == rates[c]
    for t in servers:
        assert result.utilization[t] == pytest.approx(truth["utilization"][t], rel=tol), t
    assert set(result.matching_rates) == set(truth["matching"])
    for key, rate in truth["matching"].items():
        assert result.matching_rates[key] == pytest.approx(rate, rel=tol), key
    assert min(truth["wait"].values()) > 0.01  # customers do wait: the comparison is not of zeros


@pytest.mark.parametrize("c, lam", [(1, 0.7), (3, 2.4), (200, 190.0)])
def test_one_type_is_erlang_c(c, lam):
    # One customer type, c identical servers: M/M/c, whatever the assignment rule.
    result = fcfs_alis(dict(x=lam), dict(agent=c), dict(agent=1.0), dict(x=["agent"]))
    assert result.wait["x"] == pytest.approx(theory.mmc_wait_mean(lam, 1.0, c), rel=1e-9)
    assert result.waiting_probability["x"] == pytest.approx(theory.erlang_c(c, lam), rel=1e-9)
    assert result.utilization["agent"] == pytest.approx(lam / c, rel=1e-9)


def test_full_flexibility_at_one_rate_is_erlang_c():
    # Every type may use every server and all serve at one rate: one M/M/50, whatever the
    # types; the recursions cross 31 x 21 count vectors with their per-level scales.
    rates = dict(x=10.0, y=15.0, z=20.0)
    everyone = dict(x=["a", "b"], y=["b", "a"], z=["a", "b"])
    result = fcfs_alis(rates, dict(a=30, b=20), dict(a=1.0, b=1.0), everyone)
    wait = theory.mmc_wait_mean(45.0, 1.0, 50)
    for c in rates:
        assert result.wait[c] == pytest.approx(wait, rel=1e-9)
        assert result.response[c] == pytest.approx(wait + 1.0, rel=1e-9)
    assert result.utilization == {"a": pytest.approx(0.9, rel=1e-9), "b": pytest.approx(0.9, rel=1e-9)}
    # Busy servers share the work in proportion to their numbers: 30 : 20 of each type.
    assert result.matching_rates[("z", "a")] == pytest.approx(20.0 * 30 / 50, rel=1e-9)


def test_dedicated_servers_are_separate_queues():
    # No shared skills: each type is its own M/M/c.
    result = fcfs_alis(dict(a=0.5, b=1.5), dict(p=1, q=2), dict(p=1.0, q=1.0), dict(a=["p"], b=["q"]))
    assert result.wait["a"] == pytest.approx(theory.mmc_wait_mean(0.5, 1.0, 1), rel=1e-12)
    assert result.wait["b"] == pytest.approx(theory.mmc_wait_mean(1.5, 1.0, 2), rel=1e-12)
    assert result.matching_rates == {("a", "p"): pytest.approx(0.5), ("b", "q"): pytest.approx(1.5)}


def test_server_type_nobody_uses_is_idle():
    result = fcfs_alis(dict(a=0.5), dict(p=1, spare=2), dict(p=1.0, spare=3.0), dict(a=["p"]))
    assert result.utilization == {"p": pytest.approx(0.5), "spare": 0.0}
    assert result.wait["a"] == pytest.approx(1.0)  # M/M/1 at 50 %: Wq = rho / (mu - lam)


N_MODEL = (dict(a=0.28, b=0.44), dict(flex=1, dedicated=1), dict(flex=1.0, dedicated=1.5),
           dict(a=["flex"], b=["flex", "dedicated"]))


@pytest.mark.parametrize("change, words", [
    # Unstable: a subset of customer types overloads the servers able to serve it.
    (dict(rates=dict(a=1.0, b=0.44)), ["{a}", "{flex}", "unstable"]),
    (dict(rates=dict(a=1.2, b=0.1)), ["{a}", "{flex}", "unstable"]),
    (dict(rates=dict(a=0.5, b=2.0)), ["{a, b}", "{flex, dedicated}", "unstable"]),
    (dict(rates=dict(a=0.9, b=1.7)), ["{a, b}", "unstable"]),
    # Malformed rates, counts, names.
    (dict(rates=dict(a=0.0, b=0.44)), ["customer type a", "arrival rate", "positive"]),
    (dict(rates=dict(a=-1, b=0.44)), ["customer type a", "arrival rate"]),
    (dict(rates=dict(a=float("nan"), b=0.44)), ["customer type a", "arrival rate"]),
    (dict(rates=dict(a="fast", b=0.44)), ["customer type a", "arrival rate"]),
    (dict(rates={}), ["no customer types"]),
    (dict(servers=dict(flex=0, dedicated=1)), ["server type flex", "count", "positive integer"]),
    (dict(servers=dict(flex=1.5, dedicated=1)), ["server type flex", "count"]),
    (dict(servers=dict(flex=True, dedicated=1)), ["server type flex", "count"]),
    (dict(service=dict(flex=1.0, dedicated=0.0)), ["server type dedicated", "service rate"]),
    (dict(service=dict(flex=1.0)), ["server type dedicated", "service rate"]),
    (dict(service=dict(flex=float("inf"), dedicated=1.0)), ["server type flex", "service rate"]),
    (dict(served_by=dict(a=["flex"], b=["flex", "barista"])), ["customer type b", "'barista'", "not a server type"]),
    (dict(served_by=dict(a=[], b=["flex"])), ["customer type a", "served_by names no server type"]),
    (dict(served_by=dict(a=[["flex"]], b=["flex"])), ["customer type a", "['flex']", "not a server type"]),
    (dict(served_by=dict(b=["flex"])), ["customer type a", "served_by"]),
    (dict(served_by=dict(a="flex", b=["flex"])), ["customer type a", "a list of server types", "'flex'"]),
    (dict(served_by=dict(a=["flex"], b={"flex": 1})), ["customer type b", "a list of server types"]),
    (dict(served_by=dict(a=["flex"], b=["flex"], c=["flex"])), ["customer type 'c'", "no arrival rate"]),
    (dict(servers=dict(flex=200, dedicated=200, spare=200)), ["3 server types of 200, 200, 200 servers", "beyond the limit", "simulate"]),
])
def test_bad_input_is_one_clear_error(change, words):
    rates, servers, service, served_by = N_MODEL
    args = dict(rates=rates, servers=servers, service=service, served_by=served_by)
    args.update(change)
    if "spare" in args["servers"]:
        args["service"] = dict(flex=1.0, dedicated=1.5, spare=1.0)
        args["served_by"] = dict(a=["flex"], b=["flex", "dedicated", "spare"])
    with pytest.raises(BrewputError) as error:
        fcfs_alis(args["rates"], args["servers"], args["service"], args["served_by"])
    message = str(error.value)
    assert "\n" not in message and message.startswith("typed servers:")
    for word in words:
        assert word in message, message
