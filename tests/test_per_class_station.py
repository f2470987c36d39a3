"""Per class at each station (a station's `classes` block, docs/results.md "Per class at
each station"), in solve and simulate, against truths computed here: the product form of
a two-class open network (BCMP: at an exponential FCFS or PS single server of equal rates,
class c holds rho_c / (1 - rho)), exact MVA over the population lattice of a two-class
closed network, a chain built by hand with numpy for a model the ctmc method solves, and
the shares adding up to the station's totals."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import brewput
from brewput.results import CLASS_AT_STATION_FIGURES

RATES = {"a": 0.3, "b": 0.2}


def open_network():
    """Two open classes: both through an FCFS single server of mean 1 (equal rates, as
    BCMP needs at FCFS), then class a alone through a PS single server of mean 2 and
    class b through it twice (a loop of probability 1/2) with mean 0.5."""
    return {"brewput": 1, "name": "open two classes", "time_unit": "s",
            "stations": {"desk": {"servers": 1}, "cpu": {"servers": 1, "discipline": "ps"},
                         "clerk": {"servers": 1}},
            "classes": {"a": {"rate": RATES["a"], "route": [{"station": "desk", "service": "exp(1)"},
                                                            {"station": "cpu", "service": "exp(2)"}]},
                        "b": {"rate": RATES["b"], "route": [
                            {"station": "desk", "service": "exp(1)"},
                            {"id": "cpu", "station": "cpu", "service": "exp(0.5)", "next": {"cpu": 0.5, "exit": 0.5}}]}}}


def open_truth():
    """{station: {class: figures}} of the open network, by the product form."""
    truth = {}
    # (station, {class: (visits, mean service)}, whether jobs queue)
    for station, load in (("desk", {"a": (1, 1.0), "b": (1, 1.0)}), ("cpu", {"a": (1, 2.0), "b": (2, 0.5)})):
        rho = {c: RATES[c] * v * s for c, (v, s) in load.items()}
        total = sum(rho.values())
        truth[station] = {}
        for c, (v, s) in load.items():
            present = rho[c] / (1 - total)
            truth[station][c] = {"queue_length": present, "utilization": rho[c],
                                 "waiting": present - rho[c] if station == "desk" else 0.0,
                                 "throughput": RATES[c] * v, "response_time": s / (1 - total)}
    return truth


def closed_network():
    """Two closed classes: an FCFS disk of one mean for both (product form), a PS CPU of
    each class's own mean, and each class's think time (a delay)."""
    return {"brewput": 1, "name": "closed two classes", "time_unit": "s",
            "stations": {"cpu": {"servers": 1, "discipline": "ps"}, "disk": {"servers": 1}},
            "classes": {"a": {"population": 3, "think": "exp(4)",
                              "route": [{"station": "cpu", "service": "exp(0.5)"},
                                        {"station": "disk", "service": "exp(0.4)"}]},
                        "b": {"population": 2, "think": "exp(1)",
                              "route": [{"station": "cpu", "service": "exp(1.5)"},
                                        {"station": "disk", "service": "exp(0.4)"},
                                        {"station": "cpu", "service": "exp(1.5)"}]}}}


def exact_mva(demand, think, population):
    """Exact multi-class MVA over the population lattice (queueing stations, one server
    each): (R,) throughputs and (R, M) residence times and numbers present."""
    classes, stations = demand.shape
    present = {(0,) * classes: np.zeros(stations)}
    for n in sorted(itertools.product(*(range(k + 1) for k in population)), key=sum)[1:]:
        residence = np.zeros((classes, stations))
        for r in range(classes):
            if n[r]:
                less = tuple(k - (i == r) for i, k in enumerate(n))
                residence[r] = demand[r] * (1 + present[less])
        x = np.array([n[r] / (think[r] + residence[r].sum()) for r in range(classes)])
        present[n] = (x[:, None] * residence).sum(axis=0)
        last = x, residence
    x, residence = last
    return x, residence, x[:, None] * residence


def class_at(res, station, name):
    return res["stations"][station]["classes"][name]


def assert_adds_up(res, tolerance=0.0):
    """The classes' shares of L, Lq, utilization and throughput add up to the station's,
    and their response times, weighted by throughput, to its response time."""
    for station, s in res["stations"].items():
        classes = list(s["classes"].values())
        assert classes, f"{station} has its classes"
        for key in ("queue_length", "waiting", "utilization", "throughput"):
            if s[key] is None:
                assert all(c[key] is None for c in classes)
                continue
            total = sum(c[key] for c in classes)
            assert abs(total - s[key]) <= tolerance * max(1.0, abs(s[key])), (station, key, total, s[key])
        weighted = sum(c["throughput"] * c["response_time"] for c in classes) / s["throughput"]
        assert abs(weighted - s["response_time"]) <= max(tolerance, 1e-12) * s["response_time"] * 10


def test_solve_open_network_per_class_is_the_product_form():
    res = brewput.solve(open_network())
    truth = open_truth()
    for station, classes in truth.items():
        assert set(res["stations"][station]["classes"]) == set(classes)
        for c, figures in classes.items():
            for key, want in figures.items():
                assert class_at(res, station, c)[key] == pytest.approx(want, rel=1e-12), (station, c, key)
    assert res["stations"]["clerk"]["classes"] == {}, "a station no class visits has no classes"
    assert_adds_up({**res, "stations": {k: v for k, v in res["stations"].items() if k != "clerk"}}, 1e-12)


def test_solve_closed_network_per_class_is_exact_mva():
    res = brewput.solve(closed_network())
    demand = np.array([[0.5, 0.4], [3.0, 0.4]])  # class b visits the cpu twice
    x, residence, present = exact_mva(demand, [4.0, 1.0], [3, 2])
    visits = np.array([[1, 1], [2, 1]])
    for r, c in enumerate("ab"):
        for m, station in enumerate(("cpu", "disk")):
            got = class_at(res, station, c)
            assert got["queue_length"] == pytest.approx(present[r, m], rel=1e-10)
            assert got["throughput"] == pytest.approx(x[r] * visits[r, m], rel=1e-10)
            assert got["response_time"] == pytest.approx(residence[r, m] / visits[r, m], rel=1e-10)
            assert got["utilization"] == pytest.approx(x[r] * demand[r, m], rel=1e-10)
            busy = x[r] * demand[r, m]
            assert got["waiting"] == pytest.approx(0.0 if station == "cpu" else present[r, m] - busy, abs=1e-10)
    assert_adds_up(res, 1e-12)


def small_chain_model():
    """Two open classes of their own means at an FCFS single server holding at most 3
    jobs: no product form, the ctmc method's."""
    return {"brewput": 1, "name": "fcfs with a buffer", "time_unit": "s",
            "stations": {"desk": {"servers": 1, "buffer": 2}},
            "classes": {"a": {"rate": 0.6, "route": [{"station": "desk", "service": "exp(1)"}]},
                        "b": {"rate": 0.3, "route": [{"station": "desk", "service": "exp(2)"}]}}}


