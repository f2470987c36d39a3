"""The load generator's schedule, checked directly (nothing is sent): the
intended start times `brewput load` would pace, from the Rust generator itself."""
import numpy as np
import pytest
from scipy import stats

from brewput.errors import BrewputError
from brewput.loadtest import schedule_times
from brewput.loadtest import options as opt


def schedule(rate=None, arrivals="poisson", ramp=None, step=None, duration="10s", requests=None, warmup="0s", seed=1):
    return opt.schedule(rate_text=rate, arrivals=arrivals, ramp_text=ramp, step_text=step, duration_text=duration,
                        requests_text=requests, warmup_text=warmup, seed=seed)


def test_poisson_gaps_are_exponential_at_the_rate():
    times = np.array(schedule_times(schedule(rate="500", duration="100s")))
    gaps = np.diff(times)
    # Kolmogorov-Smirnov against Exp(500/s); the seed is fixed, and a correct
    # generator fails a 1 % test on one seed in a hundred.
    assert stats.kstest(gaps, "expon", args=(0, 1 / 500)).pvalue > 0.01
    # The count is Poisson(50,000): within 4 standard deviations.
    assert abs(len(times) - 50_000) < 4 * np.sqrt(50_000)
    # And the gaps are independent: lag-1 autocorrelation within 4/√n of 0.
    assert abs(np.corrcoef(gaps[:-1], gaps[1:])[0, 1]) < 4 / np.sqrt(len(gaps))


def test_poisson_counts_per_second_are_poisson():
    times = np.array(schedule_times(schedule(rate="50", duration="400s", seed=9)))
    counts = np.bincount(times.astype(int), minlength=400)
    # Index of dispersion: variance/mean of Poisson counts is 1; for 400 counts
    # its sd is about √(2/399) ≈ 0.071.
    assert abs(counts.var(ddof=1) / counts.mean() - 1) < 4 * np.sqrt(2 / 399)


def test_constant_spacing_is_exact():
    times = schedule_times(schedule(rate="250", arrivals="constant", duration="2s"))
    assert len(times) == 500
    assert np.allclose(np.diff(times), 1 / 250, rtol=0, atol=1e-12)


def test_ramp_per_second_follows_the_rate():
    # 100/s -> 300/s over 10 s: second i holds ∫ = 100 + 20·(i + 0.5) requests (±1).
    times = np.array(schedule_times(schedule(ramp="100..300", arrivals="constant", duration="10s")))
    counts = np.bincount(times.astype(int), minlength=10)
    expected = 100 + 20 * (np.arange(10) + 0.5)
    assert np.all(np.abs(counts - expected) <= 1), counts


def test_a_ramp_from_zero_starts_at_zero_and_down_to_zero_ends_in_time():
    up = np.array(schedule_times(schedule(ramp="0..200", arrivals="constant", duration="2s")))
    down = np.array(schedule_times(schedule(ramp="200..0", arrivals="constant", duration="2s")))
    for times in (up, down):
        assert len(times) == 200 and np.all(np.isfinite(times)) and np.all(np.diff(times) > 0)
        assert times[0] == 0 and times[-1] < 2
    # Up: k requests by t = sqrt(k/50); down: the mirror image.
    assert up[50] == pytest.approx(1.0) and down[150] == pytest.approx(2 - np.sqrt(50 / 50))


def test_steps_hold_each_stage_rate():
    times = np.array(schedule_times(schedule(step="100x2s,400x1s,50x2s", arrivals="constant", duration=None)))
    assert [np.sum((times >= a) & (times < b)) for a, b in ((0, 2), (2, 3), (3, 5))] == [200, 400, 100]


def test_requests_cap_and_warmup():
    times = schedule_times(schedule(rate="100", arrivals="constant", duration=None, requests="50", warmup="1s"))
    assert len(times) == 150  # 100 warm-up requests in the first second, then 50 measured


def test_the_seed_fixes_the_schedule_and_changes_it():
    a, b = (schedule_times(schedule(rate="100", seed=s)) for s in (3, 3))
    assert a == b and a != schedule_times(schedule(rate="100", seed=4))


@pytest.mark.parametrize("kwargs, field", [
    (dict(rate="0"), "rate"), (dict(rate="-5"), "rate"), (dict(rate="nan"), "rate"), (dict(rate="1e99"), "rate"),
    (dict(rate="10", duration="-1s"), "duration"), (dict(rate="10", duration="10"), "duration"),
    (dict(ramp="0..0"), "ramp"), (dict(ramp="5"), "ramp"), (dict(ramp="1..2", duration=None, requests="5"), "ramp"),
    (dict(step="100"), "step"), (dict(step="100x0s"), "step"), (dict(rate="1", step="1x1s"), "rate"),
    (dict(rate="1", arrivals="bursty"), "arrivals"), (dict(rate="1", warmup="-1s"), "warmup"),
    (dict(rate="1", requests="0"), "requests"), (dict(rate="1e-6", duration=None, requests="10"), "requests"),
])
def test_bad_schedules_are_refused_naming_the_option(kwargs, field):
    with pytest.raises(BrewputError, match=field):
        schedule(**kwargs)


def test_the_load_generator_leaves_brewput_load_the_model_loader():
    # The package is `brewput.loadtest`: a subpackage named `load` would
    # replace the public `brewput.load(model)` once imported.
    import brewput
    import brewput.loadtest.options  # noqa: F401

    assert callable(brewput.load) and brewput.load("examples/mmc.yaml").features() is not None
