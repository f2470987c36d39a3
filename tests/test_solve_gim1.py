"""GI/M/1 (brewput.analytic.gim1): one class of renewal arrivals at one
exponential server, solved exactly, against truths found another way: D/M/1's
root by Lambert's W, phase-type arrivals (Erlang, hyperexponential) by their
Markov chain, every other law by the root of sigma = E[exp(-mu (1 - sigma) T)]
integrated over scipy.stats' own density, and the simulator."""
import math

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

import brewput
from markov import stationary
from test_solve_open import one_station, solve


def d_m_1_response(rho):
    """D/M/1 with service exp(1): sigma = -rho W0(-exp(-1 / rho) / rho)."""
    sigma = float(np.real(-rho * special.lambertw(-math.exp(-1 / rho) / rho)))
    return 1 + sigma / (1 - sigma)


@pytest.mark.parametrize("rho", [0.05, 0.3, 0.5, 0.8, 0.95, 0.99])
def test_deterministic_arrivals_match_lambert_w(rho):
    sol = solve(one_station({}, c={"arrivals": 1 / rho, "service": "exp(1)"}))
    assert sol.station_method == ["gi-m-1"] and sol.exact_class.all() and sol.notes == []
    assert sol.response_time[0] == pytest.approx(d_m_1_response(rho), rel=1e-9)
    assert sol.queue_length[0, 0] == pytest.approx(rho * d_m_1_response(rho), rel=1e-9)  # Little


def phase_chain(rates, moves, start, mu, most=600):
    """The chain of one exponential server (rate mu) whose arrivals are
    phase-type: phase i ends at rates[i] and moves the coming arrival on to
    phase j with moves[i][j], or else it arrives and the next one starts in
    phase j with start[j]. Truncated at `most` jobs. Returns the time average
    of jobs present and the law of the number an arrival finds."""
    phases = len(rates)
    rows, cols, out = [], [], []

    def edge(a, b, rate):
        rows.append(a[0] * phases + a[1]), cols.append(b[0] * phases + b[1]), out.append(rate)

    for n in range(most + 1):
        for i in range(phases):
            arrives = rates[i] * (1 - sum(moves[i]))
            for j in range(phases):
                if moves[i][j]:
                    edge((n, i), (n, j), rates[i] * moves[i][j])
                if arrives and start[j] and n < most:
                    edge((n, i), (n + 1, j), arrives * start[j])
            if n > 0:
                edge((n, i), (n - 1, i), mu)
    pi = stationary(np.array(rows), np.array(cols), np.array(out), (most + 1) * phases).reshape(most + 1, phases)
    jobs = float(np.arange(most + 1) @ pi.sum(axis=1))
    arriving = pi * np.array([r * (1 - sum(m)) for r, m in zip(rates, moves)])
    return jobs, arriving.sum(axis=1) / arriving.sum()


def hyperexp_phases(mean, cv):
    """hyperexp(mean, cv): phase 1 w.p. p at rate 1 / mean1, else phase 2 (docs/model-language.md)."""
    c2 = cv * cv
    p = (1 + math.sqrt((c2 - 1) / (c2 + 1))) / 2
    return [2 * p / mean, 2 * (1 - p) / mean], [[0, 0], [0, 0]], [p, 1 - p]


def erlang_phases(k, mean):
    """erlang(k, mean): k phases in a row, each at rate k / mean."""
    return [k / mean] * k, [[1 if j == i + 1 else 0 for j in range(k)] for i in range(k)], [1] + [0] * (k - 1)


@pytest.mark.parametrize("arrivals, mean, phases", [
    ("erlang(3, 1.25)", 1.25, erlang_phases(3, 1.25)),
    ("erlang(8, 2)", 2.0, erlang_phases(8, 2.0)),
    ("hyperexp(1.25, 3)", 1.25, hyperexp_phases(1.25, 3.0)),
])
def test_phase_type_arrivals_match_their_markov_chain(arrivals, mean, phases):
    jobs, found = phase_chain(*phases, mu=1.0)
    sol = solve(one_station({}, c={"arrivals": arrivals, "service": "exp(1)"}))
    assert sol.station_method == ["gi-m-1"] and sol.exact_class.all()
    assert sol.response_time[0] == pytest.approx(jobs * mean, rel=1e-9)  # Little: R = L / lambda
    # An arrival finding n waits n exponential services: its response time is Erlang(n + 1).
    laws = sol.laws[0]
    counts = np.arange(len(found))
    for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
        def response_beyond(t, q=q):
            return float(found @ special.gammaincc(counts + 1, t)) - (1 - q)

        def wait_beyond(t, q=q):
            return float(found[1:] @ special.gammaincc(counts[1:], t)) - (1 - q)

        assert laws.response.quantile(q) == pytest.approx(optimize.brentq(response_beyond, 0, 1e3), rel=1e-8)
        expected_wait = 0.0 if q <= found[0] else optimize.brentq(wait_beyond, 0, 1e3)
        assert laws.waiting.quantile(q) == pytest.approx(expected_wait, rel=1e-8, abs=1e-12)


