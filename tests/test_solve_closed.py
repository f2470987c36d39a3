"""Closed networks (brewput.analytic.closed) against independent truths: a recursion
worked by hand, brute-force Markov chains built here with numpy, birth-death
chains in log space, and the approximations' own defining equations."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import brewput
from brewput.cli.common import option_name
from brewput.errors import BrewputError, OptionError
from brewput.analytic.closed import solve_closed
from brewput.analytic.network import Network, Unsupported, network_of
from conftest import EXAMPLES

TIGHT = 1e-9  # relative: the exact methods against exact truths


def network(demand, servers, think, population, discipline="ps", scv=1.0, priority=None):
    """A closed Network with one visit per station, so service time = demand
    (processor sharing by default: product form for any class's mean)."""
    demand = np.atleast_2d(np.asarray(demand, dtype=float))
    classes, stations = demand.shape
    disciplines = (discipline,) * stations if isinstance(discipline, str) else tuple(discipline)
    return Network(
        stations=tuple(f"s{m}" for m in range(stations)), servers=np.asarray(servers, dtype=float),
        discipline=disciplines, capacity=np.full(stations, np.inf),
        classes=tuple(f"c{r}" for r in range(classes)), arrival_rate=np.zeros(classes),
        arrival_scv=np.zeros(classes), arrival_poisson=np.zeros(classes, dtype=bool),
        population=np.asarray(population),
        think=np.asarray(think, dtype=float),
        priority=np.zeros(classes) if priority is None else np.asarray(priority),
        visits=(demand > 0).astype(float), service=demand,
        class_servers=np.tile(np.asarray(servers, dtype=float), (classes, 1)),
        service_scv=np.where(demand > 0, np.asarray(scv, dtype=float), 0.0),
        service_exponential=(demand > 0) & (np.asarray(scv, dtype=float) == 1.0))


# ---- a brute-force Markov chain ------------------------------------------------------


def compositions(total, parts):
    """Every tuple of `parts` non-negative integers that sum to `total`."""
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1,) + bars + (total + parts - 1,)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def ctmc(classes, servers):
    """Solve a closed multi-class network as a continuous-time Markov chain on the
    number of customers of each class at each node: build the generator, solve
    pi Q = 0 with sum(pi) = 1.

    Each class is a dict: population, think (mean; 0 for none), entry (the station
    a cycle starts at), P (station-to-station routing; what a row lacks of 1 is
    the probability of ending the cycle), rate (service rate per station).
    Stations share their `servers` by processor sharing: with n customers present
    each is served at min(1, c / n) of its rate (c = inf: a delay).
    Returns (cycles completed per time unit (R,), mean customers at each station (R, K)).
    """
    k_nodes = len(servers)
    think_node = k_nodes
    places = []  # per class: the nodes its customers can be at
    for c in classes:
        visits = np.linalg.solve((np.eye(k_nodes) - c["P"]).T, np.eye(k_nodes)[c["entry"]])
        places.append([k for k in range(k_nodes) if visits[k] > 1e-12] + ([think_node] if c["think"] else []))
    per_class = []
    for c, nodes in zip(classes, places):
        options = []
        for counts in compositions(c["population"], len(nodes)):
            full = [0] * (k_nodes + 1)
            for node, count in zip(nodes, counts):
                full[node] = count
            options.append(tuple(full))
        per_class.append(options)
    states = list(itertools.product(*per_class))
    index = {s: i for i, s in enumerate(states)}
    generator = np.zeros((len(states), len(states)))
    exits = np.zeros((len(states), len(classes)))
    for i, state in enumerate(states):
        n = np.array(state)
        present = n.sum(axis=0)
        for r, c in enumerate(classes):
            for k in np.flatnonzero(n[r]):
                if k == think_node:
                    rate, moves = n[r, k] / c["think"], {c["entry"]: 1.0}
                else:
                    share = 1.0 if math.isinf(servers[k]) else min(1.0, servers[k] / present[k])
                    rate = c["rate"][k] * n[r, k] * share
                    done = 1.0 - c["P"][k].sum()
                    moves = {j: p for j, p in enumerate(c["P"][k]) if p > 0}
                    end = think_node if c["think"] else c["entry"]
                    moves[end] = moves.get(end, 0.0) + done
                    exits[i, r] += rate * done
                for j, p in moves.items():
                    if j != k:
                        target = n.copy()
                        target[r, k] -= 1
                        target[r, j] += 1
                        generator[i, index[tuple(map(tuple, target))]] += rate * p
    np.fill_diagonal(generator, -generator.sum(axis=1))
    system = np.vstack([generator.T, np.ones(len(states))])
    pi = np.linalg.lstsq(system, np.r_[np.zeros(len(states)), 1.0], rcond=None)[0]
    counts = np.einsum("s,srk->rk", pi, np.array(states, dtype=float))
    return pi @ exits, counts[:, :k_nodes]


