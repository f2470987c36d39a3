"""`solve --method ctmc`: the model's Markov chain against chains written by hand
here (numpy/scipy), closed forms, the product-form methods to 1e-9, and the
simulator's 99 % intervals."""
import math

import pytest

import brewput
from brewput import Model
from brewput.analytic.support import Unsupported
from brewput.analytic.chain import sizing
from brewput.analytic.chain.floor import floor_of
from brewput.errors import BrewputError
from brewput.compare import compare_results
from markov import stationary


def model(stations, classes, resources=None, name="m"):
    doc = {"brewput": 1, "name": name, "stations": stations, "classes": classes}
    if resources:
        doc["resources"] = resources
    return doc


def close(a, b, rel):
    return a == pytest.approx(b, rel=rel, abs=rel * 1e-3)


CENTRAL = model(
    {"cpu": {"servers": 1}, "disk1": {"servers": 1}, "disk2": {"servers": 2}, "terminals": {"servers": "inf"}},
    {"job": {"population": 6, "think": "exp(4)", "route": [
        {"id": "cpu", "station": "cpu", "service": "exp(0.5)", "next": {"disk1": 0.5, "disk2": 0.3, "term": 0.2}},
        {"id": "disk1", "station": "disk1", "service": "exp(0.8)", "next": "cpu"},
        {"id": "disk2", "station": "disk2", "service": "exp(1.2)", "next": "cpu"},
        {"id": "term", "station": "terminals", "service": "exp(1)"}]}})


def test_a_product_form_network_is_mva_and_the_convolution_to_1e9():
    chain = brewput.solve(CENTRAL, method="ctmc")
    exact = brewput.solve(CENTRAL, method="convolution")
    assert chain["method"] == "ctmc" and chain["classes"]["job"]["exact"]
    for figure in ("throughput",):
        assert close(chain["classes"]["job"][figure], exact["classes"]["job"][figure], 1e-9)
    assert close(chain["classes"]["job"]["response_time"]["mean"], exact["classes"]["job"]["response_time"]["mean"], 1e-9)
    for name, station in exact["stations"].items():
        for figure in ("utilization", "busy_servers", "queue_length", "throughput", "response_time"):
            if station[figure] is not None:
                assert close(chain["stations"][name][figure], station[figure], 1e-9), (name, figure)


def test_an_open_station_with_a_buffer_is_mmck_to_1e9():
    m = model({"s": {"servers": 3, "buffer": 4}}, {"c": {"rate": 2.5, "route": [{"station": "s", "service": "exp(1)"}]}})
    chain, mmck = brewput.solve(m, method="ctmc"), brewput.solve(m)
    assert mmck["method"] == "mmck"
    for figure in ("throughput", "loss_probability"):
        assert close(chain["classes"]["c"][figure], mmck["classes"]["c"][figure], 1e-9)
    for times in ("response_time", "waiting_time"):
        assert close(chain["classes"]["c"][times]["mean"], mmck["classes"]["c"][times]["mean"], 1e-9)
    for figure in ("utilization", "queue_length", "waiting"):
        assert close(chain["stations"]["s"][figure], mmck["stations"]["s"][figure], 1e-9)


def tandem_by_hand(lam, mu_a, mu_b, cap_a, cap_b):
    """Poisson arrivals into a (one server, cap_a present) then b (one server, cap_b
    present), blocking after service: states (jobs at a, jobs at b, a's head blocked)."""
    states = [(a, b, blk) for a in range(cap_a + 1) for b in range(cap_b + 1) for blk in (0, 1)
              if not blk or (a >= 1 and b == cap_b)]
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []

    def move(s, t, rate):
        rows.append(index[s]), cols.append(index[t]), rates.append(rate)

    for a, b, blk in states:
        if a < cap_a:
            move((a, b, blk), (a + 1, b, blk), lam)
        if a >= 1 and not blk:
            move((a, b, blk), (a - 1, b + 1, 0) if b < cap_b else (a, b, 1), mu_a)
        if b >= 1:
            move((a, b, blk), (a - 1, b, 0) if blk else (a, b - 1, 0), mu_b)
    pi = stationary(rows, cols, rates, len(states))
    p = dict(zip(states, pi))
    full = sum(q for (a, _, _), q in p.items() if a == cap_a)
    return {
        "loss": full,
        "throughput": lam * (1 - full),
        "queue_a": sum(q * a for (a, _, _), q in p.items()),
        "queue_b": sum(q * b for (_, b, _), q in p.items()),
        "busy_a": sum(q for (a, _, _), q in p.items() if a >= 1),
        "blocked": sum(q for (_, _, blk), q in p.items() if blk),
    }


