"""The corpus (tests/corpus.py): bad input to `brewput plan`.

Classes: objectives that do not parse, name an unknown metric, class or
station, or a value without its unit or out of range; a plan with nothing to
meet or nothing to vary; varied names the model does not have (a param or a
path), values that make an invalid model, too many combinations; demand
(--scenario) named badly, twice, alone or priced; costs of a
name not varied, negative, not numbers or too many; discount rates, shrinkage
and years out of range; outputs that cannot be written; no option in range
that meets every objective. Each is one line and exit code 2, before
anything is solved (but the last, which is the answer)."""
import pytest

from corpus import Case, check, ids

MODEL = """\
brewput: 1
time_unit: s
params: {c: 1, rate: 2.7}
stations:
  desk: {servers: '${c}'}
classes:
  customer:
    rate: ${rate}
    route:
      - {station: desk, service: exp(1)}
"""
FILES = {"m.yaml": MODEL}


def plan(*args):
    return ["plan", "m.yaml", *args, "--no-confirm"]


def slo(text, *names):
    return Case(f"slo-{text}", plan("--vary", "c=1..8", "--slo", text), FILES, names=["--slo", *names])


def vary(text, *names, id=None):
    return Case(id or f"vary-{text}", plan("--vary", text, "--slo", "mean<10s"), FILES, names=["--vary", *names])


def cost(text, *names):
    return Case(f"cost-{text}", plan("--vary", "c=1..8", "--slo", "mean<10s", "--cost", text), FILES,
                names=["--cost", *names])


CASES = [
    # Objectives.
    slo("p100<1s", "p100"), slo("latency<1s", "latency"), slo("p99=1s"), slo("p99<"), slo("<1s"),
    slo("p99<5", "unit"), slo("p99<-1s"), slo("p99<fast"), slo("p99<1parsec"), slo("utilization<120%"),
    slo("utilization<-1"), slo("loss<abc"), slo("throughput>=-3"), slo("nobody.p99<1s", "nobody", "customer"),
    slo("kitchen.utilization<80%", "kitchen", "desk"), slo("desk.p99<1s", "desk"),
    Case("slo-none", plan("--vary", "c=1..8"), FILES, names=["--slo"]),
    # What varies.
    Case("vary-none", plan("--slo", "mean<10s"), FILES, names=["--vary"]),
    vary("servers=1..8", "servers", "c, rate"), vary("c", id="vary-no-values"), vary("c=", id="vary-empty"),
    vary("c=a..b", id="vary-not-numbers"), vary("c=8..1", id="vary-backwards"),
    vary("c=0..3", "c=0", id="vary-invalid-value"), vary("c=1.5", "c=1.5", id="vary-fraction"),
    vary("stations.kitchen.servers=1..3", "stations.kitchen", id="vary-path-unknown-station"),
    vary("stations.desk.serverz=1..3", "serverz", id="vary-path-unknown-field"),
    vary("stations..servers=1..3", id="vary-path-empty-part"),
    vary("classes.customer.route.4.service=1", "route.4", id="vary-path-bad-index"),
    Case("vary-twice", plan("--vary", "c=1..2", "--vary", "c=3..4", "--slo", "mean<10s"), FILES,
         names=["--vary", "twice"]),
    Case("vary-too-many", plan("--vary", "c=1:100000:1", "--vary", "rate=0.1:10:0.1", "--slo", "mean<10s"), FILES,
         names=["--vary"]),
    # Costs, money and time.
    cost("rate=5", "rate", "not varied"), cost("c=-5", "c=-5"), cost("c=five", "c=five"), cost("c=1,2,3"),
    cost("c", "c"), cost("=5"), cost("c=nan"), cost("c=inf"),
    Case("cost-twice", plan("--vary", "c=1..8", "--slo", "mean<10s", "--cost", "c=1", "--cost", "c=2"), FILES,
         names=["--cost", "twice"]),
    Case("discount-negative", plan("--vary", "c=1..8", "--slo", "mean<10s", "--discount", "-5%"), FILES,
         names=["--discount"]),
    Case("discount-huge", plan("--vary", "c=1..8", "--slo", "mean<10s", "--discount", "250%"), FILES,
         names=["--discount"]),
    Case("discount-text", plan("--vary", "c=1..8", "--slo", "mean<10s", "--discount", "ten"), FILES,
         names=["--discount"]),
    Case("shrinkage-all", plan("--vary", "c=1..8", "--slo", "mean<10s", "--shrinkage", "100%"), FILES,
         names=["--shrinkage"]),
    Case("shrinkage-negative", plan("--vary", "c=1..8", "--slo", "mean<10s", "--shrinkage", "-0.1"), FILES,
         names=["--shrinkage"]),
    Case("years-zero", plan("--vary", "c=1..8", "--slo", "mean<10s", "--years", "0"), FILES, names=["--years"]),
    Case("years-huge", plan("--vary", "c=1..8", "--slo", "mean<10s", "--years", "1000"), FILES, names=["--years"]),
    # Outputs, checked before anything is solved.
    Case("output-not-json", plan("--vary", "c=1..8", "--slo", "mean<10s", "-o", "plan.csv"), FILES,
         names=["plan.csv"]),
    Case("output-is-a-folder", plan("--vary", "c=1..8", "--slo", "mean<10s", "-o", "out.json"),
         {**FILES, "out.json/keep": ""}, names=["out.json", "folder"]),
    Case("output-under-a-file", plan("--vary", "c=1..8", "--slo", "mean<10s", "-o", "m.yaml/plan.json"), FILES,
         names=["m.yaml"]),
    # The model.
    Case("model-missing", ["plan", "none.yaml", "--vary", "c=1..8", "--slo", "mean<10s"], FILES,
         names=["none.yaml"]),
    # Demand (scenarios) beside decisions.
    Case("scenario-no-values", plan("--vary", "c=1..8", "--scenario", "rate", "--slo", "mean<10s"), FILES,
         names=["--scenario rate", "name=values"]),
    Case("scenario-unknown", plan("--vary", "c=1..8", "--scenario", "users=1,2", "--slo", "mean<10s"), FILES,
         names=["--scenario users", "c, rate"]),
    Case("scenario-invalid-value", plan("--vary", "c=1..8", "--scenario", "rate=0", "--slo", "mean<10s"), FILES,
         names=["--scenario rate=0"]),
    Case("scenario-also-varied", plan("--vary", "c=1..8", "--scenario", "c=1,2", "--slo", "mean<10s"), FILES,
         names=["--scenario c", "twice", "--vary"]),
    Case("decide-also-scenario", plan("--decide", "c=1..8", "--scenario", "c=1,2", "--slo", "mean<10s"), FILES,
         names=["--scenario c", "twice", "--decide"]),
    Case("only-demand", plan("--vary", "rate=1,2", "--slo", "mean<10s"), FILES,
         names=["--vary", "rate is demand", "nothing to decide"]),
    Case("cost-on-demand", plan("--vary", "c=1..8", "--vary", "rate=1,2", "--slo", "mean<10s", "--cost", "rate=5"),
         FILES, names=["--cost rate", "demand"]),
    Case("scenario-nothing-meets", plan("--vary", "c=1..8", "--scenario", "rate=1,50", "--slo", "mean<10s"), FILES,
         names=["no option meets every objective", "rate=50"], max_lines=20),
    # Nothing in range meets the objectives: the answer, said in one line.
    Case("nothing-meets", plan("--vary", "c=1..3", "--slo", "wait_mean<1s"), FILES,
         names=["no option meets every objective", "wait_mean<1s"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_plan_input(case, tmp_path):
    check(case, tmp_path)