def solve_both(classes, servers, method="auto"):
    """The chain's figures and brewput's for the same network."""
    k_nodes = len(servers)
    visits = np.array([np.linalg.solve((np.eye(k_nodes) - c["P"]).T, np.eye(k_nodes)[c["entry"]])
                       for c in classes])
    rates = np.array([c["rate"] for c in classes], dtype=float)
    net = network(visits / rates, servers, [c["think"] for c in classes],
                  [c["population"] for c in classes])
    net = Network(**{**net.__dict__, "visits": visits, "service": 1 / rates})
    return ctmc(classes, servers), solve_closed(net, method), visits / rates


def assert_matches_chain(chain, sol, demand, servers, rtol=TIGHT):
    throughput, customers = chain
    np.testing.assert_allclose(sol.throughput, throughput, rtol=rtol)
    np.testing.assert_allclose(sol.queue_length, customers, rtol=rtol, atol=1e-12)
    per_server = np.where(np.isinf(servers), 1.0, servers)
    np.testing.assert_allclose(sol.utilization, throughput[:, None] * demand / per_server, rtol=rtol)
    # Little's law per class: response time = customers in the cycle / throughput
    np.testing.assert_allclose(sol.response_time, customers.sum(axis=1) / throughput, rtol=rtol)


def test_chain_of_one_queue_is_the_machine_repairman():
    # The helper itself, against the textbook M/M/1//N: N = 2, think 1, service 1.
    # p(0) : p(1) : p(2) = 1 : 2 : 2 (arrival rates 2 and 1), so X = 4/5, Q = 6/5.
    (x, q) = ctmc([dict(population=2, think=1.0, entry=0, P=np.zeros((1, 1)), rate=[1.0])], [1.0])
    assert x[0] == pytest.approx(0.8, rel=1e-12) and q[0, 0] == pytest.approx(1.2, rel=1e-12)


# ---- exact MVA ---------------------------------------------------------------------------


def test_single_class_mva_worked_by_hand():
    # D = (1, 2, 1), Z = 4. R_k(n) = D_k (1 + Q_k(n - 1)), X(n) = n / (Z + sum R), Q = X R:
    #   n = 1: R = (1, 2, 1)                 X = 1 / (4 + 4)       = 1/8    Q = (1/8, 2/8, 1/8)
    #   n = 2: R = (9/8, 20/8, 9/8)          X = 2 / (4 + 38/8)    = 8/35   Q = (9/35, 20/35, 9/35)
    #   n = 3: R = (44/35, 110/35, 44/35)    X = 3 / (4 + 198/35)  = 105/338
    #          Q = (66/169, 165/169, 66/169), and sum Q + X Z = 297/169 + 210/169 = 3.
    for n, x, residence in [(1, Fraction(1, 8), [1, 2, 1]),
                            (2, Fraction(8, 35), [Fraction(9, 8), Fraction(20, 8), Fraction(9, 8)]),
                            (3, Fraction(105, 338), [Fraction(44, 35), Fraction(110, 35), Fraction(44, 35)])]:
        sol = solve_closed(network([1, 2, 1], [1, 1, 1], [4], [n]))
        assert sol.method == "mva-exact" and sol.exact_class.all() and sol.exact_station.all()
        assert sol.throughput[0] == pytest.approx(float(x), rel=1e-14)
        np.testing.assert_allclose(sol.residence_time[0], [float(r) for r in residence], rtol=1e-14)
        np.testing.assert_allclose(sol.queue_length[0], [float(x * r) for r in residence], rtol=1e-14)
        assert sol.response_time[0] == pytest.approx(float(sum(residence)), rel=1e-14)
    assert sol.queue_length[0] == pytest.approx([66 / 169, 165 / 169, 66 / 169], rel=1e-14)
    np.testing.assert_allclose(sol.utilization[0], [105 / 338, 210 / 338, 105 / 338], rtol=1e-14)


