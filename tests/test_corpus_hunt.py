"""The corpus (tests/corpus.py): classes of bad input that tests/hunt_inputs.py
found escaping the one-line rule.

Classes, each fixed where it is handled:
- an option's value refused by what it became (a what-if edit, the demo's model
  param, a record's steps) without naming the option;
- a param's value (--set, --sweep, a study's set or sweep) that the model
  refuses where it is used, without naming the value given;
- a run until so many customers complete in which every way through every route
  meets a step that turns every arrival away (it ran for ever);
- a study's model that is no model file (a folder, a device, not UTF-8), named
  without the study's field;
- plan prices whose present value overflows to inf;
- measured throughputs whose fitted curve would overflow a double, and more
  measured points than any curve has (a table printed for minutes);
- a record's simulation settings that no run has (calibrate), and a swept
  param whose values mix numbers and text (report, fit, calibrate);
- figures a hand-edited record made negative (report: a chart's axis from 0
  made empty, and matplotlib's warning);
- a file name longer than the system takes, raised before anything runs;
- standard output that cannot be written (a full disk) or cannot encode a name
  (ASCII)."""
import json
import os
import subprocess
import sys

import pytest

from corpus import MODEL, Case, check, ids, run_case

TWO_DESKS = MODEL.replace("desk: {servers: 1}", "desk: {servers: 1}\n  desk2: {servers: 1}").replace(
    "brewput: 1", "brewput: 1\nparams: {n: 1}")
WHATIF = {"m.yaml": TWO_DESKS}


def whatif(*args, id, names):
    return Case(id, ["whatif", "m.yaml", *args], WHATIF, names=names)


DEMO = ["demo", "--customers", "200", "--replications", "2", "--workers", "1", "--report", "rep"]
FIT = ["fit", "usl", "d.csv"]
SIM = ["simulate", "m.yaml", "--customers", "1000", "--replications", "2"]
SECOND_CLASS = "  d:\n    rate: 1\n    route:\n      - {{station: desk, service: exp(0.5), {}}}\n"
SECOND_STEP_BALKS = MODEL.replace("desk: {servers: 1}", "desk: {servers: 1}\n  pay: {servers: 1}").replace(
    "exp(0.5)}", "exp(0.5)}\n      - {station: pay, service: exp(0.2), balk: 0}")
DISPATCH = """\
brewput: 1
stations: {{a: {{servers: 1}}, b: {{servers: 1}}}}
classes:
  c:
    rate: 1
    route:
      - dispatch:
          a: [{{station: a, service: exp(0.5), {}}}]
          b: [{{station: b, service: exp(0.5), {}}}]
"""




def balking(balk):
    return MODEL.replace("exp(0.5)}", f"exp(0.5), balk: {balk}}}")


LONG = "z" * 5000  # past every file system's 255 bytes a name and Linux's 4096 a path
USL = "n,x\n1,{}\n2,{}\n4,{}\n8,{}\n"
SWEEP_MODEL = MODEL.replace("brewput: 1", "brewput: 1\nparams: {rate: 0.2}").replace("rate: 1", "rate: '${rate}'")
PARAM_MODEL = SWEEP_MODEL.replace("params: {rate: 0.2}", "params: {rate: 0.2, n: 1}").replace(
    "servers: 1", "servers: '${n}'")
STUDY = "brewput: 1\nmodels: {{m: m.yaml}}\nengines: [solve]\n{}\n"

