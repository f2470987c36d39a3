"""The corpus (tests/corpus.py) for `brewput fit usl` and `brewput calibrate`:
measurements that cannot be fitted, each one line naming the file and the column,
row, scenario or option at fault, exit code 2.

Classes: too few points, concurrency not monotone, missing or unknown columns
(and params, classes, models of a record), values that are not positive finite
numbers, files that cannot be read as a table or record, and outputs that cannot
be written."""
import json

import pytest

from corpus import Case, check, ids

GOOD = "n,x\n1,10\n2,19\n4,35\n8,60\n16,80\n"
FIT = ["fit", "usl", "d.csv"]


def csv(text):
    return {"d.csv": text}


def record(scenarios, sweep=None, models=("m",)):
    """A minimal experiment record of `scenarios`: (model, engine, params, {class: (X, R)})."""
    body = {"brewput": "experiment", "version": 1, "title": "t", "created": "2026-11-22T00:00:00+00:00",
            "command": None, "study": None, "models": {m: {"file": None, "text": None} for m in models},
            "sweep": sweep or {}, "charts": None, "interrupted": False, "failed": [], "scenarios": []}
    for i, (model, engine, params, classes) in enumerate(scenarios):
        results = {"model": model, "engine": engine, "method": "des", "time_unit": "ms", "params": params,
                   "classes": {name: {"throughput": x, "response_time": {"mean": r}}
                               for name, (x, r) in classes.items()},
                   "stations": {}, "resources": {}, "warnings": []}
        body["scenarios"].append({"id": i, "model": model, "engine": engine, "params": params, "results": results})
    return {"r.json": json.dumps(body)}


def sweep_of(values, param="cpus", model="m", engine="simulate", classes=None):
    return [(model, engine, {param: v}, classes or {"c": (10.0 * v / (1 + 0.1 * (v - 1)), 1.0)}) for v in values]


REC = ["fit", "usl", "r.json"]
FOUR = [1, 2, 4, 8]

