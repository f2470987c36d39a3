"""simulate on the service floor (crates/sim) against independent truths:
M/M/c/K for a balking threshold, birth-death chains written here with numpy for
balking probabilities and for a closed class whose customers give up, Erlang A
(analytic/abandonment.py, itself checked against Markov chains in
test_theory_abandonment.py) for exponential patience.

Fixed seeds; a truth must lie inside the run's 95 % interval widened by WIDEN
(to about 99.9 % coverage), so the tolerance comes from the run itself."""
import math

import numpy as np
import pytest
from scipy.linalg import null_space

import brewput
from brewput.analytic import priority, queues
from brewput.analytic.abandonment import erlang_a, impatient
from brewput.analytic.typed_servers import fcfs_alis
from brewput.analytic.dispatch import dispatch
from brewput.analytic.fork_join import fork_join
from brewput.model import Model

WIDEN = 1.7  # a 95 % Student-t half-width times this covers about 99.9 %


def model(stations, classes):
    return Model.from_dict({"brewput": 1, "name": "m", "stations": stations, "classes": classes})


def one_station(servers, step, rate, **station):
    return model({"s": {"servers": servers, **station}},
                 {"c": {"rate": rate, "route": [{"station": "s", **step}]}})


def run(m, customers=200_000, replications=10, seed=11, **options):
    return brewput.simulate(m, seed=seed, customers=customers, replications=replications, **options)


def assert_covers(what, value, ci, truth):
    half = (ci[1] - ci[0]) / 2 * WIDEN
    assert abs(value - truth) <= half, f"{what}: {value} +- {half} misses {truth}"


def assert_figure(what, figures, name, truth):
    assert_covers(what, figures[name], figures[f"{name}_ci"], truth)


def assert_loss(figures, reason, truth):
    assert_covers(f"lost {reason}", figures["loss_probability_by"][reason],
                  figures["loss_probability_by_ci"][reason], truth)


def test_a_balking_threshold_is_mmck():
    # Seeing 3 or more waiting at 2 servers: at most 2 + 3 present, M/M/2/5.
    lam, s, c, threshold = 2.5, 1.0, 2, 3
    r = run(one_station(c, {"service": f"exp({s})", "balk": threshold}, lam))
    loss, means = queues.mmck(lam, s, c, c + threshold)
    figures = r["classes"]["c"]
    assert_loss(figures, "balked", loss)
    assert figures["loss_probability_by"]["full"] == 0 and figures["loss_probability_by"]["reneged"] == 0
    assert figures["lost"] == figures["lost_by"]["balked"] > 0
    assert_figure("loss probability", figures, "loss_probability", loss)
    assert_figure("throughput", figures, "throughput", lam * (1 - loss))
    assert_covers("response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"], means.response)
    assert_figure("queue length", r["stations"]["s"], "queue_length", means.in_system)


def test_balking_probabilities_by_waiting_jobs_seen():
    # M/M/1; seeing n waiting, balk with [0, 0.3, 0.6][n], 0.6 beyond. In the
    # chain of the number present: join[present] = 1 - p[present - 1] once busy.
    lam, s, probabilities = 1.2, 1.0, [0.0, 0.3, 0.6]
    r = run(one_station(1, {"service": f"exp({s})", "balk": probabilities}, lam))
    truth = impatient(lam, s, 1, join=[1.0] + [1 - p for p in probabilities], beyond=1 - probabilities[-1])
    figures = r["classes"]["c"]
    assert_loss(figures, "balked", truth.balked)
    assert_figure("throughput", figures, "throughput", truth.throughput)
    assert_covers("response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"],
                  truth.mean_response)
    assert_figure("utilization", r["stations"]["s"], "utilization", truth.utilization)


@pytest.mark.parametrize("lam, s, c, patience", [(4.0, 1.0, 3, 2.0), (1.5, 1.0, 1, 0.5)])
def test_exponential_patience_is_erlang_a(lam, s, c, patience):
    r = run(one_station(c, {"service": f"exp({s})", "patience": f"exp({patience})"}, lam))
    truth = erlang_a(lam, s, c, patience)
    figures = r["classes"]["c"]
    assert_loss(figures, "reneged", truth.abandoned)
    assert figures["lost_by"]["balked"] == 0 and figures["lost_by"]["full"] == 0
    assert_figure("throughput", figures, "throughput", truth.throughput)
    # the response and waiting times are those of the customers served
    assert_covers("wait of the served", figures["waiting_time"]["mean"], figures["waiting_time"]["mean_ci"],
                  truth.mean_wait_served)
    assert_covers("response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"],
                  truth.mean_response)
    assert_figure("queue length", r["stations"]["s"], "queue_length", truth.mean_in_system)


