"""The corpus (tests/corpus.py): malformed `load:` sections of study files.

Classes: the engine without its section, no target or two, targets that are not
http:// URLs or commands, times, counts, arrivals, methods, seeds and thresholds
that do not parse or are out of range, fields the section does not have, a rate
param that is not swept, other params swept beside it, and swept rates the load
cannot send. Every case is refused when the study is read: the target (port 9 on
127.0.0.1, nothing listening) is never contacted."""
import pytest

from corpus import STUDY_MODEL, Case, check, ids

TWO_PARAMS = STUDY_MODEL.replace("params: {n: 1}", "params: {n: 1, rate: 1}")
STUDY = """\
brewput: 1
models: {m: m.yaml}
sweep: {rate: "1,2"}
engines: [simulate, load]
simulate: {customers: 1000, replications: 2}
load:
  target: http://127.0.0.1:9/
  duration: 1s
"""
"""A valid study measuring at rates 1 and 2 (per the model's time unit); `load:` on line 6."""

RUN = ["run", "s.yaml"]


def study(text, model=TWO_PARAMS):
    return {"s.yaml": text, "m.yaml": model}


def load(fields):
    """STUDY with its load section's fields replaced (from line 7)."""
    return study(STUDY.replace("  target: http://127.0.0.1:9/\n  duration: 1s\n", fields))


def field(line):
    """STUDY with one more field in its load section (line 9)."""
    return study(STUDY + line + "\n")


