"""The corpus (tests/corpus.py): malformed experiment records and results JSON
given to `brewput report`; each one line naming the JSON field, exit code 2."""
import copy
import json

import pytest

from corpus import Case, check, ids

from brewput.experiment.executors import InProcess
from brewput.experiment.runner import one_model, run
from brewput.bundled import EXAMPLES


def _solved_record() -> dict:
    record, scenarios = one_model(EXAMPLES / "mmc.yaml", None, {"c": [3, 4]}, "solve", {}, "brewput test")
    return run(record, scenarios, InProcess())


RECORD = _solved_record()
HUGE = json.dumps(RECORD, indent=1).replace('"version": 1', '"version": ' + "9" * 5000, 1)
RESULTS = RECORD["scenarios"][0]["results"]


def changed(change, document=None) -> str:
    """The record (or a results dict) as JSON after `change` edits a copy of it."""
    document = copy.deepcopy(RECORD if document is None else document)
    change(document)
    return json.dumps(document)


def scenario(record) -> dict:
    return record["scenarios"][0]


def customer(record) -> dict:
    return scenario(record)["results"]["classes"]["customer"]


def setter(function, key, value):
    return lambda record: function(record).__setitem__(key, value)


def record_case(id_, change, names, document=None):
    return Case(f"record-{id_}", ["report", "r.json", "-o", "out"], {"r.json": changed(change, document)},
                names=["r.json", *names])


def deleter(function, key):
    return lambda record: function(record).pop(key)