OPEN_TANDEM = model({"a": {"servers": 1, "buffer": 2}, "b": {"servers": 1, "buffer": 0}},
                    {"c": {"rate": 0.9, "route": [{"station": "a", "service": "exp(0.8)"},
                                                  {"station": "b", "service": "exp(1)"}]}})


def test_blocking_after_service_in_an_open_tandem_is_the_chain_by_hand():
    by_hand = tandem_by_hand(0.9, 1 / 0.8, 1.0, 3, 1)
    res = brewput.solve(OPEN_TANDEM)  # auto: the formulas refuse a buffer inside a network
    c, a, b = res["classes"]["c"], res["stations"]["a"], res["stations"]["b"]
    assert res["method"] == "ctmc" and c["exact"]
    assert close(c["loss_probability"], by_hand["loss"], 1e-9)
    assert close(c["throughput"], by_hand["throughput"], 1e-9)
    assert close(a["queue_length"], by_hand["queue_a"], 1e-9) and close(b["queue_length"], by_hand["queue_b"], 1e-9)
    assert close(a["utilization"], by_hand["busy_a"] - by_hand["blocked"], 1e-9)  # blocked: held, not serving
    assert close(c["response_time"]["mean"], (by_hand["queue_a"] + by_hand["queue_b"]) / by_hand["throughput"], 1e-9)
    assert by_hand["blocked"] > 0.05


def test_one_token_over_two_stations_serves_one_job_at_a_time():
    """With one cpu token every service holds it: the token is a single server that
    is never idle (someone always waits), and each cycle needs both services."""
    m = model({"a": {"servers": 1}, "b": {"servers": 1}},
              {"c": {"population": 3, "route": [{"station": "a", "service": "exp(1)", "uses": ["cpu"]},
                                                {"station": "b", "service": "exp(2)", "uses": ["cpu"]}]}},
              resources={"cpu": 1})
    res = brewput.solve(m, method="ctmc")
    x = res["classes"]["c"]["throughput"]
    assert close(x, 1 / 3, 1e-9)
    assert close(res["classes"]["c"]["response_time"]["mean"], 3 / x, 1e-9)
    assert close(res["resources"]["cpu"]["utilization"], 1.0, 1e-9)
    assert close(res["stations"]["a"]["utilization"], x * 1, 1e-9)


def two_tokens_by_hand(n, mu_a, mu_b):
    """Closed: n customers, a (one server) then b (one server), each service holding
    one of 2 cpu tokens, think 0. A token is short only when both servers are busy
    and then none is waiting for one, so the tokens never bind with 2 single servers:
    the chain is the closed tandem, states = jobs at a."""
    rows, cols, rates = [], [], []
    for a in range(n + 1):
        if a >= 1:
            rows.append(a), cols.append(a - 1), rates.append(mu_a)
        if a < n:
            rows.append(a), cols.append(a + 1), rates.append(mu_b)
    pi = stationary(rows, cols, rates, n + 1)
    return mu_b * (1 - pi[n]), sum(a * p for a, p in enumerate(pi))


def test_tokens_that_never_run_short_leave_the_closed_tandem():
    m = model({"a": {"servers": 1}, "b": {"servers": 1}},
              {"c": {"population": 4, "route": [{"station": "a", "service": "exp(1)", "uses": ["cpu"]},
                                                {"station": "b", "service": "exp(0.5)", "uses": ["cpu"]}]}},
              resources={"cpu": 2})
    x, queue_a = two_tokens_by_hand(4, 1.0, 2.0)
    res = brewput.solve(m, method="ctmc")
    assert close(res["classes"]["c"]["throughput"], x, 1e-9)
    assert close(res["stations"]["a"]["queue_length"], queue_a, 1e-9)
    assert close(res["resources"]["cpu"]["in_use"], x * 1.5, 1e-9)  # Little: tokens held = X x service per cycle


def closed_blocking_by_hand(n, mu1, mu2):
    """n customers, 1 -> 2 -> 1, one server each, station 2 holding one job (buffer 0):
    states (jobs at 2, 1's head blocked)."""
    states = [(0, 0), (1, 0), (1, 1)] if n >= 2 else [(0, 0), (1, 0)]
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []
    for n2, blk in states:
        n1 = n - n2
        if n1 - blk >= 1 and not blk:
            target = (1, 0) if n2 == 0 else (1, 1)
            rows.append(index[(n2, blk)]), cols.append(index[target]), rates.append(mu1)
        if n2:
            rows.append(index[(n2, blk)]), cols.append(index[(1, 0) if blk else (0, 0)]), rates.append(mu2)
    pi = dict(zip(states, stationary(rows, cols, rates, len(states))))
    return mu2 * (pi[(1, 0)] + pi.get((1, 1), 0.0))


