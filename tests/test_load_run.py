"""`brewput load` against the demo server, started by each test on 127.0.0.1:
the rate it holds, its stages, coordinated omission (a stall shows in the
response time and not in the service time), and M/M/c behind HTTP beside
Erlang C. Every run is a few seconds at a few hundred requests per second."""

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from brewput.cli import app

from brewput.analytic.queues import mmc
from brewput.loadtest import measure
from brewput.loadtest import options as opt
from brewput.loadtest.results import to_results
from brewput.loadtest.run import run_settings
from conftest import student_interval
from load_server import serving

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines


def settings(url, *, rate=None, arrivals="constant", ramp=None, step=None, duration="3s", warmup="0s",
             connections=8, seed=1, timeout="10s", tick=None):
    schedule = opt.schedule(rate_text=rate, arrivals=arrivals, ramp_text=ramp, step_text=step,
                            duration_text=duration if step is None else None, requests_text=None,
                            warmup_text=warmup, seed=seed)
    return run_settings(opt.http_target(url).settings("GET"), schedule, connections=connections, max_in_flight=10_000,
                        timeout_seconds=opt.seconds("timeout", timeout), tick_seconds=tick and opt.tick(tick))


def run(url, **kwargs):
    summary = measure(settings(url, **kwargs))
    return to_results(summary, target=url, method="http", settings={})


def test_the_rate_is_held_within_one_percent_when_the_server_keeps_up():
    with serving("const(1ms)", workers=4) as url:
        r = run(url, rate="200", duration="4s")
    load = r["load"]
    assert load["sent"] == 800 and load["answers"] == {"2xx": 800} and load["dropped"] == 0
    assert abs(load["achieved_rate"] / 200 - 1) < 0.01, load["achieved_rate"]
    # The answers took the 1 ms service and little else.
    assert 1.0 <= r["classes"]["request"]["service_time"]["p50"] < 5.0


def test_a_tick_sends_what_falls_due_within_it_together():
    # 1 request per ms, woken every 4 ms: each wake sends the four due since the
    # last, r, r + 1, r + 2 and r + 3 ms late, r in [0, 1) the wakes' phase
    # against the schedule: a mean lag from 1.5 ms (in phase) to 2 ms (drifting),
    # none a tick late but for the wake-up's own delay (the p99, not the max: a
    # busy machine may hold up any one wake-up). Woken for each (the default
    # tick, 50 µs, is shorter than their spacing) they go on time.
    with serving("const(0.1ms)", workers=4) as url:
        ticked = run(url, rate="1000", duration="2s", tick="4ms")
        default = run(url, rate="1000", duration="2s")
    for r in (ticked, default):
        assert r["load"]["sent"] == 2000 and abs(r["load"]["achieved_rate"] / 1000 - 1) < 0.01
    lag = ticked["classes"]["request"]["lag"]
    assert 1.4 <= lag["mean"] <= 2.2 and lag["p99"] < 4.25, lag
    assert default["classes"]["request"]["lag"]["mean"] < 0.5, default["classes"]["request"]["lag"]


def test_the_tick_by_default_is_the_generators_recorded_and_the_help_says_which():
    from brewput import _native
    from brewput.units import SECONDS

    settings = run_settings({}, {}, connections=1, max_in_flight=1, timeout_seconds=1)
    assert settings["tick_seconds"] == _native.LOAD_DEFAULT_TICK_SECONDS
    result = CliRunner().invoke(app, ["load", "--help"], terminal_width=300)
    shown = re.search(r"\[default: ([0-9.]+)(us|ms)\]", result.output[result.output.index("--tick"):])
    assert float(shown[1]) * SECONDS[shown[2]] == pytest.approx(_native.LOAD_DEFAULT_TICK_SECONDS)


