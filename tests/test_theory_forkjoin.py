"""Fork/join theory (brewput.analytic.fork_join) against the fork/join queue itself,
simulated exactly: K FCFS M/M/1 branches on common Poisson arrivals, each branch's
waits by Lindley's recursion W_{n+1} = max(0, W_n + S_n - A_{n+1}), evaluated with
numpy as W_n = P_n - min_{j<=n} P_j over the partial sums P of S - A. A job's
response is the largest (or smallest) branch response. 10^6 jobs, fixed seeds, a
99.9 % batch-means interval."""
import numpy as np
import pytest
from scipy import stats

from brewput.analytic.fork_join import fork_join, harmonic
from brewput.errors import BrewputError

JOBS = 1_000_000
WARMUP = 20_000
BATCHES = 40


def job_responses(lam, mu, branches, seed, jobs=JOBS):
    """Each job's (slowest, fastest) task response, the tasks' waits by Lindley's
    recursion, one branch at a time (memory of one branch)."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1.0 / lam, jobs - 1)  # gaps[n]: from job n to job n + 1
    slowest, fastest = np.zeros(jobs), np.full(jobs, np.inf)
    for _ in range(branches):
        service = rng.exponential(1.0 / mu, jobs)
        partial = np.concatenate(([0.0], np.cumsum(service[:-1] - gaps)))
        response = partial - np.minimum.accumulate(partial) + service
        np.maximum(slowest, response, out=slowest)
        np.minimum(fastest, response, out=fastest)
    return slowest[WARMUP:], fastest[WARMUP:]


def interval(samples):
    """Batch-means mean and 99.9 % half-width."""
    batches = samples[: len(samples) // BATCHES * BATCHES].reshape(BATCHES, -1).mean(axis=1)
    half = stats.t.ppf(0.9995, BATCHES - 1) * batches.std(ddof=1) / np.sqrt(BATCHES)
    return batches.mean(), half


def test_lindley_branch_is_mm1():
    # The recursion itself: each branch alone is an M/M/1 queue, mean response 1 / (mu - lam).
    lam, mu = 0.7, 1.0
    slowest, _ = job_responses(lam, mu, 1, seed=1)
    mean, half = interval(slowest)
    assert abs(mean - 1 / (mu - lam)) < half < 0.03 * mean


@pytest.mark.parametrize("rho", [0.3, 0.6, 0.85])
def test_two_branches_exact(rho):
    mu = 1.0
    slowest, fastest = job_responses(rho * mu, mu, 2, seed=11, jobs=4 * JOBS)
    for samples, needed in ((slowest, 0), (fastest, 1)):
        mean, half = interval(samples)
        result = fork_join(rho * mu, mu, 2, needed)
        assert result.exact
        assert half < 0.03 * mean  # a tight interval, so agreement means something
        assert abs(result.response - mean) < half, (needed, result.response, mean, half)
        assert result.lower <= result.response <= result.upper


@pytest.mark.parametrize("branches", [3, 5, 10])
@pytest.mark.parametrize("rho", [0.3, 0.7, 0.9])
def test_nelson_tantawi_within_published_error(branches, rho):
    mu = 2.0
    slowest, _ = job_responses(rho * mu, mu, branches, seed=100 + branches, jobs=(6 if rho > 0.8 else 1) * JOBS)
    mean, half = interval(slowest)
    result = fork_join(rho * mu, mu, branches)
    assert not result.exact and result.method == "nelson-tantawi"
    assert half < 0.03 * mean
    # Published: within about 5 % of simulation for 2 <= K <= 32.
    assert abs(result.response - mean) < 0.05 * mean + half, (result.response, mean)
    # The bounds are theorems: the simulated mean lies between them.
    assert result.lower - half < mean < result.upper + half


def test_bounds_and_light_traffic():
    # At vanishing load every branch is a bare Exp(mu) service: the max of K is H_K / mu.
    result = fork_join(1e-9, 1.0, 6)
    assert result.response == pytest.approx(harmonic(6), rel=1e-6)
    assert result.lower == pytest.approx(harmonic(6), rel=1e-6)
    assert result.upper == pytest.approx(harmonic(6), rel=1e-6)
    assert harmonic(4) == pytest.approx(25 / 12, rel=1e-15)


@pytest.mark.parametrize("args, words", [
    ((0.5, 1.0, 1), ["branches", "at least 2"]),
    ((0.5, 1.0, 0), ["branches", "at least 2"]),
    ((0.5, 1.0, 2.5), ["branches", "integer", "2.5"]),
    ((0.5, 1.0, "3"), ["branches", "integer", "'3'"]),
    ((0.5, 1.0, True), ["branches", "integer"]),
    ((0.5, 1.0, 3, 4), ["needed", "between 1 and branches"]),
    ((0.5, 1.0, 3, -1), ["needed"]),
    ((0.5, 1.0, 3, 1.5), ["needed", "integer"]),
    (("fast", 1.0, 2), ["positive numbers", "'fast'"]),
    ((0.5, float("inf"), 2), ["positive numbers"]),
    ((0.5, 1.0, 4, 2), ["2 of 4", "simulate"]),
    ((0.5, 1.0, 3, 1), ["1 of 3", "simulate"]),
    ((1.0, 1.0, 2), ["1 >= 1", "unstable"]),
    ((2.5, 1.0, 3), ["unstable"]),
    ((0.0, 1.0, 2), ["positive"]),
    ((0.5, -1.0, 2), ["positive"]),
    ((float("nan"), 1.0, 2), ["positive"]),
    ((0.5, 1.0, 33), ["33 branches", "32"]),
])
def test_bad_input_is_one_clear_error(args, words):
    with pytest.raises(BrewputError) as error:
        fork_join(*args)
    message = str(error.value)
    assert "\n" not in message and message.startswith("fork/join:")
    for word in words:
        assert word in message