def test_erlang_a_with_patience_equal_to_service_is_a_poisson_number_present():
    # Every job present leaves at rate 1/s whether served or waiting: M/M/inf's
    # Poisson(lam s) number present whatever c.
    lam, s, c = 3.0, 1.0, 2
    r = run(one_station(c, {"service": f"exp({s})", "patience": f"exp({s})"}, lam))
    assert_figure("present", r["stations"]["s"], "queue_length", lam * s)


def closed_balking_truth(population, think, s, threshold):
    """A closed class at one server: n present, arrivals at (N - n) / think,
    joining while fewer than `threshold` wait; those who balk think again."""
    states = population + 1
    q = np.zeros((states, states))
    joins = [max(n - 1, 0) < threshold for n in range(states)]
    for n in range(states):
        if n < population and joins[n]:
            q[n, n + 1] = (population - n) / think
        if n > 0:
            q[n, n - 1] = 1 / s
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    p /= p.sum()
    arrivals = np.array([(population - n) / think for n in range(states)])
    offered = p @ arrivals
    balked = sum(p[n] * arrivals[n] for n in range(states) if not joins[n])
    return {"throughput": (1 - p[0]) / s, "balked": balked / offered}


def test_a_closed_customer_who_balks_thinks_again():
    population, think, s, threshold = 4, 1.0, 1.0, 1
    m = model({"s": {"servers": 1}},
              {"c": {"population": population, "think": f"exp({think})",
                     "route": [{"station": "s", "service": f"exp({s})", "balk": threshold}]}})
    r = run(m)
    truth = closed_balking_truth(population, think, s, threshold)
    figures = r["classes"]["c"]
    assert_figure("throughput", figures, "throughput", truth["throughput"])
    assert_loss(figures, "balked", truth["balked"])


def test_giving_up_is_the_same_at_any_thread_count():
    m = one_station(2, {"service": "exp(1)", "balk": [0, 0.5], "patience": "exp(1)"}, 2.5)
    one, two = (run(m, customers=20_000, replications=4, threads=t) for t in (1, 2))
    assert one["classes"] == two["classes"] and one["stations"] == two["stations"]
    assert one["classes"]["c"]["lost_by"]["balked"] > 0 and one["classes"]["c"]["lost_by"]["reneged"] > 0


def test_a_full_station_counts_as_full():
    # M/M/1/3 without giving up: every loss is for want of room.
    r = run(one_station(1, {"service": "exp(1)"}, 1.0, buffer=2), customers=50_000, replications=5)
    figures = r["classes"]["c"]
    loss, _ = queues.mmck(1.0, 1.0, 1, 3)
    assert figures["lost"] == figures["lost_by"]["full"] > 0
    assert_loss(figures, "full", loss)
    assert math.isclose(figures["loss_probability_by"]["full"], figures["loss_probability"])


# --- typed servers -------------------------------------------------------------

def n_model(take="first_fit", assign="longest_idle", lam_a=0.6, lam_b=0.8, mean_x=1.0, mean_y=1 / 1.2):
    """The N-model: class a may use servers x and y, class b only y; a server's
    speed depends on its type alone."""
    return model({"bar": {"servers": {"x": 1, "y": 1}, "take": take, "assign": assign}},
                 {"a": {"rate": lam_a, "route": [{"station": "bar",
                                                  "served_by": {"x": f"exp({mean_x})", "y": f"exp({mean_y})"}}]},
                  "b": {"rate": lam_b, "route": [{"station": "bar", "service": f"exp({mean_y})",
                                                  "served_by": ["y"]}]}})


