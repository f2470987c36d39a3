"""The statistics the engine owns and Python reads through the binding: the
Student-t quantile of every interval, the confidence level, the percentile
lists and the histograms' resolution."""
import pytest
from scipy.special import betainc
from scipy.stats import t as student_t

from brewput import _native
from brewput.compare import _widening
from brewput.errors import BrewputError, EngineInputError
from brewput.results import TIME_FIGURES


@pytest.mark.parametrize("level", [1e-6, 0.1, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999, 1 - 1e-10])
@pytest.mark.parametrize("df", [1, 1.5, 2, 3, 4, 9, 29, 99, 500, 999, 1000, 5000, 99_999, 10**7])
def test_t_critical_is_scipys(level, df):
    x = _native.t_critical(level, df)
    if level >= 0.5:
        assert x == pytest.approx(student_t.ppf((1 + level) / 2, df), rel=1e-9)
        assert 2 * student_t.sf(x, df) == pytest.approx(1 - level, rel=1e-8)
    else:
        # this close to the median scipy's ppf loses digits (a relative 1e-4 at
        # level 1e-6, df 4): check the defining equation P(|T| < x) = level instead
        assert betainc(0.5, df / 2, x * x / (df + x * x)) == pytest.approx(level, rel=1e-9)


@pytest.mark.parametrize("level, df", [(0, 3), (1, 3), (-0.5, 3), (float("nan"), 3), (0.95, 0), (0.95, 0.5),
                                       (0.95, float("inf")), (0.95, float("nan"))])
def test_t_critical_refuses_what_has_no_quantile(level, df):
    with pytest.raises(EngineInputError):
        _native.t_critical(level, df)


@pytest.mark.parametrize("level", [0.9, 0.99])
@pytest.mark.parametrize("replications", [2, 5, 30])
def test_compare_widens_with_the_engines_quantile(level, replications):
    want = student_t.ppf((1 + level) / 2, replications - 1) / student_t.ppf(0.975, replications - 1)
    assert _widening(level, replications) == pytest.approx(want, rel=1e-9)
    assert _widening(_native.CONFIDENCE, replications) == 1.0
    assert _widening(level, 1) == 1.0


def test_the_percentile_lists_are_the_engines():
    names = [name for name, _ in _native.PERCENTILES]
    assert TIME_FIGURES == ("mean", *names)
    assert _native.CONFIDENCE == 0.95
    spectrum = list(_native.SPECTRUM)
    assert spectrum == sorted(set(spectrum)) and 0 < spectrum[0] and spectrum[-1] < 100
    assert all(percent in spectrum for _, percent in _native.PERCENTILES)
    assert _native.RELATIVE_RESOLUTION == 2.0 ** -10


@pytest.mark.parametrize("level", [0, 1, 1.5, float("nan")])
def test_compare_refuses_a_level_that_is_not_a_fraction(level):
    with pytest.raises(BrewputError, match="level"):
        _widening(level, 5)
