"""model/timeline.py and model/curve.py against hand computations and closed forms."""
import math

import numpy as np
import pytest

from brewput.model.curve import Curve as CurveExpression
from brewput.model.params import ExpressionError, evaluate
from brewput.model.timeline import Constant, Curve, Day, Linear, Rota, Steps, Total


def test_steps_rate_cumulative_and_bound_by_hand():
    steps = Steps([0, 1, 3], [2, 5])
    assert steps.rate([0, 0.5, 1, 2.9, 3, -1]).tolist() == [2, 2, 5, 5, 0, 0]
    # Lambda: 2 t on [0, 1], then 2 + 5 (t - 1); flat after the day
    assert steps.cumulative([0, 0.5, 1, 2, 3, 4, -1]).tolist() == [0, 1, 2, 7, 12, 12, 0]
    assert steps.bound(0.2, 0.9) == 2 and steps.bound(0.5, 1.0) == 2 and steps.bound(0.5, 1.01) == 5 and steps.bound(3, 9) == 0
    assert steps.total == 12
    assert steps.interval_means([0, 1, 3]).tolist() == [2, 5]


def test_steps_repeating_day_is_periodic():
    steps = Steps([0, 1, 3], [2, 5], repeat=True)
    assert steps.rate([3, 4, 6.5, -0.5]).tolist() == [2, 5, 2, 5]
    # two whole days and one step: 2 * 12 + 2; a negative time counts back
    assert steps.cumulative([7, -1]).tolist() == [26, -5]
    assert steps.bound(2.5, 3.5) == 5 and steps.bound(3.2, 3.9) == 2 and steps.bound(0, 10) == 5


def test_linear_is_the_trapezoid_and_flat_beyond_its_points():
    ramp = Linear([1, 2, 4], [10, 40, 10], length=5)
    # held at 10 on [0, 1], up to 40 at 2, down to 10 at 4, held at 10 to 5
    assert ramp.rate([0, 1.5, 2, 3, 4.5, 5]).tolist() == [10, 25, 40, 25, 10, 0]
    assert ramp.cumulative([1, 1.5, 2, 4, 5, 6]).tolist() == [10, 18.75, 35, 85, 95, 95]
    assert ramp.bound(0, 1.5) == 25 and ramp.bound(1, 4) == 40 and ramp.bound(2.5, 3) == 32.5


def test_constant_with_and_without_a_day():
    assert Constant(3).cumulative([2, 10]).tolist() == [6, 30] and Constant(3).bound(0, 1e9) == 3
    assert Constant(3, length=5).cumulative([2, 10]).tolist() == [6, 15]
    assert Constant(3, length=5).rate([4.9, 5]).tolist() == [3, 0]


def test_sinusoidal_curve_against_its_closed_form():
    day = 1440.0
    curve = Curve("100 + 60*sin(2*pi*t/1440)", day, repeat=True)
    t = np.array([0, 100, 360, 777.7, 1440, 2000, -5])
    assert np.allclose(curve.rate(t), 100 + 60 * np.sin(2 * np.pi * t / day), rtol=1e-15, atol=0)
    exact = 100 * t + 60 * day / (2 * np.pi) * (1 - np.cos(2 * np.pi * t / day))
    assert np.allclose(curve.cumulative(t), exact, rtol=1e-13, atol=1e-9)
    # the crest is 160 at t = 360; before it the curve rises, so its bound is its end value
    assert 160 <= curve.bound(0, day) <= 160 * (1 + 1e-3)
    end = 100 + 60 * math.sin(2 * math.pi * 100 / day)
    assert end <= curve.bound(0, 100) <= end * (1 + 1e-3)
    assert 160 <= curve.bound(1400, 1500 + 360) <= 160 * (1 + 1e-3)  # wraps over the day's end


def test_curve_bound_is_an_upper_bound_on_a_dense_grid():
    curve = Curve("max(0, 50*exp(-((t-120)/30)**2) + 5*cos(t/7)) + 1/(1 + (t/50)**2)", 300)
    for t0, t1 in [(0, 300), (100, 130), (200, 201), (0, 1e-6)]:
        grid = np.linspace(t0, t1, 100_001)
        top = curve.rate(grid).max()
        assert top <= curve.bound(t0, t1) <= top + 1e-3 * max(top, 1) + 1e-9


