"""A distribution is one class: what the analytic methods need of it (its
transform for GI/M/1, the Poisson arrivals during one draw for M/G/1/K, its
atoms or density for shortest job first) are its methods, and each kind's
agree with one another and with its mean."""
import math

import numpy as np
import pytest

from brewput.model.distributions import KINDS, Distribution, parse_distribution

EACH = ["const(1.5)", "exp(2)", "erlang(3, 2)", "gamma(2, 0.5)", "lognormal(2, 0.7)", "uniform(1, 3)",
        "normal(2, 0.5)", "hyperexp(2, 1.5)", "jitter(2, 1)", "empirical([1, 2, 2, 5])"]


def test_the_list_covers_every_kind():
    assert {parse_distribution(text).kind for text in EACH} == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_its_own_transform_and_poisson_mixture(kind):
    cls = KINDS[kind]
    assert cls.laplace_complement is not Distribution.laplace_complement
    assert cls.poisson_mixture is not Distribution.poisson_mixture


@pytest.mark.parametrize("text", EACH)
def test_the_transform_starts_at_the_mean(text):
    """1 - A*(x) = x E[T] + O(x²)."""
    dist = parse_distribution(text)
    x = 1e-7
    assert dist.laplace_complement()(x) / x == pytest.approx(dist.mean, rel=1e-5)


@pytest.mark.parametrize("text", EACH)
@pytest.mark.parametrize("lam", [0.1, 1.5])
def test_no_arrival_during_a_draw_is_the_transform(text, lam):
    """a_0 = P(no Poisson(lam) arrival during T) = E[exp(-lam T)] = A*(lam), and
    A_1 = P(at least one) = 1 - a_0: the two methods agree."""
    dist = parse_distribution(text)
    log_a0, log_tails = dist.poisson_mixture(lam, np.arange(4, dtype=float))
    assert math.exp(log_a0) == pytest.approx(1 - dist.laplace_complement()(lam), rel=1e-9)
    assert math.exp(log_tails[0]) == pytest.approx(1.0, abs=1e-12)
    assert math.exp(log_tails[1]) == pytest.approx(dist.laplace_complement()(lam), rel=1e-9)


@pytest.mark.parametrize("text", EACH)
def test_the_shortest_job_first_parts_hold_the_whole_mean(text):
    """Atoms or a density with its partial mean: over all sizes, the mean."""
    dist = parse_distribution(text)
    total = 0.0
    for weight, part in dist.parts():
        atoms = part.atoms()
        if atoms is not None:
            values, probabilities = atoms
            assert probabilities.sum() == pytest.approx(1.0) and list(values) == sorted(values)
            total += weight * float(values @ probabilities)
        else:
            frozen, partial = part.quantile_law()
            assert float(partial(frozen.ppf(1 - 1e-15))) == pytest.approx(part.mean, rel=1e-6)
            assert frozen.mean() == pytest.approx(part.mean, rel=1e-9)
            total += weight * part.mean
    assert total == pytest.approx(dist.mean, rel=1e-12)


def test_a_degenerate_law_is_one_atom():
    for text in ("uniform(2, 2)", "normal(2, 0)", "const(3)"):
        values, probabilities = parse_distribution(text).atoms()
        assert list(values) == [parse_distribution(text).mean] and list(probabilities) == [1.0]