CASES = [
    # An option's value refused by what it became, named as the option.
    whatif("--merge", "", id="whatif-merge-empty", names=["--merge ''", "two stations"]),
    whatif("--merge", "desk", id="whatif-merge-one-station", names=["--merge desk:", "two stations"]),
    whatif("--merge", "desk,nope", id="whatif-merge-unknown", names=["--merge desk,nope:", "'nope'"]),
    whatif("--add-server", "", id="whatif-add-server-empty", names=["--add-server ''", "a station"]),
    whatif("--add-server", "desk+0", id="whatif-add-server-zero", names=["--add-server desk+0:", "from 1"]),
    whatif("--add-server", "nope", id="whatif-add-server-unknown", names=["--add-server nope:", "'nope'"]),
    whatif("--case", "", id="whatif-case-empty", names=["--case ''", "PATH=VALUE"]),
    whatif("--case", "x", id="whatif-case-word", names=["--case x:", "PATH=VALUE"]),
    whatif("--case", "x: nope", id="whatif-case-bad-edit", names=["--case x: nope:", "PATH=VALUE"]),
    whatif("--case", "x: zz=1", id="whatif-case-unknown-param", names=["--case x: zz=1:", "'zz'"]),
    whatif("--case", "stations.desk.servers=0", id="whatif-case-bad-field",
           names=["--case stations.desk.servers=0:", "m.yaml", "stations.desk.servers"]),
    whatif("--case", "a: n=2", "--case", "a: n=3", id="whatif-case-twice", names=["--case a:", "twice"]),
    Case("demo-noise-negative", [*DEMO, "--noise", "-1"], names=["--noise -1:", "width"]),
    Case("demo-noise-above-two", [*DEMO, "--noise", "2.5"], names=["--noise 2.5:", "width"]),
    Case("demo-noise-huge", [*DEMO, "--noise", "1e9"], names=["--noise 1e+09:", "width"]),
    # A param's value the model refuses where it is used: the field, and the value given that made it so.
    Case("set-rate-zero", ["solve", "m.yaml", "--set", "rate=0"], {"m.yaml": SWEEP_MODEL},
         names=["m.yaml:7", "classes.c.rate", "(with rate=0)"]),
    Case("set-two-one-refused", ["solve", "m.yaml", "--set", "rate=-1", "--set", "n=2"], {"m.yaml": PARAM_MODEL},
         names=["m.yaml:7", "classes.c.rate", "(with rate=-1, n=2)"]),
    Case("set-expression-servers-fraction", ["simulate", "m.yaml", "--set", "n=1/2"], {"m.yaml": PARAM_MODEL},
         names=["m.yaml:4", "stations.desk.servers", "(with n='1/2')"]),
    Case("sweep-rate-through-zero", ["solve", "m.yaml", "--sweep", "rate=0,0.5"], {"m.yaml": SWEEP_MODEL},
         names=["m.yaml:7", "classes.c.rate", "(with rate=0)"]),
    Case("study-set-servers-zero", ["run", "s.yaml"], {"m.yaml": PARAM_MODEL, "s.yaml": STUDY.format("set: {n: 0}")},
         names=["m.yaml:4", "stations.desk.servers", "(with n=0)"]),
    Case("study-sweep-servers-negative", ["run", "s.yaml"],
         {"m.yaml": PARAM_MODEL, "s.yaml": STUDY.format("sweep: {n: [-1, 1]}")},
         names=["m.yaml:4", "stations.desk.servers", "(with n=-1)"]),
    # A run until so many customers complete where every arrival balks: it would never end.
    Case("simulate-balk-threshold-zero", SIM, {"m.yaml": balking("0")}, names=["m.yaml", "classes.c.route[0].balk",
                                                                               "every arrival away"], timeout=20),
    Case("simulate-balk-certain", SIM, {"m.yaml": balking("[1]")}, names=["classes.c.route[0].balk"], timeout=20),
    Case("simulate-balk-certain-then-not", SIM, {"m.yaml": balking("[1, 0.5, 0]")}, names=["classes.c.route[0].balk"],
         timeout=20),
    Case("simulate-balk-two-classes", SIM, {"m.yaml": balking("0") + SECOND_CLASS.format("balk: [1.0]")},
         names=["classes.c.route[0].balk"], timeout=20),
    Case("simulate-balk-closed-class", SIM,
         {"m.yaml": balking("0").replace("rate: 1", "population: 3\n    think: exp(1)")},
         names=["classes.c.route[0].balk"], timeout=20),
    Case("simulate-balk-at-the-second-step", SIM, {"m.yaml": SECOND_STEP_BALKS}, names=["classes.c.route[1].balk"],
         timeout=20),
    Case("simulate-balk-in-every-dispatch-branch", SIM, {"m.yaml": DISPATCH.format("balk: 0", "balk: [1]")},
         names=["classes.c.route[0].dispatch.a[0].balk"], timeout=20),
    Case("run-balk-threshold-zero", ["run", "s.yaml", "--customers", "1000"],
         {"m.yaml": balking("0"), "s.yaml": STUDY.format("").replace("[solve]", "[simulate]")},
         names=["classes.c.route[0].balk"], timeout=20),
    # A study's model that is no model file at all: named by the study's field too.
    Case("study-model-empty-name", ["run", "s.yaml"], {"s.yaml": "brewput: 1\nmodels: {m: ''}\nengines: [solve]\n"},
         names=["s.yaml:2", "models.m.file", "directory"]),
    Case("study-model-a-folder", ["run", "s.yaml"],
         {"s.yaml": "brewput: 1\nmodels: {m: sub}\nengines: [solve]\n", "sub/x.yaml": MODEL},
         names=["s.yaml:2", "models.m.file", "sub", "directory"]),
    Case("study-model-dev-zero", ["run", "s.yaml"], {"s.yaml": "brewput: 1\nmodels: {m: /dev/zero}\n"},
         names=["s.yaml:2", "models.m.file", "/dev/zero", "not a regular file"]),
    Case("study-model-latin-1", ["run", "s.yaml"],
         {"s.yaml": "brewput: 1\nmodels: {m: {file: m.yaml}}\n", "m.yaml": "brewput: 1\nname: caf\xe9\n".encode("latin-1")},
         names=["s.yaml:2", "models.m.file", "m.yaml", "not UTF-8"]),
    # Prices whose present value would overflow to inf (shown, and written as JSON's invalid Infinity).
    *(Case(f"plan-cost-{label}", ["plan", "m.yaml", "--vary", "n=1..3", "--slo", "mean<=10s", "--cost", f"n={price}",
                                  "--no-confirm", "-o", "p.json"], {"m.yaml": PARAM_MODEL.replace(
                                      "brewput: 1", "brewput: 1\ntime_unit: s")},
           names=["--cost", f"n={price}", "from 0 to 1e+15"])
      for label, price in (("1e308", "1e308"), ("running-1e308", "1,1e308"), ("1e16", "1e16"), ("inf", "inf"))),
    # A file name longer than the system takes (ENAMETOOLONG), raised by the checks run before anything.
    Case("long-name-simulate-output", ["simulate", "m.yaml", "-o", LONG + ".json"], {"m.yaml": MODEL},
         names=[LONG[:50], "File name too long"]),
    Case("long-name-solve-report", ["solve", "m.yaml", "--report", LONG], {"m.yaml": MODEL},
         names=[LONG[:50], "File name too long"]),
    Case("long-name-hgrm", ["simulate", "m.yaml", "--customers", "500", "--hgrm", LONG], {"m.yaml": MODEL},
         names=[LONG[:50], "File name too long"]),
    Case("long-name-examples", ["examples", LONG], names=[LONG[:50], "File name too long"]),
    Case("long-name-balance-chart", ["balance", "--centres", "4", "--chart", LONG + ".png"],
         names=[LONG[:50], "File name too long"]),
    Case("long-name-whatif-output", ["whatif", "m.yaml", "--add-server", "desk", "-o", LONG + ".json"], WHATIF,
         names=[LONG[:50], "File name too long"]),
    Case("long-name-study-model", ["run", "s.yaml"], {"s.yaml": f"brewput: 1\nmodels: {{m: {LONG}.yaml}}\n"},
         names=["s.yaml:2", "models.m.file", "File name too long"]),
    # Throughputs at the edges of a double: the fitted curve, λN and N/X would overflow.
    Case("usl-throughput-1e308", FIT, {"d.csv": USL.format(*["1e308"] * 4)}, names=["d.csv", "throughput 1e+308", "1e+200"]),
    Case("usl-throughput-1e201-chart", [*FIT, "--chart", "c.png"], {"d.csv": USL.format("1e199", "1.9e199", "3e199",
                                                                                        "1e201")},
         names=["d.csv", "throughput 1e+201"]),
    Case("usl-throughput-subnormal", FIT, {"d.csv": USL.format(*["1e-320"] * 4)}, names=["d.csv", "throughput 9.99989e-321"]),
    Case("usl-throughput-1e-250-json", [*FIT, "--json"], {"d.csv": USL.format("1e-250", "2e-250", "3e-250", "4e-250")},
         names=["d.csv", "throughput 1e-250", "1e-200"]),
    # More measured points than any curve has: refused before a table of them prints for minutes.
    Case("usl-200k-rows", FIT, {"d.csv": "n,x\n" + "".join(f"{i},{i}\n" for i in range(1, 200_001))},
         names=["d.csv", "200,000 rows", "10,000"], timeout=20),
    Case("usl-10001-rows-no-header-names", FIT, {"d.csv": "a,b\n" + "".join(f"{i},{i}\n" for i in range(1, 10_002))},
         names=["d.csv", "10,001 rows"], timeout=20),
    Case("calibrate-upto-below-every-step", ["calibrate", "r.json", "--upto", "0.05"],
         {"m.yaml": SWEEP_MODEL}, names=["r.json", "--upto", "0 steps"]),
    # Figures a hand-edited record made negative: drawn where they are, without matplotlib's warning.
    *(Case(label, ["report", "r.json", "-o", "rep"], {"m.yaml": SWEEP_MODEL}, names=["report: rep"], code=0)
      for label in ("report-throughput-negative", "report-utilization-negative", "report-p95-negative-huge",
                    "report-p50-negative")),
    # A swept param's values of mixed kinds (sorted together by every table and chart).
    Case("report-swept-param-text-in-a-scenario", ["report", "r.json", "-o", "rep"], {"m.yaml": SWEEP_MODEL},
         names=["r.json", "scenarios[0].params.rate", "'abc'", "numbers"]),
    Case("report-swept-param-true-in-a-scenario", ["report", "r.json", "-o", "rep"], {"m.yaml": SWEEP_MODEL},
         names=["r.json", "scenarios[2].params.rate", "True"]),
    Case("report-swept-param-text-in-the-sweep", ["report", "r.json", "-o", "rep"], {"m.yaml": SWEEP_MODEL},
         names=["r.json", "sweep.rate[1]", "'fast'"]),
    Case("fit-swept-param-text-in-a-scenario", ["fit", "usl", "r.json"], {"m.yaml": SWEEP_MODEL},
         names=["r.json", "scenarios[1].params.rate", "'1'"]),
    Case("calibrate-swept-param-null-in-the-sweep", ["calibrate", "r.json"], {"m.yaml": SWEEP_MODEL},
         names=["r.json", "sweep.rate[1]"]),
    # A record's simulation settings read as they are: a count of replications no run has.
    *(Case(f"calibrate-replications-{label}", ["calibrate", "r.json"], {"m.yaml": SWEEP_MODEL},
           names=["r.json", "scenario 1", "settings.replications", "from 1 to 100,000"])
      for label in ("10-to-the-400", "zero", "text", "fraction", "above-the-engines")),
]