def root_by_density(law, mean_service):
    """sigma = E[exp(-(1 - sigma) T / s)] by fixed-point iteration, the
    expectation integrated over scipy.stats' density of T (a contraction: its
    slope at the root is below 1 when rho < 1)."""
    lo, hi = law.support()
    sigma = 0.5
    for _ in range(2000):
        rate = (1 - sigma) / mean_service
        value = integrate.quad(lambda t: math.exp(-rate * t) * law.pdf(t), max(lo, 0), hi, epsabs=0,
                               epsrel=1e-13, limit=400, points=[law.mean()] if math.isfinite(hi) else None)[0]
        if abs(value - sigma) < 1e-15:
            break
        sigma = value
    return sigma


@pytest.mark.parametrize("arrivals, law", [
    ("uniform(0.5, 2.5)", stats.uniform(loc=0.5, scale=2.0)),
    ("jitter(1.5, 1)", stats.uniform(loc=1.0, scale=1.0)),
    ("lognormal(1.5, 2)", stats.lognorm(s=math.sqrt(math.log1p(4.0)), scale=1.5 / math.sqrt(5.0))),
    ("lognormal(1.2, 0.3)", stats.lognorm(s=math.sqrt(math.log1p(0.09)), scale=1.2 / math.sqrt(1.09))),
    ("normal(1.5, 1)", stats.truncnorm(a=-1.5, b=np.inf, loc=1.5, scale=1.0)),
    ("gamma(1.6, 0.4)", stats.gamma(a=1 / 0.16, scale=1.6 * 0.16)),
])
def test_every_law_matches_the_root_over_its_density(arrivals, law):
    sol = solve(one_station({}, c={"arrivals": arrivals, "service": "exp(1)"}))
    assert sol.station_method == ["gi-m-1"] and sol.exact_class.all()
    sigma = root_by_density(law, 1.0)
    assert sol.response_time[0] == pytest.approx(1 / (1 - sigma), rel=1e-8)


def test_empirical_arrivals_match_their_root_by_hand():
    # Gaps of 1 or 3 (mean 2), service exp(1): sigma = (e^{-(1-sigma)} + e^{-3(1-sigma)}) / 2.
    sigma = optimize.brentq(lambda x: (math.exp(-(1 - x)) + math.exp(-3 * (1 - x))) / 2 - x, 0, 0.999)
    sol = solve(one_station({}, c={"arrivals": "empirical([1, 3])", "service": "exp(1)"}))
    assert sol.station_method == ["gi-m-1"]
    assert sol.response_time[0] == pytest.approx(1 / (1 - sigma), rel=1e-12)


@pytest.mark.parametrize("arrivals", [1.25, "lognormal(1.25, 2)"])
def test_the_simulator_agrees(arrivals):
    model = brewput.Model.from_dict({"brewput": 1, "name": "gim1", **one_station(
        {}, c={"arrivals": arrivals, "service": "exp(1)"})})
    exact = solve(one_station({}, c={"arrivals": arrivals, "service": "exp(1)"}))
    res = brewput.simulate(model, seed=7, replications=10, customers=200_000)
    mean = res["classes"]["c"]["response_time"]["mean"]
    lo, hi = res["classes"]["c"]["response_time"]["mean_ci"]
    # The 95 % interval, widened to 99.9 % (Student t, 9 degrees of freedom).
    half = (hi - lo) / 2 * stats.t.ppf(0.9995, 9) / stats.t.ppf(0.975, 9)
    assert abs(mean - exact.response_time[0]) <= half, (mean, (lo, hi), exact.response_time[0])


def test_where_gi_m_1_does_not_hold_the_approximation_stays_marked():
    # Two servers: Allen-Cunneen on the arrivals' scv (D: 0), Wq = Wq(M/M/2) x (0 + 1) / 2.
    two = solve(one_station({"servers": 2}, c={"arrivals": 2, "service": "exp(1)"}))
    assert two.station_method == ["allen-cunneen"] and not two.exact_class.any()
    assert two.response_time[0] == pytest.approx(1 + (0.1 / 1.5) / 2, rel=1e-12)
    # Two classes' renewal arrivals together are no renewal process.
    mixed = solve(one_station({}, a={"arrivals": 4, "service": "exp(1)"}, b={"arrivals": 4, "service": "exp(1)"}))
    assert mixed.station_method == ["allen-cunneen"] and not mixed.exact_class.any()
    # General service: not GI/M/1.
    general = solve(one_station({}, c={"arrivals": 2, "service": "erlang(2, 1)"}))
    assert general.station_method == ["allen-cunneen"] and not general.exact_class.any()
