"""Open networks (brewput.analytic.open) from model files and dicts, against
published numbers (PDQ's helpdesk study) and answers worked by hand."""
import pytest

import brewput
from brewput.errors import BrewputError
from brewput.analytic.network import Unsupported, network_of
from brewput.analytic.open import solve_open
from conftest import EXAMPLES


def solve(model):
    if isinstance(model, dict):
        model = brewput.Model.from_dict({"brewput": 1, "name": "test", **model})
    return solve_open(network_of(model))


def one_station(station, **classes):
    """A model of one station `s`; each class is {service, and rate or arrivals, priority}."""
    return {"stations": {"s": station}, "classes": {
        name: {**{k: v for k, v in spec.items() if k != "service"},
               "route": [{"station": "s", "service": spec["service"]}]}
        for name, spec in classes.items()}}


# ---- PDQ's helpdesk study (seed 004) --------------------------------------------------

@pytest.mark.parametrize("name, response, utilization", [
    ("site-a", 35.382060, 0.60), ("site-b", 67.006285, 0.90), ("merged", 34.990833, 0.78)])
def test_helpdesk_study_matches_pdq(name, response, utilization):
    sol = solve(brewput.load(EXAMPLES / "helpdesk" / f"{name}.yaml"))
    assert sol.response_time[0] == pytest.approx(response, rel=1e-6)
    assert sol.utilization[0, 0] == pytest.approx(utilization, rel=1e-6)
    assert sol.method == "erlang-c" and sol.station_method == ["erlang-c"]
    assert sol.exact_class.tolist() == [True] and sol.exact_station.tolist() == [True]
    assert sol.notes == [] and sol.loss_probability is None
    laws = sol.laws[0]
    assert laws.exact and laws.method == "erlang-c"
    assert 0 < laws.response.quantile(0.5) < laws.response.quantile(0.999)
    assert 0 <= laws.waiting.quantile(0.5) < laws.waiting.quantile(0.999)


# ---- product-form networks, worked by hand ---------------------------------------------

def test_jackson_tandem_by_hand():
    # order M/M/1 (rho 0.5): 0.5 / 0.5 = 1.0; brew M/M/2 (a = 1.6, rho 0.8):
    # C = 2 rho^2 / (1 + rho) = 0.711111, Wq = C s / (c - a) = 2.844444, W = 4.444444;
    # pickup M/M/1 (rho 0.6): 0.6 / 0.4 = 1.5. Total 6.944444 at rate 1.
    sol = solve(brewput.load(EXAMPLES / "tandem.yaml"))
    assert sol.residence_time[0] == pytest.approx([1.0, 4.0 + 4 / 9, 1.5], rel=1e-12)
    assert sol.response_time[0] == pytest.approx(6.0 + 17 / 18, rel=1e-12)
    assert sol.queue_length[0] == pytest.approx(sol.residence_time[0], rel=1e-12)  # L = 1 x R
    assert sol.utilization[0] == pytest.approx([0.5, 0.8, 0.6], rel=1e-12)
    assert sol.method == "jackson" and sol.exact_class.all() and sol.exact_station.all()
    assert sol.station_method == ["erlang-c"] * 3 and sol.laws == {}


