"""Finite buffers solved exactly: M/G/1/K by the embedded chain
(brewput.analytic.mg1k) and a closed single station whose customers wait
outside when it is full, each against an independent truth: Markov chains
built here with numpy (phase-expanded service), an embedded chain whose
transition matrix is built by numerical integration and solved by linear
algebra, a closed value worked by hand, and the simulator within its interval."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

import brewput
from brewput.analytic.network import Unsupported, network_of
from brewput.analytic.open import solve_open


def one_station(service, rate, buffer, servers=1, **station):
    return brewput.Model.from_dict({
        "brewput": 1, "name": "finite", "stations": {"s": {"servers": servers, "buffer": buffer, **station}},
        "classes": {"c": {"rate": rate, "route": [{"station": "s", "service": service}]}}})


def solve(model):
    return solve_open(network_of(model))


# ---- M/PH/1/K as a continuous-time Markov chain ---------------------------------------


def phase_type(kind, mean, param):
    """(alpha, T): initial phase probabilities and sub-generator of a service time."""
    if kind == "erlang":
        k = param
        rate = k / mean
        t = -rate * np.eye(k) + rate * np.eye(k, k=1)
        return np.eye(k)[0], t
    # hyperexp with balanced means, as docs/model-language.md defines it
    c2 = param**2
    p = (1 + math.sqrt((c2 - 1) / (c2 + 1))) / 2
    return np.array([p, 1 - p]), np.diag([-2 * p / mean, -2 * (1 - p) / mean])


def mph1k_chain(lam, alpha, t, capacity):
    """Time-average distribution of the number present in M/PH/1/K, from the
    generator over states (n, phase), solved by numpy least squares."""
    phases = len(alpha)
    exit_rate = -t.sum(axis=1)
    index = {(0, 0): 0}
    for n in range(1, capacity + 1):
        for j in range(phases):
            index[(n, j)] = len(index)
    q = np.zeros((len(index), len(index)))
    for j in range(phases):
        q[0, index[(1, j)]] += lam * alpha[j]
    for n in range(1, capacity + 1):
        for j in range(phases):
            s = index[(n, j)]
            if n < capacity:
                q[s, index[(n + 1, j)]] += lam
            for i in range(phases):
                if i != j:
                    q[s, index[(n, i)]] += t[j, i]
            if n == 1:
                q[s, 0] += exit_rate[j]
            else:
                for i in range(phases):
                    q[s, index[(n - 1, i)]] += exit_rate[j] * alpha[i]
    np.fill_diagonal(q, -q.sum(axis=1))
    system = np.vstack([q.T, np.ones(len(index))])
    pi = np.linalg.lstsq(system, np.r_[np.zeros(len(index)), 1.0], rcond=None)[0]
    p = np.zeros(capacity + 1)
    for (n, _), s in index.items():
        p[n] += pi[s]
    return p


def figures_from(p, lam, mean):
    """(loss, throughput, L, W) from the distribution of the number present."""
    loss = p[-1]
    throughput = lam * (1 - loss)
    present = np.arange(len(p)) @ p
    return loss, throughput, present, present / throughput


def assert_solution(sol, lam, mean, p, rel=1e-9):
    loss, throughput, present, response = figures_from(p, lam, mean)
    assert sol.loss_probability[0] == pytest.approx(loss, rel=rel)
    assert sol.throughput[0] == pytest.approx(throughput, rel=rel)
    assert sol.queue_length[0, 0] == pytest.approx(present, rel=rel)
    assert sol.response_time[0] == pytest.approx(response, rel=rel)
    assert sol.utilization[0, 0] == pytest.approx(1 - p[0], rel=rel)


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("rate", [0.3, 0.9, 1.0, 2.5])
@pytest.mark.parametrize("buffer", [0, 1, 4, 30])
def test_m_erlang_1_k_matches_the_phase_expanded_chain(k, rate, buffer):
    mean = 1.0
    sol = solve(one_station(f"erlang({k}, {mean})", rate, buffer))
    alpha, t = phase_type("erlang", mean, k)
    assert_solution(sol, rate, mean, mph1k_chain(rate, alpha, t, buffer + 1))
    assert sol.exact_class.all() and sol.exact_station.all()
    assert sol.station_method == (["erlang-b"] if buffer == 0 else ["mg1k"])


@pytest.mark.parametrize("cv", [1.5, 4.0])
@pytest.mark.parametrize("rate, buffer", [(0.5, 3), (1.2, 12)])
def test_m_hyperexp_1_k_matches_the_chain(cv, rate, buffer):
    sol = solve(one_station(f"hyperexp(2, {cv})", rate, buffer))
    alpha, t = phase_type("hyperexp", 2.0, cv)
    assert_solution(sol, rate, 2.0, mph1k_chain(rate, alpha, t, buffer + 1))


def test_m_d_1_2_at_full_load_is_one_over_e_plus_one():
    # One waiting place, a = 1: after a departure the server idles only if nobody
    # arrived during the service (e^-1), so pi_0 = e^-1 and the loss is
    # 1 - 1 / (e^-1 + 1) = 1 / (e + 1).
    sol = solve(one_station(1, 1.0, 1))
    assert sol.loss_probability[0] == pytest.approx(1 / (math.e + 1), rel=1e-13)
    assert sol.station_method == ["mg1k"] and sol.exact_class.all()


def embedded_chain_by_linear_algebra(a, capacity):
    """The departure-epoch chain's transition matrix from the arrival pmf a_k,
    and its stationary vector by solving pi (P - I) = 0 with sum 1."""
    p = np.zeros((capacity, capacity))
    for i in range(capacity):
        start = max(i - 1, 0)
        for j in range(start, capacity - 1):
            p[i, j] = a[j - start]
        p[i, -1] = 1 - p[i, :-1].sum()
    system = np.vstack([(p - np.eye(capacity)).T, np.ones(capacity)])
    return np.linalg.lstsq(system, np.r_[np.zeros(capacity), 1.0], rcond=None)[0]


def time_average(pi, rho):
    return np.append(pi / (pi[0] + rho), 1 - 1 / (pi[0] + rho))


@pytest.mark.parametrize("rate", [0.5, 0.95, 1.6])
@pytest.mark.parametrize("buffer", [1, 5, 20])
def test_m_d_1_k_matches_the_poisson_embedded_chain(rate, buffer):
    capacity = buffer + 1
    a = stats.poisson.pmf(np.arange(capacity), rate * 0.8)
    p = time_average(embedded_chain_by_linear_algebra(a, capacity), rate * 0.8)
    assert_solution(solve(one_station(0.8, rate, buffer)), rate, 0.8, p)


@pytest.mark.parametrize("service, low, high", [("uniform(0.2, 1.8)", 0.2, 1.8), ("jitter(1, 0.5)", 0.75, 1.25),
                                                ("uniform(0, 30)", 0.0, 30.0)])
@pytest.mark.parametrize("rate", [0.4, 1.1])
def test_m_uniform_1_k_matches_the_chain_by_quadrature(service, low, high, rate):
    capacity = 8
    a = [integrate.quad(lambda t: stats.poisson.pmf(k, rate * t), low, high, epsabs=0, epsrel=1e-13,
                        limit=200)[0] / (high - low) for k in range(capacity)]
    mean = (low + high) / 2
    p = time_average(embedded_chain_by_linear_algebra(a, capacity), rate * mean)
    assert_solution(solve(one_station(service, rate, capacity - 1)), rate, mean, p, rel=1e-8)


@pytest.mark.parametrize("service, density, low, high", [
    ("lognormal(1, 0.5)", stats.lognorm(s=math.sqrt(math.log(1.25)), scale=math.exp(-math.log(1.25) / 2)).pdf,
     0.0, 50.0),
    ("lognormal(2, 2)", stats.lognorm(s=math.sqrt(math.log(5)), scale=2 * math.exp(-math.log(5) / 2)).pdf,
     0.0, 1e4),
    ("normal(1, 0.8)", lambda t: stats.norm.pdf(t, 1, 0.8) / stats.norm.sf(0, 1, 0.8), 0.0, 10.0)])
@pytest.mark.parametrize("rate", [0.4, 1.1])
def test_lognormal_and_normal_match_the_chain_by_quadrature(service, density, low, high, rate):
    capacity = 8
    a = [integrate.quad(lambda t: stats.poisson.pmf(k, rate * t) * density(t), low, high, epsabs=0,
                        epsrel=1e-13, limit=500, points=[0.5, 1, 2, 5])[0] for k in range(capacity)]
    mean = integrate.quad(lambda t: t * density(t), low, high, epsabs=0, epsrel=1e-13, limit=500,
                          points=[0.5, 1, 2, 5])[0]
    p = time_average(embedded_chain_by_linear_algebra(a, capacity), rate * mean)
    sol = solve(one_station(service, rate, capacity - 1))
    assert sol.station_method == ["mg1k"] and sol.exact_class.all()
    assert_solution(sol, rate, mean, p, rel=1e-8)


def test_empirical_and_several_classes_mix_their_service_laws():
    # Two classes of Poisson arrivals: one constant 0.5, one empirical {1, 2}; the
    # station serves the flow-weighted mixture, whose arrivals-per-service pmf mixes theirs.
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "mix", "stations": {"s": {"buffer": 6}},
        "classes": {"a": {"rate": 0.3, "route": [{"station": "s", "service": 0.5}]},
                    "b": {"rate": 0.2, "route": [{"station": "s", "service": "empirical([1, 2])"}]}}})
    sol = solve(model)
    lam, capacity = 0.5, 7
    k = np.arange(capacity)
    a = 0.6 * stats.poisson.pmf(k, lam * 0.5) + 0.4 * (stats.poisson.pmf(k, lam) + stats.poisson.pmf(k, 2 * lam)) / 2
    mean = 0.6 * 0.5 + 0.4 * 1.5
    p = time_average(embedded_chain_by_linear_algebra(a, capacity), lam * mean)
    loss, throughput, present, _ = figures_from(p, lam, mean)
    assert sol.loss_probability == pytest.approx([loss, loss], rel=1e-9)
    assert sol.throughput == pytest.approx([0.3 * (1 - loss), 0.2 * (1 - loss)], rel=1e-9)
    assert sol.queue_length[:, 0].sum() == pytest.approx(present, rel=1e-9)
    # FIFO: both classes wait the same; each then takes its own mean service.
    wait = (present - (1 - p[0])) / throughput
    assert sol.response_time == pytest.approx([wait + 0.5, wait + 1.5], rel=1e-9)
    assert sol.exact_class.all()


def erlang2_chain_in_fractions(lam, mean, capacity):
    """M/E_2/1/K's time-average distribution in exact rational arithmetic (Gaussian
    elimination over Fractions): a truth for losses far below double rounding."""
    from fractions import Fraction
    lam, rate = Fraction(lam), 2 / Fraction(mean)
    states = [(0, 0)] + [(n, j) for n in range(1, capacity + 1) for j in (0, 1)]
    index = {s: k for k, s in enumerate(states)}
    size = len(states)
    q = [[Fraction(0)] * size for _ in range(size)]
    q[0][index[(1, 0)]] += lam
    for n in range(1, capacity + 1):
        for j in (0, 1):
            s = index[(n, j)]
            if n < capacity:
                q[s][index[(n + 1, j)]] += lam
            target = index[(n, 1)] if j == 0 else (0 if n == 1 else index[(n - 1, 0)])
            q[s][target] += rate
    for s in range(size):
        q[s][s] = -sum(q[s][t] for t in range(size) if t != s)
    # pi Q = 0 with sum pi = 1: the transpose with its last equation replaced.
    a = [[q[t][s] for t in range(size)] + [Fraction(0)] for s in range(size)]
    a[-1] = [Fraction(1)] * size + [Fraction(1)]
    for col in range(size):
        pivot = next(r for r in range(col, size) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(size):
            if r != col and a[r][col] != 0:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    pi = [a[s][-1] / a[s][s] for s in range(size)]
    p = [Fraction(0)] * (capacity + 1)
    for (n, _), s in index.items():
        p[n] += pi[s]
    return p


@pytest.mark.parametrize("rate, buffer", [(0.05, 5), (0.01, 8), (0.3, 25)])
def test_small_losses_are_exact_far_below_rounding(rate, buffer):
    # Loss 1e-9 .. 1e-20: 1 - 1 / (pi_0 + rho) would print rounding noise (or 0).
    p = erlang2_chain_in_fractions(rate, 1, buffer + 1)
    sol = solve(one_station("erlang(2, 1)", rate, buffer))
    assert 0 < float(p[-1]) < 1e-8
    assert sol.loss_probability[0] == pytest.approx(float(p[-1]), rel=1e-9)
    wait = float(sum(max(n - 1, 0) * pn for n, pn in enumerate(p)) / (rate * (1 - p[-1])))
    assert sol.response_time[0] - 1 == pytest.approx(wait, rel=1e-9)


def test_heavy_load_and_long_buffers_stay_finite():
    # a_0 = e^-2000 underflows a double: the recursion is in log space.
    sol = solve(one_station(1000, 2.0, 50))
    assert sol.throughput[0] == pytest.approx(1 / 1000, rel=1e-12)  # the server never idles
    assert sol.loss_probability[0] == pytest.approx(1 - 1 / 2000, rel=1e-12)
    assert sol.queue_length[0, 0] == pytest.approx(51, rel=1e-3)
    light = solve(one_station("gamma(1, 0.5)", 1e-6, 2000))
    assert light.loss_probability[0] == pytest.approx(0, abs=1e-15)
    assert light.response_time[0] == pytest.approx(1 + 1e-6 * 1.25 / 2, rel=1e-9)  # P-K at rho -> 0


def test_a_lognormal_too_wide_to_integrate_stays_approximate_and_says_so():
    sol = solve(one_station("lognormal(1, 30)", 0.9, 4))
    assert sol.station_method == ["mmck"] and not sol.exact_class.any()
    assert "approximate" in sol.notes[0] and "station s" in sol.notes[0]


@pytest.mark.parametrize("service, rate, buffer", [(1, 0.9, 3), ("uniform(0.5, 1.5)", 1.3, 6), ("erlang(4, 2)", 0.4, 2),
                                                  ("lognormal(1, 1.5)", 0.8, 4), ("normal(2, 1)", 0.45, 3)])
def test_the_simulator_agrees_within_its_interval(service, rate, buffer):
    model = one_station(service, rate, buffer)
    solved = brewput.solve(model)
    simulated = brewput.simulate(model, customers=200_000, seed=3)
    (c_solved,), (c_sim,) = solved["classes"].values(), simulated["classes"].values()
    (s_solved,), (s_sim,) = solved["stations"].values(), simulated["stations"].values()
    assert c_solved["exact"] and c_solved["method"] == "mg1k"
    for solved_figure, sim, ci in [
            (c_solved["throughput"], c_sim["throughput"], c_sim["throughput_ci"]),
            (c_solved["response_time"]["mean"], c_sim["response_time"]["mean"], c_sim["response_time"]["mean_ci"]),
            (s_solved["queue_length"], s_sim["queue_length"], s_sim["queue_length_ci"])]:
        assert ci[0] <= solved_figure <= ci[1], (solved_figure, sim, ci)


# ---- a closed class at one full station: customers wait outside ----------------------


def closed_station(population, think, service, servers, buffer):
    return brewput.Model.from_dict({
        "brewput": 1, "name": "outside", "stations": {"s": {"servers": servers, "buffer": buffer}},
        "classes": {"c": {"population": population, "think": think,
                          "route": [{"station": "s", "service": service}]}}})


def outside_chain(population, think, service, servers, capacity):
    """The mechanics as the simulator runs them: state (inside, outside), the rest
    thinking; a think ends into the station if it has room, else outside; a
    service ends, frees room, and the first outside walks in. Solved with numpy.
    Returns (throughput, response, inside)."""
    states = [(i, o) for i in range(capacity + 1) for o in range(population - i + 1)
              if o == 0 or i == capacity]
    index = {s: k for k, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for (i, o), k in index.items():
        thinking = population - i - o
        if thinking and think > 0:
            q[k, index[(i + 1, o) if i < capacity else (i, o + 1)]] += thinking / think
        if i:
            q[k, index[(i, o - 1) if o else (i - 1, o)]] += min(i, servers) / service
    np.fill_diagonal(q, -q.sum(axis=1))
    system = np.vstack([q.T, np.ones(len(states))])
    pi = np.linalg.lstsq(system, np.r_[np.zeros(len(states)), 1.0], rcond=None)[0]
    inside = sum(p * i for (i, o), p in zip(states, pi))
    present = sum(p * (i + o) for (i, o), p in zip(states, pi))
    throughput = sum(p * min(i, servers) for (i, o), p in zip(states, pi)) / service
    return throughput, present / throughput, inside


@pytest.mark.parametrize("population, think, servers, buffer", [
    (5, 4.0, 1, 0), (5, 4.0, 1, 2), (12, 3.0, 2, 1), (30, 10.0, 3, 4), (8, 0.5, 1, 3)])
def test_waiting_outside_matches_the_chain(population, think, servers, buffer):
    res = brewput.solve(closed_station(population, f"exp({think})", "exp(1)", servers, buffer))
    throughput, response, inside = outside_chain(population, think, 1.0, servers, servers + buffer)
    (c,), (s,) = res["classes"].values(), res["stations"].values()
    assert c["throughput"] == pytest.approx(throughput, rel=1e-9)
    assert c["response_time"]["mean"] == pytest.approx(response, rel=1e-9)
    assert s["queue_length"] == pytest.approx(inside, rel=1e-9)
    assert s["utilization"] == pytest.approx(throughput / servers, rel=1e-9)
    assert c["exact"] and s["exact"] and res["method"] == "waiting-outside"


def test_waiting_outside_with_no_think_keeps_every_server_busy():
    res = brewput.solve(closed_station(9, 0, "uniform(1, 3)", 2, 1))
    (c,), (s,) = res["classes"].values(), res["stations"].values()
    assert c["throughput"] == pytest.approx(1.0, rel=1e-12)  # 2 servers, mean 2
    assert c["response_time"]["mean"] == pytest.approx(9.0, rel=1e-12)  # Little: N / X
    assert s["queue_length"] == pytest.approx(3.0, rel=1e-12) and c["exact"]


def test_waiting_outside_agrees_with_the_simulator():
    model = closed_station(10, "exp(6)", "exp(1)", 1, 2)
    solved = brewput.solve(model)
    simulated = brewput.simulate(model, customers=200_000, seed=5)
    (c_solved,), (c_sim,) = solved["classes"].values(), simulated["classes"].values()
    (s_solved,), (s_sim,) = solved["stations"].values(), simulated["stations"].values()
    for solved_figure, ci in [(c_solved["throughput"], c_sim["throughput_ci"]),
                              (c_solved["response_time"]["mean"], c_sim["response_time"]["mean_ci"]),
                              (s_solved["queue_length"], s_sim["queue_length_ci"]),
                              (s_solved["response_time"], s_sim["response_time_ci"])]:
        assert ci[0] <= solved_figure <= ci[1], (solved_figure, ci)


def test_a_buffer_closed_customers_cannot_fill_is_no_buffer():
    res = brewput.solve(brewput.Model.from_dict({
        "brewput": 1, "name": "roomy", "stations": {"a": {"buffer": 3}, "b": {}},
        "classes": {"c": {"population": 4, "route": [{"station": "a", "service": "exp(1)"},
                                                      {"station": "b", "service": "exp(1)"}]}}}))
    assert res["method"] == "mva-exact" and res["classes"]["c"]["exact"]


@pytest.mark.parametrize("model, message", [
    ({"stations": {"a": {"buffer": 1}, "b": {}}, "classes": {"c": {"population": 4, "route": [
        {"station": "a", "service": 1}, {"station": "b", "service": 1}]}}},
     "stations.a.buffer: a finite buffer inside a network of 2 stations (a job that finds it full blocks"),
    ({"stations": {"a": {"buffer": 1}, "b": {}}, "classes": {
        "c": {"population": 4, "route": [{"station": "a", "service": 1}]},
        "d": {"population": 1, "route": [{"station": "b", "service": 1}]}}},
     "stations.a.buffer: a finite buffer at a station of its own classes while other classes use b"),
    ({"stations": {"a": {"buffer": 1}}, "classes": {
        "c": {"population": 4, "route": [{"station": "a", "service": 1}]},
        "d": {"rate": 0.1, "route": [{"station": "a", "service": 1}]}}},
     "stations.a.buffer: a finite buffer at a station shared by open and closed classes"),
    ({"stations": {"a": {"buffer": 1}}, "classes": {"c": {"population": 4, "route": [
        {"station": "a", "service": 1}, {"station": "a", "service": 2}]}}},
     "stations.a.buffer: a finite buffer at a station a closed customer visits 2 times per cycle"),
])
def test_each_refusal_describes_the_model_it_refuses(model, message):
    with pytest.raises(Unsupported, match="^m: " + message.replace("(", r"\(").replace(")", r"\)")):
        network_of(brewput.Model.from_dict({"brewput": 1, "name": "m", **model}))


def line_chain(populations, thinks, services, servers, capacity):
    """Several closed classes at one station, as the simulator runs them: the state
    is the line in arrival order (inside the station, then outside), a tuple of
    classes; the first `servers` are served; a think ends at the back of the line.
    Solved with numpy. Returns per class (throughput, response, inside)."""
    classes = range(len(populations))
    states, frontier = [()], [()]
    while frontier:
        line = frontier.pop()
        for r in classes:
            if line.count(r) < populations[r] and line + (r,) not in states:
                states.append(line + (r,))
                frontier.append(line + (r,))
    index = {s: k for k, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for line, k in index.items():
        for r in classes:
            if line.count(r) < populations[r]:
                q[k, index[line + (r,)]] += (populations[r] - line.count(r)) / thinks[r]
        for i in range(min(len(line), servers)):
            q[k, index[line[:i] + line[i + 1:]]] += 1 / services[line[i]]
    np.fill_diagonal(q, -q.sum(axis=1))
    system = np.vstack([q.T, np.ones(len(states))])
    pi = np.linalg.lstsq(system, np.r_[np.zeros(len(states)), 1.0], rcond=None)[0]
    out = []
    for r in classes:
        throughput = sum(p * line[:servers].count(r) / services[r] for line, p in zip(states, pi))
        present = sum(p * line.count(r) for line, p in zip(states, pi))
        inside = sum(p * line[:capacity].count(r) for line, p in zip(states, pi))
        out.append((throughput, present / throughput, inside))
    return out


@pytest.mark.parametrize("populations, thinks, servers, buffer", [
    ((3, 2), (4.0, 1.5), 1, 1), ((2, 2, 2), (1.0, 3.0, 6.0), 2, 0), ((4, 1), (2.0, 0.5), 2, 1)])
def test_several_classes_waiting_outside_match_the_line_chain(populations, thinks, servers, buffer):
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "outside", "stations": {"s": {"servers": servers, "buffer": buffer}},
        "classes": {f"c{r}": {"population": n, "think": f"exp({z})", "route": [{"station": "s", "service": "exp(1)"}]}
                    for r, (n, z) in enumerate(zip(populations, thinks))}})
    res = brewput.solve(model)
    truth = line_chain(populations, thinks, [1.0] * len(populations), servers, servers + buffer)
    for r, (throughput, response, inside) in enumerate(truth):
        c = res["classes"][f"c{r}"]
        assert c["throughput"] == pytest.approx(throughput, rel=1e-9)
        assert c["response_time"]["mean"] == pytest.approx(response, rel=1e-9)
        assert c["exact"]
    assert res["stations"]["s"]["queue_length"] == pytest.approx(sum(t[2] for t in truth), rel=1e-9)


def test_several_classes_of_different_means_waiting_outside_are_approximate():
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "outside", "stations": {"s": {"buffer": 1}},
        "classes": {"a": {"population": 3, "think": "exp(2)", "route": [{"station": "s", "service": "exp(1)"}]},
                    "b": {"population": 3, "think": "exp(2)", "route": [{"station": "s", "service": "exp(2)"}]}}})
    res = brewput.solve(model)
    assert not res["classes"]["a"]["exact"] and "approximate" in res["notes"][0]


def test_several_classes_waiting_outside_agree_with_the_simulator():
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "outside", "stations": {"s": {"servers": 2, "buffer": 1}},
        "classes": {"a": {"population": 4, "think": "exp(3)", "route": [{"station": "s", "service": "exp(1)"}]},
                    "b": {"population": 3, "think": "gamma(5, 0.5)", "route": [{"station": "s", "service": "exp(1)"}]}}})
    solved, simulated = brewput.solve(model), brewput.simulate(model, customers=200_000, seed=6)
    for name in ("a", "b"):
        solved_class, sim = solved["classes"][name], simulated["classes"][name]
        assert solved_class["exact"]
        assert sim["throughput_ci"][0] <= solved_class["throughput"] <= sim["throughput_ci"][1]
        assert sim["response_time"]["mean_ci"][0] <= solved_class["response_time"]["mean"] <= \
            sim["response_time"]["mean_ci"][1]
    ci = simulated["stations"]["s"]["queue_length_ci"]
    assert ci[0] <= solved["stations"]["s"]["queue_length"] <= ci[1]


@pytest.mark.parametrize("job", [{"rate": 0.5}, {"population": 4, "think": 2}])
def test_a_station_that_takes_no_time_never_fills(job):
    # Each job leaves the instant it comes: no wait, no loss; a closed class cycles in its think.
    res = brewput.solve(brewput.Model.from_dict({
        "brewput": 1, "name": "instant", "stations": {"s": {"buffer": 0}},
        "classes": {"c": {**job, "route": [{"station": "s", "service": "empirical([0, 0])"}]}}}))
    c = res["classes"]["c"]
    assert c["throughput"] == pytest.approx(0.5 if "rate" in job else 2.0, rel=1e-12)
    assert c["response_time"]["mean"] == 0 and c.get("loss_probability", 0) == 0 and c["exact"]
    assert res["stations"]["s"]["queue_length"] == 0


def test_a_buffer_only_other_classes_could_fill_is_no_buffer():
    # 3 customers visit the buffered station; the 1,000 elsewhere never come to it.
    res = brewput.solve(brewput.Model.from_dict({
        "brewput": 1, "name": "apart", "stations": {"a": {"buffer": 2}, "b": {"servers": "inf"}},
        "classes": {"c": {"population": 3, "route": [{"station": "a", "service": "exp(1)"}]},
                    "d": {"population": 1000, "route": [{"station": "b", "service": "exp(1)"}]}}}))
    assert res["method"] == "mva-exact" and res["classes"]["c"]["exact"]