# Cases that need a record brewput makes first: the command that makes it, and what is then broken in it.
SIMULATED_SWEEP = ["simulate", "m.yaml", "--sweep", "rate=0.1,0.2,0.3", "--customers", "2000", "--replications", "2",
                   "--workers", "1", "-o", "r.json"]


def replications(value):
    def broken(record):
        record["scenarios"][1]["results"]["settings"]["replications"] = value
    return broken


def swept(where, value):
    def broken(record):
        if where == "sweep":
            record["sweep"]["rate"][1] = value
        else:
            record["scenarios"][where]["params"]["rate"] = value
    return broken


def figure(path, value):
    def broken(results):
        for key in path[:-1]:
            results = results[key]
        results[path[-1]] = value
    return broken


SOLVED = ["solve", "m.yaml", "--json"]  # one results JSON, on stdout
MADE_FIRST = {
    "report-throughput-negative": (SOLVED, figure(("classes", "c", "throughput"), -1)),
    "report-utilization-negative": (SOLVED, figure(("stations", "desk", "utilization"), -0.5)),
    "report-p95-negative-huge": (SOLVED, figure(("classes", "c", "response_time", "p95"), -1e300)),
    "report-p50-negative": (SOLVED, figure(("classes", "c", "response_time", "p50"), -1)),
    "report-swept-param-text-in-a-scenario": (SIMULATED_SWEEP, swept(0, "abc")),
    "report-swept-param-true-in-a-scenario": (SIMULATED_SWEEP, swept(2, True)),
    "report-swept-param-text-in-the-sweep": (SIMULATED_SWEEP, swept("sweep", "fast")),
    "fit-swept-param-text-in-a-scenario": (SIMULATED_SWEEP, swept(1, "1")),
    "calibrate-swept-param-null-in-the-sweep": (SIMULATED_SWEEP, swept("sweep", None)),
    "calibrate-upto-below-every-step": (["solve", "m.yaml", "--sweep", "rate=0.1,0.2,0.3", "-o", "r.json"], None),
    "calibrate-replications-10-to-the-400": (SIMULATED_SWEEP, replications(10**400)),
    "calibrate-replications-zero": (SIMULATED_SWEEP, replications(0)),
    "calibrate-replications-text": (SIMULATED_SWEEP, replications("5")),
    "calibrate-replications-fraction": (SIMULATED_SWEEP, replications(2.5)),
    "calibrate-replications-above-the-engines": (SIMULATED_SWEEP, replications(100_001)),
}


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_input_found_by_the_hunt(case, tmp_path):
    if case.id in MADE_FIRST:
        argv, broken = MADE_FIRST[case.id]
        made = run_case(Case("made-first", argv, case.files), tmp_path)
        assert made.returncode == 0, made.stderr
        if "--json" in argv:
            (tmp_path / "r.json").write_text(made.stdout)
        if broken is not None:
            record = json.loads((tmp_path / "r.json").read_text())
            broken(record)
            (tmp_path / "r.json").write_text(json.dumps(record))
    check(case, tmp_path)


