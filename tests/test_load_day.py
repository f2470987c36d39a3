"""`brewput load --day MODEL`: the load follows a model's day. The schedule is
checked directly (nothing sent): its requests per interval against the day's
integrated rate, computed here by hand (a rate per interval times its width, a
piecewise linear rate's trapezoids), by a chi-square test and Poisson bounds;
then a short live run against a demo server the test starts on 127.0.0.1, and
bad input as one line with exit 2."""
import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from brewput.loadtest import schedule_times
from brewput.loadtest.day import day_load, day_schedule
from load_server import serving

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines


def brewput(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "brewput", *args], capture_output=True, text=True, timeout=timeout)


def model(tmp_path, rate, length="40s", interval="10s", time_unit="s", name="day.yaml", extra="", service="exp(0.005)"):
    path = tmp_path / name
    path.write_text(f"""brewput: 1
time_unit: {time_unit}
day:
  length: {length}
  interval: {interval}
{extra}stations:
  web:
    servers: 2
classes:
  request:
    rate: {rate}
    route: [{{station: web, service: {service}}}]
""")
    return str(path)


def times_of(path, arrivals="poisson", seed=1):
    day = day_load(path, {})
    return day, np.array(schedule_times(day_schedule(day, arrivals=arrivals, requests_text=None, warmup_text="0s",
                                                     seed=seed)))


def counts(times, edges):
    return np.histogram(times, bins=edges)[0]


