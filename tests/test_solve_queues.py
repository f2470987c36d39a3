"""Single-station formulas (brewput.analytic.queues), each against an independent
truth: exact rational sums, log-space sums, a birth-death chain or Markov chain
solved with numpy, numerical integration of densities, and cases worked by hand."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, sparse, stats
from scipy.sparse import linalg as sparse_linalg
from scipy.special import gammaln, logsumexp

from brewput.analytic import queues

# ---- Erlang B and C --------------------------------------------------------------


def erlang_c_fraction(c, a):
    """Erlang C by the textbook direct sum, in exact rational arithmetic:
    C = (a^c / c!) / (1 - rho) / (sum_{k<c} a^k / k! + (a^c / c!) / (1 - rho))."""
    a = Fraction(a)
    tail = a**c / math.factorial(c) / (1 - a / c)
    return tail / (sum(a**k / math.factorial(k) for k in range(c)) + tail)


def erlang_c_log_sum(c, a):
    """The same sum with every term in log space (gammaln, logsumexp): no overflow at any c."""
    k = np.arange(c)
    log_tail = c * math.log(a) - gammaln(c + 1) - math.log(1 - a / c)
    return math.exp(log_tail - logsumexp(np.append(k * math.log(a) - gammaln(k + 1), log_tail)))


@pytest.mark.parametrize("c", [1, 2, 3, 5, 8, 20, 60])
@pytest.mark.parametrize("rho", [0.05, 0.5, 0.9, 0.99])
def test_erlang_c_matches_the_exact_direct_sum(c, rho):
    a = Fraction(rho).limit_denominator(10**6) * c
    assert queues.erlang_c(c, float(a)) == pytest.approx(float(erlang_c_fraction(c, a)), rel=1e-12)


@pytest.mark.parametrize("c", [1000, 5000, 20000])
@pytest.mark.parametrize("rho", [0.5, 0.9, 0.99, 0.999])
def test_erlang_c_at_thousands_of_servers_matches_a_log_space_sum(c, rho):
    # a^c / c! overflows a float from c = 171 on; neither method forms it.
    assert queues.erlang_c(c, rho * c) == pytest.approx(erlang_c_log_sum(c, rho * c), rel=1e-9)


@pytest.mark.parametrize("c, a", [(1, 0.5), (10, 7.0), (500, 480.0), (5000, 4990.0)])
def test_erlang_b_matches_the_poisson_ratio(c, a):
    # B(c, a) = P(N = c) / P(N <= c) for N ~ Poisson(a), which scipy evaluates stably.
    assert queues.erlang_b(c, a) == pytest.approx(stats.poisson.pmf(c, a) / stats.poisson.cdf(c, a), rel=1e-9)


# ---- M/M/c means -------------------------------------------------------------------

@pytest.mark.parametrize("rho", [0.1, 0.6, 0.95])
def test_mm1_and_mm2_means_match_their_closed_forms(rho):
    s = 2.0
    one = queues.mmc(rho / s, s, 1)  # M/M/1: L = rho / (1 - rho), W = s / (1 - rho)
    assert one.in_system == pytest.approx(rho / (1 - rho), rel=1e-12)
    assert one.response == pytest.approx(s / (1 - rho), rel=1e-12)
    assert one.in_queue == pytest.approx(rho**2 / (1 - rho), rel=1e-12)
    two = queues.mmc(2 * rho / s, s, 2)  # M/M/2: L = 2 rho / (1 - rho^2)
    assert two.in_system == pytest.approx(2 * rho / (1 - rho**2), rel=1e-12)
    assert two.wait == pytest.approx(two.response - s, rel=1e-12)


def test_infinite_server_nobody_waits():
    assert queues.infinite_server(3.0, 2.5) == (0.0, 2.5, 0.0, 7.5)


# ---- M/M/c waiting- and response-time distributions ------------------------------

QUANTILES = [0.5, 0.9, 0.95, 0.99, 0.999]
# (lam, s, c): theta = c mu - lam against mu: below it, equal to it, a hair off it, far above it
CASES = [(2.7, 1.0, 3), (1.0, 1.0, 2), (1.0 + 1e-9, 1.0, 2), (0.3, 2.0, 1), (9.0, 0.1, 1), (990.0, 1.0, 1000)]


def response_density(t, lam, s, c):
    """f_T(t) = (1 - C) mu e^{-mu t} + C (theta e^{-theta u} * mu e^{-mu u})(t), the
    convolution integrated numerically (no closed form used)."""
    mu, p_wait = 1 / s, queues.erlang_c(c, lam * s)
    theta = c * mu - lam
    conv, _ = integrate.quad(lambda u: theta * math.exp(-theta * u) * mu * math.exp(-mu * (t - u)), 0, t,
                             epsabs=1e-13, epsrel=1e-12)
    return (1 - p_wait) * mu * math.exp(-mu * t) + p_wait * conv


@pytest.mark.parametrize("lam, s, c", CASES[:4])
@pytest.mark.parametrize("q", QUANTILES)
def test_response_quantile_integrates_the_density_to_q(lam, s, c, q):
    t = queues.mmc_response_quantile(q, lam, s, c)
    mass, _ = integrate.quad(response_density, 0, t, args=(lam, s, c), epsabs=1e-12, epsrel=1e-11, limit=200)
    assert mass == pytest.approx(q, abs=1e-9)


@pytest.mark.parametrize("lam, s, c", CASES)
@pytest.mark.parametrize("q", QUANTILES)
def test_wait_quantile_integrates_the_density_to_q(lam, s, c, q):
    # Wq: an atom 1 - C at zero and density C theta e^{-theta t} beyond.
    p_wait = queues.erlang_c(c, lam * s)
    theta = c / s - lam
    t = queues.mmc_wait_quantile(q, lam, s, c)
    mass, _ = integrate.quad(lambda u: p_wait * theta * math.exp(-theta * u), 0, t, epsabs=1e-13)
    if t == 0:
        assert q <= 1 - p_wait
    else:
        assert 1 - p_wait + mass == pytest.approx(q, abs=1e-10)
    assert queues.mmc_wait_tail(t, lam, s, c) == pytest.approx(min(1 - q, p_wait), rel=1e-12)


@pytest.mark.parametrize("lam, s, c", CASES)
def test_response_tail_is_continuous_in_theta_and_matches_its_quantiles(lam, s, c):
    for q in QUANTILES:
        t = queues.mmc_response_quantile(q, lam, s, c)
        assert queues.mmc_response_tail(t, lam, s, c) == pytest.approx(1 - q, rel=1e-10)
    # theta = mu is the Erlang-2 limit: the tail a hair away from it agrees
    assert queues.mmc_response_tail(3.0, 1.0 + 1e-9, 1.0, 2) == pytest.approx(
        queues.mmc_response_tail(3.0, 1.0, 1.0, 2), rel=1e-8)


@pytest.mark.parametrize("q", QUANTILES)
def test_mm1_response_is_exponential(q):
    # M/M/1 FCFS: T ~ Exp(mu - lam)
    assert queues.mmc_response_quantile(q, 0.8, 1.0, 1) == pytest.approx(
        stats.expon.ppf(q, scale=1 / 0.2), rel=1e-12)


def test_response_quantiles_integrate_to_the_mean():
    # E[T] = integral of the quantile function over (0, 1)
    lam, s, c = 2.7, 1.0, 3
    mean, _ = integrate.quad(lambda q: queues.mmc_response_quantile(q, lam, s, c), 0, 1, limit=200)
    assert mean == pytest.approx(queues.mmc(lam, s, c).response, rel=1e-6)


# ---- M/M/c/K ------------------------------------------------------------------------

def birth_death(lam, s, c, k):
    """Stationary distribution of the M/M/c/K chain from its generator, by numpy."""
    q = np.zeros((k + 1, k + 1))
    for n in range(k):
        q[n, n + 1] = lam
        q[n + 1, n] = min(n + 1, c) / s
    q -= np.diag(q.sum(axis=1))
    # pi Q = 0, sum pi = 1
    a = np.vstack([q.T, np.ones(k + 1)])
    b = np.zeros(k + 2)
    b[-1] = 1
    return np.linalg.lstsq(a, b, rcond=None)[0]


@pytest.mark.parametrize("lam, s, c, k", [(0.5, 1.0, 1, 1), (0.8, 1.0, 1, 5), (2.0, 1.0, 2, 6),
                                          (4.5, 1.0, 3, 10), (3.0, 2.0, 5, 5), (7.0, 1.0, 4, 40)])
def test_mmck_matches_the_birth_death_chain(lam, s, c, k):
    pi = birth_death(lam, s, c, k)
    n = np.arange(k + 1)
    loss, means = queues.mmck(lam, s, c, k)
    throughput = lam * (1 - pi[-1])
    assert loss == pytest.approx(pi[-1], rel=1e-10)
    assert means.in_system == pytest.approx(n @ pi, rel=1e-10)
    assert means.in_queue == pytest.approx(np.maximum(n - c, 0) @ pi, rel=1e-10, abs=1e-14)
    assert means.response == pytest.approx(n @ pi / throughput, rel=1e-10)
    if k == c:
        assert loss == pytest.approx(queues.erlang_b(c, lam * s), rel=1e-12)


def test_mmck_with_a_huge_buffer_overloaded_loses_the_excess():
    # M/M/1/K at rho = 1.2: rho^K overflows the closed form, the loss tends to 1 - 1/rho.
    loss, means = queues.mmck(1.2, 1.0, 1, 5000)
    assert loss == pytest.approx(1 - 1 / 1.2, rel=1e-12)
    # the empty places K - N are geometric with ratio 1 / rho: mean 1 / (rho - 1) = 5
    assert means.in_system == pytest.approx(5000 - 5, rel=1e-12)


# ---- M/G/1, G/G/c --------------------------------------------------------------------

@pytest.mark.parametrize("rho", [0.2, 0.5, 0.9])
def test_pollaczek_khinchine_gives_mm1_and_md1(rho):
    s = 0.5
    assert queues.pollaczek_khinchine(rho / s, s, 1.0) == pytest.approx(queues.mmc(rho / s, s, 1), rel=1e-12)
    md1 = queues.pollaczek_khinchine(rho / s, s, 0.0)  # M/D/1: L = rho + rho^2 / (2 (1 - rho))
    assert md1.in_system == pytest.approx(rho + rho**2 / (2 * (1 - rho)), rel=1e-12)
    assert md1.wait == pytest.approx(rho * s / (2 * (1 - rho)), rel=1e-12)


def test_allen_cunneen_is_exact_where_theory_is_and_kingman_at_one_server():
    assert queues.allen_cunneen(2.7, 1.0, 3, 1.0, 1.0) == pytest.approx(queues.mmc(2.7, 1.0, 3), rel=1e-12)
    assert queues.allen_cunneen(0.6, 1.0, 1, 1.0, 0.3) == pytest.approx(
        queues.pollaczek_khinchine(0.6, 1.0, 0.3), rel=1e-12)
    # Kingman: Wq = rho / (1 - rho) x (ca2 + cs2) / 2 x s
    assert queues.allen_cunneen(0.3, 2.0, 1, 0.5, 2.0).wait == pytest.approx(0.6 / 0.4 * 1.25 * 2.0, rel=1e-12)


# ---- processor sharing ---------------------------------------------------------------

@pytest.mark.parametrize("rho", [0.1, 0.7, 0.99])
def test_processor_sharing_response_is_s_over_one_minus_rho(rho):
    s = 3.0
    assert queues.processor_sharing(rho / s, s, 1).response == pytest.approx(s / (1 - rho), rel=1e-12)
    # c servers: the number present is M/M/c's, whatever the order of service
    assert queues.processor_sharing(4 * rho / s, s, 4).in_system == pytest.approx(
        queues.mmc(4 * rho / s, s, 4).in_system, rel=1e-12)


# ---- non-preemptive priority ---------------------------------------------------------

def test_cobham_two_class_example_worked_by_hand():
    # M/G/1, class 1 high: lam 0.2, exponential of mean 1 (E[S^2] = 2);
    # class 2 low: lam 0.3, constant 1.5 (E[S^2] = 2.25). rho1 = 0.2, rho2 = 0.45.
    # W0 = (0.2 x 2 + 0.3 x 2.25) / 2 = 0.5375
    # Wq1 = W0 / (1 x 0.8)       = 0.671875
    # Wq2 = W0 / (0.8 x 0.35)    = 1.9196428571...
    # FCFS for both: W0 / 0.35   = 1.5357142857..., and 0.2 Wq1 + 0.45 Wq2 = 0.65 x that.
    # The FCFS wait of the mix: lam 0.5, mean 1.3, E[S^2] = 2 x 0.5375 / 0.5 = 2.15.
    fcfs = queues.pollaczek_khinchine(0.5, 1.3, 2.15 / 1.3**2 - 1).wait
    assert fcfs == pytest.approx(0.5375 / 0.35, rel=1e-12)
    waits = queues.priority_waits(fcfs, [0.2, 0.45], [1, 0])
    assert waits == pytest.approx([0.671875, 0.5375 / 0.28], rel=1e-12)


def test_one_priority_level_is_fcfs_and_levels_share_a_wait():
    assert queues.priority_waits(2.0, [0.3, 0.4], [5, 5]) == pytest.approx([2.0, 2.0])
    low, mid_a, mid_b = queues.priority_waits(2.0, [0.1, 0.2, 0.3], [0, 1, 1])
    assert mid_a == mid_b and low > mid_a


def priority_mmc_chain(lams, s, c, cap=60):
    """Per-class mean waits of an M/M/c non-preemptive two-class priority queue,
    one service rate: the Markov chain (busy servers b; waiting q1, q2 while all
    are busy), truncated at cap waiting per class, solved by scipy's sparse LU;
    Little's law gives Wq_k = Lq_k / lam_k."""
    mu = 1 / s
    states = [(b, 0, 0) for b in range(c)] + [(c, q1, q2) for q1 in range(cap + 1) for q2 in range(cap + 1)]
    index = {x: i for i, x in enumerate(states)}
    rows, cols, rates = [], [], []
    for (b, q1, q2), i in index.items():
        moves = []
        for k, lam in enumerate(lams):
            if b < c:
                moves.append(((b + 1, 0, 0), lam))
            elif (q1, q2)[k] < cap:
                moves.append(((c, q1 + 1, q2) if k == 0 else (c, q1, q2 + 1), lam))
        if b:  # a service ends: the high class goes first, then the low, else a server idles
            moves.append(((c, q1 - 1, q2) if q1 else (c, q1, q2 - 1) if q2 else (b - 1, 0, 0), b * mu))
        for target, rate in moves:
            rows += [i, i]
            cols += [index[target], i]
            rates += [rate, -rate]
    gen = sparse.csr_matrix((rates, (rows, cols)), shape=(len(states),) * 2)
    # pi Q = 0 with the last equation replaced by sum(pi) = 1
    a = sparse.vstack([gen.T[:-1], np.ones((1, len(states)))]).tocsc()
    pi = sparse_linalg.spsolve(a, np.append(np.zeros(len(states) - 1), 1.0))
    waiting = np.array(states)[:, 1:].T @ pi
    return list(waiting / np.array(lams))


def test_multiserver_priority_matches_the_markov_chain():
    # M/M/2, one service mean 1, high-priority lam 0.6 and low lam 0.8: rho = 0.7.
    lams, s, c = (0.6, 0.8), 1.0, 2
    fcfs = queues.mmc(sum(lams), s, c).wait
    waits = queues.priority_waits(fcfs, [lam * s / c for lam in lams], [1, 0])
    assert waits == pytest.approx(priority_mmc_chain(lams, s, c), rel=1e-7)
