"""The corpus (tests/corpus.py): model and study files whose structure is wrong, as
model/fields.py walks it, and error lines that echo control characters.

Classes: a part that is not a mapping, a list that is not a list, a mapping key
that is not a name together with a bad value (the key is told), a required field
missing or null, unknown fields at each depth, several problems at once (the first
in the file is told), and a message echoing bell, backspace or line breaks other
than \\n (dropped, so the error stays one line on stderr)."""
import pytest

from corpus import MODEL, STUDY_MODEL, Case, check, ids

SOLVE = ["solve", "m.yaml"]


def model(old, new):
    return {"m.yaml": MODEL.replace(old, new)}


def study(text):
    return {"s.yaml": "brewput: 1\n" + text, "m.yaml": STUDY_MODEL}


RUN = ["run", "s.yaml"]
# Classes before stations, each with a problem: the file's order, not the fields', decides.
CLASSES_FIRST = """\
brewput: 1
classes:
  c:
    rate: -1
    route:
      - {station: desk, service: exp(0.5)}
stations:
  desk: {servers: 0}
"""

CASES = [
    # A part that is not a mapping.
    Case("stations-a-list", SOLVE, model("  desk: {servers: 1}", "  - desk"), names=["m.yaml:2", "stations",
                                                                                     "expected a mapping"]),
    Case("station-a-number", SOLVE, model("desk: {servers: 1}", "desk: 4"), names=["m.yaml:3", "stations.desk",
                                                                                   "expected a mapping, got 4"]),
    Case("class-a-string", SOLVE, {"m.yaml": "brewput: 1\nstations: {desk: {}}\nclasses: {c: fast}\n"},
         names=["m.yaml:3", "classes.c", "expected a mapping, got 'fast'"]),
    Case("step-a-number", SOLVE, model("      - {station: desk, service: exp(0.5)}", "      - 7"),
         names=["m.yaml:8", "classes.c.route[0]", "expected a mapping, got 7"]),
    Case("study-simulate-a-list", RUN, study("models: {m: m.yaml}\nsimulate: [1, 2]\n"),
         names=["s.yaml:3", "simulate", "expected a mapping"]),

    # A list that is not a list.
    Case("route-a-mapping", SOLVE, model("    route:\n      - {station: desk, service: exp(0.5)}",
                                         "    route: {station: desk, service: exp(0.5)}"),
         names=["m.yaml:7", "classes.c.route", "expected a list"]),
    Case("uses-a-string", SOLVE, {"m.yaml": MODEL.replace("service: exp(0.5)}", "service: exp(0.5), uses: tok}")
                                  .replace("stations:", "resources: {tok: 1}\nstations:")},
         names=["m.yaml:9", "classes.c.route[0].uses", "expected a list, got 'tok'"]),
    Case("study-engines-a-string", RUN, study("models: {m: m.yaml}\nengines: simulate\n"),
         names=["s.yaml:3", "engines", "expected a list, got 'simulate'"]),

    # A key that is not a name, with a bad value too: the key is told.
    Case("station-key-a-number", SOLVE, model("desk: {servers: 1}", "desk: {}\n  7: 4"),
         names=["m.yaml:4", "stations[7]", "expected a name, got 7"]),
    Case("class-key-a-number", SOLVE, model("  c:\n", "  3: 1\n  c:\n"),
         names=["m.yaml:5", "classes[3]", "expected a name, got 3"]),
    Case("study-model-label-a-number", RUN, study("models: {1: 2}\n"),
         names=["s.yaml:2", "models[1]", "expected a string, got 1"]),

    # A required field missing or null.
    Case("step-without-station", SOLVE, model("{station: desk, service: exp(0.5)}", "{service: exp(0.5)}"),
         names=["m.yaml:8", "classes.c.route[0].station", "missing required field"]),
    Case("model-without-classes", SOLVE, {"m.yaml": "brewput: 1\nstations: {desk: {}}\n"},
         names=["m.yaml", "classes", "missing required field"]),
    Case("step-station-null", SOLVE, model("station: desk", "station: null"),
         names=["m.yaml:8", "classes.c.route[0].station", "expected a name, got None"]),
    Case("step-null", SOLVE, model("      - {station: desk, service: exp(0.5)}", "      - null"),
         names=["m.yaml:8", "classes.c.route[0].station", "missing required field"]),
    Case("study-models-null", RUN, study("models:\n"), names=["s.yaml:2", "models", "expected a mapping, got None"]),

    # Unknown fields at each depth, listing the known ones.
    Case("unknown-top-field", SOLVE, {"m.yaml": MODEL + "colour: red\n"}, names=["m.yaml:9", "colour",
                                                                              "time_unit"]),
    Case("unknown-station-field", SOLVE, model("servers: 1", "servers: 1, speed: 2"),
         names=["m.yaml:3", "stations.desk.speed", "discipline"]),
    Case("unknown-step-field", SOLVE, model("service: exp(0.5)}", "service: exp(0.5), colour: red}"),
         names=["m.yaml:8", "classes.c.route[0].colour", "next"]),
    Case("unknown-study-option", RUN, study("models: {m: m.yaml}\nsimulate: {seeds: 2}\n"),
         names=["s.yaml:3", "simulate.seeds", "replications"]),

    # Several problems: the first in the file is told.
    Case("two-problems-first-in-the-file-told", SOLVE, {"m.yaml": CLASSES_FIRST},
         names=["m.yaml:4", "classes.c.rate"]),
    Case("two-problems-in-a-route", SOLVE, model("      - {station: desk, service: exp(0.5)}",
                                                 "      - {station: desk, service: nope}\n      - {station: 5, service: 1}"),
         names=["m.yaml:8", "classes.c.route[0].service"]),

    # Control characters echoed by an error: dropped, so the error stays one line.
    Case("carriage-return-in-a-file-name", ["solve", "no\rpe.yaml"], names=["nope.yaml"], max_lines=1),
    Case("vertical-tab-and-form-feed-in-a-file-name", ["solve", "a\x0bb\x0c.yaml"], names=["ab.yaml"], max_lines=1),
    Case("bell-and-backspace-in-a-file-name", ["solve", "x\x07\x08.yaml"], names=["x.yaml"], max_lines=1),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