def test_central_server_example_vs_chain():
    # examples/central-server.yaml: think exp(100); cpu exp(2) then disk1 (0.6),
    # disk2 (0.3) or done (0.1); each disk back to the cpu.
    classes = [dict(population=10, think=100.0, entry=0, rate=[1 / 2, 1 / 3, 1 / 5],
                    P=np.array([[0, 0.6, 0.3], [1, 0, 0], [1, 0, 0]]))]
    throughput, customers = ctmc(classes, [1, 1, 1])
    sol = solve_closed(network_of(brewput.load(EXAMPLES / "central-server.yaml")))
    assert sol.method == "mva-exact" and sol.exact_class.all()
    np.testing.assert_allclose(sol.throughput, throughput, rtol=TIGHT)
    np.testing.assert_allclose(sol.queue_length, customers, rtol=TIGHT)


MULTICLASS = {
    # two classes, two single-server stations, class-dependent rates (processor sharing)
    "two-queues": ([dict(population=2, think=3.0, entry=0, rate=[1.0, 0.5], P=np.array([[0, 1], [0, 0]])),
                    dict(population=3, think=1.0, entry=1, rate=[2.0, 0.8], P=np.array([[0, 0], [0.5, 0]]))],
                   [1, 1]),
    # feedback, a delay station, and a class that never visits one queue
    "feedback-delay": ([dict(population=3, think=2.0, entry=0, rate=[1.5, 1.0, 0.5],
                             P=np.array([[0, 0.4, 0.3], [0.5, 0, 0], [1, 0, 0]])),
                        dict(population=2, think=4.0, entry=2, rate=[1.0, 1.0, 2.0],
                             P=np.array([[0, 0, 0], [0, 0, 0], [0.7, 0, 0]]))],
                       [1, 1, math.inf]),
    # three classes at two queues
    "three-classes": ([dict(population=1, think=1.0, entry=0, rate=[1.0, 1.0], P=np.array([[0, 1], [0, 0]])),
                       dict(population=2, think=0.5, entry=1, rate=[3.0, 1.0], P=np.array([[0, 0], [1, 0]])),
                       dict(population=2, think=2.0, entry=0, rate=[0.7, 2.0], P=np.array([[0, 0.5], [0, 0]]))],
                      [1, 1]),
}


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_multiclass_mva_vs_chain(name):
    classes, servers = MULTICLASS[name]
    chain, sol, demand = solve_both(classes, servers)
    assert sol.method == "mva-exact" and sol.exact_class.all()
    assert_matches_chain(chain, sol, demand, np.array(servers, dtype=float))


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_convolution_agrees_on_single_server_networks(name):
    classes, servers = MULTICLASS[name]
    chain, sol, demand = solve_both(classes, servers, method="convolution")
    assert sol.method == "convolution" and sol.exact_class.all()
    assert_matches_chain(chain, sol, demand, np.array(servers, dtype=float))


# ---- multi-server stations -------------------------------------------------------------------