def test_feedback_network_with_a_delay_by_hand():
    # A terminal delay of constant 3, then the CPU (exp 1) and, w.p. 0.75, the disk
    # (exp 2) and back: 4 CPU visits and 3 disk visits a job. At 0.1 jobs per time
    # unit the CPU is 40 % busy (1 / 0.6 = 5/3 a visit), the disk 60 % (2 / 0.4 = 5
    # a visit): R = 3 + 4 x 5/3 + 3 x 5 = 24.666667.
    sol = solve({
        "stations": {"terminal": {"servers": "inf"}, "cpu": {}, "disk": {}},
        "classes": {"job": {"rate": 0.1, "route": [
            {"station": "terminal", "service": 3},
            {"id": "cpu", "station": "cpu", "service": "exp(1)", "next": {"disk": 0.75, "exit": 0.25}},
            {"id": "disk", "station": "disk", "service": "exp(2)", "next": "cpu"}]}}})
    assert sol.residence_time[0] == pytest.approx([3, 20 / 3, 15], rel=1e-12)
    assert sol.response_time[0] == pytest.approx(24 + 2 / 3, rel=1e-12)
    assert sol.queue_length[0] == pytest.approx([0.3, 2 / 3, 1.5], rel=1e-12)
    assert sol.utilization[0] == pytest.approx([0.3, 0.4, 0.6], rel=1e-12)
    assert sol.station_method == ["infinite-server", "erlang-c", "erlang-c"]
    assert sol.method == "jackson" and sol.exact_class.all() and sol.notes == []


def test_two_classes_one_exponential_service_fifo_is_exact():
    # M/M/2 fed 0.6 + 0.8 with mean 1 for both: rho 0.7, C = 0.98 / 1.7,
    # Wq = C / (2 - 1.4) = 0.960784, W = 1.960784 for both classes.
    sol = solve(one_station({"servers": 2}, a={"rate": 0.6, "service": "exp(1)"},
                            b={"rate": 0.8, "service": "exp(1)"}))
    assert sol.response_time == pytest.approx([1 + 0.98 / 1.7 / 0.6] * 2, rel=1e-12)
    assert sol.utilization[:, 0] == pytest.approx([0.3, 0.4], rel=1e-12)
    assert sol.exact_class.all() and set(sol.laws) == {0, 1}


def test_processor_sharing_classes_keep_their_own_means():
    # M/G/1-PS, rho = 0.2 + 0.2: class a (constant 1) takes 1 / 0.6, class b
    # (lognormal of mean 2) 2 / 0.6, whatever the distributions; then a delay.
    sol = solve({
        "stations": {"cpu": {"discipline": "ps"}, "wire": {"servers": "inf"}},
        "classes": {
            "a": {"rate": 0.2, "route": [{"station": "cpu", "service": 1}, {"station": "wire", "service": 0.5}]},
            "b": {"rate": 0.1, "route": [{"station": "cpu", "service": "lognormal(2, 3)"},
                                         {"station": "wire", "service": 0.5}]}}})
    assert sol.residence_time[:, 0] == pytest.approx([1 / 0.6, 2 / 0.6], rel=1e-12)
    assert sol.response_time == pytest.approx([1 / 0.6 + 0.5, 2 / 0.6 + 0.5], rel=1e-12)
    assert sol.station_method == ["processor-sharing", "infinite-server"]
    assert sol.method == "jackson" and sol.exact_class.all()


def test_lifo_has_fifo_means_and_no_percentiles():
    fifo = solve(one_station({"servers": 3}, c={"rate": 2.7, "service": "exp(1)"}))
    lifo = solve(one_station({"servers": 3, "discipline": "lifo"}, c={"rate": 2.7, "service": "exp(1)"}))
    assert lifo.response_time == pytest.approx(fifo.response_time, rel=1e-12)
    assert lifo.exact_class.all() and lifo.laws == {} and fifo.laws


# ---- single stations with exact non-product-form formulas ------------------------------

def test_mg1_with_two_classes_is_pollaczek_khinchine():
    # lam 0.2 exp(1) + 0.1 exp(2): rho 0.4, E[S^2] = (0.2 x 2 + 0.1 x 8) / 0.3 = 4,
    # Wq = lam E[S^2] / (2 (1 - rho)) = 0.3 x 4 / 1.2 = 1: responses 2 and 3.
    sol = solve(one_station({}, a={"rate": 0.2, "service": "exp(1)"}, b={"rate": 0.1, "service": "exp(2)"}))
    assert sol.response_time == pytest.approx([2.0, 3.0], rel=1e-12)
    assert sol.station_method == ["pollaczek-khinchine"] and sol.exact_class.all()
    assert {(l.exact, l.method) for l in sol.laws.values()} == {(False, "exponential-wait")}


