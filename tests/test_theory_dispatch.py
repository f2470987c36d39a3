"""Dispatch policies (brewput.analytic.dispatch) against truths computed here:
Markov chains of the dispatched stations built from their dynamics (truncated
where the mass on the boundary is below 1e-10), the supermarket model's mean-field ODE
integrated with scipy, and an exact simulation of 100 stations under power of d."""
import numpy as np
import pytest
from scipy import stats
from scipy.integrate import solve_ivp

import markov
import theory
from brewput.analytic import gim1
from brewput.analytic.dispatch import dispatch
from brewput.errors import BrewputError


def stationary(states, transitions):
    """pi of the chain whose transitions(state) yields (next state, rate); states are enumerated."""
    index = {x: i for i, x in enumerate(states)}
    rows, cols, rates = [], [], []
    for x in states:
        for y, rate in transitions(x):
            if y in index:  # beyond the truncation: not taken
                rows.append(index[x])
                cols.append(index[y])
                rates.append(rate)
    return markov.stationary(rows, cols, rates, len(states))


def erlang_arrivals_into_mm1(lam, mu, phases, line):
    """Mean response at one station whose gaps are Erlang-`phases` of phase rate lam:
    the chain of (jobs present, phase of the arrival process)."""
    states = [(n, p) for n in range(line + 1) for p in range(phases)]

    def moves(x):
        n, p = x
        yield ((n + 1, 0) if p == phases - 1 else (n, p + 1)), lam
        if n:
            yield (n - 1, p), mu

    pi = stationary(states, moves)
    assert sum(pi[i] for i, (n, _) in enumerate(states) if n == line) < 1e-12
    present = sum(pi[i] * n for i, (n, _) in enumerate(states))
    return present / (lam / phases)


@pytest.mark.parametrize("stations", [1, 2, 3, 5])
@pytest.mark.parametrize("rho", [0.3, 0.7, 0.9])
def test_round_robin_is_erlang_into_mm1(stations, rho):
    lam, s = rho * stations / 0.5, 0.5
    truth = erlang_arrivals_into_mm1(lam, 1 / s, stations, line=400)
    result = dispatch("round_robin", lam, s, stations)
    assert result.exact and result.method == "erlang-gm1"
    assert result.response == pytest.approx(truth, rel=1e-9)
    assert result.wait == pytest.approx(truth - s, rel=1e-9)


def test_the_gi_m_1_root_is_rho_for_poisson():
    # Exponential gaps of mean 1 / 0.6 at service mean 1: sigma = rho = 0.6, tau = 0.4.
    assert gim1.tau(gim1.gamma_complement(1.0, 1 / 0.6), 1.0) == pytest.approx(0.4, rel=1e-12)


def two_stations(lam, mu, policy, line=70):
    """Mean response of two stations under `policy`, by the chain of (n1, n2[, next])."""
    if policy == "round_robin":
        states = [(a, b, k) for a in range(line + 1) for b in range(line + 1) for k in (0, 1)]
    else:
        states = [(a, b) for a in range(line + 1) for b in range(line + 1)]

    def moves(x):
        a, b = x[0], x[1]
        if policy == "random":
            yield (a + 1, b), lam / 2
            yield (a, b + 1), lam / 2
        elif policy == "jsq":  # ties split evenly
            if a < b:
                yield (a + 1, b), lam
            elif b < a:
                yield (a, b + 1), lam
            else:
                yield (a + 1, b), lam / 2
                yield (a, b + 1), lam / 2
        else:
            yield ((a + 1, b, 1) if x[2] == 0 else (a, b + 1, 0)), lam
        if a:
            yield (a - 1, b) + x[2:], mu
        if b:
            yield (a, b - 1) + x[2:], mu

    pi = stationary(states, moves)
    assert sum(p for p, x in zip(pi, states) if max(x[0], x[1]) == line) < 1e-10
    return sum(p * (x[0] + x[1]) for p, x in zip(pi, states)) / lam


def shared_two(lam, mu, line=200):
    """M/M/2 by its own birth-death chain."""
    weights = [1.0]
    for n in range(1, line + 1):
        weights.append(weights[-1] * lam / (mu * min(n, 2)))
    p = np.array(weights) / sum(weights)
    return float(np.dot(np.arange(line + 1), p)) / lam


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_two_servers_ordering(rho):
    mu = 1.0
    lam = 2 * rho * mu
    line = 70 if rho < 0.7 else 110
    shared = shared_two(lam, mu)
    jsq = two_stations(lam, mu, "jsq", line)
    robin = two_stations(lam, mu, "round_robin", line)
    random = two_stations(lam, mu, "random", line)
    assert shared < jsq < robin < random
    assert dispatch("shared", lam, 1 / mu, 2).response == pytest.approx(shared, rel=1e-9)
    assert dispatch("round_robin", lam, 1 / mu, 2).response == pytest.approx(robin, rel=1e-7)
    assert dispatch("random", lam, 1 / mu, 2).response == pytest.approx(random, rel=1e-7)
    assert shared == pytest.approx(theory.mmc_response_mean(lam, mu, 2), rel=1e-9)