def machine_repairman(n, think, service, c):
    """N customers think (mean `think`), then queue for c servers (mean `service`):
    the number at the servers is a birth-death chain, birth (N - j) / think,
    death min(j, c) / service, weighted in log space so no term overflows.
    Returns (throughput, customers at the servers)."""
    j = np.arange(n + 1)
    steps = np.log((n - j[1:] + 1) / think) - np.log(np.minimum(j[1:], c) / service)
    log_p = np.r_[0.0, np.cumsum(steps)]
    p = np.exp(log_p - log_p.max())
    p /= p.sum()
    return p @ (np.minimum(j, c) / service), p @ j


@pytest.mark.parametrize("c", [1, 2, 8, 100, 300])
@pytest.mark.parametrize("n", [1, 10, 100, 500])
def test_multiserver_vs_birth_death(c, n):
    think = 10.0
    service = think * c / n  # the servers' capacity about matches what the users offer
    x, q = machine_repairman(n, think, service, c)
    sol = solve_closed(network([service], [c], [think], [n], discipline="fifo"))
    assert sol.exact_class.all()
    assert sol.throughput[0] == pytest.approx(x, rel=TIGHT)
    assert sol.queue_length[0, 0] == pytest.approx(q, rel=TIGHT)
    assert sol.residence_time[0, 0] == pytest.approx(q / x, rel=TIGHT)
    assert sol.utilization[0, 0] == pytest.approx(x * service / c, rel=TIGHT)


def test_thousands_of_users_and_servers_stay_finite():
    # G(N) here is far beyond floating point (about e^7000): log space keeps it.
    x, q = machine_repairman(2000, 1.0, 1000.0, 1000)
    sol = solve_closed(network([1000.0], [1000], [1.0], [2000]), method="convolution")
    assert sol.throughput[0] == pytest.approx(x, rel=TIGHT)
    assert sol.queue_length[0, 0] == pytest.approx(q, rel=TIGHT)


MULTISERVER = {
    "one-class": ([dict(population=5, think=2.0, entry=0, rate=[1.0, 1.5], P=np.array([[0, 0.7], [0.4, 0]]))],
                  [3, 1]),
    "two-classes": ([dict(population=3, think=1.0, entry=0, rate=[0.5, 1.0], P=np.array([[0, 1], [0, 0]])),
                     dict(population=2, think=2.0, entry=0, rate=[0.25, 2.0], P=np.array([[0, 0.5], [0, 0]]))],
                    [2, 1]),
}


@pytest.mark.parametrize("name", sorted(MULTISERVER))
def test_multiserver_network_vs_chain(name):
    classes, servers = MULTISERVER[name]
    chain, sol, demand = solve_both(classes, servers)
    assert sol.method == "convolution" and sol.exact_class.all()
    assert sol.station_method == ["convolution", "convolution"]
    assert_matches_chain(chain, sol, demand, np.array(servers, dtype=float))


def test_multiclass_example_vs_chain():
    # examples/multiclass.yaml: queries (cpu 10, disk 8, cpu 10, disk 8, cpu 10 ms)
    # and reports (cpu 50 ms, then disk 8 ms (0.9) or done). The chain takes the
    # queries' route as cpu -> disk (2/3) or done, disk -> cpu: the same visits
    # (3 and 2) and demands, which is all a product-form network depends on.
    classes = [dict(population=4, think=2000.0, entry=0, rate=[1 / 10, 1 / 8],
                    P=np.array([[0, 2 / 3], [1, 0]])),
               dict(population=2, think=0.0, entry=0, rate=[1 / 50, 1 / 8], P=np.array([[0, 0.9], [1, 0]]))]
    throughput, customers = ctmc(classes, [2, 1])
    model = brewput.load(EXAMPLES / "multiclass.yaml", params={"clerks": 4})
    sol = solve_closed(network_of(model))
    assert sol.method == "convolution" and sol.exact_class.all()
    np.testing.assert_allclose(sol.throughput, throughput, rtol=TIGHT)
    np.testing.assert_allclose(sol.queue_length, customers, rtol=TIGHT)