def test_md1_is_pollaczek_khinchine():
    # rho 0.5, constant 1: Wq = rho s / (2 (1 - rho)) = 0.5
    sol = solve(one_station({}, c={"rate": 0.5, "service": 1}))
    assert sol.response_time == pytest.approx([1.5], rel=1e-12) and sol.exact_class.all()


def test_priority_mg1_is_cobham():
    # The two-class example of test_solve_queues, worked by hand there:
    # Wq = 0.671875 (urgent) and 0.5375 / 0.28 (batch).
    sol = solve(one_station({"discipline": "priority"},
                            urgent={"rate": 0.2, "service": "exp(1)", "priority": 1},
                            batch={"rate": 0.3, "service": 1.5}))
    assert sol.response_time == pytest.approx([1.671875, 1.5 + 0.5375 / 0.28], rel=1e-12)
    assert sol.station_method == ["cobham"] and sol.exact_class.all() and sol.laws == {}


def test_priority_mmc_one_rate_is_exact_and_unequal_rates_are_not():
    # M/M/2, mean 1, high 0.6 and low 0.8: checked against a Markov chain in test_solve_queues.
    sol = solve(one_station({"servers": 2, "discipline": "priority"},
                            high={"rate": 0.6, "service": "exp(1)", "priority": 1},
                            low={"rate": 0.8, "service": "exp(1)"}))
    assert sol.response_time == pytest.approx([1.4117647058823529, 2.372549019607843], rel=1e-12)
    assert sol.station_method == ["cobham"] and sol.exact_class.all()
    approx = solve(one_station({"servers": 2, "discipline": "priority"},
                               high={"rate": 0.6, "service": "exp(1)", "priority": 1},
                               low={"rate": 0.4, "service": "exp(2)"}))
    assert approx.station_method == ["cobham-allen-cunneen"] and not approx.exact_class.any()
    assert "Allen-Cunneen" in approx.notes[0]


def test_finite_buffer_is_mmck_by_hand():
    # M/M/2/5 at lam 2, mean 1: p_n proportional to 1, 2, 2, 2, 2, 2 (sum 11).
    # Loss 2/11, L = 30/11, throughput 18/11, W = L / X = 5/3.
    sol = solve(one_station({"servers": 2, "buffer": 3}, c={"rate": 2.0, "service": "exp(1)"}))
    assert sol.loss_probability == pytest.approx([2 / 11], rel=1e-12)
    assert sol.throughput == pytest.approx([18 / 11], rel=1e-12)
    assert sol.queue_length[0, 0] == pytest.approx(30 / 11, rel=1e-12)
    assert sol.response_time == pytest.approx([5 / 3], rel=1e-12)
    assert sol.utilization[0, 0] == pytest.approx(9 / 11, rel=1e-12)
    assert sol.station_method == ["mmck"] and sol.exact_class.all()


def test_erlang_loss_is_insensitive_to_the_service_distribution():
    # M/D/3/3 at a = 2: B = (8/6) / (1 + 2 + 2 + 8/6) = 4/19, whatever the service.
    sol = solve(one_station({"servers": 3, "buffer": 0}, c={"rate": 2.0, "service": 1}))
    assert sol.loss_probability == pytest.approx([4 / 19], rel=1e-12)
    assert sol.response_time == pytest.approx([1.0], rel=1e-12)
    assert sol.station_method == ["erlang-b"] and sol.exact_class.all()


# ---- approximations say so -------------------------------------------------------------