def test_steps_and_ramps_hit_their_rates_per_stage():
    with serving("const(0.5ms)", workers=4) as url:
        steps = run(url, step="100x2s,300x2s")
        ramp = run(url, ramp="100..300", duration="4s")
    # Requests are counted by the whole second they were sent in: a send late
    # across a second's boundary moves one request, so ±2 per second.
    assert [s["sent"] for s in steps["load"]["stages"]] == pytest.approx([200, 600], abs=4)
    assert [s["sent_rate"] for s in steps["load"]["stages"]] == pytest.approx([100, 300], rel=0.02)
    per_second = ramp["load"]["sent_per_second"]
    expected = [100 + 50 * (i + 0.5) for i in range(4)]  # ∫ of the rate over each second
    assert len(per_second) >= 4 and np.all(np.abs(np.array(per_second[:4]) - expected) <= 3), per_second


def test_a_stall_shows_in_the_response_time_not_in_the_service_time(tmp_path):
    # One worker, one connection: about 1 request in 400 takes 300 ms. While it
    # does, the requests due wait unsent in the generator (lag), so the
    # uncorrected service time stays short and only the response time from the
    # intended start shows what users arriving meanwhile would wait.
    values = tmp_path / "service.csv"
    values.write_text("\n".join(["0.001"] * 399 + ["0.3"]) + "\n")
    with serving(f"empirical({values})", workers=1, seed=2) as url:
        r = run(url, rate="200", duration="5s", connections=1)
    request = r["classes"]["request"]
    service, response, lag = request["service_time"], request["response_time"], request["lag"]
    assert service["max"] >= 300, "the seed gave no stall: the test proves nothing"
    assert service["p99"] < 10, service
    assert response["p99"] > 100 and lag["p99"] > 50, (response, lag)
    # The one stalled request is in both; the response time has every request
    # queued behind it (the sum of lags is the time the uncorrected view hides).
    assert response["mean"] > 3 * service["mean"]


def _batch(url, runs, **kwargs):
    """Mean response time (ms) of independent runs (each its own seed)."""
    return np.array([run(url, seed=100 + i, **kwargs)["classes"]["request"]["response_time"]["mean"]
                     for i in range(runs)])


def test_mmc_behind_http_agrees_with_erlang_c():
    # M/M/2 at 50 %: service exp(5 ms), Poisson arrivals at 200/s. The
    # measured response includes the loopback HTTP round trip, which the model
    # does not: it is measured on its own (a zero service time, same rate and
    # connections) and added to Erlang C's response time. The tolerance is the
    # 99.9 % Student-t interval over independent runs of each.
    with serving("const(0)", workers=2, seed=5) as url:
        overhead, overhead_half = student_interval(_batch(url, 3, rate="200", arrivals="poisson", duration="1s"))
    with serving("exp(5ms)", workers=2, seed=7) as url:
        # Ten short runs rather than five long ones: the same samples, but nine
        # degrees of freedom make the 99.9 % interval half as wide as four do.
        measured, half = student_interval(_batch(url, 10, rate="200", arrivals="poisson", duration="2s", warmup="0.25s"))
    truth = mmc(200.0, 0.005, 2).response * 1e3 + overhead
    assert abs(measured - truth) <= half + overhead_half, (measured, truth, half, overhead)
    assert overhead < 2.0, "the loopback round trip should be far below the service time"


def test_a_full_window_drops_requests_and_counts_them():
    # One worker taking 50 ms, at 100/s: the server holds at most 20/s. With
    # at most 5 requests in flight the rest are dropped when due, counted,
    # warned about and in the error rate; none vanishes.
    with serving("const(50ms)", workers=1) as url:
        s = settings(url, rate="100", duration="2s", connections=5)
        s["max_in_flight"] = 5
        r = to_results(measure(s), target=url, method="http", settings={})
    load = r["load"]
    assert load["sent"] + load["dropped"] == 200 and load["dropped"] > 100
    assert load["error_rate"] == pytest.approx(load["dropped"] / 200)
    assert any("dropped" in w for w in r["warnings"]) and any("below 95%" in w for w in r["warnings"])


def test_requests_and_warmup_count_only_the_measured():
    with serving("const(0.5ms)", workers=2) as url:
        s = settings(url, rate="100", duration="2s")
        s["schedule"]["requests"], s["schedule"]["warmup_seconds"] = 50, 0.5
        load = to_results(measure(s), target=url, method="http", settings={})["load"]
    assert (load["sent"], load["warmup"]) == (50, 50)
