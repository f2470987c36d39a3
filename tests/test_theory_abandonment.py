"""Customers who give up (analytic/abandonment.py, birth_death.py) against
independent truths: generators of truncated Markov chains solved with numpy and
scipy, a tagged customer's absorbing chain for the waits by outcome, Erlang A's
incomplete-gamma closed form (Mandelbaum and Zeltyn) at c = 1000, M/M/c/K, and
Erlang A's two limits (patience = service: Poisson; endless patience: Erlang C)."""
import math

import numpy as np
import pytest
from scipy.linalg import null_space
from scipy.special import gammainc, gammaincc, gammaln
from scipy.stats import poisson

from brewput.analytic import queues
from brewput.analytic.abandonment import balking, erlang_a, impatient
from brewput.analytic.birth_death import stationary


def chain_truth(lam, s, c, theta, join, states):
    """The chain's generator on 0..states-1 built as a matrix and solved for its
    null space; the waits of joiners by outcome from a tagged customer's
    absorbing chain (places in line 1..states, FCFS)."""
    mu = 1 / s
    q = np.zeros((states, states))
    for n in range(states - 1):
        q[n, n + 1] = lam * join(n)
        q[n + 1, n] = min(n + 1, c) * mu + max(n + 1 - c, 0) * theta
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    n = np.arange(states)
    b = np.array([join(k) for k in range(states)])
    # Tagged customer: at place i it leaves at rate c mu + i theta; to place i-1
    # at c mu + (i-1) theta, to service from place 1 at c mu, abandons at theta.
    places = states
    t = np.zeros((places, places))
    to_service, to_abandon = np.zeros(places), np.full(places, theta)
    for i in range(1, places + 1):
        t[i - 1, i - 1] = -(c * mu + i * theta)
        if i > 1:
            t[i - 1, i - 2] = c * mu + (i - 1) * theta
    to_service[0] = c * mu
    fundamental = np.linalg.inv(-t)
    p_served, p_abandon = fundamental @ to_service, fundamental @ to_abandon
    time_served, time_abandon = fundamental @ fundamental @ to_service, fundamental @ fundamental @ to_abandon
    weight = p * b
    waiting = n >= c
    place = n[waiting] - c
    served_weight = weight[~waiting].sum() + weight[waiting] @ p_served[place]
    lq = p @ np.maximum(n - c, 0)
    busy = p @ np.minimum(n, c)
    return {
        "throughput": busy * mu, "balked": p @ (1 - b), "abandoned": theta * lq / lam,
        "wait_probability": weight[waiting].sum(), "mean_in_queue": lq, "mean_in_system": p @ n,
        "mean_wait": lq / (lam * weight.sum()), "utilization": busy / c,
        "mean_wait_served": weight[waiting] @ time_served[place] / served_weight,
        "mean_wait_abandoned": (weight[waiting] @ time_abandon[place] / (weight[waiting] @ p_abandon[place])
                                if theta > 0 else None),
    }


def assert_matches(result, truth, rel=1e-9):
    for figure, value in truth.items():
        if value is None:
            assert getattr(result, figure) is None, figure
        else:
            assert getattr(result, figure) == pytest.approx(value, rel=rel, abs=1e-15), figure


@pytest.mark.parametrize("lam, s, c, patience", [
    (0.8, 1.0, 1, 4.0),      # below capacity
    (3.0, 1.0, 2, 1.0),      # overloaded 150 %: the patient few keep it stable
    (12.0, 0.5, 5, 0.25),    # patience shorter than service
    (9.5, 1.0, 10, 20.0),    # heavy load, long patience
])
def test_erlang_a_matches_its_markov_chain(lam, s, c, patience):
    truth = chain_truth(lam, s, c, 1 / patience, lambda n: 1.0, 200)
    result = erlang_a(lam, s, c, patience)
    assert_matches(result, {**truth, "balked": 0.0})
    assert result.mean_response == pytest.approx(result.mean_wait_served + s)
    assert result.balked + result.abandoned + result.served == pytest.approx(1, rel=1e-12)