def test_fifo_multiserver_with_unequal_means_is_allen_cunneen():
    # lam 0.4 exp(1) + 0.2 exp(2) at 2 servers: mean 4/3, E[S^2] = 4, cs2 = 1.25,
    # a = 0.8, C = 2 rho^2 / (1 + rho) = 0.32 / 1.4, M/M/2 wait C s / (c - a) = 0.253968,
    # times (1 + 1.25) / 2 = 0.285714.
    sol = solve(one_station({"servers": 2}, a={"rate": 0.4, "service": "exp(1)"},
                            b={"rate": 0.2, "service": "exp(2)"}))
    wait = 0.32 / 1.4 * (4 / 3) / 1.2 * 1.125
    assert sol.response_time == pytest.approx([1 + wait, 2 + wait], rel=1e-12)
    assert sol.station_method == ["allen-cunneen"] and not sol.exact_class.any()
    assert sol.notes == ["station s: service times not one exponential for all classes at a multi-server "
                         "fifo station; Allen-Cunneen on their flow-weighted mix (approximate)"]


def test_non_poisson_arrivals_at_one_station_use_their_scv():
    # D/M/2 at rho 0.25 by Allen-Cunneen: Wq = Wq(M/M/2) x (0 + 1) / 2, Wq(M/M/2) = C / (2 mu - lam)
    # = 0.1 / 1.5. (One server would be GI/M/1, exact: tests/test_solve_gim1.py.)
    sol = solve(one_station({"servers": 2}, c={"arrivals": 2, "service": "exp(1)"}))
    assert sol.response_time == pytest.approx([1 + 0.1 / 1.5 / 2], rel=1e-12)
    assert sol.station_method == ["allen-cunneen"] and not sol.exact_class.any()
    assert {(l.exact, l.method) for l in sol.laws.values()} == {(False, "exponential-wait")} and "not Poisson" in sol.notes[0]


def test_a_non_product_form_station_makes_the_network_approximate():
    # M/D/1 then M/M/1: the first station's output is not Poisson.
    sol = solve({"stations": {"a": {}, "b": {}}, "classes": {"c": {"rate": 0.5, "route": [
        {"station": "a", "service": 1}, {"station": "b", "service": "exp(1)"}]}}})
    assert sol.residence_time[0] == pytest.approx([1.5, 2.0], rel=1e-12)
    assert sol.method == "decomposition" and not sol.exact_station.any() and not sol.exact_class.any()
    assert sol.notes == ["not product-form: a; the flows between stations are then not Poisson, and "
                         "every station is solved as if fed by Poisson arrivals (approximate)"]


def test_non_poisson_arrivals_in_a_network_leave_delays_exact():
    sol = solve({"stations": {"walk": {"servers": "inf"}, "desk": {}}, "classes": {"c": {
        "arrivals": "uniform(1, 3)", "route": [{"station": "walk", "service": 4}, {"station": "desk", "service": "exp(1)"}]}}})
    assert sol.exact_station.tolist() == [True, False] and not sol.exact_class.any()
    assert sol.residence_time[0] == pytest.approx([4.0, 2.0], rel=1e-12)
    assert sol.method == "decomposition" and "scv 1" in sol.notes[0]


# ---- errors ---------------------------------------------------------------------------

def test_an_unstable_station_is_a_one_line_error():
    with pytest.raises(BrewputError) as caught:
        solve(brewput.load(EXAMPLES / "mmc.yaml", params={"rate": 3.24}))
    assert str(caught.value) == ("station desk: utilization 1.08 >= 1, the open model is unstable; "
                                 "no steady state exists")


def test_shortest_job_first_at_several_servers_is_unsupported():
    # At one server it is M/G/1 SJF (tests/test_solve_sjf.py).
    with pytest.raises(Unsupported, match="^station s: shortest job first \\(sjf\\) with more than one server"):
        solve(one_station({"discipline": "sjf", "servers": 2}, c={"rate": 0.5, "service": "exp(1)"}))


def test_closed_classes_are_not_for_solve_open():
    with pytest.raises(ValueError):
        solve(brewput.load(EXAMPLES / "central-server.yaml"))
