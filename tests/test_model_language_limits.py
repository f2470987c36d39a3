"""docs/model-language.md, "Limits of the service floor": each limit as a user meets
it, and each workaround the page shows, against a closed form or a Markov chain.
When one of these tests fails because a limit was lifted, the page's passage goes too.

Tolerances: conftest.py's rule (the 95 % interval widened to 99.9 %)."""
import subprocess
import sys

import brewput
from brewput.figures import with_ci
from conftest import check
from test_api_tables import erlang_c_response

SETTINGS = dict(seed=1, replications=5, customers=100_000)


def printed(figures, name):
    """A figure as docs/model-language.md prints it, with its 95 % interval."""
    return with_ci(figures[name], figures[name + "_ci"])


# ---- waits inside a fork's branches ------------------------------------------------

FORK = {"brewput": 1, "name": "a fork whose branches queue",
        "stations": {"milk": {"servers": 1}, "coffee": {"servers": 1}},
        "classes": {"latte": {"rate": 1, "measures": {"milk_branch": ["arrived", "milk_done"]},
                              "route": [{"fork": {
                                  "milk": [{"station": "milk", "service": "exp(0.5)", "mark": "milk_done"}],
                                  "coffee": [{"station": "coffee", "service": "exp(0.8)"}]}}]}}}


def test_waits_inside_fork_branches_are_not_the_class_waiting_time():
    res = brewput.simulate(brewput.Model.from_dict(FORK), **SETTINGS)
    # each branch is an M/M/1 (Poisson in, exponential service): both queue ...
    check(res, ("stations", "milk", "response_time"), 1 / (2 - 1))
    check(res, ("stations", "coffee", "response_time"), 1 / (1.25 - 1))
    # ... yet the customer's waiting time counts no branch's queue
    assert res["classes"]["latte"]["waiting_time"]["mean"] == 0
    # the workaround: a mark at the branch's end, a measure from before the fork to it
    check(res, ("classes", "latte", "measures", "milk_branch", "mean"), 1 / (2 - 1))
    assert printed(res["classes"]["latte"]["measures"]["milk_branch"], "mean") == "1.001 ± 0.014"


# ---- a shared dispatch in front of a typed station ---------------------------------

def shared(bar_servers, policy="shared"):
    return brewput.Model.from_dict({
        "brewput": 1, "name": f"a {policy} dispatch in front of a typed station",
        "stations": {"bar": {"servers": bar_servers}, "cart": {"servers": 1}},
        "classes": {"latte": {"rate": 1.5, "route": [{"dispatch": {
            "bar": [{"station": "bar", "service": "exp(1)", "served_by": ["espresso_machine"]}],
            "cart": [{"station": "cart", "service": "exp(1)"}]}, "policy": policy}]}}})


def test_a_shared_dispatch_sends_every_job_where_an_idle_server_cannot_serve_it():
    res = brewput.simulate(shared({"espresso_machine": 1, "drip_station": 1}), **SETTINGS)
    # the idle drip station makes the bar look free: the cart never serves anyone,
    # and the bar's one machine runs flat out (a saturated exp(1) server: 1 a second)
    assert res["stations"]["cart"]["throughput"] == 0
    check(res, ("stations", "bar", "throughput"), 1.0)


def test_the_workarounds_for_a_shared_dispatch_at_a_typed_station():
    # only the types the jobs may use: one shared queue before two single servers, M/M/2
    res = brewput.simulate(shared({"espresso_machine": 1}), **SETTINGS)
    check(res, ("classes", "latte", "response_time", "mean"), erlang_c_response(2, 1.5, 1.0))
    assert printed(res["classes"]["latte"]["response_time"], "mean") == "2.292 ± 0.019"
    assert f"{erlang_c_response(2, 1.5, 1.0):.4g}" == "2.286"
    # or a policy that counts jobs: stable, so everyone who arrives is served
    res = brewput.simulate(shared({"espresso_machine": 1, "drip_station": 1}, "shortest_queue"), **SETTINGS)
    check(res, ("classes", "latte", "throughput"), 1.5)
    assert res["stations"]["cart"]["throughput"] > 0


# ---- no retrials -------------------------------------------------------------------

RETRIAL = """brewput: 1
name: retrial
stations:
  desk: {servers: 1}
classes:
  caller:
    rate: 1
    route:
      - {station: desk, service: exp(0.8), balk: 3, retrial: exp(5)}
"""


def test_a_retrial_is_refused_in_one_line(tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text(RETRIAL)
    run = subprocess.run([sys.executable, "-m", "brewput", "simulate", str(model)], capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"error: {model}:9 classes.caller.route[0].retrial: unknown field "
        "(expected one of: station, service, served_by, uses, balk, patience, id, next, mark)"]


def test_a_closed_customer_who_balks_thinks_and_tries_again():
    # five callers thinking exp(2), one desk exp(1), balking when someone already waits:
    # at most 2 at the desk; from n at the desk (5 - n) / 2 call a second. Balance:
    # p1 = 2.5 p0, p2 = 2 p1, so p0 = 1 / 8.5; answered 1 - p0 a second, and the balks
    # (the 3 thinking at p2, 1.5 a second) as many: half of all attempts
    model = brewput.Model.from_dict({
        "brewput": 1, "name": "callers who hang up and call again", "stations": {"desk": {"servers": 1}},
        "classes": {"caller": {"population": 5, "think": "exp(2)",
                               "route": [{"station": "desk", "service": "exp(1)", "balk": 1}]}}})
    res = brewput.simulate(model, **SETTINGS)
    check(res, ("classes", "caller", "throughput"), 1 - 1 / 8.5)
    check(res, ("classes", "caller", "loss_probability"), 0.5)
    caller = res["classes"]["caller"]
    assert printed(caller, "throughput") == "0.8805 ± 0.0024"
    assert with_ci(100 * caller["loss_probability"], [100 * x for x in caller["loss_probability_ci"]]) == "50.07 ± 0.079"