# Standard output that cannot be written (a full disk: /dev/full): one line, exit code 2.
UNWRITABLE_STDOUT = [["solve", "m.yaml"], ["solve", "m.yaml", "--json"], ["--help"], ["schema", "model"],
                     ["simulate", "m.yaml", "--customers", "2000", "--replications", "2", "--json"],
                     ["solve", "m.yaml", "--sweep", "n=1,2"], ["whatif", "m.yaml", "--add-server", "desk"]]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("argv", UNWRITABLE_STDOUT, ids=[" ".join(a) for a in UNWRITABLE_STDOUT])
def test_standard_output_that_cannot_be_written(argv, tmp_path):
    (tmp_path / "m.yaml").write_text(TWO_DESKS.replace("servers: 1", "servers: '${n}'", 1))
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "brewput", *argv], cwd=tmp_path, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    # In a pipe a sweep says each finished scenario on stderr (cli/progress.py); then the one error line.
    *progress, last = done.stderr.splitlines(keepends=True)
    assert last == "error: standard output: cannot write: No space left on device\n"
    assert all(line.startswith("scenarios ") for line in progress), done.stderr
    assert len(progress) == (2 if "--sweep" in argv else 0)
    assert done.returncode == 2


# Standard output that cannot encode a name (PYTHONIOENCODING=ascii): the name shown with `?`, no traceback.
ASCII_STDOUT = [["solve", "m.yaml"], ["simulate", "m.yaml", "--customers", "2000", "--replications", "2"],
                ["solve", "m.yaml", "--set", "n=2"], ["whatif", "m.yaml", "--add-server", "café"],
                ["compare", "m.yaml", "--customers", "2000", "--replications", "2"]]


