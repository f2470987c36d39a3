"""The corpus (tests/corpus.py) for the service floor's combinations the engine
does not simulate: each refused when the model is read, in one line naming the
file and line, the field and the combination, with exit code 2 (never a run that
silently ignores a field; the engine refuses them too, for compiled models made
by hand).

Classes: preemption at typed servers (with a list or a mapping of served_by,
resume or restart); preemption in a model with resource tokens (at the
preempting station or elsewhere); balking or patience inside a fork's branch
(directly, after another step, inside a dispatch nested in the fork)."""
import pytest

from corpus import Case, check, ids

SIMULATE = ["simulate", "m.yaml", "--customers", "1000", "--replications", "2"]


def model(stations, route, resources=""):
    return {"m.yaml": f"brewput: 1\nname: m\n{resources}stations:\n{stations}classes:\n"
                      f"  c:\n    rate: 0.5\n    route:\n{route}"}


TYPED = "  bar: {servers: {x: 1, y: 1}, discipline: priority, preempt: %s}\n"
PRIORITY = "  bar: {servers: 2, discipline: priority, preempt: resume}\n  desk: {servers: 1}\n"
BRANCHES = "  s1: {servers: 1}\n  s2: {servers: 1}\n  s3: {servers: 1}\n"


def fork(branch_a):
    return ("      - fork:\n"
            f"          a: {branch_a}\n"
            "          b: [{station: s2, service: exp(1)}]\n")


CASES = [
    Case("floor-preempt-typed-resume", SIMULATE,
         model(TYPED % "resume", "      - {station: bar, service: exp(1)}\n"),
         names=["m.yaml:", "stations.bar.preempt", "at typed servers is not modelled"]),
    Case("floor-preempt-typed-restart-served-by", SIMULATE,
         model(TYPED % "restart", "      - {station: bar, service: exp(1), served_by: [x]}\n"),
         names=["m.yaml:", "stations.bar.preempt", "at typed servers is not modelled"]),
    Case("floor-preempt-typed-own-services", SIMULATE,
         model(TYPED % "resume", "      - {station: bar, served_by: {x: exp(1), y: exp(2)}}\n"),
         names=["m.yaml:", "stations.bar.preempt", "at typed servers is not modelled"]),
    Case("floor-preempt-tokens-elsewhere", SIMULATE,
         model(PRIORITY, "      - {station: bar, service: exp(1)}\n      - {station: desk, service: exp(1), uses: [cpu]}\n",
               resources="resources: {cpu: 1}\n"),
         names=["m.yaml:", "stations.bar.preempt", "in a model with resources is not modelled"]),
    Case("floor-balk-in-fork", SIMULATE,
         model(BRANCHES, fork("[{station: s1, service: exp(1), balk: 2}]")),
         names=["m.yaml:", "classes.c.route[0].fork.a[0].balk", "inside a fork's branch"]),
    Case("floor-patience-in-fork-after-a-step", SIMULATE,
         model(BRANCHES, fork("[{station: s3, service: exp(1)}, {station: s1, service: exp(1), patience: exp(2)}]")),
         names=["m.yaml:", "fork.a[1].patience", "inside a fork's branch"]),
    Case("floor-balk-in-dispatch-in-fork", SIMULATE,
         model(BRANCHES, fork("[{dispatch: {p: [{station: s1, service: exp(1), balk: [0, 0.5]}], "
                              "q: [{station: s3, service: exp(1)}]}}]")),
         names=["m.yaml:", "balk", "inside a fork's branch"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_refused_in_one_line(case, tmp_path):
    check(case, tmp_path)
