"""The corpus (tests/corpus.py): bad input to `brewput doe`.

Classes: factors not written NAME=LOW,HIGH, with one level, the same level
twice, a name the model does not have, a level that makes an invalid model, the
same factor twice, fewer than two; generators that do not parse, name unknown
factors, generate a factor twice or from itself or from a generated one, or
leave too few base factors; designs with too many runs; responses that are
unknown or ambiguous; replications and customers out of range; outputs that
cannot be written. One line each, exit code 2, before any run."""
import pytest

from corpus import Case, check, ids

MODEL = """\
brewput: 1
time_unit: s
params: {a: 1, b: 1, c: 1, rate: 0.5}
stations:
  s: {servers: '${a}'}
  t: {servers: '${b}'}
classes:
  x:
    rate: ${rate}
    route: [{station: s, service: exp(1)}]
  y:
    rate: ${rate}
    route: [{station: t, service: exp(1)}]
"""
FILES = {"m.yaml": MODEL}
TWO = ["--factor", "a=1,2", "--factor", "b=1,2"]


def doe(*args, id, names, response=("--response", "x.mean")):
    return Case(id, ["doe", "m.yaml", *args, *response, "--replications", "2", "--customers", "200"], FILES,
                names=names)


LAB_TWO = ["--factor", "grind=1,2", "--factor", "press=1,2"]


def lab(*args, id, names, impl=("--impl", "ideal"), factors=tuple(LAB_TWO)):
    return Case(id, ["doe", "--lab", "coffee", *impl, *factors, "--replications", "2", "--dur", "50ms", *args],
                FILES, names=names)


CASES = [
    doe("--factor", "a", "--factor", "b=1,2", id="factor-no-levels", names=["--factor a"]),
    doe("--factor", "a=1", "--factor", "b=1,2", id="factor-one-level", names=["--factor a=1"]),
    doe("--factor", "a=1,2,3", "--factor", "b=1,2", id="factor-three-levels", names=["--factor a=1,2,3"]),
    doe("--factor", "a=x,y", "--factor", "b=1,2", id="factor-text-levels", names=["--factor a=x,y"]),
    doe("--factor", "a=2,2", "--factor", "b=1,2", id="factor-same-levels", names=["--factor a=2,2", "same"]),
    doe("--factor", "z=1,2", "--factor", "b=1,2", id="factor-unknown", names=["--factor z=1,2", "'z'"]),
    doe("--factor", "a=0,2", "--factor", "b=1,2", id="factor-invalid-level", names=["--factor a=0", "servers"]),
    doe("--factor", "stations.q.servers=1,2", "--factor", "b=1,2", id="factor-unknown-path", names=["stations.q"]),
    doe("--factor", "a=1,2", "--factor", "a=1,3", id="factor-twice", names=["--factor a=1,3", "twice"]),
    doe("--factor", "a=1,2", id="factor-only-one", names=["--factor", "two or more"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C", id="fraction-no-equals", names=["--fraction C"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "Z=AB", id="fraction-unknown-target", names=["--fraction Z=AB"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C=AZ", id="fraction-unknown-factor", names=["--fraction C=AZ"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C=AC", id="fraction-itself", names=["--fraction C=AC"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C=A", id="fraction-one-factor", names=["--fraction C=A"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C=AB", "--fraction", "C=-AB", id="fraction-twice",
        names=["--fraction C=-AB", "twice"]),
    doe(*TWO, "--factor", "c=1,2", "--fraction", "C=AB", "--fraction", "B=AC", id="fraction-from-generated",
        names=["--fraction"]),
    doe(*TWO, "--fraction", "B=AA", id="fraction-too-few-base", names=["--fraction"]),
    Case("too-many-factors", ["doe", "m.yaml", *[a for i in range(13) for a in ("--factor", f"p{i}=1,2")],
                              "--response", "x.mean"], {"m.yaml": MODEL.replace(
                                  "params: {a: 1, b: 1, c: 1, rate: 0.5}",
                                  "params: {a: 1, b: 1, c: 1, rate: 0.5, "
                                  + ", ".join(f"p{i}: 1" for i in range(13)) + "}")}, names=["--factor"]),
    doe(*TWO, id="response-ambiguous", names=["--response", "x.mean, y.mean"], response=("--response", "mean")),
    doe(*TWO, id="response-unknown", names=["--response", "latency"], response=("--response", "latency")),
    doe(*TWO, id="response-unknown-class", names=["--response", "'z'"], response=("--response", "z.mean")),
    doe(*TWO, id="response-bad-form", names=["--response"], response=("--response", "mean<1s")),
    Case("replications-one", ["doe", "m.yaml", *TWO, "--response", "x.mean", "--replications", "1"], FILES,
         names=["--replications"]),
    Case("customers-few", ["doe", "m.yaml", *TWO, "--response", "x.mean", "--customers", "10"], FILES,
         names=["--customers"]),
    doe(*TWO, "-o", "d.csv", id="output-not-json", names=["d.csv"]),
    doe(*TWO, "--chart", "d.svg", id="chart-not-png", names=["--chart"]),
    Case("model-missing", ["doe", "none.yaml", *TWO], FILES, names=["none.yaml"]),
    # The lab as the engine: a kitchen, its implementation and the factors it has.
    Case("lab-and-model", ["doe", "m.yaml", "--lab", "coffee", "--impl", "ideal", *LAB_TWO], FILES,
         names=["MODEL", "--lab"]),
    Case("neither-lab-nor-model", ["doe", *LAB_TWO], FILES, names=["MODEL", "--lab"]),
    Case("impl-without-lab", ["doe", "m.yaml", *TWO, "--impl", "ideal"], FILES, names=["--impl"]),
    Case("cpus-without-lab", ["doe", "m.yaml", *TWO, "--cpus", "1"], FILES, names=["--cpus"]),
    lab("--lab", "tea", id="lab-unknown-kitchen", names=["--lab tea"]),
    lab(id="lab-no-impl", names=["--impl"], impl=()),
    lab(id="lab-unknown-impl", names=["--impl", "latte-art"], impl=("--impl", "latte-art")),
    lab("--factor", "cpus=1,2", "--factor", "milk=1,2", id="lab-unknown-factor", names=["--factor milk=1,2"],
        factors=()),
    lab("--factor", "grind=-1,2", "--factor", "press=1,2", id="lab-negative-time", names=["--factor grind=-1"],
        factors=()),
    lab("--factor", "grind=1,99999", "--factor", "press=1,2", id="lab-huge-time", names=["--factor grind=99999"],
        factors=()),
    lab("--factor", "cpus=1,9999", "--factor", "press=1,2", id="lab-too-many-cpus", names=["--factor cpus=1,9999"],
        factors=()),
    lab("--factor", "jitter=0,5", "--factor", "press=1,2", id="lab-jitter-over-stages", names=["--factor jitter=5"],
        factors=()),
    lab("--factor", "par=0,2", "--factor", "press=1,2", id="lab-par-zero", names=["--factor par=0"], factors=()),
    lab("--set", "a=1", id="lab-with-set", names=["--set"]),
    lab("--response", "utilization", id="lab-station-figure", names=["--response utilization"]),
    lab("--cpus", "0", id="lab-cpus-zero", names=["--cpus 0"]),
    lab("--dur", "fast", id="lab-bad-duration", names=["--dur"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_doe_input(case, tmp_path):
    check(case, tmp_path)
