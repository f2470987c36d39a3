"""The corpus (tests/corpus.py): bad command lines, outputs and user text that
rich would read as markup; each one line naming the option, file or field."""
import pytest

from corpus import MODEL, STUDY_MODEL, Case, check, ids

M = {"m.yaml": MODEL}
STUDY = """\
brewput: 1
title: a study
models:
  m: m.yaml
sweep:
  n: 1..2
engines: [simulate]
simulate: {customers: 1000, replications: 2}
"""
SWEPT = {"m.yaml": STUDY_MODEL}  # has a param n
RUN = ["simulate", "m.yaml", "--customers", "1000", "--replications", "2"]


def marked(name: str) -> str:
    """The model with its station called `name` in the route only: an unknown
    station, so that the error quotes the name."""
    return MODEL.replace("station: desk", f"station: '{name}'")


CASES = [
    # Values that do not parse: one line naming the option, never a usage box.
    Case("option-whole-as-text", ["simulate", "m.yaml", "--customers", "abc"], M, names=["--customers", "'abc'"]),
    Case("option-whole-as-fraction", ["simulate", "m.yaml", "--replications", "2.5"], M, names=["--replications"]),
    Case("option-whole-huge-exponent", ["simulate", "m.yaml", "--customers", "1e400"], M, names=["--customers"]),
    Case("option-whole-huge", ["simulate", "m.yaml", "--customers", "9" * 40], M, names=["--customers"]),
    Case("option-whole-too-many-digits", ["simulate", "m.yaml", "--seed", "9" * 5000], M, names=["--seed"]),
    Case("option-seed-negative", ["simulate", "m.yaml", "--seed", "-1"], M, names=["--seed"]),
    Case("option-warmup-nan", ["simulate", "m.yaml", "--warmup", "nan"], M, names=["--warmup", "'nan'"]),
    Case("option-warmup-inf", ["simulate", "m.yaml", "--warmup", "inf"], M, names=["--warmup"]),
    Case("option-warmup-minus-inf", ["simulate", "m.yaml", "--horizon", "10", "--warmup", "-inf"], M,
         names=["--warmup"]),
    Case("option-horizon-nan", ["simulate", "m.yaml", "--horizon", "nan"], M, names=["--horizon"]),
    Case("option-horizon-text", ["simulate", "m.yaml", "--horizon", "long"], M, names=["--horizon"]),
    Case("option-threads-text", ["simulate", "m.yaml", "--threads", "all"], M, names=["--threads"]),
    Case("option-workers-zero", ["simulate", "m.yaml", "--sweep", "n=1,2", "--workers", "0"], SWEPT,
         names=["--workers"]),
    Case("option-level-nan", ["compare", "m.yaml", "--level", "nan"], M, names=["--level"]),
    Case("option-method-unknown", ["solve", "m.yaml", "--method", "magic"], M, names=["--method", "magic"]),
    Case("option-run-seed-text", ["run", "s.yaml", "--seed", "x"], {"s.yaml": STUDY, **SWEPT}, names=["--seed"]),
    Case("option-demo-noise-nan", ["demo", "--noise", "nan"], names=["--noise"]),
    Case("option-unknown", ["simulate", "m.yaml", "--bogus"], M, names=["--bogus"]),
    Case("option-unknown-short", ["solve", "m.yaml", "-z"], M, names=["-z"]),
    Case("option-missing-value", ["simulate", "m.yaml", "--seed"], M, names=["--seed"]),
    Case("argument-missing", ["simulate"], names=["MODEL"]),
    Case("argument-extra", ["solve", "m.yaml", "other.yaml"], M, names=["other.yaml"]),
    Case("command-unknown", ["simulte", "m.yaml"], M, names=["simulte"]),
    # --set: numbers or expressions, checked by the model layer.
    Case("set-no-value", ["solve", "m.yaml", "--set", "c="], M, names=["--set c="]),
    Case("set-no-name", ["solve", "m.yaml", "--set", "=3"], M, names=["--set =3"]),
    Case("set-expression-unknown-name", ["solve", "m.yaml", "--set", "n=cpus+1"], SWEPT, names=["params.n", "cpus"]),
    Case("set-expression-infinite", ["solve", "m.yaml", "--set", "n=1e999"], SWEPT, names=["params.n"]),
    Case("set-markup", ["solve", "m.yaml", "--set", "n=[/]"], SWEPT, names=["params.n", "[/]"]),
    # Outputs, refused before anything runs.
    Case("output-a-folder", [*RUN, "-o", "sub"], {**M, "sub/x": ""}, names=["-o sub", "folder"]),
    Case("output-folder-missing", [*RUN, "-o", "no/such/r.csv"], M, names=["-o no/such/r.csv", "no/such"]),
    Case("output-bad-suffix", [*RUN, "-o", "r.xlsx"], M, names=["-o r.xlsx", ".xlsx"]),
    Case("output-no-suffix", [*RUN, "-o", "results"], M, names=["-o results"]),
    Case("output-under-a-file", [*RUN, "-o", "f/r.json"], {**M, "f": "x"}, names=["-o f/r.json"]),
    Case("report-an-existing-file", [*RUN, "--report", "f"], {**M, "f": "x"}, names=["--report f", "is a file"]),
    Case("report-under-a-file", [*RUN, "--report", "f/report"], {**M, "f": "x"}, names=["--report f/report"]),
    Case("hgrm-an-existing-file", [*RUN, "--hgrm", "f"], {**M, "f": "x"}, names=["--hgrm f"]),
    Case("sweep-output-a-folder", ["solve", "m.yaml", "--sweep", "n=1,2", "-o", "sub"], {**SWEPT, "sub/x": ""},
         names=["-o sub"]),
    Case("run-report-an-existing-file", ["run", "s.yaml", "--report", "f"], {"s.yaml": STUDY, **SWEPT, "f": "x"},
         names=["--report f"]),
    Case("report-command-output-a-file", ["report", "r.json", "-o", "f"], {"r.json": "{}", "f": "x"}, names=["-o f"]),
    # Dask: the address checked first, a dead scheduler refused at once.
    Case("dask-garbage", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler", "garbage"],
         SWEPT, names=["--scheduler garbage"], timeout=15),
    Case("dask-scheme-only", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler", "tcp://"],
         SWEPT, names=["--scheduler tcp://"], timeout=15),
    Case("dask-port-zero", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler",
                            "tcp://127.0.0.1:0"], SWEPT, names=["--scheduler"], timeout=15),
    Case("dask-nothing-listening", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler",
                                    "tcp://127.0.0.1:1"], SWEPT, names=["--scheduler tcp://127.0.0.1:1"], timeout=15),
    Case("dask-unknown-scheme", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler",
                                 "ftp://127.0.0.1:8786"], SWEPT, names=["--scheduler ftp://"], timeout=15),
    Case("dask-markup", ["solve", "m.yaml", "--sweep", "n=1,2", "--executor", "dask", "--scheduler", "[/]"],
         SWEPT, names=["--scheduler [/]"], timeout=15),
    # User text that rich would read as markup or emoji codes, printed as written.
    Case("markup-station-close-tag", ["solve", "m.yaml"], {"m.yaml": marked("[/]")}, names=["'[/]'"]),
    Case("markup-station-bold", ["solve", "m.yaml"], {"m.yaml": marked("[bold]x")}, names=["'[bold]x'"]),
    Case("markup-station-link", ["solve", "m.yaml"], {"m.yaml": marked("[link=https://x]y[/link]")},
         names=["'[link=https://x]y[/link]'"]),
    Case("markup-station-emoji", ["solve", "m.yaml"], {"m.yaml": marked(":x:")}, names=["':x:'"]),
    Case("markup-model-path", ["simulate", "[/]m.yaml"], names=["[/]m.yaml"]),
    Case("markup-model-path-bold", ["simulate", "[bold]m.yaml"], names=["[bold]m.yaml"]),
    Case("markup-output-path", [*RUN, "-o", "[bold].xlsx"], M, names=["-o [bold].xlsx"]),
    Case("markup-report-path", [*RUN, "--report", "[red]x"], {**M, "[red]x": "file"}, names=["--report [red]x"]),
    Case("markup-sweep-value", ["solve", "m.yaml", "--sweep", "n=[/]"], SWEPT, names=["--sweep n=[/]"]),
    Case("markup-sweep-name", ["solve", "m.yaml", "--sweep", "[/]=1,2"], SWEPT, names=["[/]"]),
    Case("emoji-sweep-value", ["solve", "m.yaml", "--sweep", "n=:x:"], SWEPT, names=["--sweep n=:x:"]),
    Case("markup-lab-impl", ["lab", "coffee", "--impl", "[/]"], names=["--impl [/]"]),
    Case("emoji-lab-impl", ["lab", "coffee", "--impl", ":x:,[bold]"], names=["--impl :x:"]),
    Case("markup-study-label", ["run", "s.yaml"], {"s.yaml": STUDY.replace("  m: m.yaml", "  '[/]': nope.yaml"),
                                                    **SWEPT}, names=["nope.yaml"]),
    Case("markup-study-label-bad-model", ["run", "s.yaml"],
         {"s.yaml": STUDY.replace("  m: m.yaml", "  '[bold]': m.yaml"), "m.yaml": marked(":x:")},
         names=["':x:'"]),
    # No command at all: the help on stdout, one line on stderr saying what is missing.
    Case("no-command", [], names=["missing command: brewput COMMAND"]),
    Case("no-lab-command", ["lab"], names=["missing command: brewput lab COMMAND"]),
    Case("unknown-command", ["simulat", "m.yaml"], M, names=["no such command 'simulat'"]),
    # A folder option given an empty name (an unset shell variable) is refused, not read
    # as the current folder, where a report would spread its files over what is there.
    *[Case(f"empty-folder-{'-'.join(argv[:2]).strip('-')}-{option[2:]}", [*argv, option, ""], M,
           names=[option, "empty name"])
      for argv, option in ((RUN, "--report"), (RUN, "--hgrm"), (["solve", "m.yaml"], "--report"),
                           (["lab", "coffee"], "--hgrm"), (["lab", "coffee"], "--report"),
                           (["load", "http://127.0.0.1:9/"], "--hgrm"), (["load", "http://127.0.0.1:9/"], "--report"),
                           (["run", "s.yaml"], "--report"), (["whatif", "m.yaml"], "--report"))],
    # An output under a file: the message says the file is in the way, not that a folder is missing.
    *[Case(f"output-under-a-file-{'-'.join(argv[:1])}-{option.strip('-')}", [*argv, option, f"f/{name}"],
           {**M, "f": "x"}, names=[f"{option} f/{name}", "f is a file, not a folder" if "." in name else
                                   "f is not a folder"])
      for argv, option, name in ((RUN, "-o", "r.json"), (RUN, "--report", "rep"), (RUN, "--hgrm", "h"),
                                 (["solve", "m.yaml"], "-o", "r.csv"), (["whatif", "m.yaml"], "--report", "rep"))],
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