def test_curve_cumulative_against_a_fine_trapezoid():
    text = "20 + 10*cos(t/3) * exp(-t/50)"
    curve = Curve(text, 90)
    grid = np.linspace(0, 90, 2_000_001)
    values = CurveExpression(text).values(grid)  # rate(90) is 0: the day is [0, 90)
    trapezoid = np.concatenate([[0], np.cumsum((values[1:] + values[:-1]) / 2 * np.diff(grid))])
    at = [0, 10, 33.3, 90]
    assert np.allclose(curve.cumulative(at), np.interp(at, grid, trapezoid), rtol=1e-9)


def test_interval_arithmetic_encloses_each_function():
    expr = CurveExpression("sin(t) * cos(3*t) - exp(t/4)**2 / (2 + t**2) + min(t, 1) ** 3 + max(t, 2) ** 0.5")
    lo = np.linspace(-4, 4, 81)
    hi = lo + np.array([0.01, 0.3, 2.0] * 27)
    low, high = expr.ranges(lo, hi)
    for a, b, l, h in zip(lo, hi, low, high):
        values = expr.values(np.linspace(a, b, 2001))
        assert l - 1e-12 <= values.min() and values.max() <= h + 1e-12


def test_bad_curves_say_why_in_one_line():
    with pytest.raises(ExpressionError, match="unknown name 'x'"):
        CurveExpression("3 * x")
    with pytest.raises(ExpressionError, match="not allowed in a curve"):
        CurveExpression("__import__('os')")
    with pytest.raises(ExpressionError, match="not allowed in a curve"):
        CurveExpression("t.real")
    with pytest.raises(ValueError, match=r"negative at t = "):
        Curve("10 - t", 20)
    with pytest.raises(ExpressionError, match="not a finite number at t = "):
        Curve("1 / (t - 5)", 10)
    Curve("60 - 60*sin(2*pi*t/100)", 100)  # touches 0: allowed


def test_the_evaluator_of_params_is_unchanged():
    assert evaluate("min(3, 2) * 2 ** 3", {}) == 16
    with pytest.raises(ExpressionError, match="is not allowed"):
        evaluate("sin(1)", {})


def test_rota_servers_per_interval():
    rota = Rota([0, 15, 30, 45], [2, 0, 3])
    assert rota.servers([0, 14.9, 15, 44, 45, 100, -1]).tolist() == [2, 2, 0, 3, 3, 3, 2]
    assert Rota([0, 15, 30, 45], [2, 0, 3], repeat=True).servers([45, 60]).tolist() == [2, 0]
    with pytest.raises(ValueError, match="whole number"):
        Rota([0, 1], [1.5])
    with pytest.raises(ValueError, match=">= 0"):
        Rota([0, 1], [-1])


def test_day_edges_and_clock_labels():
    day = Day(length=300, interval=15, start_label="06:00", time_unit="min")
    assert day.intervals == 20 and day.edges[-1] == 300 and day.edges[1] == 15
    assert day.labels[:3] == ["06:00", "06:15", "06:30"] and day.labels[-1] == "10:45"
    assert Day(length=2, interval=0.5, start_label="23:30", time_unit="h").labels == ["23:30", "00:00", "00:30", "01:00"]
    assert Day(length=60, interval=30).labels == ["0 s", "30 s"]
    with pytest.raises(ValueError, match="whole number of intervals"):
        Day(length=100, interval=15)
    with pytest.raises(ValueError, match="clock time"):
        Day(length=60, interval=30, start_label="25:00")
    assert day.steps([1] * 20).total == 300 and day.rota([2] * 20).servers([299]).tolist() == [2]


def test_a_total_of_rates_is_their_sum():
    steps, ramp = Steps([0, 1, 3], [2, 5]), Linear([1, 2], [10, 40], length=3)
    total = Total([steps, ramp])
    t = np.array([0.5, 1.5, 2.5, 3.5])
    assert total.rate(t).tolist() == (steps.rate(t) + ramp.rate(t)).tolist()
    assert total.cumulative(t).tolist() == (steps.cumulative(t) + ramp.cumulative(t)).tolist()
    assert total.bound(0, 3) == 45 and total.breaks.tolist() == [1, 2] and not total.steady_between_breaks
    with pytest.raises(ValueError, match="different days"):
        Total([steps, Constant(1)])
