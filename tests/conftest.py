"""Shared helpers for the end-to-end tests of simulated figures.

The tolerance rule, wherever a simulated figure meets a truth: brewput reports a
95 % Student-t interval over R replications. Widened by t(0.9995, R-1) / t(0.975, R-1)
it becomes a 99.9 % interval, and the truth must lie inside it. Seeds are fixed,
so a test that passes keeps passing; the wide coverage keeps the chance that a
correct engine fails some fixed seed small even across many asserts.
"""
import signal
from functools import lru_cache

import pytest
from scipy.stats import t as student_t

import brewput
from brewput.errors import ModelError
import brewput.bundled
import leftovers

# Tests send Ctrl-C to the commands they start. A shell that runs the suite in the
# background (`make test &`) starts it with SIGINT ignored, which every child would
# inherit and keep, as a background job should: a handler of our own here is reset
# to the default in each child, so the commands meet Ctrl-C as in a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

# The examples as the package ships them (the checkout's examples/ links to them).
EXAMPLES = brewput.bundled.EXAMPLES


@lru_cache(maxsize=None)
def simulated(path, params=(), **settings):
    """brewput.simulate, run once per distinct call (params as a tuple of pairs).

    Many tests read figures of the same run; the returned dict is shared, so
    tests must not modify it.
    """
    return brewput.simulate(str(path), params=dict(params) or None, **settings)


def figure(res, path):
    """The figure at `path` (a tuple of keys) in a results dict and its 95 % CI."""
    node = res
    for name in path[:-1]:
        node = node[name]
    return node[path[-1]], node[path[-1] + "_ci"]


def widened(res, path):
    """The figure at `path` and its 99.9 % half-width (the 95 % CI's, widened)."""
    value, (lo, hi) = figure(res, path)
    r = res["settings"]["replications"]
    factor = student_t.ppf(0.9995, r - 1) / student_t.ppf(0.975, r - 1)
    return value, (hi - lo) / 2 * factor


def student_interval(values, confidence=0.999):
    """The mean of independent runs (numpy array, one row per run) and the
    half-width of its Student-t interval at `confidence`."""
    half = student_t.ppf(0.5 + confidence / 2, len(values) - 1) * values.std(0, ddof=1) / len(values) ** 0.5
    return values.mean(0), half


def assert_close(value, truth, tol, *, floor=0.0, what=""):
    """|value - truth| <= max(tol, floor x |truth|)."""
    allowed = max(tol, floor * abs(truth))
    assert abs(value - truth) <= allowed, (
        f"{what}: measured {value!r}, truth {truth!r}, allowed +-{allowed:.4g}")


def check(res, path, truth, *, floor=0.0, resolution=0.0, max_rel_width=None):
    """The figure at `path` matches `truth` under the tolerance rule.

    `resolution` adds a known measurement resolution (e.g. the histograms' three
    significant digits) to the tolerance; `floor` is a least relative tolerance
    for figures whose CI is (nearly) zero. With `max_rel_width`, the 95 % CI must
    also be tight (half-width at most that fraction of the truth), so that a pass
    means something.
    """
    what = "/".join(map(str, path))
    value, (lo, hi) = figure(res, path)
    if max_rel_width is not None:
        assert (hi - lo) / 2 <= max_rel_width * abs(truth), (
            f"{what}: 95 % CI [{lo}, {hi}] too wide to test against {truth!r}")
    _, tol = widened(res, path)
    assert_close(value, truth, tol + resolution, floor=floor, what=what)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """A test run from its own empty folder (relative paths land there)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def error_of(call, *args, **kwargs):
    """The one-line message of the ModelError that `call(*args, **kwargs)` raises."""
    with pytest.raises(ModelError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300
    return message


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Every test leaves nothing running behind it (tests/leftovers.py says why)."""
    started = leftovers.uptime()
    yield
    left = leftovers.killed_after_grace(started)
    if left:
        import warnings

        warnings.warn(pytest.PytestWarning(f"{item.nodeid} left {len(left)} process(es) running, killed: "
                                           + "; ".join(f"{pid} {command[:120]}" for pid, command in left.items())))
