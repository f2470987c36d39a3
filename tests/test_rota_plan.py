"""planning/rota.py: the fewest servers per interval meeting every objective, checked
interval by interval with the exact transient computed here."""
import pytest

import brewput
from brewput.analytic.timevarying.transient import solve_transient
from brewput.errors import BrewputError
from brewput.model.timeline import Day, Steps
from brewput.planning.rota import plan_rota
from brewput.planning.slo import parse_objective

RATES = [0.5, 2.0, 0.5, 0.5]
RUSH = {"brewput": 1, "name": "rush", "time_unit": "min",
        "day": {"start": "08:00", "length": "60min", "interval": "15min"},
        "stations": {"bar": {"servers": [1, 1, 1, 1], "off_shift": "resume"}},
        "classes": {"customer": {"rate": RATES, "route": [{"station": "bar", "service": "exp(5)"}]}}}
TARGET, WITHIN = 0.8, 0.5


def levels(counts):
    day = Day(60, 15, time_unit="min")
    return solve_transient(Steps(day.edges, RATES), 5.0, day.rota(counts), targets=[WITHIN]).service_level[WITHIN]


def test_the_exact_rota_holds_everywhere_and_none_can_do_with_one_fewer():
    model = brewput.Model.from_dict(RUSH)
    objective = parse_objective(f"P(wait<=30s)>={TARGET:.0%}", model)
    plan = plan_rota(model, [objective], "exact")
    assert all(levels(plan.counts) >= TARGET) and all(plan.held)
    for i in range(4):
        fewer = list(plan.counts)
        fewer[i] -= 1
        if fewer[i] >= 1:
            assert not all(levels(fewer) >= TARGET), (plan.counts, i)
    assert plan.server_hours == pytest.approx(sum(plan.counts) / 4)


def test_sipp_staffs_each_interval_alone_and_falls_short_after_the_peak():
    model = brewput.Model.from_dict(RUSH)
    objective = parse_objective(f"P(wait<=30s)>={TARGET:.0%}", model)
    sipp = plan_rota(model, [objective], "sipp")
    exact = plan_rota(model, [objective], "exact")
    # SIPP: the fewest servers of M/M/c at each interval's rate alone (Erlang C by hand)
    from brewput.analytic.queues import mmc_wait_tail

    for rate, count in zip(RATES, sipp.counts):
        assert 1 - mmc_wait_tail(WITHIN, rate, 5.0, count) >= TARGET
        assert count == 1 or rate * 5.0 >= count - 1 or 1 - mmc_wait_tail(WITHIN, rate, 5.0, count - 1) < TARGET
    assert sipp.held == [held for held in levels(sipp.counts) >= TARGET]
    assert not all(sipp.held) and not sipp.held[2]  # the backlog of the peak, in the interval after it
    assert exact.counts[2] > sipp.counts[2]


def test_a_rota_needs_a_day_and_a_known_method():
    model = brewput.Model.from_dict(RUSH)
    objective = parse_objective("P(wait<=30s)>=80%", model)
    with pytest.raises(BrewputError, match="--rota: expected one of sipp, lag-sipp, psa, mol, simulate, exact"):
        plan_rota(model, [objective], "guess")


def test_the_simulation_confirms_where_sipp_falls_short():
    from brewput.planning.rota import confirm

    model = brewput.Model.from_dict(RUSH)
    objective = parse_objective(f"P(wait<=30s)>={TARGET:.0%}", model)
    verdicts, figures = confirm(model, "bar", [objective], [5, 14, 5, 5], replications=20, seed=1)
    assert verdicts[2] == "broken"  # the transient says 0.389 of those served within 30 s, far below 0.8
    assert figures[2][objective.text] == pytest.approx(0.389, abs=0.06)
    exact, _ = confirm(model, "bar", [objective], [4, 11, 9, 5], replications=20, seed=1)
    assert "broken" not in exact


def test_a_rota_that_falls_says_where_the_transient_judges_approximately():
    # Handed back when the rota falls, a customer waits again, which the transient does
    # not time: plan says so, naming the intervals before the last fall, in its JSON too.
    model = brewput.Model.from_dict(RUSH)
    objective = parse_objective(f"P(wait<=30s)>={TARGET:.0%}", model)
    exact = plan_rota(model, [objective], "exact")
    falls = [i for i in range(1, 4) if exact.counts[i] < exact.counts[i - 1]]
    assert falls, exact.counts
    before = ", ".join(f"08:{15 * i:02d}" for i in range(falls[-1]))
    assert len(exact.notes) == 1 and "handed back" in exact.notes[0] and f"({before})" in exact.notes[0]
    assert exact.as_dict()["notes"] == exact.notes
    steady = brewput.Model.from_dict(dict(RUSH, classes={"customer": {"rate": 0.5, "route": [
        {"station": "bar", "service": "exp(5)"}]}}))
    assert plan_rota(steady, [parse_objective("P(wait<=30s)>=80%", steady)], "exact").notes == []


def test_an_interval_nobody_arrives_in_breaks_no_objective():
    # Nobody's wait in an interval nobody arrives in can break a bound on waits: every
    # method holds there (exact staffs it with none), where each judged it broken and
    # exact added servers to it up to its limit of 1,000 (hours of transients).
    quiet_rates = [0.0, *RATES[1:]]
    quiet = brewput.Model.from_dict({**RUSH, "classes": {"customer": {"rate": quiet_rates, "route": [
        {"station": "bar", "service": "exp(5)"}]}}})
    objective = parse_objective(f"P(wait<=30s)>={TARGET:.0%}", quiet)
    for method in ("sipp", "simulate", "exact"):
        plan = plan_rota(quiet, [objective], method)
        assert plan.held[0] and plan.worst[0] == {objective.text: None}, (method, plan.counts)
    day = Day(60, 15, time_unit="min")
    served = solve_transient(Steps(day.edges, quiet_rates), 5.0, day.rota(plan.counts),
                             targets=[WITHIN]).service_level[WITHIN]
    assert plan.counts[0] == 0 and all(plan.held) and all(served[1:] >= TARGET), (plan.counts, served)
    # a class nobody arrived at has no figure; one that arrived and has none still breaks
    assert objective.worst({"classes": {"customer": {"arrivals": 0.0, "waiting_time": {"within": [[0.5, None]]}}}}) \
        == (None, None, True)
    assert objective.worst({"classes": {"customer": {"arrivals": 3.0, "waiting_time": {"within": [[0.5, None]]}}}}) \
        == ("customer", None, False)