def test_first_fit_with_longest_idle_is_the_fcfs_alis_product_form():
    r = run(n_model())
    truth = fcfs_alis({"a": 0.6, "b": 0.8}, {"x": 1, "y": 1}, {"x": 1.0, "y": 1.2},
                      {"a": ["x", "y"], "b": ["y"]})
    for c in ("a", "b"):
        figures = r["classes"][c]
        assert_covers(f"{c} response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"],
                      truth.response[c])
        assert_covers(f"{c} wait", figures["waiting_time"]["mean"], figures["waiting_time"]["mean_ci"],
                      truth.wait[c])
    types = r["stations"]["bar"]["server_types"]
    for t in ("x", "y"):
        assert_figure(f"utilization of {t}", types[t], "utilization", truth.utilization[t])
    for (c, t), rate in truth.matching_rates.items():
        assert_covers(f"{c} served by {t}", types[t]["served"][c], types[t]["served_ci"][c], rate)
    assert types["x"]["served"]["b"] == 0, "b may not use x"


def test_strict_order_blocks_the_line_behind_its_head():
    """Built for head-of-line blocking, deterministic, worked out by hand: a
    closed class a of 2 customers served only by x (1 time unit each), a closed
    class b of 1 customer served only by y (1.1), no think time. Under first fit
    x never idles (a always has a customer waiting: throughput 1) and b's lone
    customer never waits (1 / 1.1). Under strict order, from t = 1 on, b's
    customer ends at 2.1, 4.1, ... and joins the line behind the a customer
    waiting for x, so it starts only when x frees at 3, 5, ...: one b service
    every 2 time units (b: 0.5), while x stays busy (a: 1)."""
    def closed(take):
        m = model({"bar": {"servers": {"x": 1, "y": 1}, "take": take}},
                  {"a": {"population": 2, "route": [{"station": "bar", "service": 1, "served_by": ["x"]}]},
                   "b": {"population": 1, "route": [{"station": "bar", "service": 1.1, "served_by": ["y"]}]}})
        r = brewput.simulate(m, horizon=10_000, warmup=100, replications=2, seed=1)
        return {c: r["classes"][c]["throughput"] for c in ("a", "b")}, r["stations"]["bar"]["server_types"]
    fit, fit_types = closed("first_fit")
    strict, strict_types = closed("head")
    assert fit["a"] == pytest.approx(1.0, rel=1e-3) and fit["b"] == pytest.approx(1 / 1.1, rel=1e-3)
    assert strict["a"] == pytest.approx(1.0, rel=1e-3) and strict["b"] == pytest.approx(0.5, rel=1e-3)
    assert strict_types["y"]["utilization"] == pytest.approx(0.55, rel=1e-3)
    assert fit_types["y"]["utilization"] == pytest.approx(1.0, rel=1e-3)