def test_blocking_in_a_closed_network_is_the_chain_by_hand():
    m = model({"one": {"servers": 1}, "two": {"servers": 1, "buffer": 0}},
              {"c": {"population": 3, "think": 0, "route": [{"station": "one", "service": "exp(1)"},
                                                             {"station": "two", "service": "exp(0.7)"}]}})
    res = brewput.solve(m)
    assert res["method"] == "ctmc"
    assert close(res["classes"]["c"]["throughput"], closed_blocking_by_hand(3, 1.0, 1 / 0.7), 1e-9)


def within(res, sim, skip=()):
    """Every figure of the chain inside the simulation's 99 % interval."""
    rows = [row for row in compare_results(res, sim, level=0.99) if row.ci is not None
            and not any(word in row.figure for word in skip) and "p" not in row.figure.split()[-1][:1]]
    outside = [(row.figure, row.analytic, row.ci) for row in rows if not row.inside]
    assert rows and not outside, outside


def test_the_chain_is_inside_the_simulators_intervals():
    sim_options = dict(seed=1, replications=5, customers=200_000)
    within(brewput.solve(OPEN_TANDEM), brewput.simulate(OPEN_TANDEM, **sim_options))
    short = model({"a": {"servers": 2}, "b": {"servers": 1, "buffer": 1}},
                  {"c": {"population": 5, "think": "exp(1)",
                         "route": [{"station": "a", "service": "exp(1)", "uses": ["cpu"]},
                                   {"station": "b", "service": "exp(0.5)", "uses": ["cpu"]}]},
                   "d": {"population": 2, "think": "exp(2)",
                         "route": [{"station": "b", "service": "exp(0.3)", "uses": ["cpu"]}]}},
                  resources={"cpu": 2})
    within(brewput.solve(short, method="ctmc"), brewput.simulate(short, **sim_options))


def test_a_constant_is_erlang_k_named_with_its_change_from_the_last_k():
    res = brewput.solve("examples/coffee/finelocking.yaml")
    notes = " ".join(res["notes"])
    assert res["method"] == "ctmc" and not res["classes"]["latte"]["exact"]
    assert "const(1) as Erlang-4" in notes and "from Erlang-2 to Erlang-4: latte throughput +9.2 %" in notes
    # The constant stages give 1 latte a ms once the line is full; Erlang-k comes from below, slowly.
    assert 0.75 < res["classes"]["latte"]["throughput"] < 0.76
    assert res["resources"]["cpu"]["in_use"] == pytest.approx(4 * res["classes"]["latte"]["throughput"], rel=1e-9)


def test_a_ladder_of_one_rung_says_the_next_was_not_tried():
    # The talk's two pipelines behind one order channel: Erlang-4 would pass the ladder's
    # 5,000 states, so there is no change to show, and the note says so rather than nothing.
    from brewput.bundled import EXAMPLES

    notes = brewput.solve(EXAMPLES / "coffee" / "multipipe-2.yaml")["notes"]
    assert notes[1] == ("Erlang-4 would pass 5,000 states and was not tried: how far Erlang-2 is from the model's "
                        "own laws is not known")
    # A gamma of cv 2 is fitted by its own two moments (a hyperexponential) whatever k: the
    # ladder ends at one rung with nothing more to try, and says nothing of it.
    own_fit = brewput.solve(Model.from_dict({
        "brewput": 1, "name": "g", "stations": {"s": {"servers": 1, "buffer": 3}},
        "classes": {"c": {"rate": 0.5, "route": [{"station": "s", "service": "gamma(1, 2)"}]}}}), method="ctmc")
    assert "hyperexponential" in own_fit["notes"][0] and not any("not tried" in n for n in own_fit["notes"])


def test_beyond_max_states_one_line_names_the_size_and_the_fields():
    with pytest.raises(Unsupported) as refused:
        brewput.solve(CENTRAL, method="ctmc", max_states=50)
    message = str(refused.value)
    assert "beyond --max-states 50" in message and "classes.job.population 6" in message and "\n" not in message


