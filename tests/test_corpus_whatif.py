"""The corpus (tests/corpus.py): bad input to `brewput whatif`.

Classes: no case; merges of stations the model does not have, of a station
with itself, of stations that differ but for their servers, of typed servers,
or not written A,B; servers added where there is no station, or a count that is
not a positive whole number; fields by a path the model does not have, params
it does not have, values that make an invalid model; edits of no known form;
cases named twice; outputs that are not .json. One line each, exit code 2,
before anything is answered."""
import pytest

from corpus import Case, check, ids

MODEL = """\
brewput: 1
time_unit: s
params: {c: 2}
stations:
  a: {servers: '${c}'}
  b: {servers: 3}
  p: {servers: 1, discipline: ps}
  typed: {servers: {x: 1, y: 1}}
classes:
  job:
    rate: 0.5
    route:
      - {station: a, service: exp(1)}
      - {station: b, service: exp(1)}
      - {station: p, service: exp(1)}
      - {station: typed, service: exp(1), served_by: [x, y]}
"""
FILES = {"m.yaml": MODEL}


def whatif(*args, id, names):
    return Case(id, ["whatif", "m.yaml", *args], FILES, names=names)


CASES = [
    whatif(id="no-case", names=["at least one case"]),
    whatif("--merge", "a,z", id="merge-unknown", names=["merge a,z", "'z'"]),
    whatif("--merge", "a,a", id="merge-itself", names=["merge a,a", "itself"]),
    whatif("--merge", "a,p", id="merge-differ", names=["merge a,p", "discipline"]),
    whatif("--merge", "typed,a", id="merge-typed", names=["merge typed,a"]),
    whatif("--merge", "a", id="merge-one", names=["merge a"]),
    whatif("--merge", "a;b", id="merge-semicolon", names=["merge a;b"]),
    whatif("--add-server", "z", id="add-unknown", names=["add-server z", "'z'"]),
    whatif("--add-server", "a+0", id="add-zero", names=["add-server a+0"]),
    whatif("--add-server", "a+-1", id="add-negative", names=["add-server a+-1"]),
    whatif("--add-server", "a+x", id="add-text", names=["add-server a+x"]),
    whatif("--add-server", "typed", id="add-typed", names=["add-server typed", "typed"]),
    whatif("--case", "stations.z.servers=2", id="path-unknown", names=["stations.z"]),
    whatif("--case", "stations.a.serverz=2", id="path-unknown-field", names=["serverz"]),
    whatif("--case", "stations.a.servers=0", id="path-bad-value", names=["stations.a.servers", "0"]),
    whatif("--case", "classes.job.route.9.service=exp(1)", id="path-bad-index", names=["route.9"]),
    whatif("--case", "classes.job.route.0.service=exp(-1)", id="path-bad-service", names=["service"]),
    whatif("--case", "zz=3", id="param-unknown", names=["zz=3", "'zz'"]),
    whatif("--case", "c=-1", id="param-bad-value", names=["c=-1"]),
    whatif("--case", "double a", id="edit-unknown", names=["double a", "merge A,B"]),
    whatif("--case", "x: ", id="edit-empty", names=["x:"]),
    whatif("--case", "two: merge a,b; nonsense", id="edit-unknown-in-case", names=["nonsense"]),
    whatif("--case", "same: c=3", "--case", "same: c=4", id="case-twice", names=["same", "twice"]),
    whatif("--merge", "a,b", "-o", "w.csv", id="output-not-json", names=["w.csv"]),
    Case("model-missing", ["whatif", "none.yaml", "--merge", "a,b"], FILES, names=["none.yaml"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_whatif_input(case, tmp_path):
    check(case, tmp_path)