@pytest.mark.parametrize("c", [1, 3, 40])
def test_patience_as_long_as_service_gives_a_poisson_number_present(c):
    # theta = mu: every customer leaves at rate mu, served or not: M/M/inf.
    lam, s = 2.5 * c, 0.7
    result = erlang_a(lam, s, c, patience=s)
    a = lam * s
    n = np.arange(0, int(a + 60 * math.sqrt(a) + 60))
    pmf = poisson.pmf(n, a)
    assert result.mean_in_system == pytest.approx(a, rel=1e-12)
    assert result.mean_in_queue == pytest.approx(pmf @ np.maximum(n - c, 0), rel=1e-10)
    assert result.wait_probability == pytest.approx(poisson.sf(c - 1, a), rel=1e-10)
    assert result.utilization == pytest.approx(pmf @ np.minimum(n, c) / c, rel=1e-10)


@pytest.mark.parametrize("lam, s, c", [(0.9, 1.0, 1), (7.0, 1.0, 8), (95.0, 0.01, 1), (180.0, 1.0, 200)])
def test_endless_patience_is_erlang_c(lam, s, c):
    mmc = queues.mmc(lam, s, c)
    for patience in (math.inf, 1e12):
        result = erlang_a(lam, s, c, patience)
        assert result.wait_probability == pytest.approx(queues.erlang_c(c, lam * s), rel=1e-9)
        assert result.mean_wait == pytest.approx(mmc.wait, rel=1e-9)
        assert result.mean_wait_served == pytest.approx(mmc.wait, rel=1e-9)
        assert result.mean_in_system == pytest.approx(mmc.in_system, rel=1e-9)
        assert result.abandoned == pytest.approx(0, abs=1e-9)
    assert erlang_a(lam, s, c, math.inf).mean_wait_abandoned is None


def mandelbaum_zeltyn(lam, s, c, patience):
    """P(wait) and P(abandon | wait) of Erlang A by incomplete gamma functions
    (Mandelbaum and Zeltyn, "The Palm/Erlang-A queue", 2007): with x = c mu / theta,
    y = lam / theta, A = x e^y y^-x gamma(x) P(x, y) = sum_j prod_{k<=j} lam / (c mu + k theta),
    E = sum_{n<c} (c! / n!) a^(n-c) = c! e^a a^-c Q(c, a); P(wait) = A / (E + A) and
    P(abandon | wait) = 1 / (rho A) + 1 - 1 / rho, rho = lam s / c."""
    mu, theta = 1 / s, 1 / patience
    x, y, a = c * mu / theta, lam / theta, lam * s
    log_a = math.log(x) + y - x * math.log(y) + gammaln(x) + math.log(gammainc(x, y))
    log_e = a + math.log(gammaincc(c, a)) + gammaln(c + 1) - c * math.log(a)
    p_wait = 1 / (1 + math.exp(log_e - log_a))
    rho = lam * s / c
    return p_wait, 1 / (rho * math.exp(log_a)) + 1 - 1 / rho


@pytest.mark.parametrize("load", [0.9, 1.0, 1.2])
@pytest.mark.parametrize("patience", [2.0, 10.0])
def test_erlang_a_at_a_thousand_servers_matches_the_incomplete_gamma_form(load, patience):
    c, s = 1000, 1.0
    lam = load * c / s
    p_wait, p_abandon_given_wait = mandelbaum_zeltyn(lam, s, c, patience)
    result = erlang_a(lam, s, c, patience)
    assert result.wait_probability == pytest.approx(p_wait, rel=1e-8)
    assert result.abandoned / result.wait_probability == pytest.approx(p_abandon_given_wait, rel=1e-8)
    assert result.served + result.abandoned == pytest.approx(1, rel=1e-12)