@pytest.mark.parametrize("choices", [2, 3, 5])
@pytest.mark.parametrize("rho", [0.5, 0.9, 0.99])
def test_power_of_d_is_the_mean_field_fixed_point(choices, rho):
    # ds_i/dt = rho (s_{i-1}^d - s_i^d) - (s_i - s_{i+1}), s_0 = 1, per unit of mean service,
    # integrated from empty stations until it stops moving.
    levels = 60

    def field(_, s):
        padded = np.concatenate(([1.0], s, [0.0]))
        return rho * (padded[:-2] ** choices - padded[1:-1] ** choices) - (padded[1:-1] - padded[2:])

    end = solve_ivp(field, (0, 3000), np.zeros(levels), method="LSODA", rtol=1e-11, atol=1e-14).y[:, -1]
    assert np.abs(field(0, end)).max() < 1e-9  # at rest
    stations, s = 10, 0.25
    result = dispatch("power_of_d", rho * stations / s, s, stations, choices)
    assert not result.exact and result.method == "supermarket-mean-field"
    assert result.in_system / stations == pytest.approx(end.sum(), rel=1e-7)


def simulate_power_of_d(stations, rho, choices, events, seed):
    """Jobs present per station, time-averaged over an exact simulation of the
    Markov chain (service rate 1), with a batch-means 99.9 % interval. Plain
    lists: indexing numpy scalars one at a time is several times slower."""
    rng = np.random.default_rng(seed)
    queues = [0] * stations
    busy = []                      # stations with a job ...
    place = [-1] * stations        # ... and each one's place in that list
    present, batches = 0, []
    area = elapsed = 0.0
    arrival_rate = stations * rho
    draws = rng.random(events).tolist()
    samples = rng.integers(0, stations, (events, choices)).tolist()
    picks = rng.random(events).tolist()
    batch = events // 40
    for e in range(events):
        rate = arrival_rate + len(busy)
        area += present / rate      # the expected holding time: less noise than a drawn one
        elapsed += 1.0 / rate
        if draws[e] * rate < arrival_rate:
            q = min(samples[e], key=queues.__getitem__)  # the first sampled among the shortest
            if queues[q] == 0:
                place[q] = len(busy)
                busy.append(q)
            queues[q] += 1
            present += 1
        else:
            q = busy[int(picks[e] * len(busy))]
            queues[q] -= 1
            present -= 1
            if queues[q] == 0:
                last = busy.pop()
                if last != q:
                    busy[place[q]] = last
                    place[last] = place[q]
        if (e + 1) % batch == 0:
            if e + 1 > batch:  # the first batch is warm-up
                batches.append(area / elapsed / stations)
            area = elapsed = 0.0
    batches = np.array(batches)
    half = stats.t.ppf(0.9995, len(batches) - 1) * batches.std(ddof=1) / np.sqrt(len(batches))
    return batches.mean(), half


@pytest.mark.parametrize("rho, choices", [(0.7, 2), (0.9, 2)])
def test_power_of_d_near_the_limit_at_100_stations(rho, choices):
    mean, half = simulate_power_of_d(100, rho, choices, 3_000_000, seed=7)
    result = dispatch("power_of_d", rho * 100, 1.0, 100, choices)
    assert half < 0.025 * mean
    # A large-system limit: 100 stations sit within 3 % of it (measured: 0.6 % and 1.3 %
    # more jobs than the limit), beyond the interval's own width.
    assert abs(result.in_system / 100 - mean) < 0.03 * mean + half, (result.in_system / 100, mean, half)


def test_random_and_power_of_one_are_mm1():
    lam, s, c = 2.4, 1.0, 3
    mm1 = theory.mmc_response_mean(lam / c, 1 / s, 1)
    assert dispatch("random", lam, s, c).response == pytest.approx(mm1, rel=1e-12)
    assert dispatch("power_of_d", lam, s, c, 1).response == pytest.approx(mm1, rel=1e-12)
    assert dispatch("random", lam, s, c).in_system == pytest.approx(c * lam / c * mm1, rel=1e-12)


@pytest.mark.parametrize("args, kwargs, words", [
    (("jsq", 1.0, 1.0, 2), {}, ["policy 'jsq'", "round_robin", "simulate"]),
    (("least_utilised", 1.0, 1.0, 2), {}, ["policy 'least_utilised'"]),
    (("random", 2.0, 1.0, 2), {}, ["loaded to 1 >= 1", "unstable"]),
    (("round_robin", 5.0, 1.0, 2), {}, ["unstable"]),
    (("shared", 1.0, 1.0, 0), {}, ["stations", "positive integer"]),
    (("shared", 1.0, 1.0, 2.5), {}, ["stations", "positive integer"]),
    (("shared", 1.0, 1.0, True), {}, ["stations"]),
    (("random", 0.0, 1.0, 2), {}, ["arrival rate", "positive"]),
    (("random", float("inf"), 1.0, 2), {}, ["arrival rate"]),
    (("random", 1.0, -1.0, 2), {}, ["mean service", "positive"]),
    (("random", 1.0, float("nan"), 2), {}, ["mean service"]),
    (("power_of_d", 1.0, 1.0, 3), {"choices": 4}, ["choices", "from 1 to the 3 stations"]),
    (("power_of_d", 1.0, 1.0, 3), {"choices": 0}, ["choices"]),
    (("power_of_d", 1.0, 1.0, 3), {"choices": 2.0}, ["choices"]),
])
def test_bad_input_is_one_clear_error(args, kwargs, words):
    with pytest.raises(BrewputError) as error:
        dispatch(*args, **kwargs)
    message = str(error.value)
    assert "\n" not in message and message.startswith("dispatch")
    for word in words:
        assert word in message, message
