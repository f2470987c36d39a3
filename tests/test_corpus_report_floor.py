"""The corpus (tests/corpus.py), the service floor's figures in a record given to
`brewput report`: typed servers, customers lost by reason and measures between
marks. Malformed ones are one line naming the JSON field, exit code 2; odd but
well-formed ones (figures at the float limits, names read as markup or
mathematics, figures gone) are drawn, exit code 0."""
import copy
import json

import pytest

from corpus import Case, check, ids

from brewput.bundled import EXAMPLES
from brewput.experiment.executors import InProcess
from brewput.experiment.runner import one_model, run


def _counter_record() -> dict:
    record, scenarios = one_model(EXAMPLES / "starbucks" / "early-order.yaml", None, {"rate": [2, 3]}, "simulate",
                                  {"customers": 2000, "replications": 2}, "brewput test")
    return run(record, scenarios, InProcess())


RECORD = _counter_record()


def espresso(record, k=0) -> dict:
    return record["scenarios"][k]["results"]["classes"]["espresso"]


def bar(record, k=0) -> dict:
    return record["scenarios"][k]["results"]["stations"]["bar"]


def machines(record, k=0) -> dict:
    return bar(record, k)["server_types"]["espresso_machine"]


def case(id_, change, names, code=2):
    document = copy.deepcopy(RECORD)
    change(document)
    return Case(f"report-floor-{id_}", ["report", "r.json", "-o", "out"], {"r.json": json.dumps(document)},
                names=names, code=code)


AT = "r.json: scenarios[0].results"
MALFORMED = [
    # typed servers
    case("server-types-a-list", lambda r: bar(r).__setitem__("server_types", ["espresso_machine"]),
         [f"{AT}.stations.bar.server_types"]),
    case("server-type-a-number", lambda r: bar(r)["server_types"].__setitem__("espresso_machine", 2),
         [f"{AT}.stations.bar.server_types.espresso_machine"]),
    case("type-utilization-text", lambda r: machines(r).__setitem__("utilization", "busy"),
         [f"{AT}.stations.bar.server_types.espresso_machine.utilization"]),
    case("type-utilization-interval-text", lambda r: machines(r).__setitem__("utilization_ci", ["a", "b"]),
         [f"{AT}.stations.bar.server_types.espresso_machine.utilization_ci"]),
    case("served-text", lambda r: machines(r)["served"].__setitem__("espresso", "lots"),
         [f"{AT}.stations.bar.server_types.espresso_machine.served.espresso"]),
    # lost by reason
    case("lost-by-text", lambda r: espresso(r)["lost_by"].__setitem__("balked", "some"),
         [f"{AT}.classes.espresso.lost_by.balked"]),
    case("lost-by-a-list", lambda r: espresso(r).__setitem__("lost_by", [1, 2, 3]),
         [f"{AT}.classes.espresso.lost_by"]),
    case("loss-share-text", lambda r: espresso(r)["loss_probability_by"].__setitem__("reneged", "high"),
         [f"{AT}.classes.espresso.loss_probability_by.reneged"]),
    case("loss-interval-three", lambda r: espresso(r)["loss_probability_by_ci"].__setitem__("balked", [0, 1, 2]),
         [f"{AT}.classes.espresso.loss_probability_by_ci.balked"]),
    # measures
    case("measure-a-number", lambda r: espresso(r)["measures"].__setitem__("from_order", 3.5),
         [f"{AT}.classes.espresso.measures.from_order"]),
    case("measure-median-text", lambda r: espresso(r)["measures"]["from_paying"].__setitem__("p50", "soon"),
         [f"{AT}.classes.espresso.measures.from_paying.p50"]),
    case("measure-spectrum-text", lambda r: espresso(r)["measures"]["from_paying"].__setitem__("spectrum", "flat"),
         [f"{AT}.classes.espresso.measures.from_paying.spectrum"]),
    case("measures-count-text", lambda r: espresso(r)["measures_count"].__setitem__("from_order", "many"),
         [f"{AT}.classes.espresso.measures_count.from_order"]),
]


def renamed_type(name):
    def change(record):
        for scenario in record["scenarios"]:
            types = scenario["results"]["stations"]["bar"]["server_types"]
            types[name] = types.pop("espresso_machine")
    return change


def renamed_measure(name):
    def change(record):
        for scenario in record["scenarios"]:
            for figures in scenario["results"]["classes"].values():
                figures["measures"][name] = figures["measures"].pop("from_order")
    return change


def everywhere(change):
    return lambda record: [change(record, k) for k in range(len(record["scenarios"]))]


DRAWN = [
    case("type-utilization-1e308", lambda r: machines(r).__setitem__("utilization", 1e308), ["report: out"], 0),
    case("type-utilization-none", everywhere(lambda r, k: machines(r, k).__setitem__("utilization", None)),
         ["report: out"], 0),
    case("loss-share-1e308", lambda r: espresso(r)["loss_probability_by"].__setitem__("balked", 1e308),
         ["report: out"], 0),
    case("loss-share-negative", lambda r: espresso(r)["loss_probability_by"].__setitem__("reneged", -0.5),
         ["report: out"], 0),
    case("loss-shares-none", everywhere(lambda r, k: espresso(r, k).__setitem__(
        "loss_probability_by", dict.fromkeys(espresso(r, k)["loss_probability_by"]))), ["report: out"], 0),
    case("measure-median-1e308", lambda r: espresso(r)["measures"]["from_order"].__setitem__("p50", 1e308),
         ["report: out"], 0),
    case("measures-empty", everywhere(lambda r, k: espresso(r, k).__setitem__("measures", {})), ["report: out"], 0),
    case("type-name-mathtext", renamed_type("x^2$_$"), ["report: out"], 0),
    case("type-name-html", renamed_type("<b>bold</b>"), ["report: out"], 0),
    case("measure-name-rich-markup", renamed_measure("[bold] :x:"), ["report: out"], 0),
    case("measure-name-mathtext", renamed_measure("$\\frac{"), ["report: out"], 0),
]


@pytest.mark.parametrize("case", MALFORMED + DRAWN, ids=ids(MALFORMED + DRAWN))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
    if case.code == 0:
        assert (tmp_path / "out" / "index.html").is_file()