CASES = [
    # The engine and its section go together.
    Case("load-no-section", RUN, study(STUDY.split("load:")[0]), names=["s.yaml", "engines", "load:"]),
    Case("load-section-not-mapping", RUN, study(STUDY.split("load:")[0] + "load: [1]\n"), names=["s.yaml:6", "load"]),
    # One target.
    Case("load-no-target", RUN, load("  duration: 1s\n"), names=["s.yaml", "load.target"]),
    Case("load-two-targets", RUN, load("  target: http://127.0.0.1:9/\n  exec: 'true'\n"),
         names=["s.yaml", "load.target"]),
    Case("load-target-ftp", RUN, load("  target: ftp://127.0.0.1:9/\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-no-host", RUN, load("  target: 'http://:9/'\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-port-0", RUN, load("  target: http://127.0.0.1:0/\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-port-huge", RUN, load("  target: http://127.0.0.1:70000/\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-space", RUN, load("  target: 'http://127.0.0.1:9/a b'\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-number", RUN, load("  target: 5\n"), names=["s.yaml:7", "load.target"]),
    Case("load-target-list", RUN, load("  target: [http://127.0.0.1:9/]\n"), names=["s.yaml:7", "load.target"]),
    Case("load-exec-empty", RUN, load("  exec: ''\n"), names=["s.yaml:7", "load.exec"]),
    Case("load-exec-unclosed-quote", RUN, load("  exec: \"echo 'open\"\n"), names=["s.yaml:7", "load.exec"]),
    # Times, counts and the rest, each at its own path.
    Case("load-duration-zero", RUN, field("  warmup: 0s\n  timeout: 0s"), names=["s.yaml:10", "load.timeout"]),
    Case("load-duration-no-unit", RUN, load("  target: http://127.0.0.1:9/\n  duration: 10\n"),
         names=["s.yaml:8", "load.duration", "unit"]),
    Case("load-duration-negative", RUN, load("  target: http://127.0.0.1:9/\n  duration: -1s\n"),
         names=["s.yaml:8", "load.duration"]),
    Case("load-duration-huge", RUN, load("  target: http://127.0.0.1:9/\n  duration: 1000000h\n"),
         names=["s.yaml:8", "load.duration"]),
    Case("load-duration-inf", RUN, load("  target: http://127.0.0.1:9/\n  duration: .inf\n"),
         names=["s.yaml:8", "load.duration"]),
    Case("load-warmup-negative", RUN, field("  warmup: -2s"), names=["s.yaml:9", "load.warmup"]),
    Case("load-tick-too-long", RUN, field("  tick: 1s"), names=["s.yaml:9", "load.tick", "0.1s"]),
    Case("load-tick-no-unit", RUN, field("  tick: 1"), names=["s.yaml:9", "load.tick"]),
    Case("load-tick-negative", RUN, field("  tick: -1ms"), names=["s.yaml:9", "load.tick"]),
    Case("load-tick-list", RUN, field("  tick: [1ms]"), names=["s.yaml:9", "load.tick"]),
    Case("load-connections-zero", RUN, field("  connections: 0"), names=["s.yaml:9", "load.connections"]),
    Case("load-connections-huge", RUN, field("  connections: 1e12"), names=["s.yaml:9", "load.connections"]),
    Case("load-connections-fraction", RUN, field("  connections: 1.5"), names=["s.yaml:9", "load.connections"]),
    Case("load-connections-text", RUN, field("  connections: many"), names=["s.yaml:9", "load.connections"]),
    Case("load-connections-bool", RUN, field("  connections: true"), names=["s.yaml:9", "load.connections"]),
    Case("load-in-flight-zero", RUN, field("  max_in_flight: 0"), names=["s.yaml:9", "load.max_in_flight"]),
    Case("load-arrivals-unknown", RUN, field("  arrivals: uniform"), names=["s.yaml:9", "load.arrivals"]),
    Case("load-method-spaces", RUN, field("  method: G E T"), names=["s.yaml:9", "load.method"]),
    Case("load-method-number", RUN, field("  method: 7"), names=["s.yaml:9", "load.method"]),
    Case("load-seed-negative", RUN, field("  seed: -1"), names=["s.yaml:9", "load.seed"]),
    Case("load-seed-huge", RUN, field("  seed: 1e30"), names=["s.yaml:9", "load.seed"]),
    Case("load-threshold-unknown", RUN, field("  thresholds: ['p100<1ms']"),
         names=["s.yaml:9", "load.thresholds[0]", "p100"]),
    Case("load-threshold-no-unit", RUN, field("  thresholds: ['p99<5']"), names=["s.yaml:9", "load.thresholds[0]"]),
    Case("load-thresholds-not-list", RUN, field("  thresholds: p99<1s"), names=["s.yaml:9", "load.thresholds"]),
    Case("load-unknown-field", RUN, field("  url: http://127.0.0.1:9/"), names=["s.yaml:9", "load.url"]),
    # What shapes each request: headers, a body, certificates; none of them with a command.
    Case("load-header-no-colon", RUN, field("  headers: ['X-Test']"), names=["s.yaml:9", "load.headers[0]"]),
    Case("load-header-newline", RUN, field("  headers: [\"X-A: 1\\r\\nX-B: 2\"]"),
         names=["s.yaml:9", "load.headers[0]"]),
    Case("load-header-length", RUN, field("  headers: ['Content-Length: 5']"), names=["s.yaml:9", "load.headers"]),
    Case("load-headers-not-list", RUN, field("  headers: 'X-A: 1'"), names=["s.yaml:9", "load.headers"]),
    Case("load-body-missing", RUN, field("  body: none.bin"), names=["s.yaml", "load.body", "none.bin"]),
    Case("load-body-empty-name", RUN, field("  body: ''"), names=["s.yaml", "load.body"]),
    Case("load-body-with-trace", RUN, field("  body: m.yaml\n  method: TRACE"), names=["s.yaml", "load.body"]),
    Case("load-cacert-with-http", RUN, field("  cacert: m.yaml"), names=["s.yaml", "load.cacert"]),
    Case("load-insecure-with-http", RUN, field("  insecure: true"), names=["s.yaml", "load.insecure"]),
    Case("load-insecure-not-bool", RUN, field("  insecure: 'yes'"), names=["s.yaml:9", "load.insecure"]),
    Case("load-cacert-and-insecure", RUN, study(STUDY.replace("http://127.0.0.1:9/", "https://127.0.0.1:9/")
                                                + "  cacert: m.yaml\n  insecure: true\n"),
         names=["s.yaml", "load.cacert"]),
    Case("load-exec-with-headers", RUN, load("  exec: 'true'\n  headers: ['X-A: 1']\n"),
         names=["s.yaml", "load.headers", "exec"]),
    Case("load-exec-with-method", RUN, load("  exec: 'true'\n  method: POST\n"), names=["s.yaml", "load.method"]),
    # The rate: the one swept param, each value a rate the load can send.
    Case("load-rate-not-swept", RUN, field("  rate: n"), names=["s.yaml:9", "load.rate", "'n'"]),
    Case("load-rate-not-a-param", RUN, study(STUDY.replace("rate:", "r:"), model=TWO_PARAMS),
         names=["s.yaml:3", "sweep.r"]),
    Case("load-other-param-swept", RUN, study(STUDY.replace('{rate: "1,2"}', '{rate: "1,2", n: "1,2"}')),
         names=["s.yaml:3", "sweep.n", "only the rate"]),
    Case("load-rate-zero", RUN, study(STUDY.replace('"1,2"', '"0,1"')), names=["s.yaml:3", "sweep.rate", "0"]),
    Case("load-rate-negative", RUN, study(STUDY.replace('"1,2"', "[-1, 1]")), names=["s.yaml:3", "sweep.rate"]),
    Case("load-rate-too-high", RUN, study(STUDY.replace('"1,2"', "[1, 1e12]")), names=["s.yaml:3", "sweep.rate"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_malformed_load_section(case, tmp_path):
    check(case, tmp_path)