@pytest.mark.parametrize("argv", ASCII_STDOUT, ids=[" ".join(a) for a in ASCII_STDOUT])
def test_standard_output_that_cannot_encode_a_name(argv, tmp_path):
    (tmp_path / "m.yaml").write_text(TWO_DESKS.replace("desk", "café").replace("servers: 1", "servers: '${n}'", 1))
    done = subprocess.run([sys.executable, "-m", "brewput", *argv], cwd=tmp_path, capture_output=True,
                          env={**os.environ, "PYTHONIOENCODING": "ascii"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"caf?" in done.stdout


def test_a_class_that_balks_whole_beside_one_served_runs_to_its_end(tmp_path):
    """Only when no class can complete a customer is the run refused: beside an M/M/1 at
    50 % (served, its Little's-law mean 1 time unit), a class that always balks is all lost."""
    import brewput

    path = tmp_path / "m.yaml"
    path.write_text(MODEL + SECOND_CLASS.format("balk: 0"))
    res = brewput.simulate(brewput.load(path), customers=20_000, replications=2, seed=3)
    assert res["classes"]["d"]["throughput"] == 0
    assert res["classes"]["c"]["throughput"] == pytest.approx(1, rel=0.05)
    assert res["classes"]["c"]["response_time"]["mean"] == pytest.approx(1, rel=0.1)


def test_a_dispatch_with_one_branch_balking_whole_runs_and_loses_its_share(tmp_path):
    """A dispatch at random to a branch that turns everyone away and one that serves
    (an M/M/1 fed half of the arrivals: 25 % busy, mean response 0.5/(1 - 0.25)) runs:
    half the customers are lost, the others served as that queue serves them."""
    import brewput

    path = tmp_path / "m.yaml"
    path.write_text(DISPATCH.format("balk: 0", "id: served"))
    res = brewput.simulate(brewput.load(path), customers=20_000, replications=2, seed=3)
    figures = res["classes"]["c"]
    assert figures["throughput"] == pytest.approx(0.5, rel=0.05)
    assert figures["response_time"]["mean"] == pytest.approx(0.5 / 0.75, rel=0.1)