CASES = [
    # Depth and size, before JSON is parsed.
    Case("record-deep-arrays", ["report", "r.json", "-o", "out"], {"r.json": "[" * 200_000 + "]" * 200_000},
         names=["r.json", "nested"]),
    Case("record-deep-objects", ["report", "r.json", "-o", "out"], {"r.json": '{"a":' * 100_000 + "1" + "}" * 100_000},
         names=["r.json", "nested"]),
    Case("record-deep-inside-a-field", ["report", "r.json", "-o", "out"],
         {"r.json": changed(setter(scenario, "params", "DEEP")).replace('"DEEP"', "[" * 5000 + "]" * 5000)},
         names=["r.json", "nested"]),
    Case("record-not-utf8", ["report", "r.json", "-o", "out"], {"r.json": b"\xff\xfe{}"}, names=["r.json", "UTF-8"]),
    Case("record-a-folder", ["report", "sub", "-o", "out"], {"sub/x": ""}, names=["sub", "folder"]),
    Case("record-not-regular", ["report", "/dev/zero", "-o", "out"], names=["/dev/zero", "not a regular file"]),
    Case("record-not-json", ["report", "r.json", "-o", "out"], {"r.json": "{\"brewput\": "}, names=["r.json:1"]),
    Case("record-a-list", ["report", "r.json", "-o", "out"], {"r.json": "[1, 2]"}, names=["r.json", "not a brewput"]),
    # Figures of the wrong type.
    record_case("throughput-as-text", setter(customer, "throughput", "fast"), ["throughput", "'fast'"]),
    record_case("throughput-as-bool", setter(customer, "throughput", True), ["throughput", "expected a number"]),
    record_case("mean-as-text", lambda r: customer(r)["response_time"].__setitem__("mean", "1.5"),
                ["response_time.mean"]),
    record_case("response-time-as-list", setter(customer, "response_time", [1, 2]), ["response_time"]),
    record_case("interval-as-text", setter(customer, "throughput_ci", "narrow"), ["throughput_ci"]),
    record_case("interval-of-three", setter(customer, "throughput_ci", [1, 2, 3]), ["throughput_ci"]),
    record_case("spectrum-malformed", lambda r: customer(r)["response_time"].__setitem__("spectrum", [[1]]),
                ["spectrum[0]"]),
    record_case("station-as-number", lambda r: scenario(r)["results"]["stations"].__setitem__("desk", 5),
                ["stations.desk", "expected a map"]),
    record_case("utilization-as-text",
                lambda r: scenario(r)["results"]["stations"]["desk"].__setitem__("utilization", "high"),
                ["stations.desk.utilization"]),
    record_case("resource-as-list", lambda r: scenario(r)["results"].__setitem__("resources", {"cpu": [1]}),
                ["resources.cpu"]),
    # Parts missing or of the wrong kind.
    record_case("models-as-text", lambda r: r.__setitem__("models", "mmc"), ["models", "expected a map"]),
    record_case("scenarios-as-text", lambda r: r.__setitem__("scenarios", "all"), ["scenarios", "expected a list"]),
    record_case("scenarios-empty", lambda r: r.__setitem__("scenarios", []), ["scenarios", "non-empty"]),
    record_case("scenario-as-number", lambda r: r["scenarios"].__setitem__(0, 7), ["scenarios[0]"]),
    record_case("results-missing", deleter(scenario, "results"), ["scenarios[0].results", "missing"]),
    record_case("time-unit-missing", lambda r: scenario(r)["results"].pop("time_unit"), ["results.time_unit"]),
    record_case("time-unit-unknown", lambda r: scenario(r)["results"].__setitem__("time_unit", "fortnight"),
                ["results.time_unit", "fortnight"]),
    record_case("classes-missing", lambda r: scenario(r)["results"].pop("classes"), ["results.classes"]),
    record_case("classes-empty", lambda r: scenario(r)["results"].__setitem__("classes", {}),
                ["results.classes", "non-empty"]),
    record_case("engine-unknown", lambda r: scenario(r)["results"].__setitem__("engine", "magic"),
                ["results.engine", "magic"]),
    record_case("id-as-text", setter(scenario, "id", "first"), ["scenarios[0].id"]),
    record_case("swept-param-missing", lambda r: scenario(r)["params"].clear(), ["params", "swept param c"]),
    record_case("sweep-values-as-text", lambda r: r.__setitem__("sweep", {"c": "3..4"}), ["sweep.c"]),
    record_case("sweep-values-empty", lambda r: r.__setitem__("sweep", {"c": []}), ["sweep.c", "non-empty"]),
    record_case("version-2", lambda r: r.__setitem__("version", 2), ["version"]),
    record_case("interrupted-as-text", lambda r: r.__setitem__("interrupted", "yes"), ["interrupted"]),
    # Chart names and failures are refused, not ignored.
    record_case("chart-unknown", lambda r: r.__setitem__("charts", ["throughput", "pie"]), ["charts[1]", "pie"]),
    record_case("charts-as-text", lambda r: r.__setitem__("charts", "throughput"), ["charts"]),
    record_case("failed-as-text", lambda r: r.__setitem__("failed", "none"), ["failed", "expected a list"]),
    record_case("failed-without-error", lambda r: r.__setitem__(
        "failed", [{"id": 2, "model": "mmc", "engine": "solve", "params": {"c": 5}}]), ["failed[0].error", "missing"]),
    record_case("failed-error-as-number", lambda r: r.__setitem__(
        "failed", [{"id": 2, "model": "mmc", "engine": "solve", "params": {"c": 5}, "error": 404}]),
        ["failed[0].error"]),
    # One results dict, as `brewput simulate --json` prints it.
    record_case("results-classes-as-list", lambda r: r.__setitem__("classes", ["customer"]), ["classes"],
                document=RESULTS),
    record_case("results-params-as-text", lambda r: r.__setitem__("params", "c=3"), ["params"], document=RESULTS),
    record_case("results-throughput-as-text", lambda r: r["classes"]["customer"].__setitem__("throughput", "x"),
                ["classes.customer.throughput"], document=RESULTS),
    # Every figure the charts read is a number (or its interval), whatever its name.
    record_case("results-percentile-as-text", lambda r: r["classes"]["customer"]["response_time"].__setitem__(
        "p50", "x"), ["classes.customer.response_time.p50", "expected a number"], document=RESULTS),
    record_case("results-percentile-as-flag", lambda r: r["classes"]["customer"]["waiting_time"].__setitem__(
        "p99", True), ["classes.customer.waiting_time.p99"], document=RESULTS),
    record_case("results-percentile-as-mapping", lambda r: r["classes"]["customer"]["response_time"].__setitem__(
        "p95", {"value": 1}), ["classes.customer.response_time.p95"], document=RESULTS),
    record_case("results-station-figure-as-text", lambda r: r["stations"]["desk"].__setitem__(
        "queue_length", "7.4"), ["stations.desk.queue_length"], document=RESULTS),
    record_case("results-station-exact-as-text", lambda r: r["stations"]["desk"].__setitem__("exact", "yes"),
                ["stations.desk.exact"], document=RESULTS),
    record_case("results-class-figure-as-text", lambda r: r["classes"]["customer"].__setitem__(
        "loss_probability", "none"), ["classes.customer.loss_probability"], document=RESULTS),
    record_case("record-percentile-as-text", lambda r: customer(r)["response_time"].__setitem__("p99", "slow"),
                ["scenarios[0].results.classes.customer.response_time.p99"]),
    # An integer longer than Python reads (4,300 digits): refused naming its line, in every reader.
    *[Case(f"record-huge-integer-{argv[0]}", [*argv, "r.json", *after], {"r.json": HUGE},
           names=["r.json:3", "5,000 digits"])
      for argv, after in ((["report"], ["-o", "out"]), (["fit", "usl"], []), (["calibrate"], []))],
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
    assert not (tmp_path / "out").exists()  # nothing written for a record refused


def test_the_base_record_and_results_are_reported(tmp_path):
    """The records the cases break are themselves good: only the break is refused."""
    from corpus import run_case

    for name, document in (("record", RECORD), ("results", RESULTS)):
        case = Case(name, ["report", "r.json", "-o", "out"], {"r.json": json.dumps(document)}, code=0)
        (tmp_path / name).mkdir()
        done = run_case(case, tmp_path / name)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / name / "out" / "index.html").is_file()