CASES = [
    # Too few points.
    Case("usl-three-points", FIT, csv("n,x\n1,10\n2,19\n4,35\n"), names=["d.csv", "3 points", "at least 4"]),
    Case("usl-one-point", FIT, csv("n,x\n1,10\n"), names=["d.csv", "1 points", "at least 4"]),
    Case("usl-header-only", FIT, csv("n,x\n"), names=["d.csv", "no rows"]),
    Case("usl-repeated-n", FIT, csv("n,x\n1,10\n2,19\n2,20\n4,35\n4,36\n"),
         names=["d.csv", "3 distinct", "at least 4"]),
    Case("usl-record-three-scenarios", REC, record(sweep_of([1, 2, 4]), {"cpus": [1, 2, 4]}),
         names=["r.json", "3 points"]),
    Case("usl-empty-file", FIT, csv(""), names=["d.csv", "empty"]),

    # Concurrency not monotone.
    Case("usl-n-goes-down", FIT, csv("n,x\n1,10\n4,35\n2,19\n8,60\n"), names=["d.csv", "'n'", "line 4", "not monotone"]),
    Case("usl-n-reversed", FIT, csv("n,x\n16,80\n8,60\n4,35\n2,19\n1,10\n"), names=["d.csv", "line 3", "goes down"]),
    Case("usl-named-n-goes-down", FIT + ["--n", "users", "--x", "tput"],
         csv("users,tput\n1,10\n2,19\n8,60\n4,35\n16,80\n"), names=["d.csv", "'users'", "line 5"]),

    # Missing or unknown columns, params, classes, models.
    Case("usl-no-throughput-column", FIT, csv("n,latency,cpu\n1,2,3\n2,3,4\n4,5,6\n8,9,9\n"),
         names=["d.csv", "no throughput column", "--x"]),
    Case("usl-no-concurrency-column", FIT, csv("when,throughput\na,1\nb,2\nc,3\nd,4\n"),
         names=["d.csv", "its columns: when, throughput"]),
    Case("usl-only-unknown-columns", FIT, csv("a,b,c\n1,2,3\n2,3,4\n3,4,5\n4,5,6\n"),
         names=["d.csv", "no throughput column"]),
    Case("usl-unknown-n-option", FIT + ["--n", "cpus"], csv(GOOD), names=["--n cpus", "no column 'cpus'", "n, x"]),
    Case("usl-unknown-x-option", FIT + ["--x", "rps"], csv(GOOD), names=["--x rps", "no column 'rps'"]),
    Case("usl-same-column-twice", FIT + ["--n", "x", "--x", "x"], csv(GOOD), names=["--n x", "same column"]),
    Case("usl-record-unknown-param", REC + ["--n", "users"], record(sweep_of(FOUR), {"cpus": FOUR}),
         names=["--n users", "no param 'users'", "cpus"]),
    Case("usl-record-unknown-class", REC + ["--x", "mocha"], record(sweep_of(FOUR), {"cpus": FOUR}),
         names=["--x mocha", "no class 'mocha'", "c"]),
    Case("usl-record-two-swept", REC,
         record([("m", "simulate", {"a": a, "b": b}, {"c": (a + b, 1.0)}) for a in (1, 2) for b in (1, 2)],
                {"a": [1, 2], "b": [1, 2]}), names=["r.json", "a, b", "--n"]),
    Case("usl-record-nothing-swept", REC, record([("m", "simulate", {}, {"c": (1.0, 1.0)})]),
         names=["r.json", "nothing was swept"]),
    Case("usl-record-two-models", REC, record(sweep_of(FOUR, model="a") + sweep_of(FOUR, model="b"),
                                              {"cpus": FOUR}, models=("a", "b")), names=["r.json", "a, b", "--model"]),
    Case("usl-record-unknown-model", REC + ["--model", "z"], record(sweep_of(FOUR), {"cpus": FOUR}),
         names=["--model z", "no model 'z'"]),
    Case("usl-model-on-a-table", FIT + ["--model", "m"], csv(GOOD), names=["--model m", "table"]),

    # Values that are not positive finite numbers.
    Case("usl-negative-n", FIT, csv("n,x\n-1,10\n2,19\n4,35\n8,60\n"), names=["d.csv", "'n'", "line 2", "positive"]),
    Case("usl-negative-x", FIT, csv("n,x\n1,10\n2,-19\n4,35\n8,60\n"), names=["d.csv", "'x'", "line 3", "positive"]),
    Case("usl-zero-x", FIT, csv("n,x\n1,10\n2,19\n4,0\n8,60\n"), names=["d.csv", "'x'", "line 4", "got 0"]),
    Case("usl-text-value", FIT, csv("n,x\n1,10\n2,fast\n4,35\n8,60\n"), names=["d.csv", "line 3", "'fast'"]),
    Case("usl-empty-cell", FIT, csv("n,x\n1,10\n2,\n4,35\n8,60\n"), names=["d.csv", "line 3", "nothing"]),
    Case("usl-infinite", FIT, csv("n,x\n1,10\n2,inf\n4,35\n8,60\n"), names=["d.csv", "line 3", "number"]),
    Case("usl-nan", FIT, csv("n,x\n1,10\n2,19\nnan,35\n8,60\n"), names=["d.csv", "'n'", "line 4"]),
    Case("usl-huge-n", FIT, csv("n,x\n1,10\n2,19\n4,35\n1e300,60\n"), names=["d.csv", "N = 1e+300", "to 1e+09"]),
    Case("usl-tiny-n", FIT, csv("n,x\n1e-300,10\n2,19\n4,35\n8,60\n"), names=["d.csv", "N = 1e-300", "from 1e-06"]),
    Case("usl-boolean-values", FIT, csv("n,x\n1,true\n2,false\n4,true\n8,true\n"), names=["d.csv", "'x'", "line 2"]),
    Case("usl-number-too-large-for-float", FIT, csv("n,x\n1,10\n2,19\n4," + "9" * 400 + "\n8,60\n"),
         names=["d.csv", "'x'", "line 4"]),
    Case("usl-record-zero-throughput", REC, record(sweep_of(FOUR, classes={"c": (0.0, 1.0)}), {"cpus": FOUR}),
         names=["r.json", "scenario 0", "throughput 0"]),
    Case("usl-record-negative-throughput", REC, record(sweep_of(FOUR, classes={"c": (-3.0, 1.0)}), {"cpus": FOUR}),
         names=["r.json", "scenario 0", "class 'c'", "-3"]),
    Case("usl-record-negative-param", REC, record(sweep_of([-1, 2, 4, 8], classes={"c": (5.0, 1.0)}), {"cpus": [-1, 2, 4, 8]}),
         names=["r.json", "scenario 0", "'cpus'"]),
    Case("usl-record-open-loop-no-response", REC,
         record([("m", "load", {"rate": r}, {"request": (r, None)}) for r in FOUR], {"rate": FOUR}),
         names=["r.json", "scenario 0", "mean response"]),

    # Commands missing what they need.
    Case("fit-without-a-law", ["fit"], names=["missing command", "brewput fit"]),
    Case("usl-without-data", ["fit", "usl"], names=["DATA"]),
    Case("calibrate-without-record", ["calibrate"], names=["RECORD"]),
    Case("usl-unknown-option", FIT + ["--concurrency", "n"], csv(GOOD), names=["--concurrency"]),

    # Files that cannot be read.
    Case("usl-missing-file", ["fit", "usl", "nope.csv"], names=["nope.csv", "no such file"]),
    Case("usl-folder", ["fit", "usl", "sub.csv"], {"sub.csv/x": "x"}, names=["sub.csv", "folder"]),
    Case("usl-dev-zero", ["fit", "usl", "/dev/zero"], names=["/dev/zero", "expected a .csv"]),
    Case("usl-fifo-named-csv", ["fit", "usl", "/dev/stdin.csv"], names=["/dev/stdin.csv"]),
    Case("usl-not-utf8", FIT, {"d.csv": b"n,x\n1,10\n2,\xff\xfe\n"}, names=["d.csv", "not UTF-8"]),
    Case("usl-wrong-suffix", ["fit", "usl", "d.txt"], {"d.txt": GOOD}, names=["d.txt", ".txt"]),
    Case("usl-garbage-parquet", ["fit", "usl", "d.parquet"], {"d.parquet": b"PAR1 not really"},
         names=["d.parquet"]),
    Case("usl-too-large", FIT, csv("n,x\n" + "1,1\n" * (17 * 2**20)), names=["d.csv", "larger than 64 MiB"]),
    Case("usl-ragged-csv", FIT, csv('n,x\n1,10\n2,19,7,8\n4,"35\n'), names=["d.csv"]),
    Case("usl-json-not-a-record", REC, {"r.json": '{"n": [1, 2, 4, 8]}'}, names=["r.json", "not a brewput"]),
    Case("usl-json-broken", REC, {"r.json": '{"brewput": '}, names=["r.json", "not JSON"]),

    # Outputs that cannot be written, refused before the fit.
    Case("usl-output-suffix", FIT + ["-o", "fit.txt"], csv(GOOD), names=["-o fit.txt", ".json, .csv"]),
    Case("usl-output-missing-folder", FIT + ["-o", "no/fit.json"], csv(GOOD), names=["-o no/fit.json", "does not exist"]),
    Case("usl-chart-suffix", FIT + ["--chart", "c.svg"], csv(GOOD), names=["--chart c.svg", ".html, .png"]),
    # calibrate: a record swept over the rate, one station's figures.
    Case("calibrate-table-not-record", ["calibrate", "d.csv"], csv(GOOD), names=["d.csv", "experiment record"]),
    Case("calibrate-not-a-rate-sweep", ["calibrate", "r.json"], record(sweep_of(FOUR), {"cpus": FOUR}),
         names=["r.json", "not a sweep over rate", "swept: cpus"]),
    Case("calibrate-one-step", ["calibrate", "r.json"], record(sweep_of([1], param="rate"), {"rate": [1]}),
         names=["r.json", "1 steps", "at least 2"]),
    Case("calibrate-upto-leaves-one", ["calibrate", "r.json", "--upto", "15"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["r.json", "up to 15", "at least 2"]),
    Case("calibrate-mg1-two-steps", ["calibrate", "r.json", "--kind", "mg1"],
         record(sweep_of([1, 2], param="rate"), {"rate": [1, 2]}), names=["r.json", "2 steps", "at least 3"]),
    Case("calibrate-no-response", ["calibrate", "r.json"],
         record([("m", "load", {"rate": r}, {"request": (r, None)}) for r in FOUR], {"rate": FOUR}),
         names=["r.json", "scenario 0", "mean response"]),
    Case("calibrate-negative-response", ["calibrate", "r.json"],
         record([("m", "load", {"rate": r}, {"request": (r, -2.0)}) for r in FOUR], {"rate": FOUR}),
         names=["r.json", "scenario 0", "positive mean response"]),
    Case("calibrate-huge-throughput", ["calibrate", "r.json"],
         record([("m", "load", {"rate": r}, {"request": (1e300 * r, 1.0)}) for r in FOUR], {"rate": FOUR}),
         names=["r.json", "calibrated model", "params.rate"]),
    Case("calibrate-unknown-kind", ["calibrate", "r.json", "--kind", "mm1"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["--kind mm1", "mmc, mg1"]),
    Case("calibrate-zero-servers", ["calibrate", "r.json", "--servers", "0"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["--servers 0", "1 to 10,000"]),
    Case("calibrate-mg1-servers", ["calibrate", "r.json", "--kind", "mg1", "--servers", "2"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["--servers 2", "one server"]),
    Case("calibrate-output-suffix", ["calibrate", "r.json", "-o", "m.json"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["-o m.json", ".yaml"]),
    Case("calibrate-missing-file", ["calibrate", "nope.json"], names=["nope.json", "no such file"]),
    Case("calibrate-dev-zero", ["calibrate", "/dev/zero"], names=["/dev/zero"]),
    Case("calibrate-upto-nan", ["calibrate", "r.json", "--upto", "nan"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["--upto", "finite number"]),
    Case("calibrate-upto-negative", ["calibrate", "r.json", "--upto", "-1"],
         record(sweep_of(FOUR, param="rate"), {"rate": FOUR}), names=["--upto -1", "positive"]),
    Case("usl-chart-is-folder", FIT + ["--chart", "c.png"], {**csv(GOOD), "c.png/x": "x"}, names=["--chart c.png", "folder"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_planning_corpus(case, tmp_path):
    check(case, tmp_path)