def test_mva_on_multiserver_stations_is_seidmann_and_says_so():
    classes, servers = MULTISERVER["two-classes"]
    chain, sol, demand = solve_both(classes, servers, method="mva")
    assert sol.method == "mva-exact+seidmann" and not sol.exact_class.any() and not sol.exact_station.any()
    assert sol.station_method == ["mva-exact+seidmann", "mva-exact"]
    assert any("Seidmann" in note for note in sol.notes)
    np.testing.assert_allclose(sol.throughput, chain[0], rtol=0.1)  # an approximation, but close


def test_interactive_example_is_textbook_mva():
    import theory

    sol = solve_closed(network_of(brewput.load(EXAMPLES / "interactive.yaml")))
    x, residence, queue = theory.mva([0.1, 0.075, 0.06], 5.0, 40)
    assert sol.throughput[0] == pytest.approx(x, rel=1e-12)
    np.testing.assert_allclose(sol.residence_time[0], residence, rtol=1e-12)
    np.testing.assert_allclose(sol.queue_length[0], queue, rtol=1e-12)


# ---- approximate MVA -------------------------------------------------------------------------

MODERATE = dict(demand=[[0.3, 0.2, 0.5, 0.1, 1.0], [0.1, 0.4, 0.2, 0.3, 2.0], [0.6, 0.1, 0.1, 0.2, 0.5]],
                servers=[1, 1, 1, 1, math.inf], think=[2.0, 5.0, 1.0], population=[10, 8, 12])


def test_approximations_are_close_to_exact():
    net = network(**MODERATE)
    exact = solve_closed(net, "mva-exact")
    # Measured: Bard-Schweitzer 3.2 % off at most, 0.11 customers; Linearizer 0.14 %, 0.01.
    for method, tolerance, customers in [("bard-schweitzer", 0.05, 0.15), ("linearizer", 0.005, 0.02)]:
        sol = solve_closed(net, method)
        assert sol.method == method and not sol.exact_class.any() and not sol.exact_station.any()
        np.testing.assert_allclose(sol.throughput, exact.throughput, rtol=tolerance)
        np.testing.assert_allclose(sol.response_time, exact.response_time, rtol=tolerance)
        np.testing.assert_allclose(sol.queue_length, exact.queue_length, rtol=0, atol=customers)
    error = {m: np.abs(solve_closed(net, m).throughput / exact.throughput - 1).max()
             for m in ("bard-schweitzer", "linearizer")}
    assert error["linearizer"] < error["bard-schweitzer"] / 3


def test_bard_schweitzer_is_its_fixed_point():
    # Schweitzer: a customer of class r finds Q_sm (N_s - [s = r]) / N_s of class s,
    # R_rm = D_rm (1 + sum_s that) at queues, D_rm at delays; X_r = N_r / (Z_r + sum_m R_rm).
    net = network(**MODERATE)
    sol = solve_closed(net, "bard-schweitzer")
    n, d, q = net.population, net.demand, sol.queue_length
    for r in range(3):
        seen = sum(q[s] * (n[s] - (s == r)) / n[s] for s in range(3))
        expect = np.where(net.is_delay, d[r], d[r] * (1 + seen))
        np.testing.assert_allclose(sol.residence_time[r], expect, rtol=1e-10)
        assert sol.throughput[r] == pytest.approx(n[r] / (net.think[r] + expect.sum()), rel=1e-10)


