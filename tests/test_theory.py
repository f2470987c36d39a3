"""The simulator against closed-form queueing theory (tests/theory.py).

Tolerance rule (see conftest.py): the truth must lie in the reported 95 % CI
widened to 99.9 % coverage, half-width x t(0.9995, R-1) / t(0.975, R-1). Every
compared figure must also have a tight CI (half-width below 2 % of the truth, 3 %
for the 99th percentiles), so a pass is a real agreement. Percentiles come from
histograms of three significant digits on a time grid of 0.001, so they may also
be off by 0.1 % of their value plus 0.001: that is added to their tolerance.

The first tests check theory.py itself against scipy and by hand; they need no
simulation.
"""
from math import factorial, isclose

import numpy as np
import pytest
from scipy import integrate, linalg, stats

import theory
from conftest import EXAMPLES, check, simulated

SEED = 20240601
TIGHT = 0.02


def hist_resolution(x):
    return 1e-3 * x + 1e-3


# ---- theory.py against independent computations ----------------------------------

@pytest.mark.parametrize("c", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9, 0.99])
def test_erlang_c_matches_direct_sum(c, rho):
    a = rho * c
    tail = a**c / factorial(c) / (1 - rho)
    direct = tail / (sum(a**k / factorial(k) for k in range(c)) + tail)
    assert isclose(theory.erlang_c(c, a), direct, rel_tol=1e-12)


@pytest.mark.parametrize("c, a", [(1, 0.5), (10, 7.0), (500, 480.0), (5000, 4990.0)])
def test_erlang_b_matches_poisson_ratio(c, a):
    # B(c, a) = P(N = c) / P(N <= c) for N ~ Poisson(a), which scipy evaluates stably.
    expected = stats.poisson.pmf(c, a) / stats.poisson.cdf(c, a)
    assert isclose(theory.erlang_b(c, a), expected, rel_tol=1e-9)


@pytest.mark.parametrize("q", [0.5, 0.9, 0.99])
def test_mm1_response_quantile_is_exponential(q):
    assert isclose(theory.mm1_response_quantile(0.8, 1.0, q),
                   stats.expon.ppf(q, scale=1 / 0.2), rel_tol=1e-12)


def test_mmc_wait_quantiles_integrate_to_the_mean():
    # E[Wq] = integral over q of the q-quantile: ties the quantile formula to the mean.
    lam, mu, c = 2.7, 1.0, 3
    mean, _ = integrate.quad(lambda q: theory.mmc_wait_quantile(lam, mu, c, q), 0, 1,
                             points=[1 - theory.erlang_c(c, lam / mu)], limit=200)
    assert isclose(mean, theory.mmc_wait_mean(lam, mu, c), rel_tol=1e-6)


def test_single_server_special_cases():
    lam, mu = 0.8, 1.0
    assert isclose(theory.erlang_c(1, lam / mu), lam / mu)        # M/M/1 waits w.p. rho
    assert isclose(theory.mmc_response_mean(lam, mu, 1), 1 / (mu - lam))
    assert isclose(theory.pk_wait_mean(lam, 1 / mu, 1.0), theory.mmc_wait_mean(lam, mu, 1))
    assert isclose(theory.pk_wait_mean(lam, 1 / mu, 0.0), lam / (2 * mu * (mu - lam)))  # M/D/1
    assert theory.tandem_response(lam, [(mu, 1), (2 * mu, 1)]) == [
        theory.mmc_response_mean(lam, mu, 1), theory.mmc_response_mean(lam, 2 * mu, 1)]


def test_blocking_pair_limits():
    assert theory.blocking_pair_throughput(1.0, 1.0, 0) == pytest.approx((2 / 3, 1 / 3))
    # a huge buffer decouples the two: the slower one sets the pace, nobody blocks
    x, blocked = theory.blocking_pair_throughput(1.0, 2.0, 200)
    assert isclose(x, 1.0) and blocked < 1e-12


def test_mva_hand_worked_example():
    x, residence, queue = theory.mva([1.0, 2.0], think=1.0, population=2)
    assert isclose(x, 2 / 5.25)
    assert np.allclose(residence, [1.25, 3.0])
    assert np.allclose(queue, [2 / 5.25 * 1.25, 2 / 5.25 * 3.0])


