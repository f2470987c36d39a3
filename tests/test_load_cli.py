"""`brewput load` on the command line, against a demo server the test starts
on 127.0.0.1: the documented exit codes of thresholds (0 held, 1 broken, 2 a
usage error such as an unknown metric), the .hgrm files, the JSON results,
`--exec` targets, and `brewput serve` itself."""
import json
import re
import subprocess
import sys

import pytest

from brewput import _native
from load_server import serving

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines


def brewput(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "brewput", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def url():
    with serving("const(1ms)", workers=2) as address:
        yield address


def quick(url, *args):
    return brewput("load", url, "--rate", "100", "--arrivals", "constant", "--duration", "1s", *args)


@pytest.mark.parametrize("thresholds, code", [
    (["p99<1s", "mean<500ms", "lag_p99<1s", "service_max<2s", "error_rate<1%", "achieved_rate>=0.9*target"], 0),
    (["p99<1s", "p50<1us"], 1),  # one broken is enough
    (["achieved_rate>=2*target"], 1),
    (["error_rate>50%"], 1),
    (["P(response<=1s)>=99%", "p975<1s", "service_p80<1s", "P(service<=1s)>=0.99"], 0),  # any percentile, levels
    (["P(response<=1us)>=50%"], 1),
    (["p975<1us"], 1),
])
def test_thresholds_give_the_documented_exit_codes(url, thresholds, code):
    done = quick(url, *[a for t in thresholds for a in ("--threshold", t)])
    assert done.returncode == code, done.stderr + done.stdout
    for t in thresholds:
        assert f"threshold {t}:" in done.stdout


def test_each_threshold_shows_its_figure_in_the_unit_it_was_written_in(url):
    done = quick(url, "--json", "--threshold", "p99<1s", "--threshold", "mean<=900ms", "--threshold", "p50<2000us")
    results = json.loads(done.stdout)
    judged = {t["threshold"]: t["figure"] for t in results["load"]["thresholds"]}  # seconds
    shown = quick(url, "--threshold", "p99<1s", "--threshold", "mean<=900ms", "--threshold", "p50<2000us").stdout
    lines = {line.split(":")[0]: line for line in shown.splitlines() if line.startswith("threshold ")}
    # a 1 ms constant service: about 1 ms, written in each threshold's own unit
    assert re.search(r"\(0\.00\d+ s\)$", lines["threshold p99<1s"]), lines
    assert re.search(r"\([0-9.]+ ms\)$", lines["threshold mean<=900ms"]), lines
    assert re.search(r"\([0-9,.]+ us\)$", lines["threshold p50<2000us"]), lines
    assert 0.001 <= judged["p50<2000us"] < 0.01


@pytest.mark.parametrize("threshold", ["p100<1ms", "latency<1s", "lag_p99<fast", "error_rate<200%", "p99=1ms"])
def test_a_threshold_that_cannot_be_judged_is_a_usage_error_before_anything_is_sent(url, threshold):
    done = quick(url, "--threshold", threshold)
    assert done.returncode == 2 and "--threshold" in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert "rate:" not in done.stdout  # nothing was measured


def test_server_errors_count_as_failures(tmp_path):
    # One slow worker and a queue of one: most requests are refused with 503.
    with serving("const(50ms)", workers=1, queue=1) as slow:
        done = brewput("load", slow, "--rate", "100", "--duration", "1s", "--json", "--threshold", "error_rate<1%")
    assert done.returncode == 1, done.stderr
    load = json.loads(done.stdout)["load"]
    assert load["answers"]["5xx"] > 0 and load["failed"] == load["answers"]["5xx"]
    assert load["error_rate"] == pytest.approx(load["failed"] / load["sent"])


def test_json_and_hgrm_files(url, tmp_path):
    done = quick(url, "--json", "-o", str(tmp_path / "r.json"), "--hgrm", str(tmp_path / "h"))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert json.loads((tmp_path / "r.json").read_text()) == results
    assert results["engine"] == "load" and results["time_unit"] == "ms"
    # No --tick given: the record says which the generator used.
    assert results["settings"]["tick_seconds"] == _native.LOAD_DEFAULT_TICK_SECONDS
    request = results["classes"]["request"]
    for name, block in (("response", "response_time"), ("service", "service_time"), ("lag", "lag")):
        rows, footer = _parse_hgrm((tmp_path / "h" / f"{name}.hgrm").read_text())
        values = [v for v, _, _ in rows]
        percentiles = [p for _, p, _ in rows]
        assert values == sorted(values) and percentiles == sorted(percentiles) and percentiles[-1] == 1.0
        assert rows[-1][2] == footer["Total count"] == request[block]["count"] == 100
        assert footer["Max"] == pytest.approx(request[block]["max"], rel=1e-3)
        # The row at 50 % (a reporting tick) is HdrHistogram's median: the p50 reported.
        assert next(v for v, p, _ in rows if p == 0.5) == pytest.approx(request[block]["p50"], rel=2e-3)


def _parse_hgrm(text):
    """HdrHistogram's percentile format: a header, rows of value, percentile,
    total count and 1/(1-percentile) (none on the 100 % row), a footer."""
    lines = text.splitlines()
    assert lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"] and lines[1] == ""
    rows = []
    for line in lines[2:]:
        if line.startswith("#"):
            break
        fields = line.split()
        assert len(fields) == (3 if float(fields[1]) == 1.0 else 4), line
        rows.append((float(fields[0]), float(fields[1]), int(fields[2])))
    footer = dict((k.strip(), float(v)) for k, v in re.findall(r"([A-Za-z ]+?)\s*=\s*([-0-9.e+]+)", text))
    return rows, footer


def test_exec_targets_run_a_command_per_request():
    ok = brewput("load", "--exec", "true", "--rate", "40", "--arrivals", "constant", "--duration", "1s", "--json")
    assert ok.returncode == 0, ok.stderr
    load = json.loads(ok.stdout)["load"]
    assert load["answers"] == {"exit 0": 40} and load["failed"] == 0
    bad = brewput("load", "--exec", "exit 3", "--rate", "20", "--duration", "1s", "--threshold", "error_rate<1%")
    assert bad.returncode == 1 and "exit non-0" in bad.stdout


def test_a_request_that_outlasts_the_timeout_fails_as_a_timeout():
    with serving("const(2s)", workers=4) as slow:
        done = brewput("load", slow, "--rate", "5", "--arrivals", "constant", "--duration", "1s", "--timeout",
                       "200ms", "--json")
    load = json.loads(done.stdout)["load"]
    assert load["errors"] == {"timeout": 5} and load["answers"] == {}


def test_a_command_that_outlasts_the_timeout_is_ended_with_its_children():
    """`sh -c 'sleep ...; true'` runs sleep as the shell's child: a timeout once
    killed the shell alone and left sleep running under init for a minute."""
    marker = "sleep 61.4242"
    done = brewput("load", "--exec", f"{marker}; true", "--rate", "4", "--arrivals", "constant", "--duration", "1s",
                   "--timeout", "300ms", "--json")
    assert json.loads(done.stdout)["load"]["errors"] == {"timeout": 4}
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    for pid in left:  # nothing may outlive a failed test either
        subprocess.run(["kill", "-9", pid])
    assert left == []


def test_serve_prints_its_address_and_stops_after_for():
    done = brewput("serve", "--port", "0", "--workers", "2", "--service", "exp(1ms)", "--for", "0.5s", timeout=20)
    assert done.returncode == 0, done.stderr
    assert re.search(r"serving http://127\.0\.0\.1:\d+/", done.stdout)
    assert "served 0" in done.stderr


def test_ctrl_c_keeps_what_was_measured(url):
    import signal
    import time

    run = subprocess.Popen([sys.executable, "-m", "brewput", "load", url, "--rate", "100", "--duration", "60s",
                            "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    run.send_signal(signal.SIGINT)
    stdout, stderr = run.communicate(timeout=20)
    assert run.returncode == 130, stderr
    load = json.loads(stdout)["load"]
    assert load["interrupted"] and 50 < load["sent"] < 1000 and load["answers"]["2xx"] == load["sent"]
    assert "interrupted" in stderr


MM2 = """\
brewput: 1
name: M/M/c behind HTTP
time_unit: ms
params: {c: 2}
stations:
  server: {servers: '${c}'}
classes:
  request:
    rate: 1
    route:
      - {station: server, service: exp(5)}
"""


def test_predict_solves_and_simulates_the_model_at_the_target_rate(url, tmp_path):
    from brewput.analytic.queues import mmc

    (tmp_path / "mm2.yaml").write_text(MM2)
    model = ["--predict", str(tmp_path / "mm2.yaml"), "--set", "c=3", "--json"]
    poisson = brewput("load", url, "--rate", "100", "--duration", "1s", "--arrivals", "poisson", *model)
    assert poisson.returncode == 0, poisson.stderr
    engines = json.loads(poisson.stdout)["predicted"]["engines"]
    # The model's rate is replaced by the target (100/s = 0.1/ms) and --set
    # reaches its params: Erlang C for M/M/3 at 100/s with 5 ms service.
    erlang = mmc(100.0, 0.005, 3).response * 1e3
    assert engines["solve"]["mean"] == pytest.approx(erlang, rel=1e-9)
    assert engines["simulate"]["mean"] == pytest.approx(erlang, rel=0.02)
    # Constant arrivals are offered as const(10 ms): D/M/3, whose wait solve
    # approximates as (ca² + cs²)/2 = 1/2 of M/M/3's (Allen-Cunneen).
    constant = json.loads(quick(url, *model).stdout)["predicted"]["engines"]
    assert constant["solve"]["mean"] == pytest.approx(5 + (erlang - 5) / 2, rel=1e-9)
    table = quick(url, "--predict", str(tmp_path / "mm2.yaml"))
    assert "measured beside" in table.stdout and "simulate" in table.stdout


@pytest.mark.parametrize("args, names", [
    (["--rate", "10", "--set", "c=2"], ["--set", "--predict"]),
])
def test_predict_misuse_is_refused_before_anything_is_sent(url, tmp_path, args, names):
    (tmp_path / "mm2.yaml").write_text(MM2)
    predict = ["--predict", str(tmp_path / "mm2.yaml")] if "--set" not in args else []
    done = brewput("load", url, *args, *predict)
    assert done.returncode == 2 and all(n in done.stderr for n in names), done.stderr


def test_hlog_holds_each_second_per_histogram(url, tmp_path):
    # The histograms themselves are decoded and checked against what was
    # recorded by the crate's own test (crates/load/src/hlog.rs); here the
    # file's shape: HdrHistogram's header, then a line per second and tag.
    path = tmp_path / "run.hlog"
    done = brewput("load", url, "--rate", "100", "--arrivals", "constant", "--duration", "3s", "--hlog", str(path),
                   "--json")
    assert done.returncode == 0, done.stderr
    lines = path.read_text().splitlines()
    header = [line for line in lines if line.startswith("#")]
    assert any(line.startswith("#[StartTime: ") for line in header) and "#[MaxValueDivisor: 1000000.000]" in header
    intervals = [line.split(",") for line in lines if line.startswith("Tag=")]
    tags = [fields[0] for fields in intervals]
    assert tags == ["Tag=response", "Tag=service", "Tag=lag"] * (len(tags) // 3) and len(tags) >= 9
    starts = sorted({float(fields[1]) for fields in intervals})
    assert starts == list(range(len(starts))) and all(float(fields[2]) == 1.0 for fields in intervals)
    # The per-second maxima (ms) never exceed the run's.
    request = json.loads(done.stdout)["classes"]["request"]
    for fields in intervals:
        block = {"Tag=response": "response_time", "Tag=service": "service_time", "Tag=lag": "lag"}[fields[0]]
        assert float(fields[3]) <= request[block]["max"] * 1.001 + 1e-3


def test_an_hlog_that_cannot_be_written_is_refused_before_the_run(url, tmp_path):
    (tmp_path / "f").write_text("x")
    for target, names in ((tmp_path / "f" / "run.hlog", "--hlog"), (tmp_path / "run.txt", "--hlog")):
        done = quick(url, "--hlog", str(target))
        assert done.returncode == 2 and names in done.stderr and "rate:" not in done.stdout, done.stderr


def test_a_sweep_measures_each_rate_into_a_record_and_stops_at_saturation(url, tmp_path):
    (tmp_path / "mm2.yaml").write_text(MM2)
    # achieved_rate<=150 stands for a service level that breaks between 100/s and 200/s.
    done = brewput("load", url, "--sweep", "rate=50,100,200,400", "--arrivals", "constant", "--duration", "1s",
                   "--threshold", "achieved_rate<=150", "--predict", str(tmp_path / "mm2.yaml"), "--json",
                   "-o", str(tmp_path / "r.csv"), "--report", str(tmp_path / "report"))
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["brewput"] == "experiment" and record["sweep"] == {"rate": [50, 100, 200, 400]}
    measured = [s for s in record["scenarios"] if s["engine"] == "load"]
    assert [s["params"]["rate"] for s in measured] == [50, 100, 200]  # 400 never run
    for s in measured:
        assert s["results"]["load"]["answered"] == s["params"]["rate"]  # one second at the rate
    assert record["saturation"] == {"rate": 200, "broken": ["achieved_rate<=150"]}
    solved = {s["params"]["rate"]: s["results"] for s in record["scenarios"] if s["engine"] == "solve"}
    assert sorted(solved) == [50, 100, 200]
    assert (tmp_path / "r.csv").is_file() and (tmp_path / "report" / "index.html").is_file()


def test_a_sweep_table(url):
    done = brewput("load", url, "--sweep", "rate=20:60:20", "--duration", "1s")
    assert done.returncode == 0, done.stderr
    assert all(f"│ {r:>7} │" in done.stdout for r in (20, 40, 60)), done.stdout
    assert done.stderr.count("rate ") >= 3  # a line per rate as it ends


def test_a_run_in_a_pipe_says_where_it_is_every_few_seconds_and_prints_its_intervals(url, tmp_path):
    from brewput.cli.progress import PIPED_EVERY

    (tmp_path / "mm2.yaml").write_text(MM2)
    seconds = PIPED_EVERY + 1.5
    done = brewput("load", url, "--rate", "100", "--duration", f"{seconds}s", "--predict", str(tmp_path / "mm2.yaml"))
    assert done.returncode == 0, done.stderr
    live = [line for line in done.stderr.splitlines() if line.startswith("load ")]
    assert len(live) == 1 and re.match(r"load +5\.\d s +\d+/s +in flight \d+ +p50 [\d.]+ ms", live[0]), done.stderr
    text = " ".join(done.stdout.split())
    assert "95 % intervals by batch means" in text and re.search(r"mean response [\d.]+ ± [\d.]+ ms", text), text
    # One verdict per engine on the mean: inside or outside the measured interval.
    verdicts = re.findall(r"(solve|simulate)'s mean response: (inside|outside) the 95 % interval: measured", text)
    assert [engine for engine, _ in verdicts] == ["solve", "simulate"], text


@pytest.mark.parametrize("signum", [2, 15])  # SIGINT, SIGTERM
def test_a_signal_ends_a_load_with_what_was_measured_written(tmp_path, signum):
    """`load -o` under SIGTERM once wrote nothing; now as under Ctrl-C: the
    figures so far are shown and written, marked interrupted, exit 128 + signal."""
    import signal
    import time

    out = tmp_path / "load.json"
    run = subprocess.Popen([sys.executable, "-m", "brewput", "load", "--exec", "true", "--rate", "50",
                            "--duration", "60s", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    time.sleep(4)
    sent = time.monotonic()
    run.send_signal(signal.Signals(signum))
    stdout, stderr = run.communicate(timeout=30)
    assert time.monotonic() - sent < 10
    assert run.returncode == 128 + signum, stderr
    record = json.loads(out.read_text())
    assert record["load"]["interrupted"] is True and record["classes"]["request"]["completed"] > 0
    assert "interrupted: the figures above are what was measured until then" in stderr



def test_a_schedule_far_ahead_of_the_sender_still_stops_at_a_signal(tmp_path):
    """A schedule at a trillion requests a second (beyond what the options allow, given to
    the generator itself) has every request dropped, and the loop once dropped them all
    before it looked for a cancel again: Ctrl-C went unheard for minutes."""
    import signal
    import time

    script = tmp_path / "flood.py"
    script.write_text(
        "from brewput.loadtest.run import measure, run_settings\n"
        "schedule = {'arrivals': 'constant', 'requests': None, 'warmup_seconds': 0.0, 'seed': 1,\n"
        "            'stages': [{'from': 1e12, 'to': 1e12, 'seconds': 60.0}]}\n"
        "settings = run_settings({'exec': {'command': 'true'}}, schedule, connections=1, max_in_flight=1,\n"
        "                        timeout_seconds=5.0)\n"
        "print('interrupted', measure(settings)['interrupted'])\n")
    run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    sent = time.monotonic()
    run.send_signal(signal.SIGINT)
    try:
        stdout, stderr = run.communicate(timeout=15)
    finally:
        run.kill()
    assert time.monotonic() - sent < 5
    assert "interrupted True" in stdout, stderr


def test_service_levels_and_quantiles_are_read_off_the_measured_histogram(url):
    """The share at or below t and p97.5 from the generator's whole histogram agree
    with the same run's .hgrm rows and spectrum: a row's value (its bucket's
    highest equivalent) at or below t bounds the share from below by its count,
    one at or above t from above; p97.5 lies between the spectrum's p97 and p98."""
    ts = ["800us", "1ms", "1100us", "1500us", "3ms"]
    done = quick(url, "--json", *[a for t in ts for a in ("--threshold", f"P(response<={t})>=50%")],
                 "--threshold", "p975<1s")
    block = json.loads(done.stdout)["classes"]["request"]["response_time"]
    rows, total = block["distribution"]["rows"], block["distribution"]["total_count"]
    assert [t for t, _ in block["within"]] == pytest.approx([0.8, 1.0, 1.1, 1.5, 3.0])  # ms
    for t, share in block["within"]:
        below = max([count / total for value, _, count in rows if value <= t], default=0.0)
        above = min([count / total for value, _, count in rows if value >= t], default=1.0)
        assert below <= share <= above, (t, share, below, above)
    spectrum = dict((p, v) for p, v in block["spectrum"])
    assert spectrum[97.0] <= block["p975"] <= spectrum[98.0]