def linearizer_by_loops(demand, delay, think, population, sweeps=3000):
    """Chandy and Neuse's Linearizer, written plainly: the core solved by
    successive substitution at N and at each N - e_j, the fractions
    F_sm(n) = Q_sm(n) / n_s, the correction D_jsm = F_sm(N - e_j) - F_sm(N), and
    Q_sm(n - e_r) ~ (n_s - [s = r]) (F_sm(n) + D_rsm), until nothing moves."""
    classes, stations = len(population), len(demand[0])

    def core(n, corr, q):
        for _ in range(sweeps):
            x = [0.0] * classes
            r_time = [[0.0] * stations for _ in range(classes)]
            for r in range(classes):
                if n[r] == 0:
                    continue
                for m in range(stations):
                    if delay[m]:
                        r_time[r][m] = demand[r][m]
                        continue
                    seen = sum((n[s] - (s == r)) * ((q[s][m] / n[s] if n[s] else 0.0) + corr[r][s][m])
                               for s in range(classes) if n[s] - (s == r) > 0)
                    r_time[r][m] = demand[r][m] * (1 + seen)
                x[r] = n[r] / (think[r] + sum(r_time[r]))
            q = [[x[r] * r_time[r][m] for m in range(stations)] for r in range(classes)]
        return x, r_time, q

    zero = [[[0.0] * stations for _ in range(classes)] for _ in range(classes)]
    corr = zero
    start = [[population[r] / stations] * stations for r in range(classes)]
    x, r_time, q = core(population, corr, start)
    for _ in range(40):
        subs = []
        for j in range(classes):
            n = [population[s] - (s == j) for s in range(classes)]
            subs.append((n, core(n, corr, [[v * n[s] / population[s] for v in q[s]]
                                           for s in range(classes)])[2]))
        corr = [[[(subs[j][1][s][m] / subs[j][0][s] - q[s][m] / population[s]) if subs[j][0][s] else 0.0
                  for m in range(stations)] for s in range(classes)] for j in range(classes)]
        x, r_time, q = core(population, corr, q)
    return x, r_time


def test_linearizer_is_its_fixed_point():
    small = dict(demand=[[0.3, 0.2, 1.0], [0.1, 0.4, 2.0]], servers=[1, 1, math.inf],
                 think=[2.0, 5.0], population=[3, 2])
    sol = solve_closed(network(**small), "linearizer")
    x, r_time = linearizer_by_loops(small["demand"], [False, False, True], small["think"], small["population"])
    np.testing.assert_allclose(sol.throughput, x, rtol=1e-9)
    np.testing.assert_allclose(sol.residence_time, r_time, rtol=1e-9)


@pytest.mark.parametrize("method", ["bard-schweitzer", "linearizer", "mva-exact", "convolution"])
def test_one_customer_each_is_exact_for_every_method(method):
    # Alone in the network a customer never waits: X = 1 / (Z + D).
    sol = solve_closed(network([[0.5, 1.5, 2.0]], [1, 1, math.inf], [3.0], [1]), method)
    assert sol.throughput[0] == pytest.approx(1 / 7, rel=1e-12)
    np.testing.assert_allclose(sol.residence_time[0], [0.5, 1.5, 2.0], rtol=1e-12)


def test_approximations_name_seidmann_for_multiserver_stations():
    sol = solve_closed(network([[1.0, 0.5], [2.0, 0.2]], [4, 1], [5.0, 1.0], [6, 3]), "linearizer")
    assert sol.method == "linearizer+seidmann" and not sol.exact_class.any()
    assert sol.station_method == ["linearizer+seidmann", "linearizer"]
    exact = solve_closed(network([[1.0, 0.5], [2.0, 0.2]], [4, 1], [5.0, 1.0], [6, 3]), "convolution")
    np.testing.assert_allclose(sol.throughput, exact.throughput, rtol=0.1)  # measured: 8 % off


def test_auto_is_exact_on_small_lattices_and_approximate_above():
    small = solve_closed(network(**MODERATE))
    assert small.method == "mva-exact" and small.exact_class.all() and not small.notes
    rng = np.random.default_rng(1)
    big = network(rng.uniform(0.1, 1.0, (4, 30)), np.ones(30), [5.0] * 4, [40] * 4)
    sol = solve_closed(big)  # 41^4 population vectors x 4 classes x 30 stations: about 1.7 s exact
    assert sol.method == "linearizer" and not sol.exact_class.any()
    assert sol.notes[0].startswith("auto chose linearizer: mva-exact would take about")
    assert solve_closed(big, "approx").method == "linearizer"
    many = network(rng.uniform(0.1, 1.0, (30, 30)), np.ones(30), [5.0] * 30, [2] * 30)
    assert solve_closed(many).method == "bard-schweitzer"  # Linearizer's (R + 1) M R^3 too