def test_mva_matches_the_markov_chain():
    # A cycle delay -> queue 1 -> queue 2 -> delay with exponential times, solved as
    # a continuous-time Markov chain over (n1, n2) without any product-form result.
    mu1, mu2, think, n = 1.0, 0.5, 3.0, 4
    states = [(i, j) for i in range(n + 1) for j in range(n + 1 - i)]
    index = {s: k for k, s in enumerate(states)}
    gen = np.zeros((len(states), len(states)))
    for (i, j), k in index.items():
        moves = [((i + 1, j), (n - i - j) / think),
                 ((i - 1, j + 1), mu1 if i else 0.0),
                 ((i, j - 1), mu2 if j else 0.0)]
        for target, rate in moves:
            if rate:
                gen[k, index[target]] += rate
                gen[k, k] -= rate
    pi = linalg.null_space(gen.T)[:, 0]
    pi /= pi.sum()
    x = mu2 * sum(p for (i, j), p in zip(states, pi) if j)
    q1 = sum(p * i for (i, j), p in zip(states, pi))
    q2 = sum(p * j for (i, j), p in zip(states, pi))
    mva_x, _, mva_q = theory.mva([1 / mu1, 1 / mu2], think, n)
    assert isclose(mva_x, x, rel_tol=1e-9)
    assert np.allclose(mva_q, [q1, q2], rtol=1e-9)


# ---- the simulator against theory.py ---------------------------------------------

def mmc(c, rate, customers):
    return simulated(EXAMPLES / "mmc.yaml", (("c", c), ("rate", rate)),
                     seed=SEED, replications=5, customers=customers)


MM1_CUSTOMERS = {0.5: 200_000, 0.8: 1_000_000}


@pytest.mark.parametrize("rho", sorted(MM1_CUSTOMERS))
@pytest.mark.parametrize("figure", ["mean", "p50", "p90", "p99"])
def test_mm1_response_time(rho, figure):
    res = mmc(1, rho, MM1_CUSTOMERS[rho])
    path = ("classes", "customer", "response_time", figure)
    if figure == "mean":
        check(res, path, 1 / (1 - rho), max_rel_width=TIGHT)
    else:
        truth = theory.mm1_response_quantile(rho, 1.0, int(figure[1:]) / 100)
        check(res, path, truth, resolution=hist_resolution(truth),
              max_rel_width=TIGHT if figure != "p99" else 0.03)


@pytest.mark.parametrize("rho", sorted(MM1_CUSTOMERS))
def test_mm1_utilization_and_throughput(rho):
    res = mmc(1, rho, MM1_CUSTOMERS[rho])
    check(res, ("stations", "desk", "utilization"), rho, max_rel_width=TIGHT)
    check(res, ("classes", "customer", "throughput"), rho, max_rel_width=TIGHT)


@pytest.mark.parametrize("figure", ["mean", "p90", "p99"])
def test_mmc_waiting_time(figure):
    lam, mu, c = 2.7, 1.0, 3
    res = mmc(c, lam, 3_000_000)
    path = ("classes", "customer", "waiting_time", figure)
    if figure == "mean":
        check(res, path, theory.mmc_wait_mean(lam, mu, c), max_rel_width=TIGHT)
    else:
        truth = theory.mmc_wait_quantile(lam, mu, c, int(figure[1:]) / 100)
        check(res, path, truth, resolution=hist_resolution(truth),
              max_rel_width=TIGHT if figure != "p99" else 0.03)


def write(tmp_path, text):
    path = tmp_path / "model.yaml"
    path.write_text(text)
    return path


MG1 = """\
brewput: 1
name: M/G/1
time_unit: s
stations:
  server: {{servers: 1}}
classes:
  customer:
    rate: {rate}
    route:
      - station: server
        service: "{service}"
"""


@pytest.mark.parametrize("service, scv, rate", [
    ("const(1)", 0.0, 0.8),                 # M/D/1
    ("erlang(2, 1)", 0.5, 0.8),             # M/E2/1
    ("lognormal(1, 1.5)", 2.25, 0.6),       # M/G/1, a skewed service time
])
def test_mg1_mean_wait_is_pollaczek_khinchine(tmp_path, service, scv, rate):
    model = write(tmp_path, MG1.format(service=service, rate=rate))
    res = simulated(model, seed=SEED, replications=5, customers=2_000_000)
    wait = theory.pk_wait_mean(rate, 1.0, scv)
    check(res, ("classes", "customer", "waiting_time", "mean"), wait, max_rel_width=TIGHT)
    check(res, ("stations", "server", "waiting"), rate * wait, max_rel_width=TIGHT)  # Lq


