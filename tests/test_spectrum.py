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
from scipy.stats import gamma as scipy_gamma
from scipy.stats import t as student_t

import brewput
import theory
from brewput import _native
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


# --- Percentiles at every scale: the histograms have no smallest tick ---------

GAMMA_DELAY = """\
brewput: 1
name: gamma delay
stations:
  delay: {servers: inf}
classes:
  customer:
    rate: 1
    route:
      - station: delay
        service: gamma(1, 2)
"""
"""A pure delay: the response time IS the gamma service time (mean 1, cv 2,
shape 1/4), whose low quantiles lie many decades below the mean."""

GAMMA_POINTS = (1, 5, 10, 20, 50, 99)


@pytest.fixture(scope="module")
def gamma_delay(tmp_path_factory):
    path = tmp_path_factory.mktemp("gamma") / "gamma.yaml"
    path.write_text(GAMMA_DELAY)
    return brewput.simulate(str(path), seed=SEED, replications=10, customers=400_000)


@pytest.mark.parametrize("percent", GAMMA_POINTS)
def test_gamma_spectrum_matches_scipy_quantiles(gamma_delay, percent):
    # shape 1/cv^2, scale mean cv^2: the 1 % point is 2.7e-8, the 50 % point 0.27
    truth = scipy_gamma.ppf(percent / 100, a=0.25, scale=4.0)
    times = gamma_delay["classes"]["customer"]["response_time"]
    points = {p: (value, tolerance, half) for p, value, tolerance, half
              in spectrum_points(times, gamma_delay["settings"]["replications"])}
    value, tolerance, half = points[percent]
    # a pass means something: the interval is tight around the truth
    assert half <= 0.08 * truth, f"p{percent}: 95 % half-width {half} too wide for {truth}"
    assert_close(value, truth, tolerance + _native.RELATIVE_RESOLUTION * truth, what=f"p{percent}")


def test_gamma_named_percentiles_are_the_spectrum_points(gamma_delay):
    times = gamma_delay["classes"]["customer"]["response_time"]
    named = dict(times["spectrum"])
    for name, percent in _native.PERCENTILES:
        assert times[name] == named[percent]
    assert 0 < named[1] < named[5] < named[10], "small percentiles are resolved, not rounded to 0"


CONSTANT = """\
brewput: 1
stations:
  desk: {servers: 1}
classes:
  customer:
    arrivals: 10
    route:
      - {station: desk, service: 3.7777}
"""


def test_a_constant_time_is_reported_as_it_is(tmp_path):
    # no queue (arrivals every 10, service 3.7777): every response is 3.7777
    path = tmp_path / "constant.yaml"
    path.write_text(CONSTANT)
    times = brewput.simulate(str(path), seed=SEED, replications=2, customers=1000)["classes"]["customer"]["response_time"]
    assert times["max"] == pytest.approx(3.7777, rel=1e-12)
    for name, _ in _native.PERCENTILES:
        assert times[name] <= times["max"], f"{name} above the largest value"
        assert times[name] == pytest.approx(3.7777, rel=_native.RELATIVE_RESOLUTION)
    assert all(value <= times["max"] for _, value in times["spectrum"])
