"""`plan --slo` in both forms of a service level: `P(wait<=20s)>=80%` and
`wait_p80<=20s` (and on the response), against Erlang C computed here by the
Erlang B recursion: the fewest agents each form asks for, which must agree,
since P(W <= t) >= q exactly when the q-quantile of W is at most t."""
import math
from pathlib import Path

import pytest
from scipy import integrate

import brewput
from brewput.errors import OptionError
from brewput.planning.plan import plan
from brewput.planning.slo import asked_by, parse_objective

ROOT = Path(__file__).resolve().parent.parent
CALL_CENTRE = ROOT / "examples" / "planning" / "call-centre.yaml"
CALLS, AHT = 200 / 60, 3.0  # a minute, minutes: the model's params


def wait_within(agents: int, t: float) -> float:
    """M/M/c: P(W <= t) = 1 - C e^{-(c mu - lam) t}, C by the Erlang B recursion (None: unstable)."""
    load = CALLS * AHT
    if load >= agents:
        return None
    b = 1.0
    for k in range(1, agents + 1):
        b = load * b / (k + load * b)
    waits = agents * b / (agents - load * (1 - b))
    return 1 - waits * math.exp(-(agents / AHT - CALLS) * t)


def fewest(check) -> int:
    return next(n for n in range(1, 40) if wait_within(n, 1 / 3) is not None and check(n))


@pytest.mark.parametrize("slo", ["P(wait<=20s)>=80%", "wait_p80<=20s", "call.P(wait<=20s)>=0.8"])
def test_both_forms_choose_the_fewest_agents_erlang_c_allows(slo):
    model = brewput.load(CALL_CENTRE)
    record = plan(model, [parse_objective(slo, model)], {"agents": list(range(1, 31))}, confirm=False)
    chosen = record["options"][record["chosen"]]
    assert chosen["values"]["agents"] == fewest(lambda n: wait_within(n, 1 / 3) >= 0.8)
    for option in record["options"]:
        n = option["values"]["agents"]
        if wait_within(n, 1 / 3) is not None and abs(wait_within(n, 1 / 3) - 0.8) > 1e-9:
            assert option["meets"] == (wait_within(n, 1 / 3) >= 0.8), n
            assert option["engine"] == "solve" and option["exact"]


def test_a_service_level_on_the_response():
    model = brewput.load(CALL_CENTRE)
    objective = parse_objective("P(response<=5min)>=80%", model)
    assert (objective.kind, objective.at, objective.value) == ("share", 5.0, 0.8)
    record = plan(model, [objective], {"agents": list(range(11, 20))}, confirm=False)
    figures = {o["values"]["agents"]: o["figures"][0]["figure"] for o in record["options"]}
    # the response of M/M/c: the wait plus an independent exponential service, convolved by quadrature
    for n, figure in figures.items():
        load = CALLS * AHT
        b = 1.0
        for k in range(1, n + 1):
            b = load * b / (k + load * b)
        c_wait, theta, mu, t = n * b / (n - load * (1 - b)), n / AHT - CALLS, 1 / AHT, 5.0
        waited = integrate.quad(lambda x: c_wait * theta * math.exp(-theta * x) * -math.expm1(-mu * (t - x)), 0, t)[0]
        assert figure == pytest.approx(-(1 - c_wait) * math.expm1(-mu * t) + waited, rel=1e-9), n


def test_what_the_engines_are_asked_for():
    model = brewput.load(CALL_CENTRE)
    objectives = [parse_objective(text, model) for text in
                  ("P(wait<=20s)>=80%", "wait_p80<=20s", "p975<10min", "wait_p90<=1min", "P(wait<=20s)>=0.9")]
    assert asked_by(objectives) == {"quantiles": [80.0, 97.5], "within": [1 / 3]}
    assert asked_by([parse_objective("wait_p90<=1min", model)]) == {}


def test_a_simulated_confirmation_judges_the_service_level_by_its_interval():
    model = brewput.load(CALL_CENTRE)
    record = plan(model, [parse_objective("P(wait<=20s)>=80%", model)], {"agents": [13, 14, 15]}, seed=3)
    confirmed = record["confirmed"][0]["figures"][0]
    truth = wait_within(confirmed["part"] and record["confirmed"][0]["values"]["agents"], 1 / 3)
    low, high = confirmed["interval"]
    assert low <= truth <= high and confirmed["verdict"] in ("held", "undecided")


@pytest.mark.parametrize("text, says", [
    ("P(wait<=20)>=80%", "time above 0 with its unit"),
    ("P(wait<=20s)>=180%", "share from 0 to 1"),
    ("P(queue<=20s)>=80%", "expected [CLASS.|STATION.]METRIC"),
    ("wait_p100<=20s", "unknown metric 'wait_p100'"),
    ("nobody.P(wait<=20s)>=80%", "no class 'nobody'"),
])
def test_bad_service_levels_are_one_line(text, says):
    with pytest.raises(OptionError, match=None) as e:
        parse_objective(text, brewput.load(CALL_CENTRE))
    assert says in str(e.value)
