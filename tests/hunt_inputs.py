"""Hunts malformed input that escapes the one-line rule, by hand (pytest does not
collect it: its name does not start with test_).

    .venv/bin/python tests/hunt_inputs.py                    # every family of probes
    .venv/bin/python tests/hunt_inputs.py --only options     # the families whose name starts so
    .venv/bin/python tests/hunt_inputs.py --jobs 2 --show 40 # parallel runs, failures shown

Every example model, study and record, and every command, gets mutated input
(wrong types at every field, non-finite and huge numbers, unreadable files,
malformed options and output paths, broken records...). Each probe runs as
tests/corpus.py runs a case (its own folder, a memory cap, a timeout) and is
flagged when it breaks the rule: an exit code not 0 or 2 (1 where the command
says so), a Traceback, a panic or a Python warning on stderr, more than four
stderr lines on exit 2, an exit-2 line naming none of what the probe broke, a
hang or a memory blow-up, NaN or Infinity in what --json prints. The
environment family runs each command's usual input with a standard output that
cannot be written (/dev/full) or cannot encode a name (PYTHONIOENCODING=ascii). The
enormous family gives inputs inside every documented limit but huge (a million
closed customers forking a thousand ways, days of work, a day of a million
intervals): each must run or be refused in one line, within its time and memory.
The signals family sends SIGINT or SIGTERM, to brewput alone or to its process
group, early or late, to every long-running command: each must end within
SIGNAL_GRACE seconds with 130 or 143 (or 0, having finished), print no traceback
and leave no process it started behind. The rota family plans the coffee bar's day by
`plan --rota simulate` with every form of objective and option, and models the
algorithm meets less kindly (quiet intervals, two queues, one interval). Failures are grouped by a normalised first
stderr line, so that a class of failure shows once, with how many probes hit it.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import yaml

sys.path.insert(0, str(Path(__file__).parent))
from corpus import MODEL, Case, run_case, write_files  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FAST_SIM = ["--customers", "2000", "--replications", "2", "--threads", "1"]
FAST_DAY = ["--replications", "2", "--threads", "1"]

Files = Mapping[str, Union[str, bytes]]


@dataclass(frozen=True)
class Probe:
    family: str
    id: str
    argv: Sequence[str]
    files: Files = field(default_factory=dict)
    names: Sequence[str] = ()  # any one of them must appear on an exit-2 stderr
    codes: Tuple[int, ...] = (0, 2)
    setup: Callable[[Path], None] = None  # e.g. chmod, mkfifo, symlink loops
    timeout: float = 20.0
    env: Mapping[str, str] = field(default_factory=dict)  # set for the run (PYTHONIOENCODING=ascii)
    stdout: str = ""  # a file stdout goes to instead of a pipe (/dev/full)
    signal: Optional["Signal"] = None  # sent while the command runs (the signals family)


@dataclass(frozen=True)
class Signal:
    number: int
    after: float  # seconds after the start
    group: bool   # to the whole process group (a terminal's Ctrl-C) or to brewput alone


# ---------------------------------------------------------------- bad values

HUGE_INT = "1" + "0" * 400
BAD_VALUES: List[Tuple[str, object]] = [
    ("str", "abc"), ("empty-str", ""), ("null", None), ("true", True), ("list", [1, 2]), ("empty-list", []),
    ("map", {"a": 1}), ("empty-map", {}), ("zero", 0), ("neg", -1), ("neg-zero", -0.0), ("frac", 0.5),
    ("1e308", 1e308), ("inf", float("inf")), ("-inf", float("-inf")), ("nan", float("nan")),
    ("10**400", int(HUGE_INT)), ("1e-320", 1e-320), ("long-str", "x" * 100_000), ("neg-huge", -1e308),
    ("dollar", "${nope}"), ("dollar-cycle", "${x + 1}"),
]


NUMERIC = {"zero", "neg", "neg-zero", "frac", "1e308", "inf", "-inf", "nan", "10**400", "1e-320", "neg-huge"}


def _dump(data) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10**6)


def _paths(node, path=()) -> Iterator[Tuple]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, path + (index,))


def _set(data, path, value):
    data = copy.deepcopy(data)
    if not path:
        return value
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def _shape(path, named=("stations", "classes", "params", "resources", "models", "servers", "types",
                        "branches", "marks", "measures", "charts", "sweep", "set", "variants")) -> Tuple:
    """A field's path with user-given names and list indices folded, so that the same field
    of two stations or classes is probed once."""
    shape, after_named = [], False
    for item in path:
        shape.append("#" if isinstance(item, int) else ("*" if after_named else item))
        after_named = not isinstance(item, int) and item in named and not after_named
    return tuple(shape)


def _field_names(path) -> List[str]:
    named = [str(p) for p in path if not isinstance(p, int)]
    return named[-1:] if named else []


def _example_files() -> Dict[str, str]:
    """Every example file, by its path under examples/ (studies name models by relative path)."""
    return {str(p.relative_to(EXAMPLES)): p.read_text() for p in EXAMPLES.rglob("*")
            if p.is_file() and p.suffix in (".yaml", ".csv", ".md")}


def model_fields() -> Iterator[Probe]:
    seen = set()
    examples = _example_files()
    models = [name for name, text in examples.items() if name.endswith(".yaml") and "\nmodels:" not in text]
    for name in sorted(models):
        data = yaml.safe_load(examples[name])
        for path in _paths(data):
            for label, value in BAD_VALUES:
                key = (_shape(path), label)
                if key in seen:
                    continue
                seen.add(key)
                text = _dump(_set(data, path, value))
                files = {**examples, name: text}
                where = ".".join(map(str, path)) or "top"
                names = [name, *_field_names(path)]
                yield Probe("model-fields", f"solve:{name}:{where}={label}", ["solve", name], files, names)
                if label in NUMERIC:  # the engine's own checks: what solve does not take apart
                    # a day runs until its customers have left: --customers is not for it
                    quick = FAST_DAY if "day" in data else FAST_SIM
                    yield Probe("model-fields", f"simulate:{name}:{where}={label}", ["simulate", name, *quick],
                                files, names)


def study_fields() -> Iterator[Probe]:
    seen = set()
    examples = _example_files()
    studies = [name for name, text in examples.items() if name.endswith(".yaml") and "\nmodels:" in text]
    for name in sorted(studies):
        data = yaml.safe_load(examples[name])
        data["engines"] = [e for e in data.get("engines", []) if e != "load"] or ["solve"]
        data.pop("load", None)
        for path in _paths(data):
            for label, value in BAD_VALUES:
                key = (_shape(path), label)
                if key in seen:
                    continue
                seen.add(key)
                files = {**examples, name: _dump(_set(data, path, value))}
                where = ".".join(map(str, path)) or "top"
                yield Probe("study-fields", f"run:{name}:{where}={label}",
                            ["run", name, "--customers", "500", "--replications", "2", "--workers", "1"],
                            files, [name, *_field_names(path)], codes=(0, 1, 2))


# ---------------------------------------------------------------- files of every kind

def _loop(folder: Path, name: str) -> None:
    (folder / name).symlink_to(folder / name)


def _fifo(folder: Path, name: str) -> None:
    os.mkfifo(folder / name)


def _unreadable(folder: Path, name: str) -> None:
    (folder / name).write_text("brewput: 1\n")
    (folder / name).chmod(0)


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))

BAD_FILES: List[Tuple[str, object]] = [
    ("empty", ""), ("blank", "\n\n  \n"), ("comment-only", "# nothing\n"), ("null-doc", "null\n"),
    ("number-doc", "42\n"), ("list-doc", "- a\n- b\n"), ("string-doc", "hello\n"),
    ("binary", bytes(range(256)) * 4), ("bom-only", b"\xef\xbb\xbf"), ("tabs", "brewput:\t1\n\tstations: {}\n"),
    ("two-docs", "brewput: 1\n---\nbrewput: 1\n"), ("dup-keys", "brewput: 1\nbrewput: 1\n"),
    ("bomb", BOMB), ("deep", "a: " + "[" * 5000 + "]" * 5000 + "\n"), ("latin1", "name: caf\xe9\n".encode("latin-1")),
    ("json-trunc", '{"brewput": 1, "stations": {'), ("yaml-error", "a: b: c\n"), ("unclosed-quote", 'a: "x\n'),
    ("huge-line", "a: " + "x" * 3_000_000 + "\n"), ("merge-key", "a: &x {b: 1}\nc: {<<: *x}\n"),
    ("set-tag", "!!set {a, b}\n"), ("python-tag", "!!python/object:os.system {}\n"), ("crlf", MODEL.replace("\n", "\r\n")),
    ("cr-only", MODEL.replace("\n", "\r")),
]
BAD_PLACES: List[Tuple[str, Callable[[Path, str], None]]] = [
    ("symlink-loop", _loop), ("fifo", _fifo), ("unreadable", _unreadable),
]


def _file_commands(name: str) -> List[Tuple[str, List[str], Files]]:
    """Every command that reads a file, with `name` as that file (the other files valid)."""
    model = {"ok.yaml": MODEL}
    return [
        ("solve", ["solve", name], {}),
        ("simulate", ["simulate", name, *FAST_SIM], {}),
        ("compare", ["compare", name, "--customers", "2000", "--replications", "2"], {}),
        ("run", ["run", name, "--customers", "500", "--replications", "2", "--workers", "1"], {}),
        ("report", ["report", name, "-o", "rep"], {}),
        ("calibrate", ["calibrate", name], {}),
        ("fit-usl", ["fit", "usl", name], {}),
        ("plan", ["plan", name, "--vary", "n=1..3", "--slo", "mean<=10s"], {}),
        ("whatif", ["whatif", name, "--add-server", "desk"], {}),
        ("doe", ["doe", name, "--factor", "rate=0.2,0.4", "--factor", "stations.desk.servers=1,2",
                 "--customers", "500", "--replications", "2"], {}),
        ("study-model", ["run", "s.yaml", "--workers", "1"],  # it solves: simulate's options would be refused
         {"s.yaml": f"brewput: 1\nmodels: {{m: {name}}}\nengines: [solve]\n", **model}),
        ("serve-service", ["serve", "--service", f"empirical({name})", "--for", "1s", "--port", "0"], {}),
    ]


def files() -> Iterator[Probe]:
    for suffix in (".yaml", ".json", ".csv"):
        name = "f" + suffix
        for command, argv, extra in _file_commands(name):
            for label, content in BAD_FILES:
                yield Probe("files", f"{command}:{name}={label}", argv, {**extra, name: content}, [name])
            for label, make in BAD_PLACES:
                yield Probe("files", f"{command}:{name}={label}", argv, extra, [name],
                            setup=lambda folder, make=make, name=name: make(folder, name))
            yield Probe("files", f"{command}:{name}=missing", argv, extra, [name])
            long = "z" * 5000 + suffix  # named so wherever the command names the file: argv, a study, a service
            yield Probe("files", f"{command}:{name}=name-too-long", [a.replace(name, long) for a in argv],
                        {k: v.replace(name, long) for k, v in extra.items()}, [long[:50]])
            yield Probe("files", f"{command}:{name}=directory", argv, {**extra, f"{name}/x": "x"}, [name])
    # an empirical file of every bad kind, named by a model
    for label, content in [f for f in BAD_FILES if f[0] != "number-doc"] + [  # "42" is an empirical of one value
            ("csv-nan", "1\nnan\n"), ("csv-inf", "1\ninf\n"), ("csv-neg", "1\n-2\n"), ("csv-header-only", "t\n"),
            ("csv-words", "a\nb\n"), ("csv-1e400", "1e400\n")]:
        model = MODEL.replace("exp(0.5)", "empirical(t.csv)")
        for command in ("solve", "simulate"):
            argv = [command, "m.yaml", *(FAST_SIM if command == "simulate" else [])]
            yield Probe("files", f"{command}:empirical={label}", argv, {"m.yaml": model, "t.csv": content},
                        ["t.csv"])


# ---------------------------------------------------------------- distributions and expressions

DISTRIBUTIONS = ["const", "exp", "erlang", "gamma", "lognormal", "uniform", "normal", "hyperexp", "jitter",
                 "empirical", "weibull", "det", "pareto"]
ARGUMENTS = ["", "1", "1, 2", "1, 2, 3", "-1", "0", "0, 0", "1, 0", "1, -1", "2, 1", "1e308, 1e308", "nan",
             "inf", "1, inf", "1ms", "1 parsecs", "1, 2ms", "abc", "[1, 2]", "[]", "1,", ",", "1 2", "((1))",
             "${nope}", "1e-300", "1e300, 1e-300", "0.5, 1000", "3.5, 1", "1e5, 1", "10001, 1", "'1'"]
SERVICES = ["exp", "exp(", "exp)", "exp(1))", "(1)", "exp(1)(2)", "exp(1) + 1", "exp (1)", "EXP(1)", "exp[1]",
            "{dist: exp}", "{dist: exp, mean: 1, cv: 2}", "{dist: gamma, mean: 1}", "{dist: nope, mean: 1}",
            "{mean: 1}", "{dist: [exp]}", "{dist: empirical, values: []}", "{dist: empirical, values: [nan]}",
            "{dist: empirical, values: 3}", "{dist: empirical, file: 3}", "{dist: empirical, file: ''}",
            "{dist: empirical, values: [1], file: t.csv}", "${1/0}", "${x}", "'${2**2000}'", "'${-1}'",
            "'exp(${1e400})'", "'exp(${nan})'", "'exp(${\"a\"})'", "'exp(${[1]})'", "'exp(${__import__})'",
            "'exp(${(1).__class__})'", "'exp(${1 if 1 else 2})'", "'exp(${lambda: 1})'", "'exp(${9**9**9})'",
            "'exp(${1e308*10})'", "'exp(${-0.0})'", "'exp(${10**400})'", "'exp(${int(1e300)})'"]


def distributions() -> Iterator[Probe]:
    services = [f"'{d}({a})'" for d in DISTRIBUTIONS for a in ARGUMENTS] + SERVICES
    fields = {"service": lambda s: MODEL.replace("exp(0.5)", s),
              "arrivals": lambda s: MODEL.replace("rate: 1", f"arrivals: {s}"),
              "think": lambda s: MODEL.replace("rate: 1", f"population: 2\n    think: {s}")}
    for where, make in fields.items():
        for service in services:
            text = make(service)
            names = ["m.yaml", where]
            yield Probe("dists", f"solve:{where}={service}", ["solve", "m.yaml"], {"m.yaml": text}, names)
            yield Probe("dists", f"simulate:{where}={service}", ["simulate", "m.yaml", *FAST_SIM],
                        {"m.yaml": text}, names)


PARAMS = [("undefined", "{n: '${m}'}"), ("self", "{n: '${n}'}"), ("cycle", "{n: '${m}', m: '${n}'}"),
          ("string", "{n: abc}"), ("list", "{n: [1]}"), ("map", "{n: {a: 1}}"), ("null", "{n: null}"),
          ("bool", "{n: true}"), ("nan", "{n: .nan}"), ("inf", "{n: .inf}"), ("huge", "{n: 1e308}"),
          ("neg", "{n: -1}"), ("zero", "{n: 0}"), ("frac", "{n: 1.5}"), ("div0", "{n: '${1/0}'}"),
          ("mod0", "{n: '${1 % 0}'}"), ("pow", "{n: '${10 ** 10 ** 10}'}"), ("sqrt-neg", "{n: '${sqrt(-1)}'}"),
          ("log0", "{n: '${log(0)}'}"), ("name-bad", "{'n n': 1}"), ("name-dollar", "{'${n}': 1}"),
          ("name-number", "{1: 1}"), ("long-chain", "{" + ", ".join(f"p{i}: '${{p{i + 1}}}'" for i in range(500))
                                                    + ", p500: 1, n: '${p0}'}"),
          ("exp-overflow", "{n: '${exp(1000)}'}"), ("unknown-func", "{n: '${foo(1)}'}"),
          ("attribute", "{n: '${n.real}'}"), ("subscript", "{n: '${[1][0]}'}"), ("compare", "{n: '${1 < 2}'}"),
          ("string-lit", "{n: '${\"1\"}'}"), ("nested", "{n: '${${1}}'}"), ("unclosed", "{n: '${1'}"),
          ("empty", "{n: '${}'}"), ("ceil-huge", "{n: '${ceil(1e308)}'}"), ("round-nan", "{n: '${round(0/1)}'}")]


def params() -> Iterator[Probe]:
    base = MODEL.replace("stations:", "params: PARAMS\nstations:").replace("servers: 1", "servers: '${n}'")
    for label, text in PARAMS:
        model = base.replace("PARAMS", text)
        for command in (["solve", "m.yaml"], ["simulate", "m.yaml", *FAST_SIM]):
            yield Probe("params", f"{command[0]}:params={label}", command, {"m.yaml": model}, ["m.yaml", "n", "param"])
    ok = MODEL.replace("stations:", "params: {n: 1}\nstations:").replace("servers: 1", "servers: '${n}'")
    for value in ["", "abc", "nan", "inf", "-1", "0", "1.5", "1e400", HUGE_INT, "${n}", "n", "m+1", "1/0",
                  "10**10**10", "(", "n=1", "__import__('os')", "1e308*10", "'1'", "[1]"]:
        for command in (["solve", "m.yaml"], ["simulate", "m.yaml", *FAST_SIM]):
            yield Probe("params", f"{command[0]}:--set n={value}", [*command, "--set", f"n={value}"], {"m.yaml": ok},
                        ["--set", "n"])
        yield Probe("params", f"solve:--set nope={value}", ["solve", "m.yaml", "--set", f"nope={value}"],
                    {"m.yaml": ok}, ["--set", "nope"])


# ---------------------------------------------------------------- options of every command

NUMBERS = ["", "-1", "0", "-0", "0.5", "1e400", HUGE_INT, "nan", "inf", "-inf", "abc", "1e9", "1e18", "2**64",
           "0x10", "1_000", " 1", "1 ", "1ms", "1s", "1 parsec"]
RANGES = ["1..", "..3", "3..1", "1..1e9", "1..1", "1,,2", ",", "1:", ":1:1", "1:0:0", "1:2:0", "1:2:-1",
          "0.1:0.9:1e-12", "nan..3", "1..inf", "a..b", "1..3..5", "1,2,nan", "=", "1;2"]
PATHS = ["missing/out.json", ".", "/proc/out.json", "out.unknown", "out", "", "/dev/null", "out.json/",
         "sub/out.csv", "f.yaml", "z" * 5000 + ".json", "z" * 300 + ".csv", "/dev/full"]

# The command, a base argv that works and is cheap, and its options with the kind of value each takes.
COMMANDS: List[Tuple[str, List[str], Dict[str, str]]] = [
    ("simulate", ["simulate", "m.yaml", "--customers", "2000", "--replications", "2"],
     {"--seed": "n", "--replications": "n", "--customers": "n", "--horizon": "n", "--warmup": "n",
      "--threads": "n", "--sweep": "sweep", "-o": "path", "--report": "dir", "--hgrm": "dir", "--workers": "n",
      "--executor": "word", "--scheduler": "word", "--set": "set"}),
    ("solve", ["solve", "m.yaml"],
     {"--method": "word", "--sweep": "sweep", "-o": "path", "--report": "dir", "--workers": "n", "--set": "set",
      "--max-states": "n"}),
    ("solve", ["solve", "m.yaml", "--from", "desk=3", "--over", "10"],
     {"--from": "from", "--over": "n", "--bins": "n", "--max-states": "n", "-o": "path"}),
    ("compare", ["compare", "m.yaml", "--customers", "2000", "--replications", "2"],
     {"--method": "word", "--seed": "n", "--replications": "n", "--customers": "n", "--level": "n", "--set": "set",
      "-o": "path", "--report": "dir"}),
    ("run", ["run", "s.yaml", "--customers", "500", "--replications", "2", "--workers", "1"],
     {"--seed": "n", "--replications": "n", "--customers": "n", "-o": "path", "--report": "dir", "--hgrm": "dir",
      "--workers": "n", "--set": "set"}),
    ("demo", ["demo", "--customers", "200", "--replications", "2", "--workers", "1"],
     {"--customers": "n", "--replications": "n", "--noise": "n", "--report": "dir", "--workers": "n"}),
    ("report", ["report", "rec.json", "-o", "rep"], {"-o": "dir"}),
    ("examples", ["examples", "ex"], {}),
    ("schema", ["schema", "model"], {}),
    ("balance", ["balance", "--centres", "4"],
     {"--centres": "n", "--mean": "n", "--sigma": "n", "--seed": "n", "--chart": "path", "--report": "dir"}),
    ("calibrate", ["calibrate", "rec.json"],
     {"-o": "path", "--kind": "word", "--servers": "n", "--upto": "n", "--model": "word"}),
    ("plan", ["plan", "m.yaml", "--vary", "stations.desk.servers=1..3", "--slo", "mean<=10s"],
     {"--slo": "slo", "--vary": "vary", "--cost": "cost", "--years": "n", "--discount": "n",
      "--shrinkage": "n", "--seed": "n", "-o": "path", "--report": "dir", "--set": "set"}),
    ("whatif", ["whatif", "m.yaml", "--add-server", "desk"],
     {"--merge": "merge", "--add-server": "word", "--case": "case", "--seed": "n", "-o": "path",
      "--report": "dir", "--set": "set"}),
    ("doe", ["doe", "m.yaml", "--factor", "rate=0.2,0.4", "--factor", "stations.desk.servers=1,2",
             "--customers", "500", "--replications", "2"],
     {"--factor": "vary", "--fraction": "word", "--response": "word", "--replications": "n", "--customers": "n",
      "--seed": "n", "--chart": "path", "-o": "path", "--report": "dir", "--set": "set"}),
    ("fit", ["fit", "usl", "u.csv"],
     {"--n": "word", "--x": "word", "--model": "word", "-o": "path", "--chart": "path", "--report": "dir"}),
    ("serve", ["serve", "--port", "0", "--for", "0.5s"],
     {"--workers": "n", "--service": "word", "--port": "n", "--queue": "n", "--seed": "n", "--for": "n",
      "--host": "word"}),
]
KIND_VALUES = {
    "n": NUMBERS, "sweep": [f"n={r}" for r in RANGES] + ["", "n", "=1", "nope=1,2", "n=", "rate=1..3"],
    "path": PATHS, "dir": PATHS + ["rec.json"], "word": ["", "nope", "-", "a b", "[x]", "\x01", "é", "x" * 10_000],
    "set": ["", "n", "=1", "n=", "nope=1"], "slo": ["", "mean", "mean<", "mean<=", "mean<=abc", "nope<=1",
                                                      "mean<=nan", "mean<=-1", "mean<=1 parsec", "p150<=1", "mean>=inf",
                                                      "utilization<=200%", "mean<=1e400", "mean<<1", "wait_p0<=1"],
    "vary": ["", "n", "n=", "nope=1..3", "stations.desk.servers=0", "stations.desk.servers=-1..3",
             "stations.nope.servers=1..2", "stations.desk.servers=1..1e9", "rate=nan,1",
             "stations.desk.servers=abc", "stations=1,2", "classes.c.route=1,2", "stations.desk.servers=1..",
             "rate=1e400,1", "rate=0,1"],
    "cost": ["", "n", "n=", "stations.desk.servers=abc", "stations.desk.servers=-1",
             "stations.desk.servers=nan", "stations.desk.servers=1,2,3", "nope=1", "stations.desk.servers=1,",
             "stations.desk.servers=inf"],
    "from": ["", "desk", "desk=", "=3", "desk=-1", "desk=1.5", "desk=abc", "nope=1", "desk=1e400", "desk=nan",
             "desk=99999999999", "desk=3,desk=4", "desk=3,", "desk=3;desk=4", "desk==3", "DESK=3", "desk=0"],
    "merge": ["", "desk", "desk,desk", "desk,nope", "nope,desk", ",", "desk,", "a,b,c"],
    "case": ["", "x", "x:", ": merge desk", "x: nope", "x: add-server nope", "x: stations.desk.servers=abc",
             "x: stations.desk.servers=-1", "x: stations.desk.servers=nan", "x: classes.c.rate=1e400",
             "x: merge desk,desk", "x; y", "x: stations.nope.servers=1", "x: a=b=c"],
}


RATE_MODEL = MODEL.replace("brewput: 1", "brewput: 1\ntime_unit: s\nparams: {rate: 0.2}").replace(
    "rate: 1", "rate: '${rate}'")


def _command_files() -> Dict[str, str]:
    study = "brewput: 1\nmodels: {m: m.yaml}\nengines: [solve, simulate]\nsweep: {rate: [0.2, 0.4]}\n"
    return {"m.yaml": RATE_MODEL, "s.yaml": study, "u.csv": (EXAMPLES / "data/usl/raytracer.csv").read_text(),
            "f.yaml": MODEL, "out.json/x": "x", "sub": "a file"}


def options() -> Iterator[Probe]:
    files = _command_files()
    for command, base, opts in COMMANDS:
        for option, kind in opts.items():
            for value in KIND_VALUES[kind]:
                argv = [*base, option, value]
                names = [option]
                if kind in ("path", "dir") and value.strip():
                    names.append(value.rstrip("/"))
                if kind in ("set", "sweep", "vary", "cost") and "=" in value:
                    names.append("params." + value.partition("=")[0])
                if kind == "sweep" and "=" in value:  # a scenario that fails is named by its params
                    names.append(value.partition("=")[0] + "=")
                yield Probe("options", f"{command} {option} {value[:40]!r}", argv, files, names,
                            codes=(0, 1, 2) if command == "fit" else (0, 2),
                            setup=_record_setup if "rec.json" in argv else None)
    # positional arguments left out, doubled, or of the wrong kind
    for command, base, _ in COMMANDS:
        if command != "serve":  # serve needs none: it serves on port 8080 until stopped
            yield Probe("options", f"{command} no-arguments", [command], files, [])
        yield Probe("options", f"{command} extra-argument", [*base, "extra"], files, [])
        yield Probe("options", f"{command} --nope", [*base, "--nope"], files, ["--nope"])


# ---------------------------------------------------------------- records (report, calibrate, fit)

_RECORDS: Dict[str, str] = {}


def _make_records() -> Dict[str, str]:
    """Valid records made by brewput itself: a solve sweep over the rate, a simulate sweep, one results JSON."""
    if _RECORDS:
        return _RECORDS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "m.yaml").write_text(RATE_MODEL.replace("exp(0.5)", "exp(0.2)"))
        runs = {"solve-sweep.json": ["solve", "m.yaml", "--sweep", "rate=1,2,3,4", "-o", "solve-sweep.json"],
                "sim-sweep.json": ["simulate", "m.yaml", "--sweep", "rate=1,2,3,4", "--customers", "2000",
                                   "--replications", "2", "-o", "sim-sweep.json", "--workers", "1"]}
        for name, argv in runs.items():
            subprocess.run([sys.executable, "-m", "brewput", *argv], cwd=folder, capture_output=True, check=True)
            _RECORDS[name] = (folder / name).read_text()
        done = subprocess.run([sys.executable, "-m", "brewput", "solve", "m.yaml", "--json"], cwd=folder,
                              capture_output=True, text=True, check=True)
        _RECORDS["results.json"] = done.stdout
        # the other pages report draws again from what was saved beside them
        (folder / "day.yaml").write_text(_dump(DAY_MODEL))
        (folder / "two-sites.yaml").write_text((EXAMPLES / "helpdesk/two-sites.yaml").read_text())
        saved = {"from-results.json": (["solve", "m.yaml", "--from", "desk=5", "--over", "10", "-o", "out.json"],
                                       "out.json"),
                 "rota-record.json": (["plan", "day.yaml", "--slo", "P(wait<=1min)>=80%", "--rota", "sipp",
                                       "--shift", "30min", "--cost", "bar=20", "--no-confirm", "--report", "page"],
                                      "page/record.json"),
                 "whatif.json": (["whatif", "two-sites.yaml", "--merge", "desk_a,desk_b", "-o", "out.json"],
                                 "out.json")}
        for name, (argv, written) in saved.items():
            subprocess.run([sys.executable, "-m", "brewput", *argv], cwd=folder, capture_output=True, check=True)
            _RECORDS[name] = (folder / written).read_text()
    return _RECORDS


DAY_MODEL = {"brewput": 1, "time_unit": "min", "day": {"start": "08:00", "length": "1h", "interval": "15min"},
             "stations": {"bar": {"servers": [1, 1, 1, 1]}},
             "classes": {"c": {"rate": [0.5, 2.0, 1.0, 0.5], "route": [{"station": "bar", "service": "exp(1)"}]}}}


def _record_setup(folder: Path) -> None:
    (folder / "rec.json").write_text(_make_records()["solve-sweep.json"])


RECORD_VALUES = [(label, value) for label, value in BAD_VALUES
                 if label in ("str", "null", "list", "neg", "nan", "10**400")]
REPORT_VALUES = [(label, value) for label, value in RECORD_VALUES if label in ("str", "null", "neg")]


def records() -> Iterator[Probe]:
    seen = set()
    users = [("report", ["report", "rec.json", "-o", "rep"]), ("calibrate", ["calibrate", "rec.json"]),
             ("fit", ["fit", "usl", "rec.json"])]
    for record, text in _make_records().items():
        if record == "solve-sweep.json":  # the simulated sweep has every field it has, and more
            continue
        data = json.loads(text)
        for command, argv in users if record.endswith("sweep.json") else users[:1]:
            for cut in (0, 1, len(text) // 3, len(text) // 2, len(text) - 1):
                yield Probe("records", f"{command}:{record}:cut-{cut}", argv, {"rec.json": text[:cut]}, ["rec.json"],
                            codes=(0, 1, 2))
            for path in _paths(data):
                for label, value in RECORD_VALUES if command != "report" else REPORT_VALUES:  # report: seconds each
                    key = (command, record, _shape(path), label)
                    if key in seen:
                        continue
                    seen.add(key)
                    bad = json.dumps(_set(data, path, value))
                    where = ".".join(map(str, path)) or "top"
                    yield Probe("records", f"{command}:{record}:{where}={label}", argv, {"rec.json": bad},
                                ["rec.json"], codes=(0, 1, 2))
    tables = {"missing-column": "processors\n1\n2\n3\n4\n", "nan-cells": "processors,throughput\n1,nan\n2,3\n4,5\n8,9\n",
              "empty": "", "header-only": "processors,throughput\n", "blank-line": "processors,throughput\n\n1,2\n",
              "quoted": 'processors,throughput\n"1",2\n2,"4"\n4,8\n8,16\n', "semicolons": "processors;throughput\n1;2\n2;4\n",
              "dup-header": "processors,processors\n1,2\n2,4\n4,8\n8,16\n", "bom": "\ufeffprocessors,throughput\n1,2\n2,4\n4,7\n8,12\n",
              "huge": "processors,throughput\n1,1e308\n2,1e308\n4,1e308\n8,1e308\n",
              "tiny": "processors,throughput\n1,1e-320\n2,1e-320\n4,1e-320\n8,1e-320\n",
              "same-x": "processors,throughput\n1,2\n2,2\n4,2\n8,2\n", "decreasing": "processors,throughput\n1,8\n2,4\n4,2\n8,1\n",
              "negative-n": "processors,throughput\n-1,2\n2,4\n4,7\n8,12\n", "zero-x": "processors,throughput\n1,0\n2,0\n4,0\n8,0\n",
              "extra-cells": "processors,throughput\n1,2,3\n2,4\n4,7\n8,12\n", "wide": "a," * 5000 + "b\n",
              "one-col-many": "processors,throughput\n" + "".join(f"{i},{i}\n" for i in range(1, 200_000)),
              "fraction-n": "processors,throughput\n0.5,2\n1.5,4\n2.5,7\n3.5,12\n",
              "huge-n": "processors,throughput\n1,2\n1e300,4\n1e301,7\n1e302,12\n"}
    for label, table in tables.items():
        yield Probe("records", f"fit:csv={label}", ["fit", "usl", "u.csv"], {"u.csv": table}, ["u.csv"],
                    codes=(0, 1, 2))
        yield Probe("records", f"fit:csv={label}+chart", ["fit", "usl", "u.csv", "--chart", "c.png", "-o", "f.csv"],
                    {"u.csv": table}, ["u.csv"], codes=(0, 1, 2))
        yield Probe("records", f"calibrate:csv={label}", ["calibrate", "u.csv"], {"u.csv": table}, ["u.csv"])


def environment() -> Iterator[Probe]:
    """Every command's usual run with a standard output that cannot be written (a full
    disk) or cannot encode a name (ASCII), and one whose input names are not ASCII."""
    unicode_model = RATE_MODEL.replace("desk", "café")
    files = {**_command_files(), "m.yaml": unicode_model}
    for command, base, _ in COMMANDS:
        if command in ("serve", "demo"):  # a server's loop; the demo's minute of simulation
            continue
        argv = ["café" if a == "desk" else a for a in base]
        argv = [a.replace("stations.desk.", "stations.café.").replace("desk=", "café=") for a in argv]  # --from
        setup = _record_setup if "rec.json" in argv else None
        yield Probe("environment", f"{command} > /dev/full", argv, files, [], setup=setup, stdout="/dev/full")
        yield Probe("environment", f"{command} ascii", argv, files, [], setup=setup,
                    env={"PYTHONIOENCODING": "ascii"}, codes=(0, 1) if command == "fit" else (0,))
        yield Probe("environment", f"{command} --help > /dev/full", [command, "--help"], files, [],
                    stdout="/dev/full", codes=(2,))
        yield Probe("environment", f"{command} --json", [*argv, "--json"], files, [], setup=setup,
                    codes=(0, 1, 2))


# ---------------------------------------------------------------- enormous but valid inputs

def _closed(population, route) -> str:
    return _dump({"brewput": 1, "stations": {"desk": {}, "other": {}},
                  "classes": {"c": {"population": population, "route": route}}})


SERVE_DESK = {"station": "desk", "service": "exp(1)"}
ENORMOUS: List[Tuple[str, List[str], Files]] = [
    ("million-customers-forking-1000-ways", ["simulate", "m.yaml"],
     {"m.yaml": _closed(10**6, [{"fork": {f"b{i}": [SERVE_DESK] for i in range(1000)}}])}),
    ("days-of-customers", ["simulate", "m.yaml", "--customers", "4000000000", "--replications", "1000"],
     {"m.yaml": MODEL}),
    ("a-million-scenarios", ["simulate", "m.yaml", "--sweep", "rate=1..1000", "--sweep", "n=1..1000"],
     {"m.yaml": MODEL.replace("brewput: 1", "brewput: 1\nparams: {rate: 1, n: 1}")}),
    ("reneging-at-once", ["simulate", "m.yaml"],
     {"m.yaml": _closed(50, [{**SERVE_DESK, "patience": 1e-12}]).replace("population: 50", "population: 50, think: 1.0e-12")}),
    ("loop-of-ten-million-visits", ["simulate", "m.yaml"],
     {"m.yaml": _dump({"brewput": 1, "stations": {"desk": {}}, "classes": {"c": {"rate": 1e-7, "route": [
         {"id": "a", "station": "desk", "service": "exp(1.0e-9)", "next": {"a": 0.9999999, "exit": 1e-7}}]}}})}),
    ("ten-thousand-stations", ["solve", "m.yaml"],
     {"m.yaml": _dump({"brewput": 1, "stations": {f"s{i}": {} for i in range(10_000)},
                       "classes": {"c": {"rate": 0.5, "route": [{"station": f"s{i}", "service": "exp(1)"}
                                                               for i in range(10_000)]}}})}),
    ("a-million-servers", ["simulate", "m.yaml", *FAST_SIM],
     {"m.yaml": MODEL.replace("servers: 1", "servers: 1000000")}),
    ("a-day-of-a-million-intervals", ["simulate", "m.yaml", *FAST_SIM],
     {"m.yaml": MODEL.replace("brewput: 1", "brewput: 1\nday: {length: 1000000, interval: 1}")}),
    ("a-day-of-a-million-rates", ["solve", "m.yaml"],
     {"m.yaml": MODEL.replace("brewput: 1", "brewput: 1\nday: {length: 1000000, interval: 1}").replace(
         "rate: 1", "rate: [" + ", ".join(["1"] * 1_000_000) + "]")}),
    ("an-empirical-of-ten-million", ["simulate", "m.yaml", *FAST_SIM],
     {"m.yaml": MODEL.replace("exp(0.5)", "empirical(t.csv)"), "t.csv": "0.5\n" * 10_000_000}),
    ("pool-lab-for-years", ["lab", "pool", "--tasks", "10000", "--work", "10s", "--repetitions", "1000"], {}),
    ("coffee-lab-for-weeks", ["lab", "coffee", "--dur", "1h", "--repetitions", "1000", "--cpus", "1"], {}),
]


def enormous() -> Iterator[Probe]:
    for label, argv, files in ENORMOUS:
        yield Probe("enormous", label, argv, files, [], timeout=60.0)


# ---------------------------------------------------------------- plan --rota simulate

def _coffee_bar() -> dict:
    return yaml.safe_load((EXAMPLES / "rush/coffee-bar.yaml").read_text())


def _rota_models() -> Dict[str, str]:
    """The coffee bar as written, and as the iterative staffing algorithm meets it less
    kindly: intervals nobody arrives in (at the start, the middle, the end, or all),
    a second station that queues, one that does not (a door: its utilization is not the
    bar's), a day of one interval, a bar whose service is not exponential."""
    bar = _coffee_bar()
    rates = bar["classes"]["customer"]["rate"]
    models = {"bar.yaml": bar}
    for label, zeroed in (("quiet-start", range(0, 4)), ("quiet-middle", range(8, 10)),
                          ("quiet-end", range(16, 20)), ("quiet-all", range(20))):
        models[f"{label}.yaml"] = _set(bar, ("classes", "customer", "rate"),
                                       [0 if i in zeroed else r for i, r in enumerate(rates)])
    two = _set(bar, ("stations", "till"), {"servers": 1})
    models["two-queues.yaml"] = _set(two, ("classes", "customer", "route"),
                                     [{"station": "till", "service": "exp(0.3)"}, *bar["classes"]["customer"]["route"]])
    door = _set(bar, ("stations", "door"), {"servers": "inf"})
    models["door.yaml"] = _set(door, ("classes", "customer", "route"),
                               [{"station": "door", "service": "exp(0.1)"}, *bar["classes"]["customer"]["route"]])
    one = _set(_set(bar, ("day",), {"start": "06:00", "length": "15min", "interval": "15min"}),
               ("stations", "bar", "servers"), [2])
    models["one-interval.yaml"] = _set(one, ("classes", "customer", "rate"), [2.0])
    models["lognormal.yaml"] = _set(bar, ("classes", "customer", "route"),
                                    [{"station": "bar", "service": "lognormal(1.2, 2)", "patience": "gamma(5, 0.5)"}])
    return {name: _dump(model) for name, model in models.items()}


ROTA_SLOS = ["p95<3min", "mean<=1min", "wait_p80<=20s", "wait_p99<=1min", "wait_p0<=1s", "wait_p100<=1min",
             "wait_p80<20s", "wait_p80>=20s", "P(wait<=20s)>=80%", "P(wait<=0s)>=50%", "P(wait<=20s)>=100%",
             "P(wait<=20s)>=0%", "P(wait<=1e400s)>=80%", "wait_mean<=30s", "wait_mean<=0s", "loss<5%", "loss<0%",
             "utilization<80%", "bar.utilization<80%", "door.utilization<80%", "till.utilization<80%",
             "customer.wait_p80<=20s", "bar.wait_p80<=20s", "throughput>=1", "wait_p80<=20 parsecs",
             "wait_p80<=nan", "wait_p80<=-1s", "wait_p80<=inf", "wait_p80<=20s;loss<5%"]
ROTA_OPTIONS: List[Tuple[str, List[str]]] = [
    *[(f"--seed {seed}", ["--seed", seed]) for seed in ("0", "-1", "1", "4294967295", "4294967296",
                                                         "18446744073709551615", "18446744073709551616",
                                                         HUGE_INT, "1e400", "abc", "1.5")],
    *[(f"--shift {shift}", ["--shift", shift]) for shift in ("2h", "15min", "5h", "6h", "10min", "0", "-1h",
                                                             "1e400h", "nan", "abc", "2 parsecs")],
    ("--no-confirm", ["--no-confirm"]), ("--confirm", ["--confirm"]), ("--cost bar=20", ["--cost", "bar=20"]),
    ("--cost bar=20 --shift 2h", ["--cost", "bar=20", "--shift", "2h"]), ("--shrinkage 30%", ["--shrinkage", "30%"]),
    ("--json", ["--json"]), ("-o", ["-o", "out.json"]), ("--report", ["--report", "page"]),
    ("--vary", ["--vary", "stations.bar.servers=1..3"]),
]


def rota() -> Iterator[Probe]:
    """`plan MODEL --slo ... --rota simulate`: every objective with the coffee bar, every
    option, every model the algorithm meets less kindly; each must plan or refuse in one line."""
    models = _rota_models()
    base = ["plan", "bar.yaml", "--rota", "simulate"]
    for slo in ROTA_SLOS:
        yield Probe("rota", f"simulate --slo {slo}", [*base, "--slo", slo, "--no-confirm"], models,
                    ["--slo", slo], timeout=120.0)
    for label, extra in ROTA_OPTIONS:
        yield Probe("rota", f"simulate {label}", [*base, "--slo", "wait_p80<=20s", *extra], models,
                    [extra[0], *extra[1:]], timeout=120.0)
    for name in models:
        for slo in ("wait_p80<=20s", "loss<5%", "utilization<80%"):
            yield Probe("rota", f"simulate {name} --slo {slo}",
                        ["plan", name, "--rota", "simulate", "--slo", slo, "--shift", "1h"], models,
                        [name, "--slo", "--rota", "--shift", slo], timeout=120.0)


# ---------------------------------------------------------------- signals

SIGNAL_GRACE = 10.0  # seconds a signalled command has to end
LONG_MODEL = MODEL.replace("brewput: 1", "brewput: 1\nparams: {rate: 1}").replace("rate: 1\n    route", "rate: '${rate}'\n    route")
LONG: List[Tuple[str, List[str], Files]] = [
    ("simulate", ["simulate", "m.yaml", "--customers", "300000000", "--yes"], {"m.yaml": LONG_MODEL}),
    ("sweep-processes", ["simulate", "m.yaml", "--sweep", "rate=0.1:0.9:0.1", "--customers", "50000000",
                         "--workers", "2", "--yes"], {"m.yaml": LONG_MODEL}),
    ("study", ["run", "s.yaml", "--customers", "50000000", "--workers", "2", "--yes", "-o", "out.json"],
     {"m.yaml": LONG_MODEL,
      "s.yaml": "brewput: 1\nmodels: {m: m.yaml}\nengines: [solve, simulate]\nsweep: {rate: [0.2, 0.4, 0.6]}\n"}),
    ("doe", ["doe", "m.yaml", "--factor", "rate=0.2,0.4", "--factor", "stations.desk.servers=1,2",
             "--customers", "10000000", "--replications", "20", "--yes"], {"m.yaml": LONG_MODEL}),
    ("plan", ["plan", "m.yaml", "--decide", "n=1..300", "--slo", "throughput>=0.1"],
     {"m.yaml": _closed("${n}", [{**SERVE_DESK, "uses": ["cpu"]}]).replace("brewput: 1", "brewput: 1\nparams: {n: 1}\nresources: {cpu: 2}")}),
    ("lab-pool", ["lab", "pool", "--tasks", "100", "--work", "5s", "--threads", "1", "--cpus", "1",
                  "--repetitions", "1", "--yes"], {}),
    ("lab-coffee", ["lab", "coffee", "--impl", "ideal", "--cpus", "1", "--dur", "60s", "--repetitions", "1"], {}),
    ("serve", ["serve", "--port", "0", "--for", "60s"], {}),
    # the exact engines' long work: a chain walked and solved (minutes), a span of many
    # lifetimes followed from a given state, a rota planned and confirmed over a day
    ("solve-ctmc", ["solve", "m.yaml", "--method", "ctmc"], {"m.yaml": (EXAMPLES / "tandem.yaml").read_text()}),
    ("solve-from", ["solve", "m.yaml", "--from", "desk=3000", "--over", "20000"], {"m.yaml": MODEL}),
    ("plan-rota", ["plan", "day.yaml", "--slo", "P(wait<=20s)>=80%", "--rota", "exact", "--shift", "4h"],
     {"day.yaml": (EXAMPLES / "rush/call-centre-day.yaml").read_text()}),
]


def signals() -> Iterator[Probe]:
    for label, argv, files in LONG:
        for number in (signal.SIGINT, signal.SIGTERM):
            for after in (0.5, 3.0):
                for group in (False, True):
                    sent = Signal(number, after, group)
                    yield Probe("signals", f"{label}:{number.name}@{after:g}s:{'group' if group else 'parent'}",
                                argv, files, [], codes=signalled_codes(label, number), signal=sent,
                                timeout=after + SIGNAL_GRACE)


def signalled_codes(label: str, number: int) -> Tuple[int, ...]:
    """The exit codes a signalled command may end with: 128 + the signal, or 0 if it had
    finished; `serve` stops on Ctrl-C as its way of ending, with 0 (docs/load.md)."""
    return (0, 128 + number) if label != "serve" or number != signal.SIGINT else (0,)


def _descendants(pid: int) -> List[int]:
    """Every process below `pid` now (its children, theirs, ...), from /proc."""
    parent_of = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            parent_of[int(stat.parent.name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parent_of.items() if parent in frontier]
        found += frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def _run_signalled(probe: Probe, folder: Path) -> Tuple[subprocess.CompletedProcess, List[str]]:
    """Runs the probe's command in a session of its own, sends its signal, and says
    what it left running: the processes below it just before the signal that
    outlive it by a second."""
    command = [sys.executable, "-m", "brewput", *probe.argv]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "RAYON_NUM_THREADS": "2"}
    started = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
    time.sleep(probe.signal.after)
    below = _descendants(started.pid)
    if started.poll() is None:
        if probe.signal.group:
            os.killpg(started.pid, probe.signal.number)
        else:
            started.send_signal(probe.signal.number)
    try:
        stdout, stderr = started.communicate(timeout=SIGNAL_GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(started.pid, signal.SIGKILL)
        stdout, stderr = started.communicate()
        raise
    finally:
        time.sleep(1.0)
        left = [pid for pid in below if _alive(pid)]
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    done = subprocess.CompletedProcess(command, started.returncode, stdout, stderr)
    return done, [f"left {len(left)} process(es) running"] if left else []


FAMILIES: Dict[str, Callable[[], Iterator[Probe]]] = {
    "environment": environment, "enormous": enormous, "signals": signals,
    "options": options, "files": files, "dists": distributions, "params": params, "records": records,
    "study-fields": study_fields, "model-fields": model_fields, "rota": rota,
}


# ---------------------------------------------------------------- running and judging

#: What a run over a minute says before it starts (engine/work.py), with how long it needs.
WARNED_LONG = "(Ctrl-C stops it)"
#: A line of progress in a pipe: `LABEL DONE/TOTAL[: WHAT] (SECONDS s)`, or `DONE %`.
PROGRESS_LINE = re.compile(r"^\S.*? (\d[\d,]*(/[\d,]+)?|\d+ %)(: .*)? \(\d+\.\d s\)$")


def judge(probe: Probe) -> Tuple[Probe, List[str], str]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        case = Case(probe.id, probe.argv, probe.files, timeout=probe.timeout, memory_mb=2048)
        write_files(probe.files, folder)
        if probe.setup:
            probe.setup(folder)
        left: List[str] = []
        try:
            if probe.signal:
                done, left = _run_signalled(probe, folder)
            else:
                done = _run(probe, case, folder)
        except subprocess.TimeoutExpired as e:
            said = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            if WARNED_LONG in said and not probe.signal:  # long work asked for, its length told first: no hang
                return probe, [], said
            return probe, [f"hang (over {probe.timeout:g} s)"], said
        finally:
            for path in folder.rglob("*"):  # chmod 000 files would outlive the folder
                if not path.is_symlink():
                    path.chmod(0o700)
    stderr = done.stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    problems = list(left)
    if "Traceback" in stderr:
        problems.append("traceback: " + (lines[-1] if lines else ""))
    if "panicked" in stderr:
        problems.append("panic")
    if "Warning" in stderr:
        problems.append("warning: " + next(line for line in lines if "Warning" in line))
    if "--json" in probe.argv and re.search(r"\b(NaN|-?Infinity)\b", done.stdout):
        problems.append("NaN or Infinity in JSON (not JSON)")
    if done.returncode not in probe.codes:
        problems.append(f"exit {done.returncode}")
    if done.returncode == 2:
        # A pipe gets a line per finished step (cli/progress.py) before whatever failed
        # after them (a standard output that cannot be written): not the error's lines.
        error_lines = [line for line in lines if not PROGRESS_LINE.match(line)]
        if len(error_lines) > 4:
            problems.append(f"{len(error_lines)} stderr lines")
        if not lines:
            problems.append("exit 2 without a line")
        elif probe.names and not any(name in stderr for name in probe.names):
            problems.append(f"names none of {list(probe.names)}")
    return probe, problems, stderr


def _run(probe: Probe, case: Case, folder: Path) -> subprocess.CompletedProcess:
    if not (probe.env or probe.stdout):
        return run_case(replace(case, files={}), folder)
    command = [sys.executable, "-m", "brewput", *probe.argv]
    options = dict(cwd=folder, env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "RAYON_NUM_THREADS": "2",
                                    **probe.env},
                   text=True, errors="replace", timeout=probe.timeout, stdin=subprocess.DEVNULL)
    if not probe.stdout:
        return subprocess.run(command, capture_output=True, **options)
    with open(probe.stdout, "w") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.PIPE, **options)
    done.stdout = ""
    return done