@pytest.mark.parametrize("c, join", [
    (1, [1.0, 0.9, 0.6, 0.3, 0.1]),
    (2, [1.0, 1.0, 0.8, 0.5, 0.2, 0.05]),
    (3, [1.0, 1.0, 1.0, 0.5, 0.0, 1.0]),  # nobody joins beyond 4: the last state is never reached
])
def test_queue_length_balking_matches_its_markov_chain(c, join):
    lam, s = 2.0, 1.0
    truth = chain_truth(lam, s, c, 0.0, lambda n: join[n] if n < len(join) else 0.0, len(join) + 1)
    result = balking(lam, s, c, join)
    assert_matches(result, truth)
    # Little's law for those who join: response = L / joined rate.
    assert result.mean_wait_served + s == pytest.approx(
        truth["mean_in_system"] / (lam * (1 - truth["balked"])), rel=1e-9)


@pytest.mark.parametrize("lam, s, c, k", [(0.5, 1.0, 1, 1), (0.9, 1.0, 1, 10), (5.0, 1.0, 3, 8), (40.0, 0.1, 2, 30)])
def test_a_balking_threshold_is_mmck(lam, s, c, k):
    loss, means = queues.mmck(lam, s, c, k)
    result = balking(lam, s, c, [1.0] * k)
    assert result.balked == pytest.approx(loss, rel=1e-12)
    assert result.mean_in_system == pytest.approx(means.in_system, rel=1e-12)
    assert result.mean_response == pytest.approx(means.response, rel=1e-12)
    assert result.throughput == pytest.approx(lam * (1 - loss), rel=1e-12)
    if c == 1:  # M/M/1/K in closed form: p_n = (1 - rho) rho^n / (1 - rho^(K+1))
        rho = lam * s
        p = [(1 - rho) * rho**n / (1 - rho ** (k + 1)) for n in range(k + 1)]
        assert result.balked == pytest.approx(p[-1], rel=1e-12)


def test_balking_and_patience_together_match_their_chain():
    lam, s, c, patience = 6.0, 1.0, 3, 2.0
    join = [1.0, 1.0, 1.0, 0.9, 0.7, 0.5, 0.3, 0.2]
    truth = chain_truth(lam, s, c, 1 / patience, lambda n: join[n] if n < len(join) else 0.0, len(join) + 1)
    result = impatient(lam, s, c, join=join, patience=patience)
    assert_matches(result, truth)
    assert result.balked + result.abandoned + result.served == pytest.approx(1, rel=1e-12)


def test_birth_death_chain_survives_extreme_loads_and_cuts_at_a_zero_birth():
    p = stationary([1e6] * 400, [1.0] * 400)  # ratios 1e6: weights of 1e2400 before scaling
    assert p[-1] == pytest.approx(1 - 1e-6, rel=1e-12) and p[-2] == pytest.approx(1e-6 * (1 - 1e-6), rel=1e-12)
    assert p[0] == 0.0 and all(math.isfinite(x) for x in p)  # 1e-2400: below the smallest double
    assert stationary([1.0, 0.0, 5.0], [1.0, 1.0, 1.0]) == pytest.approx([0.5, 0.5, 0.0, 0.0])


@pytest.mark.parametrize("call, problem", [
    (lambda: erlang_a(2.0, 1.0, 1, math.inf), "must be below"),
    (lambda: erlang_a(1.0, 1.0, 0, 1.0), "c must be a positive integer"),
    (lambda: erlang_a(1.0, 1.0, 1, 0.0), "patience must be positive"),
    (lambda: balking(1.0, 1.0, 1, [1.0, 1.5]), "between 0 and 1"),
    (lambda: balking(0.0, 1.0, 1, [1.0]), "must be positive"),
    (lambda: stationary([1.0], [0.0]), "death rates must be positive"),
])
def test_impossible_inputs_are_refused(call, problem):
    with pytest.raises(ValueError, match=problem):
        call()
