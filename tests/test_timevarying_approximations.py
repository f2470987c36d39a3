"""analytic/timevarying/stationary_approximations.py: each method's rate by hand, and
Erlang C and Erlang A where the rate and the servers do not move."""
import math

import pytest

from brewput.analytic.abandonment import erlang_a
from brewput.analytic.queues import mmc, mmc_wait_tail
from brewput.analytic.timevarying.stationary_approximations import METHODS, approximate, stationary_figures
from brewput.analytic.timevarying.transient import solve_transient
from brewput.model.timeline import Constant, Day, Rota, Steps


@pytest.mark.parametrize("method", METHODS)
def test_a_constant_rate_gives_erlang_c_and_a(method):
    day = Day(600, 15)
    rota = day.rota([4] * day.intervals)
    figures = approximate(method, Constant(2.0), 1.5, rota, targets=[0.5])
    assert not figures.exact and figures.method == method
    settled = -1  # MOL's offered load starts from empty, as the station does
    assert figures.mean_wait[settled] == pytest.approx(mmc(2.0, 1.5, 4).wait, rel=1e-9)
    assert figures.service_level[0.5][settled] == pytest.approx(1 - mmc_wait_tail(0.5, 2.0, 1.5, 4), rel=1e-9)
    impatient = approximate(method, Constant(3.5), 1.5, rota, patience=2.0, targets=[0.5])
    assert impatient.abandoned[settled] == pytest.approx(erlang_a(3.5, 1.5, 4, 2.0).abandoned, rel=1e-9)


def test_erlang_a_service_level_against_the_transient_at_its_steady_state():
    # two methods for P(wait <= x) of Erlang A: the stationary law with virtual waits,
    # and the forward equations run until they settle
    day = Day(300, 15)
    steady = solve_transient(Constant(3.5), 1.5, day.rota([4] * day.intervals), patience=2.0, targets=[0.5])
    stationary = stationary_figures(3.5, 1.5, 4, 2.0, [0.5])
    assert stationary[0.5] == pytest.approx(steady.service_level[0.5][-1], rel=1e-7)


def test_sipp_and_lag_sipp_rates_by_hand():
    steps = Steps([0, 10, 20, 30], [1.0, 3.0, 2.0])
    rota = Rota([0, 10, 20, 30], [2, 5, 4])
    sipp = approximate("sipp", steps, 1.0, rota)
    lag = approximate("lag-sipp", steps, 1.0, rota)
    assert sipp.mean_wait[1] == pytest.approx(mmc(3.0, 1.0, 5).wait, rel=1e-12)
    # lagged by E[S] = 1: the second interval sees [9, 19]: (1 * 1 + 9 * 3) / 10 = 2.8
    assert lag.mean_wait[1] == pytest.approx(mmc(2.8, 1.0, 5).wait, rel=1e-12)
    # the first sees [-1, 9]: nobody before the day: 9 / 10 = 0.9
    assert lag.mean_wait[0] == pytest.approx(mmc(0.9, 1.0, 2).wait, rel=1e-12)


def test_overloaded_instants_have_no_stationary_answer():
    figures = approximate("psa", Steps([0, 10, 20], [1.0, 9.0]), 1.0, Rota([0, 10, 20], [2, 2]))
    assert math.isnan(figures.mean_wait[1]) and figures.details["overloaded"] == [1]
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        approximate("nope", Constant(1.0), 1.0, Rota([0, 1], [1]))