def test_auto_on_multiserver_stations():
    small = solve_closed(network([[1.0, 0.5], [2.0, 0.2]], [4, 1], [5.0, 1.0], [6, 3]))
    assert small.method == "convolution" and small.exact_class.all()
    big = solve_closed(network([[1.0, 0.5], [2.0, 0.2]], [4, 1], [5.0, 1.0], [200, 300]))
    assert big.method == "linearizer+seidmann" and not big.exact_class.any()


def test_exact_refuses_what_it_cannot_afford():
    net = network(np.ones((6, 10)), np.ones(10), [1.0] * 6, [50] * 6)
    refused = (r"^method exact \(mva-exact\): on 6 classes of 50, 50, 50, 50, \.\.\. customers at 10 stations "
               r"would take about 5,279 s and about 4,278 GB, beyond the limit of 60 s and 2 GB; use method approx$")
    with pytest.raises(OptionError, match=refused) as e:
        solve_closed(net, "exact")
    assert e.value.worded(option_name).startswith("--method exact (mva-exact): on 6 classes")
    assert e.value.worded(option_name).endswith("; use --method approx")
    assert solve_closed(network(**MODERATE), "exact").method == "mva-exact"


def test_unknown_method():
    with pytest.raises(BrewputError, match="method: expected one of auto, exact"):
        solve_closed(network(**MODERATE), "newton")


# ---- product form: when exact is exact -----------------------------------------------------


def test_deterministic_fifo_service_is_marked_approximate():
    sol = solve_closed(network([[1.0, 2.0]], [1, 1], [1.0], [3], discipline="fifo", scv=0.0))
    assert sol.method == "mva-exact" and not sol.exact_class.any() and not sol.exact_station.any()
    assert sol.notes[0].startswith("station s0 (fifo): service not exponential: not product-form")


def test_fifo_with_class_dependent_means_is_approximate_but_ps_is_exact():
    demand = [[1.0, 2.0], [0.5, 2.0]]
    fifo = solve_closed(network(demand, [1, 1], [1.0, 1.0], [2, 2], discipline="fifo"))
    assert not fifo.exact_class.any()
    assert any("s0 (fifo): classes' mean service times differ" in note for note in fifo.notes)
    ps = solve_closed(network(demand, [1, 1], [1.0, 1.0], [2, 2]))
    assert ps.exact_class.all() and not ps.notes
    lifo = solve_closed(network([[1.0, 2.0], [1.0, 2.0]], [1, 1], [1.0, 1.0], [2, 2], discipline="lifo"))
    assert lifo.exact_class.all()


def test_priorities_are_served_as_fifo_and_say_so():
    demand = [[1.0, 2.0], [1.0, 2.0]]
    same = solve_closed(network(demand, [1, 1], [1.0, 1.0], [2, 2], discipline="priority", priority=[1, 1]))
    assert same.exact_class.all()
    differ = solve_closed(network(demand, [1, 1], [1.0, 1.0], [2, 2], discipline="priority", priority=[2, 1]))
    assert not differ.exact_class.any() and "priorities ignored" in differ.notes[0]


def test_shortest_job_first_is_unsupported():
    with pytest.raises(Unsupported, match="station s0: shortest job first"):
        solve_closed(network([[1.0]], [1], [1.0], [2], discipline="sjf"))


def test_open_classes_belong_to_solve_mixed():
    net = network([[1.0]], [1], [1.0], [2])
    net = Network(**{**net.__dict__, "arrival_rate": np.array([0.1])})
    with pytest.raises(Unsupported, match="use solve_mixed"):
        solve_closed(net)
