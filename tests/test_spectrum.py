"""The response-time percentile spectrum against closed forms (tests/theory.py).

An M/M/1 (FIFO) response time is exponential with rate mu - lambda, so its
p-quantile is -ln(1 - p) / (mu - lambda); its waiting time has an atom at zero
and the same exponential tail. Every point of the spectrum is checked under the
tolerance rule of conftest.py (the 95 % CI widened to 99.9 %), plus the
histograms' resolution. The CIs must be tight where the data allow it (to 99.5 %),
so a pass is a real agreement; the far tail rests on few customers and is only
held to its (wider) interval.
"""
import pytest
from scipy.stats import t as student_t

import theory
from conftest import EXAMPLES, assert_close, simulated

SEED = 20240601
# the same runs as test_theory.py's M/M/1 tests, so the cache shares them
MM1_CUSTOMERS = {0.5: 200_000, 0.8: 1_000_000}
REQUIRED = [1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99]


def mm1(rho):
    return simulated(EXAMPLES / "mmc.yaml", (("c", 1), ("rate", rho)),
                     seed=SEED, replications=5, customers=MM1_CUSTOMERS[rho])


def spectrum_points(times, replications):
    """(percent, value, 99.9 % half-width) for every point of a spectrum."""
    widen = student_t.ppf(0.9995, replications - 1) / student_t.ppf(0.975, replications - 1)
    for (p, value), (lo, hi) in zip(times["spectrum"], times["spectrum_ci"]):
        yield p, value, (hi - lo) / 2 * widen, (hi - lo) / 2


def check_spectrum(res, figure, truth_at, scale):
    """Every point against `truth_at(q)`; tightness is relative to the truth, or
    to `scale` (the mean response time) for the small quantiles near zero."""
    times = res["classes"]["customer"][figure]
    for p, value, tolerance, half in spectrum_points(times, res["settings"]["replications"]):
        truth = truth_at(p / 100)
        tight = 0.03 if p <= 99.5 else 0.15
        assert half <= tight * max(truth, scale), f"{figure} p{p}: 95 % half-width {half} too wide for {truth}"
        resolution = 1e-3 * truth + 1e-3
        assert_close(value, truth, tolerance + resolution, what=f"{figure} p{p}")


@pytest.mark.parametrize("rho", sorted(MM1_CUSTOMERS))
def test_mm1_response_spectrum_is_exponential(rho):
    check_spectrum(mm1(rho), "response_time", lambda q: theory.mm1_response_quantile(rho, 1.0, q),
                   scale=1 / (1 - rho))


@pytest.mark.parametrize("rho", sorted(MM1_CUSTOMERS))
def test_mm1_waiting_spectrum_has_an_atom_at_zero(rho):
    check_spectrum(mm1(rho), "waiting_time", lambda q: theory.mmc_wait_quantile(rho, 1.0, 1, q),
                   scale=1 / (1 - rho))


def test_spectrum_shape_and_agreement_with_named_percentiles():
    times = mm1(0.5)["classes"]["customer"]["response_time"]
    percents = [p for p, _ in times["spectrum"]]
    assert percents == sorted(set(percents)) and set(REQUIRED) <= set(percents)
    assert len(times["spectrum_ci"]) == len(percents)
    values = [v for _, v in times["spectrum"]]
    assert values == sorted(values), "quantiles never fall as p rises"
    named = dict(times["spectrum"])
    for key, p in (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99), ("p999", 99.9)):
        assert times[key] == named[p]