def stationary(transitions, states):
    """The stationary distribution of a chain given as {(from, to): rate}."""
    index = {state: i for i, state in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    for (a, b), rate in transitions.items():
        q[index[a], index[b]] += rate
    np.fill_diagonal(q, -q.sum(axis=1))
    p = null_space(q.T)[:, 0]
    return dict(zip(states, p / p.sum()))


def two_server_loss_chain(lam, mu_x, mu_y, assign):
    """One class on servers x and y, no waiting room: an arrival finding both
    idle takes x (in_order) or the one idle longer (longest_idle; "xo" = both
    idle, x the longer), one idle server, or is lost. Returns services per time
    unit by x and by y."""
    states = ["xo", "yo", "x", "y", "xy"]  # idle pair (x older / y older), x busy, y busy, both busy
    both_idle_to = {"in_order": {"xo": "x", "yo": "x"}, "longest_idle": {"xo": "x", "yo": "y"}}[assign]
    transitions = {("xo", both_idle_to["xo"]): lam, ("yo", both_idle_to["yo"]): lam,
                   ("x", "xy"): lam, ("y", "xy"): lam,
                   ("x", "yo"): mu_x, ("y", "xo"): mu_y,  # the other server has idled longer
                   ("xy", "y"): mu_x, ("xy", "x"): mu_y}
    p = stationary(transitions, states)
    return mu_x * (p["x"] + p["xy"]), mu_y * (p["y"] + p["xy"])


@pytest.mark.parametrize("assign", ["in_order", "longest_idle"])
def test_which_idle_server_an_arrival_takes(assign):
    lam, mu_x, mu_y = 1.0, 1.0, 2.0
    m = model({"bar": {"servers": {"x": 1, "y": 1}, "buffer": 0, "take": "first_fit", "assign": assign}},
              {"a": {"rate": lam, "route": [{"station": "bar",
                                             "served_by": {"x": f"exp({1 / mu_x})", "y": f"exp({1 / mu_y})"}}]}})
    r = run(m)
    by_x, by_y = two_server_loss_chain(lam, mu_x, mu_y, assign)
    types = r["stations"]["bar"]["server_types"]
    assert_covers("served by x", types["x"]["served"]["a"], types["x"]["served_ci"]["a"], by_x)
    assert_covers("served by y", types["y"]["served"]["a"], types["y"]["served_ci"]["a"], by_y)
    assert_figure("utilization of x", types["x"], "utilization", by_x / mu_x)


def test_typed_servers_are_the_same_at_any_thread_count():
    one, two = (run(n_model(), customers=20_000, replications=4, threads=t) for t in (1, 2))
    assert one["stations"] == two["stations"] and one["classes"] == two["classes"]


# --- marks and measures --------------------------------------------------------

def tandem_with_marks():
    """Two M/M/1 stations in tandem (Burke: each an M/M/1 of its own), marked
    after the first."""
    return model({"order": {"servers": 1}, "bar": {"servers": 1}},
                 {"c": {"rate": 0.5,
                        "measures": {"whole": ["arrived", "done"], "queue_to_order": ["arrived", "ordered"],
                                     "from_order": ["ordered", "done"]},
                        "route": [{"station": "order", "service": "exp(1)", "mark": "ordered"},
                                  {"station": "bar", "service": "exp(1.25)"}]}})


def test_a_measure_from_arrived_to_done_is_the_response_time_exactly():
    r = run(tandem_with_marks(), customers=50_000, replications=4)
    figures = r["classes"]["c"]
    whole = figures["measures"]["whole"]
    for name in ("mean", "p50", "p99", "max", "spectrum"):
        assert whole[name] == figures["response_time"][name], name
    assert figures["measures_count"]["whole"] == figures["completed"]


def test_a_measure_no_customer_reaches_has_no_figures_not_even_a_max():
    """The marked step is taken with probability 1e-12: in 2,000 customers nobody
    is measured, so every figure is null (the max once read 0.0) and the count 0."""
    m = model({"order": {"servers": 1}, "bar": {"servers": 1}},
              {"c": {"rate": 0.5, "measures": {"rare": ["arrived", "served"]},
                     "route": [{"station": "order", "service": "exp(1)", "next": {"bar": 1e-12, "exit": 1 - 1e-12}},
                               {"id": "bar", "station": "bar", "service": "exp(1.25)", "mark": "served"}]}})
    figures = run(m, customers=2_000)["classes"]["c"]
    rare = figures["measures"]["rare"]
    assert figures["measures_count"]["rare"] == 0 and figures["completed"] > 0
    assert rare["mean"] is None and rare["p99"] is None and rare["max"] is None


def test_measures_between_marks_are_the_sojourns_they_span():
    r = run(tandem_with_marks())
    figures = r["classes"]["c"]
    lam = 0.5
    for name, s in (("queue_to_order", 1.0), ("from_order", 1.25)):
        times = figures["measures"][name]
        assert_covers(name, times["mean"], times["mean_ci"], s / (1 - lam * s))
        # M/M/1 response is exponential: its median is ln 2 times its mean
        assert_covers(f"{name} median", times["p50"], times["p50_ci"], math.log(2) * s / (1 - lam * s))


# --- fork/join and dispatch ---------------------------------------------------

def forked(join="all", rate=0.5, mark=False):
    coffee = {"station": "espresso", "service": "exp(1)", **({"mark": "coffee"} if mark else {})}
    return model({"espresso": {"servers": 1}, "steamer": {"servers": 1}},
                 {"c": {"rate": rate,
                        **({"measures": {"to_coffee": ["arrived", "coffee"]}} if mark else {}),
                        "route": [{"fork": {"coffee": [coffee], "milk": [{"station": "steamer", "service": "exp(1)"}]},
                                   "join": join}]}})


@pytest.mark.parametrize("join, needed", [("all", 0), ("any", 1)])
def test_two_branch_fork_join_is_flatto_hahn(join, needed):
    lam, mu = 0.5, 1.0
    r = run(forked(join, lam))
    truth = fork_join(lam, mu, 2, needed)
    figures = r["classes"]["c"]
    assert_covers("response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"], truth.response)
    assert_figure("throughput", figures, "throughput", lam)
    # each branch station is an M/M/1 at the full arrival rate, joined or not
    for s in ("espresso", "steamer"):
        assert_figure(f"{s} utilization", r["stations"][s], "utilization", lam / mu)


