"""A study with engine `load`: the service its models describe, measured at
each swept rate (converted from the model's time unit to requests per second)
after the models' scenarios, beside solve and simulate in one record; the
first rate at which a threshold breaks ends the measuring (exit code 1, the
record's `saturation`); a target that is not there is refused before anything
runs. Traffic goes only to the demo server the test starts on 127.0.0.1."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from load_server import serving

MODEL = """\
brewput: 1
time_unit: {unit}
params: {{rate: 0.1}}
stations:
  server: {{servers: 2}}
classes:
  request:
    rate: ${{rate}}
    route:
      - {{station: server, service: 'const({service})'}}
"""


def study(folder: Path, url: str, rates: str, extra: str = "", models: str = "{ms: ms.yaml}") -> Path:
    (folder / "ms.yaml").write_text(MODEL.format(unit="ms", service=2))
    (folder / "s.yaml").write_text(MODEL.format(unit="s", service=0.002))
    path = folder / "study.yaml"
    path.write_text(f"""\
brewput: 1
models: {models}
sweep: {{rate: "{rates}"}}
engines: [solve, load]
load:
  target: {url}
  duration: 1s
  arrivals: constant
{extra}""")
    return path


def run(path: Path, *args: str):
    return subprocess.run([sys.executable, "-m", "brewput", "run", str(path), *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def url():
    with serving("const(2ms)", workers=2) as address:
        yield address


def test_each_rate_is_measured_beside_the_models_predictions(url, tmp_path):
    done = run(study(tmp_path, url, "0.05,0.1"), "-o", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert [(s["engine"], s["params"]["rate"]) for s in record["scenarios"]] == [
        ("solve", 0.05), ("load", 0.05), ("solve", 0.1), ("load", 0.1)]
    assert record["saturation"] is None and record["failed"] == []
    # The table of measured beside predicted: a row per rate, solve's mean with its relative error.
    rows = [line for line in done.stdout.splitlines() if line.startswith("│ ms ")]
    for line, rate in zip(rows[-2:], (0.05, 0.1)):
        cells = [c.strip() for c in line.strip("│").split("│")]
        measured = next(s for s in record["scenarios"] if s["engine"] == "load" and s["params"]["rate"] == rate)
        solved = next(s for s in record["scenarios"] if s["engine"] == "solve" and s["params"]["rate"] == rate)
        mean, predicted = (s["results"]["classes"][c]["response_time"]["mean"]
                           for s, c in ((measured, "request"), (solved, "request")))
        assert cells[0] == "ms" and float(cells[1]) == rate
        assert cells[5].endswith(f"({(mean - predicted) / predicted:+.0%})"), cells
    for s in record["scenarios"]:
        if s["engine"] != "load":
            continue
        load = s["results"]["load"]
        per_second = s["params"]["rate"] * 1000  # the model's rate is per ms
        assert load["target_rate"] == pytest.approx(per_second)
        # Constant spacing for 1 s: exactly rate x 1 s requests sent, all answered by a server that keeps up.
        assert load["sent"] == round(per_second) and load["answered"] == load["sent"] and load["failed"] == 0
        # A 2 ms service on 2 idle workers: the response is the service plus the loopback round trip.
        request = s["results"]["classes"]["request"]
        assert 2.0 <= request["response_time"]["p50"] < 20.0


def test_a_rate_is_per_the_models_time_unit(url, tmp_path):
    done = run(study(tmp_path, url, "50", models="{s: s.yaml}"), "--json")
    assert done.returncode == 0, done.stderr
    load = next(s for s in json.loads(done.stdout)["scenarios"] if s["engine"] == "load")["results"]["load"]
    assert load["target_rate"] == pytest.approx(50.0) and load["sent"] == 50


def test_a_tick_paces_the_measurement_as_load_tick_does(tmp_path):
    # 500 requests a second woken every 4 ms: each wake sends the two due since
    # the last, r and r + 2 ms late, r in [0, 2) the wakes' phase: a mean lag
    # from 1 ms (in phase) to 2 ms (drifting). A server that answers at once, so
    # that no answer wakes the loop between ticks (one would send what is due).
    with serving("const(0.1ms)", workers=2) as fast:
        ticked = run(study(tmp_path, fast, "500", "  tick: 4ms\n", models="{s: s.yaml}"), "--json")
    assert ticked.returncode == 0, ticked.stderr
    results = next(s for s in json.loads(ticked.stdout)["scenarios"] if s["engine"] == "load")["results"]
    assert results["settings"]["tick_seconds"] == pytest.approx(0.004)
    assert 0.9 <= results["classes"]["request"]["lag"]["mean"] <= 2.2, results["classes"]["request"]["lag"]


def test_variants_at_the_same_rate_share_one_measurement(url, tmp_path):
    done = run(study(tmp_path, url, "0.05", models="{a: ms.yaml, b: {file: ms.yaml, set: {rate: 1}}}"), "--json")
    assert done.returncode == 0, done.stderr
    measured = [s for s in json.loads(done.stdout)["scenarios"] if s["engine"] == "load"]
    assert [s["model"] for s in measured] == ["a", "b"]
    # One run: its elapsed time (to the nanosecond) and per-second counts are the same object's.
    assert measured[0]["results"] == measured[1]["results"]


def test_the_first_broken_threshold_ends_the_measuring(url, tmp_path):
    # p50 < 1 us cannot hold: the first rate breaks it, the second is not measured.
    done = run(study(tmp_path, url, "0.05,0.1", extra="  thresholds: ['p50<1us', 'error_rate<1%']\n"),
               "-o", str(tmp_path / "r.json"))
    assert done.returncode == 1, done.stderr
    assert "saturation: at 50/s p50<1us broke" in done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["saturation"] == {"rate": 50.0, "broken": ["p50<1us"]}
    assert [(s["engine"], s["params"]["rate"]) for s in record["scenarios"]] == [
        ("solve", 0.05), ("load", 0.05), ("solve", 0.1)]
    judged = record["scenarios"][1]["results"]["load"]["thresholds"]
    assert [(t["threshold"], t["held"]) for t in judged] == [("p50<1us", False), ("error_rate<1%", True)]


def test_a_target_that_is_not_there_is_refused_before_anything_runs(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        done = run(study(tmp_path, f"http://127.0.0.1:{port}/", "0.05"), "-o", str(tmp_path / "r.json"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"load.target http://127.0.0.1:{port}/: cannot connect" in done.stderr
    assert not (tmp_path / "r.json").exists() and "Throughput" not in done.stdout


def test_headers_and_a_body_shape_each_request_and_credentials_stay_hidden(url, tmp_path):
    (tmp_path / "order.json").write_text('{"drink": "latte"}')
    path = study(tmp_path, url, "0.05", extra="  headers: ['X-Team: brewput', 'Authorization: Bearer s3cret']\n"
                                                "  body: order.json\n")
    done = run(path, "--json")
    assert done.returncode == 0, done.stderr
    (measured,) = [s for s in json.loads(done.stdout)["scenarios"] if s["engine"] == "load"]
    assert "s3cret" not in json.dumps(measured["results"])  # the record's copy of the study file still has it
    http = measured["results"]["settings"]["target"]["http"]
    assert http["method"] == "POST"  # a body without a method is POSTed, as curl does
    assert http["body"] == str(tmp_path / "order.json")
    assert http["headers"][0] == ["X-Team", "brewput"] and http["headers"][1][0] == "Authorization"
    assert measured["results"]["load"]["answered"] == measured["results"]["load"]["sent"] == 50