def test_an_open_class_that_may_hold_millions_is_refused_from_the_count_of_its_jobs_alone():
    # 10,000,001 numbers of jobs at the station already pass the limit; counting the ways
    # of the rest for millions of jobs took seconds (found by the floor's random models).
    model = Model.from_dict({
        "brewput": 1, "name": "wide", "stations": {"s": {"servers": 10_000_000, "buffer": 0}},
        "classes": {"walk_in": {"rate": 5.0, "route": [{"station": "s", "service": "exp(1)", "balk": [0.5]}]},
                    "regular": {"population": 1, "think": "exp(1)",
                                "route": [{"station": "s", "service": "exp(1)", "balk": [0.5]}]}}})
    with pytest.raises(Unsupported) as refused:
        brewput.solve(model, method="ctmc", max_states=1000)
    assert str(refused.value) == (
        "wide: its Markov chain has more than 1,000 states (counted from the model), beyond --max-states 1,000 "
        "(large by stations.s.servers 10,000,000, classes.regular.population 1); use brewput simulate, "
        "or a larger --max-states")
    assert sizing.state_bound(floor_of(model.compile(), "wide", constant_phases=1), beyond=1000) == math.inf


def test_what_the_chain_does_not_follow_is_refused_by_field():
    m = model({"s": {"servers": {"x": 1, "y": 1}}}, {"c": {"rate": 1, "route": [{"station": "s", "service": "exp(1)"}]}})
    with pytest.raises(Unsupported, match=r"stations.s.servers: typed servers is not in the state-space engine"):
        brewput.solve(m, method="ctmc")


ONCE_REFUSED = {  # refused before the chain (tests/test_corpus_solve.py, test_corpus_features.py held them)
    "blocking in a closed network": ("stations:\n  a: {buffer: 0}\n  b: {}\nclasses:\n  c:\n    population: 5\n"
                                     "    route:\n      - {station: a, service: 1}\n      - {station: b, service: 1}\n"),
    "a buffer beside other classes": ("stations:\n  a: {buffer: 1}\n  b: {}\nclasses:\n  c:\n    population: 5\n"
                                      "    route:\n      - {station: a, service: 1}\n  d:\n    population: 5\n"
                                      "    route:\n      - {station: b, service: 2}\n"),
    "a buffer shared by open and closed": ("stations:\n  a: {buffer: 1}\nclasses:\n  c:\n    population: 5\n"
                                           "    route:\n      - {station: a, service: 1}\n  o:\n    rate: 0.1\n"
                                           "    route:\n      - {station: a, service: 2}\n"),
    "a buffer visited twice": ("stations:\n  a: {buffer: 1}\nclasses:\n  c:\n    population: 5\n    route:\n"
                               "      - {station: a, service: 1}\n      - {station: a, service: 2}\n"),
    "an open feedback at a buffer": ("stations:\n  a: {buffer: 1}\nclasses:\n  c:\n    rate: 0.2\n    route:\n"
                                     "      - {id: x, station: a, service: 1, next: {x: 0.5, exit: 0.5}}\n"),
    "tokens at a closed first step": ("resources: {cups: 2}\nstations:\n  desk: {servers: 1}\n  bar: {servers: 2}\n"
                                      "classes:\n  a:\n    population: 4\n    route:\n"
                                      "      - {station: desk, service: exp(0.5), uses: [cups]}\n"
                                      "      - {station: bar, service: exp(0.2)}\n"),
    "tokens at a closed second step": ("resources: {cups: 2}\nstations:\n  desk: {servers: 1}\n  bar: {servers: 2}\n"
                                       "classes:\n  a:\n    population: 2\n    route:\n"
                                       "      - {station: desk, service: exp(0.5)}\n"
                                       "      - {station: bar, service: exp(0.2), uses: [cups]}\n"),
}


def test_auto_names_the_truncated_chain_where_it_alone_would_answer(tmp_path):
    # One token between two servers: an M/M/1 in all but name, open at an unbounded station.
    path = tmp_path / "m.yaml"
    path.write_text("brewput: 1\nresources: {cpu: 1}\nstations:\n  a: {servers: 2}\n"
                    "classes:\n  c:\n    rate: 0.5\n    route: [{station: a, service: exp(1), uses: [cpu]}]\n")
    with pytest.raises(Unsupported) as refused:
        brewput.solve(path)
    assert str(refused.value).endswith("(simultaneous possession) has no exact analytic solution here; use brewput "
                                       "simulate, or --method ctmc: its Markov chain, truncated where the open "
                                       "arrivals could pile up")
    res = brewput.solve(path, method="ctmc")
    assert res["classes"]["c"]["response_time"]["mean"] == pytest.approx(1 / (1 - 0.5), rel=1e-9)