def test_a_mark_inside_a_branch_is_recorded_on_the_customer():
    lam = 0.5
    r = run(forked("all", lam, mark=True))
    times = r["classes"]["c"]["measures"]["to_coffee"]
    assert_covers("arrived to the coffee branch's end", times["mean"], times["mean_ci"], 1 / (1 - lam))
    # taken when the mark is reached, so customers in flight at the warm-up's end
    # and at the stop make the only difference from the completions
    counted, completed = r["classes"]["c"]["measures_count"]["to_coffee"], r["classes"]["c"]["completed"]
    assert abs(counted - completed) <= 100


def test_a_mark_in_a_branch_that_ends_after_the_join_is_not_the_customers():
    # join any: the customer goes on with the first branch to end; the coffee
    # branch's mark counts only for customers whose coffee ended first or at once.
    r = run(forked("any", 0.5, mark=True))
    figures = r["classes"]["c"]
    counted, completed = figures["measures_count"]["to_coffee"], figures["completed"]
    # two symmetric exponential branches: the coffee branch is the first to end about half the time
    assert 0.4 * completed < counted < 0.6 * completed
    # the branches are alike, so the time to coffee of those whose coffee ended
    # first is distributed as the time to the first end: Flatto-Hahn's minimum
    times = figures["measures"]["to_coffee"]
    assert_covers("to coffee, coffee first", times["mean"], times["mean_ci"], fork_join(0.5, 1.0, 2, 1).response)


def two_way(policy, rate=1.5, **step):
    return model({"a": {"servers": 1}, "b": {"servers": 1}},
                 {"c": {"rate": rate, "route": [{"dispatch": {"a": [{"station": "a", "service": "exp(1)"}],
                                                              "b": [{"station": "b", "service": "exp(1)"}]},
                                                 "policy": policy, **step}]}})


@pytest.mark.parametrize("policy", ["random", "round_robin", "shared"])
def test_dispatch_to_two_servers_against_closed_forms(policy):
    lam = 1.5
    r = run(two_way(policy, lam))
    truth = dispatch(policy, lam, 1.0, 2)
    figures = r["classes"]["c"]
    assert_covers(f"{policy} response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"],
                  truth.response)
    assert_covers(f"{policy} wait", figures["waiting_time"]["mean"], figures["waiting_time"]["mean_ci"], truth.wait)


def test_dispatch_policies_order_as_theory_says():
    """One queue for both servers beats joining the shorter branch, which beats
    alternating, which beats a coin toss (exponential servers: Winston 1977 for
    JSQ's optimality among policies that see queue lengths, Erlang C for the
    shared queue; round robin smooths each server's arrivals)."""
    means = {}
    for policy in ("shared", "shortest_queue", "round_robin", "random"):
        t = run(two_way(policy))["classes"]["c"]["response_time"]
        means[policy] = (t["mean"], t["mean_ci"])
    order = ["shared", "shortest_queue", "round_robin", "random"]
    for better, worse in zip(order, order[1:]):
        assert means[better][1][1] < means[worse][1][0], f"{better} {means[better]} vs {worse} {means[worse]}"
    assert means["shortest_queue"][0] > dispatch("shared", 1.5, 1.0, 2).response


def test_power_of_d_with_every_branch_drawn_is_join_the_shortest():
    # d = 2 of 2 draws both, in random order: only ties differ from shortest_queue,
    # and ties between equal branches do not change the mean.
    jsq = run(two_way("shortest_queue"))["classes"]["c"]["response_time"]
    pod = run(two_way("power_of_d", d=2), seed=12)["classes"]["c"]["response_time"]
    half = ((jsq["mean_ci"][1] - jsq["mean_ci"][0]) + (pod["mean_ci"][1] - pod["mean_ci"][0])) / 2 * WIDEN
    assert abs(jsq["mean"] - pod["mean"]) <= half


