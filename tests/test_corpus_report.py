"""The corpus (tests/corpus.py), the charts' side: records whose shape is right
(tests/test_corpus_records.py refuses the rest) but whose figures, names and
sweeps push the drawing to its edges. `brewput report` must draw each one
(exit 0, the page written, one line on stderr), never a traceback: figures near
the float limits or gone, spectra empty or odd, units mixed, swept values that
are huge, equal or not numbers, and names that matplotlib or plotly would read
as mathematics or markup."""
import copy
import json

import pytest

from corpus import Case, check, ids

from brewput.bundled import EXAMPLES
from brewput.experiment.executors import InProcess
from brewput.experiment.runner import one_model, run


def _simulated_record() -> dict:
    record, scenarios = one_model(EXAMPLES / "mmc.yaml", None, {"c": [3, 4]}, "simulate",
                                  {"customers": 2000, "replications": 2}, "brewput test")
    return run(record, scenarios, InProcess())


RECORD = _simulated_record()


def customer(record, k=0) -> dict:
    return record["scenarios"][k]["results"]["classes"]["customer"]


def times(record, k=0) -> dict:
    return customer(record, k)["response_time"]


def desk(record, k=0) -> dict:
    return record["scenarios"][k]["results"]["stations"]["desk"]


def swept(values):
    def change(record):
        record["sweep"] = {"c": list(dict.fromkeys(values))}
        for scenario, value in zip(record["scenarios"], values):
            scenario["params"]["c"] = value
    return change


def renamed(name):
    def change(record):
        for scenario in record["scenarios"]:
            scenario["model"] = name
            results = scenario["results"]
            results["classes"] = {name: results["classes"]["customer"]}
            results["stations"] = {name: results["stations"]["desk"]}
        record["models"] = {name: next(iter(record["models"].values()))}
        record["title"] = name
    return change


def drawn(id_, change):
    document = copy.deepcopy(RECORD)
    change(document)
    return Case(f"report-{id_}", ["report", "r.json", "-o", "out"], {"r.json": json.dumps(document)},
                names=["report: out"], code=0)


CASES = [
    # Figures at the float limits: scaled into display units (x 100 for a utilization) they overflow.
    drawn("throughput-1e308", lambda r: customer(r).__setitem__("throughput", 1e308)),
    drawn("throughput-interval-to-1e308", lambda r: customer(r).__setitem__("throughput_ci", [0.0, 1e308])),
    drawn("utilization-1e308", lambda r: desk(r).__setitem__("utilization", 1e308)),
    drawn("median-1e308", lambda r: times(r).__setitem__("p50", 1e308)),
    drawn("median-1e-308", lambda r: times(r).__setitem__("p50", 1e-308)),
    drawn("spectrum-point-1e308", lambda r: times(r).__setitem__("spectrum", [[50, 1.0], [99, 1e308]])),
    # Figures gone or below zero.
    drawn("throughput-none-everywhere", lambda r: [customer(r, k).__setitem__("throughput", None) for k in (0, 1)]),
    drawn("throughput-negative", lambda r: customer(r).__setitem__("throughput", -5.0)),
    drawn("interval-below-zero", lambda r: customer(r).__setitem__("throughput_ci", [-3.0, 5.0])),
    # Spectra empty, at 100 % or below 0 %, with intervals that do not match.
    drawn("spectrum-empty", lambda r: times(r).__setitem__("spectrum", [])),
    drawn("spectrum-at-100", lambda r: times(r).__setitem__("spectrum", [[50, 1.0], [100, 2.0]])),
    drawn("spectrum-below-0", lambda r: times(r).__setitem__("spectrum", [[-5, 1.0], [50, 2.0]])),
    drawn("spectrum-intervals-short", lambda r: times(r).__setitem__("spectrum_ci", [[1.0, 2.0]])),
    # Units mixed: one scenario in ns beside one in s.
    drawn("units-mixed", lambda r: r["scenarios"][1]["results"].__setitem__("time_unit", "ns")),
    # Sweeps: values near the float limits, equal, not numbers.
    drawn("sweep-1e308", swept([1e308, -1e308])),
    drawn("sweep-equal-values", swept([3, 3])),
    drawn("sweep-text-values", swept(["a", "b"])),
    # Names read as mathematics by matplotlib or as markup by plotly and rich.
    drawn("name-mathtext", renamed("x^2$_$")),
    drawn("name-mathtext-open", renamed("$\\frac{")),
    drawn("name-html", renamed("<b>bold</b> <a href='x'>link</a>")),
    drawn("name-rich-markup", renamed("[/] [bold] :x:")),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
    assert (tmp_path / "out" / "index.html").is_file()