def poisson_chi_square(got, expected):
    """Pearson's statistic of independent Poisson counts (their total not fixed): chi-square with as many
    degrees of freedom as counts; its p-value."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return stats.chi2.sf(np.sum((got - expected) ** 2 / expected), df=got.size)


def test_a_rate_per_interval_gives_each_interval_its_rate_times_its_width(tmp_path):
    rates = [50, 200, 0, 120]
    day, times = times_of(model(tmp_path, rates))
    expected = np.array(rates) * 10.0
    got = counts(times, [0, 10, 20, 30, 40])
    assert got[2] == 0, "a closed interval sends nothing"
    open_ = expected > 0
    assert poisson_chi_square(got[open_], expected[open_]) > 0.001, (got, expected)
    # and each within the Poisson's two-sided 99.99 % bounds
    low, high = stats.poisson.ppf(5e-5, expected[open_]), stats.poisson.ppf(1 - 5e-5, expected[open_])
    assert np.all((low <= got[open_]) & (got[open_] <= high)), (got, expected)
    assert [s["target_rate"] for s in day.spans] == rates
    assert all(s["steady"] for s in day.spans)


def test_a_piecewise_linear_rate_follows_its_integral_inside_each_interval(tmp_path):
    # 20/s held to 5 s, up to 300/s at 25 s, down to 40/s at 40 s: the knots fall inside intervals.
    day, times = times_of(model(tmp_path, "{linear: [[5, 20], [25, 300], [40, 40]]}"), seed=4)

    def rate(t):
        return np.interp(t, [0, 5, 25, 40], [20, 20, 300, 40])

    # The expected count of each 2.5 s bin, by the trapezoid rule on a grid holding every knot (exact for a
    # piecewise linear rate).
    edges = np.arange(0, 40.01, 2.5)
    expected = []
    for a, b in zip(edges[:-1], edges[1:]):
        grid = np.unique(np.concatenate([[a, b], [k for k in (5, 25) if a < k < b]]))
        expected.append(np.sum(np.diff(grid) * (rate(grid[:-1]) + rate(grid[1:])) / 2))
    expected = np.array(expected)
    got = counts(times, edges)
    assert poisson_chi_square(got, expected) > 0.001, (got, expected)
    # The reported intervals' target rates are the day's mean rates over each interval (exact).
    for span in day.spans:
        a, b = span["start_seconds"], span["end_seconds"]
        grid = np.unique(np.concatenate([[a, b], [k for k in (5, 25) if a < k < b]]))
        mean = np.sum(np.diff(grid) * (rate(grid[:-1]) + rate(grid[1:])) / 2) / (b - a)
        assert span["target_rate"] == pytest.approx(mean, rel=1e-12)
        assert not span["steady"]


def test_the_model_time_unit_is_converted_to_the_wall_clock(tmp_path):
    # A day of 2,000 ms in 500 ms intervals, rates per ms: 0.1/ms is 100/s.
    day, times = times_of(model(tmp_path, "[0.1, 0.4, 0.2, 0.05]", length="2s", interval="500ms",
                                time_unit="ms"), arrivals="constant")
    assert [s["end_seconds"] for s in day.spans] == pytest.approx([0.5, 1.0, 1.5, 2.0])
    # Constant spacing in the integrated rate: each interval holds its expected count, to one request.
    got = counts(times, [0, 0.5, 1.0, 1.5, 2.0])
    assert np.all(np.abs(got - np.array([50, 200, 100, 25])) <= 1), got
    assert day.labels == ["0 ms", "500 ms", "1000 ms", "1500 ms"]


def test_a_day_run_against_a_server_reports_each_interval(tmp_path):
    path = model(tmp_path, "[100, 300, 200, 50]", length="2s", interval="500ms")
    with serving("exp(2ms)", workers=4) as url:
        done = brewput("load", url, "--day", path, "--json", "--seed", "3")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    rows = results["intervals"]
    assert [r["label"] for r in rows] == ["0 s", "0.5 s", "1 s", "1.5 s"]
    assert [(r["start"], r["end"]) for r in rows] == [(0, 500), (500, 1000), (1000, 1500), (1500, 2000)]
    due = [r["classes"]["request"]["arrivals"] for r in rows]
    assert sum(due) == results["load"]["sent"] + results["load"]["dropped"]
    expected = np.array([50, 150, 100, 25])
    low, high = stats.poisson.ppf(5e-5, expected), stats.poisson.ppf(1 - 5e-5, expected)
    assert np.all((low <= due) & (due <= high)), due
    for row in rows:
        request = row["classes"]["request"]
        assert request["completed"] == request["arrivals"]  # a server well below saturation answers all
        assert 2.0 <= request["response_time"]["mean"] < 50.0
    assert results["day"]["model"] == path


def test_the_table_shows_a_row_per_interval(tmp_path):
    path = model(tmp_path, "[100, 200]", length="1s", interval="500ms")
    with serving("const(1ms)", workers=2) as url:
        done = brewput("load", url, "--day", path)
    assert done.returncode == 0, done.stderr
    assert "per interval of the day" in done.stdout
    assert "model time as wall time" in done.stdout
    rows = [line for line in done.stdout.splitlines() if line.startswith("│") and ("0 s" in line or "0.5 s" in line)]
    assert len(rows) == 2, done.stdout


@pytest.mark.parametrize("args, words", [
    (["--rate", "100"], ["--day", "--rate", "drop --rate"]),
    (["--duration", "5s"], ["--day", "--duration"]),
    (["--sweep", "rate=1,2"], ["--day", "--sweep"]),
])
def test_the_day_gives_the_rate_and_its_length(tmp_path, args, words):
    path = model(tmp_path, "[100, 200]", length="1s", interval="500ms")
    done = brewput("load", "http://127.0.0.1:9/", "--day", path, *args)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def test_a_curve_is_followed_within_a_millionth_of_its_highest_rate(tmp_path):
    path = model(tmp_path, '{curve: "100 + 50*sin(t)"}')

    def integral(a, b):  # of 100 + 50 sin(t), by hand
        return 100 * (b - a) + 50 * (np.cos(a) - np.cos(b))

    edges = np.arange(0, 40.01, 2.5)
    expected = np.array([integral(a, b) for a, b in zip(edges[:-1], edges[1:])])
    day, evenly = times_of(path, arrivals="constant")
    # constant arrivals are evenly spaced in the integrated rate: each bin within one of its integral
    assert np.all(np.abs(counts(evenly, edges) - expected) <= 1 + 1e-3), counts(evenly, edges) - expected
    _, poisson = times_of(path, seed=5)
    assert poisson_chi_square(counts(poisson, edges), expected) > 0.001
    # the lines drawn: at their midpoints within a millionth of the highest rate (150) of the curve
    start = np.cumsum([0.0] + [stage["seconds"] for stage in day.stages])
    middle = (start[:-1] + start[1:]) / 2
    drawn = np.array([(stage["from"] + stage["to"]) / 2 for stage in day.stages])
    assert np.abs(drawn - (100 + 50 * np.sin(middle))).max() <= 1e-6 * 150
    assert start[-1] == pytest.approx(40, rel=1e-12)
    assert [s["target_rate"] for s in day.spans] == pytest.approx([integral(a, a + 10) / 10 for a in (0, 10, 20, 30)],
                                                                  rel=1e-12)


def test_a_curve_sped_up_is_the_same_day_on_a_faster_clock(tmp_path):
    from brewput.model import load
    from brewput.loadtest.speedup import compressed

    path = model(tmp_path, '{curve: "100 + 50*sin(2*pi*t/24h)"}', length="24h", interval="1h", time_unit="min")
    fast = day_load(path, {}, speedup=3600)
    assert fast.spans[-1]["end_seconds"] == pytest.approx(24, rel=1e-12)
    assert [s["target_rate"] for s in fast.spans] == [s["target_rate"] for s in day_load(path, {}).spans]
    seconds = compressed(load(path), 3600)
    t = np.linspace(0, 0.399, 50)  # the compressed day's 0.4 minutes: its rate at t is the day's at 3600 t
    assert seconds.classes["request"].day_rate.rate(t) == pytest.approx(
        100 + 50 * np.sin(2 * np.pi * 3600 * t / 1440), rel=1e-12)


@pytest.mark.parametrize("rate, extra, words", [
    ('{curve: "100 + 50*sin(1000000*t)"}', "", ["--day", "curve", "bends too sharply", "linear:"]),
    ("[1e9, 1]", "", ["--day", "reaches 1e+09 requests per second", "at most 10,000,000 per second"]),
    ("[100, 200]", "", ["--day", "nobody", "open classes: request"]),
])
def test_a_day_the_load_cannot_follow_is_one_line(tmp_path, rate, extra, words):
    path = model(tmp_path, rate, length="1s", interval="500ms", extra=extra)
    spec = path + ":nobody" if "nobody" in words else path
    done = brewput("load", "http://127.0.0.1:9/", "--day", spec)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def test_a_model_without_a_day_is_refused(tmp_path):
    done = brewput("load", "http://127.0.0.1:9/", "--day", "examples/server.yaml")
    assert done.returncode == 2 and "no day: block" in done.stderr and "--day" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_predict_gives_solve_and_simulate_per_interval_plus_the_mean_service(tmp_path):
    from brewput.loadtest.day_predict import REPLICATIONS, predict_day

    path = model(tmp_path, "[100, 300, 200, 50]", length="2s", interval="500ms")
    text = open(path).read().replace("servers: 2", "servers: [1, 2, 2, 1]")
    open(path, "w").write(text)
    day = day_load(path, {})
    predicted = predict_day(path, {}, day, seed=5)
    solved = json.loads(brewput("solve", path, "--json").stdout)
    simulated = json.loads(brewput("simulate", path, "--json", "--seed", "5", "--replications",
                                   str(REPLICATIONS)).stdout)
    service_ms = 5.0  # exp(0.005) s
    for k, row in enumerate(predicted["intervals"]):
        solve, simulate = row["engines"]["solve"], row["engines"]["simulate"]
        wait = solved["intervals"][k]["classes"]["request"]["waiting_time"]["mean"] * 1e3
        assert solve["waiting_mean"] == pytest.approx(wait, rel=1e-12)
        assert solve["mean"] == pytest.approx(wait + service_ms, rel=1e-12)
        simulated_wait = simulated["intervals"][k]["classes"]["request"]["waiting_time"]
        assert simulate["waiting_mean"] == pytest.approx(simulated_wait["mean"] * 1e3, rel=1e-12)
        assert simulate["mean_ci"] == pytest.approx([x * 1e3 + service_ms for x in simulated_wait["mean_ci"]],
                                                    rel=1e-12)
        assert row["label"] == day.labels[k] and row["rate"] == day.spans[k]["target_rate"]


def test_predict_says_when_the_model_starts_its_day_with_jobs_the_service_did_not_have(tmp_path):
    from brewput.loadtest.day_predict import predict_day

    path = model(tmp_path, "[100, 300]", length="1s", interval="500ms", extra="  at_start: {web: 4}\n")
    predicted = predict_day(path, {}, day_load(path, {}), seed=1)
    assert predicted["warnings"] == ["the model's day starts with 4 job(s) at web (at_start); the service measured "
                                     "started empty"]


def test_predict_refuses_a_model_of_another_day_before_anything_is_sent(tmp_path):
    path = model(tmp_path, "[100, 300]", length="1s", interval="500ms")
    other = model(tmp_path, "[100, 200]", length="1s", interval="500ms", name="other.yaml")
    longer = model(tmp_path, "[100, 300]", length="2s", interval="1s", name="longer.yaml")
    for wrong, words in ((other, ["--predict", "interval 2", "give the --day model's rate"]),
                         (longer, ["--predict", "intervals are not the run's"]),
                         ("examples/server.yaml", ["--predict", "day: block"])):
        done = brewput("load", "http://127.0.0.1:9/", "--day", path, "--predict", wrong)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


def _together(url, n):
    """n requests at once; the seconds until each was answered."""
    import threading
    import time
    import urllib.request

    start, took = time.monotonic(), []

    def one():
        with urllib.request.urlopen(url, timeout=10) as answer:
            answer.read()
        took.append(time.monotonic() - start)
    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return sorted(took)


def test_serve_follows_its_rota_from_the_first_request():
    import time

    # One worker for the first 0.8 s, three after: three requests of 200 ms at once take 0.6 s, then 0.2 s.
    with serving("const(200ms)", workers=3, rota=([1, 3], 0.8)) as url:
        first = _together(url, 3)
        time.sleep(max(0.0, 1.0 - first[-1]))
        then = _together(url, 3)
    assert first[0] >= 0.19 and first[-1] >= 0.59, first  # one at a time
    assert then[-1] < 0.4, then  # all three served at once (a busy machine's delays well below 0.2 s)


def test_a_rota_of_workers_is_checked_as_typed():
    for args, words in ((["--workers", "2,4"], ["--workers", "--interval"]),
                        (["--workers", "2", "--interval", "1s"], ["--interval", "rota"]),
                        (["--workers", "0,0", "--interval", "1s"], ["--workers", "no worker"]),
                        (["--workers", "2,x", "--interval", "1s"], ["--workers", "whole number"]),
                        (["--workers", "2,3", "--interval", "0s"], ["--interval"])):
        done = brewput("serve", "--port", "0", "--for", "1s", *args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, (args, done.stderr)
        assert all(w in done.stderr for w in words), (args, done.stderr)


def test_days_give_each_interval_the_mean_of_the_days_and_its_interval(tmp_path):
    path = model(tmp_path, "[100, 300]", length="1s", interval="500ms")
    with serving("exp(2ms)", workers=4) as url:
        done = brewput("load", url, "--day", path, "--days", "3", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    stages, rows = results["load"]["stages"], results["intervals"]
    assert len(stages) == 6 and len(rows) == 2 and results["day"]["days"] == 3
    assert [s["end_seconds"] for s in stages] == pytest.approx([0.5, 1, 1.5, 2, 2.5, 3])
    assert all(a["end_seconds"] == b["start_seconds"] for a, b in zip(stages, stages[1:]))
    for k, row in enumerate(rows):
        request = row["classes"]["request"]
        days = stages[k::2]
        for figure in ("mean", "p50", "p90"):  # (50 requests reach no p99)
            each = np.array([d["response_time"][figure] for d in days])
            half = stats.t.ppf(0.975, 2) * each.std(ddof=1) / np.sqrt(3)
            assert request["response_time"][figure] == pytest.approx(each.mean(), rel=1e-12)
            assert request["response_time"][f"{figure}_ci"] == pytest.approx([each.mean() - half, each.mean() + half],
                                                                             rel=1e-12)
        due = [d["measured"] + d["dropped"] for d in days]
        assert request["arrivals"] == pytest.approx(np.mean(due))
        # each day's count is Poisson about the interval's expected count
        expected = [50, 150][k]
        assert all(stats.poisson.ppf(5e-5, expected) <= n <= stats.poisson.ppf(1 - 5e-5, expected) for n in due)


def test_a_rota_that_repeats_starts_again():
    import time

    # One worker for 0.4 s, three for 0.4 s, again: at 0.9 s into it, one worker again.
    with serving("const(100ms)", workers=3, rota=([1, 3], 0.4, True)) as url:
        first = _together(url, 1)
        time.sleep(max(0.0, 0.85 - first[-1]))
        again = _together(url, 3)
    assert again[-1] >= 0.29, again  # one at a time


def test_a_day_sped_up_runs_its_clock_faster_at_its_rates_and_is_predicted_so(tmp_path):
    from brewput.loadtest.day_predict import predict_day

    hours = model(tmp_path, "{linear: [[30min, 0.05], [2h, 0.4], [3.5h, 0.1]]}", length="4h", interval="1h",
                  time_unit="ms", name="hours.yaml", service="exp(5)")
    day, times = times_of(hours)
    fast = day_load(hours, {}, speedup=3600)
    assert [s["end_seconds"] for s in fast.spans] == pytest.approx([1, 2, 3, 4], rel=1e-12)
    assert [s["target_rate"] for s in fast.spans] == [s["target_rate"] for s in day.spans]  # the same rates
    # The same day written by hand in seconds: what the sped-up run is, and what predicts it.
    seconds = model(tmp_path, "{linear: [[0.5s, 0.05], [2s, 0.4], [3.5s, 0.1]]}", length="4s", interval="1s",
                    time_unit="ms", name="seconds.yaml", service="exp(5)")
    by_hand = day_load(seconds, {})
    assert [s["target_rate"] for s in by_hand.spans] == pytest.approx([s["target_rate"] for s in fast.spans],
                                                                      rel=1e-12)
    solved = json.loads(brewput("solve", seconds, "--json").stdout)
    predicted = predict_day(hours, {}, fast, seed=1)
    for k, row in enumerate(predicted["intervals"]):
        wait = solved["intervals"][k]["classes"]["request"]["waiting_time"]["mean"]  # ms
        assert wait > 0.1 and row["engines"]["solve"]["waiting_mean"] == pytest.approx(wait, rel=1e-9)
    bad = brewput("load", "http://127.0.0.1:9/", "--rate", "10", "--speedup", "2")
    assert bad.returncode == 2 and "--speedup" in bad.stderr and "--day" in bad.stderr
    bad = brewput("load", "http://127.0.0.1:9/", "--day", hours, "--speedup", "0")
    assert bad.returncode == 2 and "--speedup" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_serve_takes_a_models_rota(tmp_path):
    from brewput.loadtest.day import model_rota

    hours = model(tmp_path, "[0.1, 0.3, 0.4, 0.1]", length="4h", interval="1h", time_unit="ms", name="hours.yaml")
    text = open(hours).read().replace("servers: 2", "servers: [1, 2, 3, 2]")
    open(hours, "w").write(text)
    assert model_rota(hours) == ([1, 2, 3, 2], 3600.0)
    assert model_rota(hours + ":web", speedup=3600) == ([1, 2, 3, 2], 1.0)
    done = brewput("serve", "--port", "0", "--for", "0.3s", "--rota", hours, "--speedup", "3600")
    assert done.returncode == 0, done.stderr
    assert "workers 1, 2, 3, 2 per 1 s from the first request, then 2" in done.stdout
    for args, words in ((["--rota", hours, "--workers", "2"], ["--rota", "--workers"]),
                        (["--rota", hours + ":nope"], ["--rota", "no station 'nope'"]),
                        (["--rota", "examples/server.yaml"], ["--rota", "no day"]),
                        (["--speedup", "2"], ["--speedup", "--rota"])):
        done = brewput("serve", "--port", "0", "--for", "0.3s", *args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, (args, done.stderr)
        assert all(w in done.stderr for w in words), (args, done.stderr)