def test_forks_and_dispatches_are_the_same_at_any_thread_count():
    for m in (forked("any"), two_way("shared"), two_way("power_of_d", d=2)):
        one, two = (run(m, customers=20_000, replications=4, threads=t) for t in (1, 2))
        assert one["classes"] == two["classes"] and one["stations"] == two["stations"]


# --- priorities, preemptive and not ---------------------------------------------

def prioritized(c, preempt, service="exp(1)", lams=(0.3, 0.5)):
    station = {"servers": c, "discipline": "priority", **({"preempt": preempt} if preempt != "none" else {})}
    return model({"cpu": station},
                 {"high": {"rate": lams[0], "priority": 2, "route": [{"station": "cpu", "service": service}]},
                  "low": {"rate": lams[1], "priority": 1, "route": [{"station": "cpu", "service": service}]}})


@pytest.mark.parametrize("c, preempt, service, scv, lams", [
    (1, "none", "exp(1)", 1.0, (0.3, 0.5)),
    (1, "resume", "exp(1)", 1.0, (0.3, 0.5)),
    (1, "resume", 1, 0.0, (0.3, 0.5)),        # M/D/1: resuming keeps the work done
    (2, "none", "exp(1)", 1.0, (0.7, 0.9)),
    (2, "resume", "exp(1)", 1.0, (0.7, 0.9)),
    (2, "restart", "exp(1)", 1.0, (0.7, 0.9)),  # exponential: a new draw is as good as the rest
    (3, "resume", "exp(1)", 1.0, (1.2, 1.2)),
])
def test_priorities_per_class_against_theory(c, preempt, service, scv, lams):
    r = run(prioritized(c, preempt, service, lams))
    formula = priority.non_preemptive if preempt == "none" else priority.preemptive_resume
    truth = formula(list(lams), [1.0, 1.0], [scv, scv], [2, 1], c)
    for i, name in enumerate(("high", "low")):
        figures = r["classes"][name]
        assert_covers(f"{name} response", figures["response_time"]["mean"], figures["response_time"]["mean_ci"],
                      truth.response[i])
        assert_covers(f"{name} wait", figures["waiting_time"]["mean"], figures["waiting_time"]["mean_ci"],
                      truth.wait[i])
    # the work is conserved: the station is as busy as without priorities
    assert_figure("utilization", r["stations"]["cpu"], "utilization", sum(lams) / c)


def test_restarting_a_constant_service_loses_the_work_done():
    # Repeating the same service from scratch costs the low class time that resuming does not.
    resume, restart = (run(prioritized(1, how, 1), customers=100_000, replications=5)["classes"]["low"]
                       for how in ("resume", "restart"))
    assert restart["response_time"]["mean_ci"][0] > resume["response_time"]["mean_ci"][1]


def test_preemption_is_the_same_at_any_thread_count():
    m = prioritized(2, "resume", "exp(1)", (0.7, 0.9))
    one, two = (run(m, customers=20_000, replications=4, threads=t) for t in (1, 2))
    assert one["classes"] == two["classes"] and one["stations"] == two["stations"]


@pytest.mark.parametrize("station, why", [({"servers": 1, "buffer": 0}, "with buffer: 0"),
                                          ({"servers": "inf"}, "with servers: inf")])
def test_preemption_that_cannot_happen_is_warned_of(station, why):
    """With no room to wait (buffer: 0) a job that finds the server busy is turned
    away, whatever its priority; with servers: inf none waits: either way no job
    is preempted, and the results say so instead of silently ignoring preempt."""
    m = model({"s": {**station, "discipline": "priority", "preempt": "resume"}},
              {"hi": {"rate": 0.5, "priority": 2, "route": [{"station": "s", "service": "exp(1)"}]},
               "lo": {"rate": 0.5, "priority": 1, "route": [{"station": "s", "service": "exp(1)"}]}})
    r = run(m, customers=4_000)
    assert [w for w in r["warnings"] if "preempt" in w] == [
        w for w in r["warnings"] if w.startswith(f"stations.s.preempt has no effect: {why}")]
    assert len(r["warnings"]) == 1
    if "buffer" in why:  # the high class is turned away as often as the low: nobody was displaced for it
        hi, lo = r["classes"]["hi"]["loss_probability"], r["classes"]["lo"]["loss_probability"]
        assert hi == pytest.approx(0.5, abs=0.05) and lo == pytest.approx(0.5, abs=0.05)