def _normalise(text: str) -> str:
    text = re.sub(r"/tmp/[^ :'\"]+", "TMP", text)
    text = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "N", text)
    return text[:150]


def main(argv: Sequence[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the families (or probe ids) starting with this")
    parser.add_argument("--grep", default="", help="run only the probes whose id contains this")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=3, help="examples shown of each class of failure")
    parser.add_argument("--list", action="store_true", help="list the probes, run none")
    args = parser.parse_args(argv)
    probes = [p for name, family in FAMILIES.items() if name.startswith(args.only) or args.only.startswith(name)
              for p in family() if p.id.startswith(args.only) or name.startswith(args.only)]
    probes = [p for p in probes if args.grep in p.id]
    if args.list:
        print("\n".join(p.id for p in probes))
        return 0
    print(f"{len(probes)} probes", file=sys.stderr)
    classes: Dict[str, List[Tuple[Probe, str]]] = defaultdict(list)
    with ThreadPoolExecutor(args.jobs) as pool:
        for done, (probe, problems, stderr) in enumerate(pool.map(judge, probes), 1):
            for problem in problems:
                classes[f"[{probe.family}] {_normalise(problem)}"].append((probe, stderr))
            if done % 200 == 0:
                print(f"... {done}/{len(probes)}, {len(classes)} classes of failure", file=sys.stderr)
    for label, hits in sorted(classes.items(), key=lambda item: -len(item[1])):
        print(f"\n=== {len(hits)} x {label}")
        for probe, stderr in hits[:args.show]:
            print(f"  {probe.id}\n    brewput {' '.join(map(repr, probe.argv))}")
            for line in stderr.strip().splitlines()[-3:]:
                print(f"    | {line[:300]}")
    print(f"\n{len(probes)} probes, {len(classes)} classes of failure")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