def test_solve_chain_per_class_is_a_hand_built_chain():
    """The chain by hand: a state is the line of classes, its head in service."""
    rate, mu, most = np.array([0.6, 0.3]), np.array([1.0, 0.5]), 3
    states = [line for n in range(most + 1) for line in itertools.product((0, 1), repeat=n)]
    index = {line: k for k, line in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for line, k in index.items():
        if len(line) < most:
            for c in (0, 1):
                q[k, index[line + (c,)]] += rate[c]
        if line:
            q[k, index[line[1:]]] += mu[line[0]]
    np.fill_diagonal(q, -q.sum(axis=1))
    pi = np.linalg.lstsq(np.vstack([q.T, np.ones(len(states))]), np.r_[np.zeros(len(states)), 1.0], rcond=None)[0]
    full = sum(p for line, p in zip(states, pi) if len(line) == most)
    res = brewput.solve(small_chain_model(), method="ctmc")
    for c, name in enumerate("ab"):
        present = sum(p * line.count(c) for line, p in zip(states, pi))
        busy = sum(p for line, p in zip(states, pi) if line and line[0] == c)
        got = class_at(res, "desk", name)
        assert got["queue_length"] == pytest.approx(present, rel=1e-9)
        assert got["utilization"] == pytest.approx(busy, rel=1e-9)
        assert got["waiting"] == pytest.approx(present - busy, rel=1e-9)
        assert got["throughput"] == pytest.approx(rate[c] * (1 - full), rel=1e-9)
        assert got["response_time"] == pytest.approx(present / (rate[c] * (1 - full)), rel=1e-9)
    assert_adds_up(res, 1e-12)


def test_one_class_at_a_station_is_the_station():
    one = {"brewput": 1, "name": "one", "time_unit": "s", "stations": {"desk": {"servers": 2}},
           "classes": {"call": {"rate": 1.5, "route": [{"station": "desk", "service": "exp(1)"}]}}}
    solved = brewput.solve(one)
    station = solved["stations"]["desk"]
    assert station["classes"]["call"] == {k: station[k] for k in CLASS_AT_STATION_FIGURES}


# simulate: against the same truths, within its intervals (fixed seeds), and its shares
# adding up to the station's totals to rounding, on every kind of station.

def assert_within_ci(got: dict, truth: dict, where: str):
    """Each figure within twice its interval's half-width of the truth (about five
    standard errors of five replications; the seeds are fixed)."""
    for key, want in truth.items():
        low, high = got[f"{key}_ci"]
        half = (high - low) / 2
        assert abs(got[key] - want) <= 2 * half + 1e-12, (where, key, got[key], [low, high], want)


def test_simulate_open_network_per_class_is_the_product_form():
    res = brewput.simulate(open_network(), customers=200_000, replications=5, seed=3)
    for station, classes in open_truth().items():
        for c, figures in classes.items():
            assert_within_ci(class_at(res, station, c), figures, f"{station} {c}")
    assert res["stations"]["clerk"]["classes"] == {}


def test_simulate_closed_network_per_class_is_exact_mva():
    res = brewput.simulate(closed_network(), customers=200_000, replications=5, seed=4)
    demand = np.array([[0.5, 0.4], [3.0, 0.4]])
    x, residence, present = exact_mva(demand, [4.0, 1.0], [3, 2])
    visits = np.array([[1, 1], [2, 1]])
    for r, c in enumerate("ab"):
        for m, station in enumerate(("cpu", "disk")):
            busy = x[r] * demand[r, m]
            assert_within_ci(class_at(res, station, c), {
                "queue_length": present[r, m], "throughput": x[r] * visits[r, m], "utilization": busy,
                "response_time": residence[r, m] / visits[r, m]}, f"{station} {c}")
            if station == "disk":
                assert_within_ci(class_at(res, station, c), {"waiting": present[r, m] - busy}, f"{station} {c}")


def test_simulate_agrees_with_the_chain():
    solved = brewput.solve(small_chain_model(), method="ctmc")
    res = brewput.simulate(small_chain_model(), customers=200_000, replications=5, seed=5)
    for c in "ab":
        truth = {k: class_at(solved, "desk", c)[k] for k in CLASS_AT_STATION_FIGURES}
        assert_within_ci(class_at(res, "desk", c), truth, c)


def model(stations, classes):
    return {"brewput": 1, "name": "floor", "time_unit": "s", "stations": stations, "classes": classes}


FLOOR = {
    "ps with two servers": model({"cpu": {"servers": 2, "discipline": "ps"}},
                                 {"a": {"rate": 0.8, "route": [{"station": "cpu", "service": "exp(1)"}]},
                                  "b": {"rate": 0.5, "route": [{"station": "cpu", "service": "exp(2)"}]}}),
    "preemption": model({"cpu": {"servers": 2, "discipline": "priority", "preempt": "resume"}},
                        {"high": {"rate": 0.7, "priority": 2, "route": [{"station": "cpu", "service": "exp(1)"}]},
                         "low": {"rate": 0.6, "route": [{"station": "cpu", "service": "exp(1)"}]}}),
    "patience": model({"s": {"servers": 2, "discipline": "priority"}},
                      {"a": {"rate": 1.0, "priority": 1,
                             "route": [{"station": "s", "service": "exp(1)", "patience": "exp(1)"}]},
                       "b": {"rate": 1.2, "route": [{"station": "s", "service": "exp(1)", "patience": "uniform(0, 3)"}]}}),
    "typed servers": model({"bar": {"servers": {"x": 1, "y": 1}, "take": "first_fit", "discipline": "priority"}},
                           {"a": {"rate": 0.5, "priority": 1, "route": [{"station": "bar", "service": "exp(0.8)"}]},
                            "b": {"rate": 0.6, "route": [{"station": "bar", "service": "exp(1)", "served_by": ["y"]}]}}),
    "blocking and a delay": model({"a": {"servers": 1, "buffer": 1}, "b": {"servers": 1, "buffer": 0},
                                   "walk": {"servers": "inf"}},
                                  {"c": {"rate": 0.4, "route": [{"station": "a", "service": "exp(1)"},
                                                                {"station": "b", "service": "exp(1.2)"},
                                                                {"station": "walk", "service": "exp(3)"}]},
                                   "d": {"population": 2, "think": "exp(2)",
                                         "route": [{"station": "a", "service": "exp(0.5)"},
                                                   {"station": "walk", "service": "exp(1)"}]}}),
    "fork": model({"espresso": {"servers": 1}, "steamer": {"servers": 1}},
                  {"latte": {"rate": 0.4, "route": [{"fork": {"coffee": [{"station": "espresso", "service": "exp(1)"}],
                                                              "milk": [{"station": "steamer", "service": "exp(1)"}]},
                                                     "join": "all"}]},
                   "tea": {"rate": 0.2, "route": [{"station": "steamer", "service": "exp(0.5)"}]}}),
}


@pytest.mark.parametrize("name", FLOOR)
def test_simulate_shares_add_up_to_the_station(name):
    for replications in (1, 3):
        res = brewput.simulate(FLOOR[name], customers=20_000, replications=replications, seed=6)
        for station, s in res["stations"].items():
            classes = s["classes"].values()
            for key in ("queue_length", "waiting", "utilization", "throughput"):
                if s[key] is None:
                    assert all(c[key] is None for c in classes), (station, key)
                    continue
                assert sum(c[key] for c in classes) == pytest.approx(s[key], rel=1e-9, abs=1e-12), (station, key)
            if replications == 1:  # a ratio per replication: the weighted mean is the station's in one
                weighted = sum(c["throughput"] * c["response_time"] for c in classes) / s["throughput"]
                assert weighted == pytest.approx(s["response_time"], rel=1e-9), station


def test_simulate_one_class_is_the_station_bit_for_bit():
    one = {"brewput": 1, "name": "one", "time_unit": "s", "stations": {"desk": {"servers": 2, "buffer": 4}},
           "classes": {"call": {"rate": 1.5, "route": [{"station": "desk", "service": "exp(1)"}]}}}
    res = brewput.simulate(one, customers=20_000, replications=3)
    station = res["stations"]["desk"]
    keys = [k for name in CLASS_AT_STATION_FIGURES for k in (name, f"{name}_ci")]
    assert station["classes"]["call"] == {k: station[k] for k in keys}


def test_tables_hold_a_row_per_class_at_each_station_with_several_classes(tmp_path):
    res = brewput.simulate(closed_network(), customers=20_000, replications=2)
    tidy = brewput.table(res)
    rows = tidy[tidy.kind == "class at station"]
    assert set(rows.name) == {"cpu · a", "cpu · b", "disk · a", "disk · b"}
    cpu_b = rows[rows.name == "cpu · b"].set_index("figure")
    at = class_at(res, "cpu", "b")
    for key in CLASS_AT_STATION_FIGURES:
        assert cpu_b.loc[key, "value"] == at[key] and [cpu_b.loc[key, "ci_low"], cpu_b.loc[key, "ci_high"]] == at[f"{key}_ci"]
    assert cpu_b.loc["response_time", "unit"] == "s" and cpu_b.loc["throughput", "unit"] == "/s"
    flat = brewput.table(res, tidy=False)
    assert not any(column.startswith("classes_") for column in flat.columns), "the block is rows, not columns"
    assert len(flat[flat.kind == "class at station"]) == 4
    one = brewput.table(brewput.simulate(small_chain_model() | {"classes": {"a": small_chain_model()["classes"]["a"]}},
                                         customers=2_000, replications=2))
    assert "class at station" not in set(one.kind), "with one class the station's rows are the class's"


def test_simulate_agrees_with_the_chain_under_blocking():
    """An open and a closed class through a buffer of one and a station with no room
    but its server: jobs blocked after service at the first station are present there
    but neither served nor waiting, per class as the chain counts them."""
    blocking = model({"a": {"servers": 1, "buffer": 1}, "b": {"servers": 1, "buffer": 0}},
                     {"c": {"rate": 0.4, "route": [{"station": "a", "service": "exp(1)"},
                                                   {"station": "b", "service": "exp(1.2)"}]},
                      "d": {"population": 2, "think": "exp(2)",
                            "route": [{"station": "a", "service": "exp(0.5)"}, {"station": "b", "service": "exp(0.4)"}]}})
    solved = brewput.solve(blocking, method="ctmc")
    a = solved["stations"]["a"]["classes"]
    assert all(c["queue_length"] - c["utilization"] - c["waiting"] > 0.01 for c in a.values()), "some are blocked"
    assert_adds_up(solved, 1e-12)
    res = brewput.simulate(blocking, customers=200_000, replications=5, seed=2)
    for station, s in solved["stations"].items():
        for c, figures in s["classes"].items():
            assert_within_ci(class_at(res, station, c), {k: figures[k] for k in CLASS_AT_STATION_FIGURES},
                             f"{station} {c}")


def test_compare_puts_each_class_at_each_station_beside_the_simulation():
    from brewput.compare import compare_results

    res = brewput.simulate(closed_network(), customers=100_000, replications=5, seed=8)
    rows = {row.figure: row for row in compare_results(brewput.solve(closed_network()), res)}
    for station in ("cpu", "disk"):
        for c in "ab":
            for key in CLASS_AT_STATION_FIGURES:
                row = rows[f"{station} {c} {key.replace('_', ' ')}"]
                assert row.simulated == class_at(res, station, c)[key] and row.exact
                assert row.inside, row
    one = {"brewput": 1, "name": "one", "time_unit": "s", "stations": {"desk": {"servers": 2}},
           "classes": {"call": {"rate": 1.5, "route": [{"station": "desk", "service": "exp(1)"}]}}}
    figures = [row.figure for row in compare_results(brewput.solve(one), brewput.simulate(one, customers=2_000))]
    assert not any(f.startswith("desk call") for f in figures), "one class: the station's rows are the class's"
