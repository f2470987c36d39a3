"""analytic/timevarying/offered_load.py: the Mt/G/inf offered load against closed forms."""
import math

import numpy as np
from scipy import stats

from brewput.analytic.timevarying.offered_load import mean_present, number_present_law, offered_load
from brewput.model.distributions import Const, Exp, Hyperexp, Uniform
from brewput.model.timeline import Curve, Steps

DAY, BASE, SWING, SERVICE = 1440.0, 100.0, 60.0, 30.0
OMEGA, MU = 2 * math.pi / DAY, 1 / SERVICE


def periodic_mean(t):
    """Mt/M/inf with lambda = a + b sin(w t), in its periodic steady state: m' = lambda - mu m."""
    return BASE / MU + SWING * (MU * np.sin(OMEGA * t) - OMEGA * np.cos(OMEGA * t)) / (MU**2 + OMEGA**2)


def test_sinusoid_with_exponential_service_repeating_day():
    curve = Curve("100 + 60*sin(2*pi*t/1440)", DAY, repeat=True)
    t = np.array([0, 100, 360, 700, 1439.0])
    assert np.allclose(offered_load(curve, Exp(SERVICE), t), periodic_mean(t), rtol=1e-11)


def test_sinusoid_started_empty():
    curve = Curve("100 + 60*sin(2*pi*t/1440)", DAY)
    t = np.array([0, 10, 100, 360, 700])
    from_empty = periodic_mean(t) - periodic_mean(0.0) * np.exp(-MU * t)
    assert np.allclose(offered_load(curve, Exp(SERVICE), t), from_empty, rtol=1e-11, atol=1e-9)


def test_steps_with_a_fixed_service_time_by_hand():
    steps = Steps([0, 10, 20], [1, 3])
    # m(t) = Lambda(t) - Lambda(t - 4): arrivals of the last 4 time units
    assert offered_load(steps, Const(4), [2, 12, 21, 25]).tolist() == [2, 8, 9, 0]


def test_mixtures_and_densities_by_hand():
    steps = Steps([0, 10], [2.0])
    # two exponential phases: m(t) = sum p_i lambda m_i (1 - e^{-t / m_i})
    phases = Hyperexp(1, 2).compile()
    exact = sum(p * 2 * m * -math.expm1(-9.9 / m) for p, m in [(phases["p"], phases["mean1"]),
                                                               (1 - phases["p"], phases["mean2"])])
    assert np.isclose(offered_load(steps, Hyperexp(1, 2), [9.9])[0], exact, rtol=1e-11)
    # uniform(0, 2) service, t = 1: integral_0^1 2 (1 - u / 2) du = 1.5
    assert np.isclose(offered_load(steps, Uniform(0, 2), [1.0])[0], 1.5, rtol=1e-12)


def test_time_average_and_poisson_law():
    curve = Curve("100 + 60*sin(2*pi*t/1440)", DAY, repeat=True)
    edges = np.array([0.0, 360.0, 720.0])
    # integral of periodic_mean over each interval, in closed form
    primitive = lambda t: (BASE / MU * t + SWING * (-MU * np.cos(OMEGA * t) - OMEGA * np.sin(OMEGA * t))
                           / (OMEGA * (MU**2 + OMEGA**2)))
    exact = np.diff(primitive(edges)) / np.diff(edges)
    assert np.allclose(mean_present(curve, Exp(SERVICE), edges), exact, rtol=1e-11)
    law = number_present_law(3000.0, 0, 0.0, 6000)
    assert np.allclose(law, stats.poisson.pmf(np.arange(6001), 3000.0))
    with_start = number_present_law(2.0, 3, 0.5, 20)
    # Poisson(2) + Binomial(3, 1/2): its mean and its P(0)
    assert np.isclose(with_start @ np.arange(21), 3.5) and np.isclose(with_start[0], math.exp(-2) / 8)