ERLANG_LOSS = """\
brewput: 1
name: M/M/3/3
time_unit: s
stations:
  desk: {servers: 3, buffer: 0}
classes:
  customer:
    rate: 2.7
    route:
      - {station: desk, service: exp(1)}
"""


def test_erlang_loss(tmp_path):
    # No room to wait: an arrival finding all 3 servers busy is lost, w.p. B(3, 2.7).
    res = simulated(write(tmp_path, ERLANG_LOSS), seed=SEED, replications=5,
                    customers=500_000)
    loss = theory.erlang_b(3, 2.7)
    check(res, ("classes", "customer", "loss_probability"), loss, max_rel_width=TIGHT)
    check(res, ("classes", "customer", "throughput"), 2.7 * (1 - loss), max_rel_width=TIGHT)
    check(res, ("stations", "desk", "utilization"), 2.7 * (1 - loss) / 3, max_rel_width=TIGHT)


PAIR = """\
brewput: 1
name: Saturated pair with blocking
time_unit: s
stations:
  first: {{servers: 1}}
  second: {{servers: 1, buffer: {buffer}}}
classes:
  job:
    population: {population}
    think: 0
    route:
      - {{station: first, service: exp(1)}}
      - {{station: second, service: exp({second})}}
"""


@pytest.mark.parametrize("second, buffer", [(1.0, 0), (1.0, 1), (0.8, 2)])
def test_blocking_after_service(tmp_path, second, buffer):
    # buffer + 3 jobs: the second holds at most buffer + 1, so the first never starves.
    text = PAIR.format(second=second, buffer=buffer, population=buffer + 3)
    res = simulated(write(tmp_path, text), seed=SEED, replications=5, customers=1_000_000)
    x, blocked = theory.blocking_pair_throughput(1.0, 1 / second, buffer)
    check(res, ("classes", "job", "throughput"), x, max_rel_width=TIGHT)
    check(res, ("stations", "first", "utilization"), 1 - blocked, max_rel_width=TIGHT)
    check(res, ("stations", "second", "utilization"), x * second, max_rel_width=TIGHT)


TANDEM = {"order": (1 / 0.5, 1), "brew": (1 / 1.6, 2), "pickup": (1 / 0.6, 1)}  # (mu, c)


def tandem():
    return simulated(EXAMPLES / "tandem.yaml", seed=SEED, replications=5, customers=1_000_000)


@pytest.mark.parametrize("station", list(TANDEM))
def test_tandem_station_is_mmc(station):
    res = tandem()
    mu, c = TANDEM[station]
    response = theory.mmc_response_mean(1.0, mu, c)
    check(res, ("stations", station, "response_time"), response, max_rel_width=TIGHT)
    check(res, ("stations", station, "queue_length"), response, max_rel_width=TIGHT)  # L = 1 x R
    check(res, ("stations", station, "utilization"), 1.0 / (c * mu), max_rel_width=TIGHT)


def test_tandem_total_response():
    total = sum(theory.tandem_response(1.0, list(TANDEM.values())))
    check(tandem(), ("classes", "customer", "response_time", "mean"), total,
          max_rel_width=TIGHT)


# examples/central-server.yaml: visits per job and mean service time per visit.
CENTRAL = {"cpu": (10, 2.0), "disk1": (6, 3.0), "disk2": (3, 5.0)}
USERS, THINK = 10, 100.0


def central_server():
    return simulated(EXAMPLES / "central-server.yaml", seed=SEED, replications=5,
                     customers=200_000)


def test_central_server_class_vs_mva():
    x, residence, _ = theory.mva([v * s for v, s in CENTRAL.values()], THINK, USERS)
    res = central_server()
    check(res, ("classes", "job", "throughput"), x, max_rel_width=TIGHT)
    check(res, ("classes", "job", "response_time", "mean"), sum(residence),
          max_rel_width=TIGHT)


@pytest.mark.parametrize("k, station", list(enumerate(CENTRAL)))
def test_central_server_station_vs_mva(k, station):
    x, residence, queue = theory.mva([v * s for v, s in CENTRAL.values()], THINK, USERS)
    visits, service = CENTRAL[station]
    res = central_server()
    stat = ("stations", station)
    check(res, stat + ("throughput",), x * visits, max_rel_width=TIGHT)
    check(res, stat + ("utilization",), x * visits * service, max_rel_width=TIGHT)
    check(res, stat + ("response_time",), residence[k] / visits, max_rel_width=TIGHT)
    check(res, stat + ("queue_length",), queue[k], max_rel_width=TIGHT)