@pytest.mark.parametrize("name", sorted(ONCE_REFUSED))
def test_what_solve_refused_the_chain_answers(name, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("brewput: 1\n" + ONCE_REFUSED[name])
    res = brewput.solve(path)
    assert res["method"] == "ctmc"
    if name == "a buffer shared by open and closed":  # the 5 closed customers keep a's 2 places full
        assert res["classes"].pop("o")["loss_probability"] == 1.0
    assert all(c["throughput"] > 0 and math.isfinite(c["response_time"]["mean"]) for c in res["classes"].values())
    # Constants are Erlang-k, marked; exponential laws are exact.
    assert all(c["exact"] == ("exp(" in ONCE_REFUSED[name]) for c in res["classes"].values())


def test_the_command_line_takes_max_states(tmp_path):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "brewput", "solve", "examples/central-server.yaml", "--method", "ctmc",
                          "--max-states", "10"], capture_output=True, text=True)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "beyond --max-states 10 " in run.stderr and "classes.job.population" in run.stderr
    run = subprocess.run([sys.executable, "-m", "brewput", "solve", "examples/mmc.yaml", "--max-states", "0"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "--max-states" in run.stderr and "positive whole number" in run.stderr


def test_a_model_that_deadlocks_is_refused_in_one_line():
    """Closed customers going a -> b and others b -> a, each station full: every one is
    blocked on the other (the simulator's DeadlockError)."""
    m = model({"a": {"servers": 1, "buffer": 1}, "b": {"servers": 2, "buffer": 0}},
              {"c": {"population": 5, "think": "exp(2)", "route": [{"station": "a", "service": "exp(0.5)"},
                                                                  {"station": "b", "service": "exp(1.5)"}]},
               "d": {"population": 2, "route": [{"station": "b", "service": "exp(1)"},
                                                {"station": "a", "service": "exp(0.3)"}]}})
    with pytest.raises(BrewputError, match=r"^m: the model deadlocks: its Markov chain reaches a state no event leaves"):
        brewput.solve(m, method="ctmc")


def test_an_unbounded_open_station_is_truncated_below_1e12_and_is_erlang_c_to_1e9():
    m = model({"s": {"servers": 2}}, {"c": {"rate": 1.5, "route": [{"station": "s", "service": "exp(1)"}]}})
    chain, erlang = brewput.solve(m, method="ctmc"), brewput.solve(m)
    assert erlang["method"] == "erlang-c" and chain["classes"]["c"]["exact"]
    assert "open arrivals truncated at" in " ".join(chain["notes"]) and "loss_probability" not in chain["classes"]["c"]
    for times in ("response_time", "waiting_time"):
        assert close(chain["classes"]["c"][times]["mean"], erlang["classes"]["c"][times]["mean"], 1e-9)
    assert close(chain["stations"]["s"]["queue_length"], erlang["stations"]["s"]["queue_length"], 1e-9)


def test_an_open_jackson_network_by_its_chain_is_jackson_to_1e9():
    m = model({"a": {"servers": 1}, "b": {"servers": 1}},
              {"c": {"rate": 0.5, "route": [{"id": "a", "station": "a", "service": "exp(0.8)"},
                                            {"station": "b", "service": "exp(1)", "next": {"a": 0.2, "exit": 0.8}}]}})
    chain, jackson = brewput.solve(m, method="ctmc"), brewput.solve(m)
    assert jackson["method"] == "jackson"
    assert close(chain["classes"]["c"]["response_time"]["mean"], jackson["classes"]["c"]["response_time"]["mean"], 1e-9)
    for name in ("a", "b"):
        assert close(chain["stations"][name]["queue_length"], jackson["stations"][name]["queue_length"], 1e-9)


def test_m_ek_1_is_pollaczek_khinchine_exactly_and_m_d_1_by_its_last_k():
    def pk_wait(lam, mean, scv):
        rho = lam * mean
        return rho * mean * (1 + scv) / 2 / (1 - rho)

    erlang = model({"s": {}}, {"c": {"rate": 0.7, "route": [{"station": "s", "service": "erlang(4, 1)"}]}})
    res = brewput.solve(erlang, method="ctmc")
    assert res["classes"]["c"]["exact"]
    assert close(res["classes"]["c"]["waiting_time"]["mean"], pk_wait(0.7, 1, 1 / 4), 1e-9)
    constant = model({"s": {}}, {"c": {"rate": 0.7, "route": [{"station": "s", "service": 1}]}})
    res = brewput.solve(constant, method="ctmc")
    k = int(res["notes"][0].split("as Erlang-")[1].split()[0])
    assert not res["classes"]["c"]["exact"] and k >= 16
    # The chain at Erlang-k is M/E_k/1 exactly, within (1 - 1/k) / 2 of M/D/1's wait.
    assert close(res["classes"]["c"]["waiting_time"]["mean"], pk_wait(0.7, 1, 1 / k), 1e-9)
