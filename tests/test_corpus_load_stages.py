"""The corpus (tests/corpus.py) for `brewput load` with stages: more stages
than a run reports (each keeps its own histogram), and `--predict` models that
cannot stand for the service under `--step` or `--ramp`, each refused in one
line naming the option, exit 2, before anything is sent."""
import pytest

from corpus import CLOSED, MODEL, Case, check, ids

URL = "http://127.0.0.1:1/"  # nothing listens on port 1 of loopback
TWO_CLASSES = MODEL + "  d:\n    rate: 1\n    route: [{station: desk, service: exp(0.5)}]\n"
STEP = ["--step", "10x1s,20x1s"]
RAMP = ["--ramp", "0..20", "--duration", "1s"]

CASES = [
    # More stages than a run reports.
    Case("step-101-stages", ["load", URL, "--step", ",".join(["1x1s"] * 101)], names=["--step", "100"]),
    Case("step-101-short-stages", ["load", URL, "--step", ",".join(["50x10ms"] * 101)], names=["--step", "100"]),
    Case("step-1000-stages", ["load", URL, "--step", ",".join(["5x1s", "6x1s"] * 500)], names=["--step", "100"]),
    # --predict under stages: the model is checked before the run, at the stages' rates.
    Case("predict-step-missing-model", ["load", URL, *STEP, "--predict", "nope.yaml"], names=["nope.yaml"]),
    Case("predict-ramp-missing-model", ["load", URL, *RAMP, "--predict", "nope.yaml"], names=["nope.yaml"]),
    Case("predict-step-closed-model", ["load", URL, *STEP, "--predict", "m.yaml"], files={"m.yaml": CLOSED},
         names=["--predict", "open class"]),
    Case("predict-step-two-classes", ["load", URL, *STEP, "--predict", "m.yaml"], files={"m.yaml": TWO_CLASSES},
         names=["--predict", "2 classes"]),
    Case("predict-ramp-two-classes", ["load", URL, *RAMP, "--arrivals", "constant", "--predict", "m.yaml"],
         files={"m.yaml": TWO_CLASSES}, names=["--predict", "2 classes"]),
    Case("predict-step-bad-model", ["load", URL, *STEP, "--predict", "m.yaml"],
         files={"m.yaml": MODEL.replace("servers: 1", "servers: -1")}, names=["m.yaml", "servers"]),
    Case("predict-ramp-unknown-param", ["load", URL, *RAMP, "--predict", "m.yaml", "--set", "zz=2"],
         files={"m.yaml": MODEL}, names=["zz"]),
    Case("step-set-without-predict", ["load", URL, *STEP, "--set", "c=2"], names=["--set"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_staged_load_input_is_one_line(case, tmp_path):
    check(case, tmp_path)
