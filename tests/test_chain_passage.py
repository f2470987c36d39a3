"""`solve --method ctmc --quantile/--within`: response- and waiting-time laws from the
tagged customer's passage through the chain, against truths computed here: M/M/1's and
M/M/c's closed forms, M/M/c/K's and a blocking tandem's tagged chains built by hand and
integrated with scipy's dense expm, a closed repairman by the arrival theorem, and the
simulator's interval on a model only the chain solves."""
import math

import numpy as np
import pytest
from scipy import integrate, linalg, optimize
from scipy.stats import t as student_t

import brewput
from brewput.analytic.chain.floor import floor_of
from brewput.analytic.chain.solve import solve_chain
from brewput.analytic.chain.tagged import behind_never_matters
from brewput.analytic.network import network
from brewput.model import as_model
from brewput.percentiles import NAMED
from conftest import check
from markov import stationary

PERCENTS = [p for _, p in NAMED] + [80]
TIMES = [0.0, 0.5, 1.0, 2.0, 5.0, 10.0]


def one_station(c, lam, s, buffer=None):
    station = {"servers": c} if buffer is None else {"servers": c, "buffer": buffer}
    return {"brewput": 1, "name": "m", "stations": {"s": station},
            "classes": {"c": {"rate": lam, "route": [{"station": "s", "service": f"exp({s})"}]}}}


def quantile_of(cdf, q):
    if cdf(0.0) >= q:
        return 0.0
    hi = 1.0
    while cdf(hi) < q:
        hi *= 2
    return optimize.brentq(lambda t: cdf(t) - q, 0.0, hi, xtol=1e-14, rtol=1e-13)


def agrees(times: dict, cdf, rel=1e-8):
    """The block's fixed and asked percentiles and its P(<= t) are those of `cdf`."""
    for percent in PERCENTS:
        key = brewput.percentiles.name(percent)
        assert times[key] == pytest.approx(quantile_of(cdf, percent / 100), rel=rel, abs=1e-9), key
    for t, share in times["within"]:
        assert share == pytest.approx(cdf(t), rel=rel, abs=1e-10), t


def solved(m, **options):
    return brewput.solve(m, method="ctmc", quantiles=[80], within=TIMES, **options)


def erlang_c(c, a):
    terms = [a ** k / math.factorial(k) for k in range(c)]
    last = a ** c / math.factorial(c) * c / (c - a)
    return last / (sum(terms) + last)


def test_mm1_response_is_exponential_and_its_wait_has_an_atom():
    lam, mu = 0.8, 1.0
    res = solved(one_station(1, lam, 1 / mu))
    c = res["classes"]["c"]
    assert c["law"] == {"exact": True, "method": "ctmc"}
    agrees(c["response_time"], lambda t: 1 - math.exp(-(mu - lam) * t))
    agrees(c["waiting_time"], lambda t: 1 - lam / mu * math.exp(-(mu - lam) * t))
    far = brewput.solve(one_station(1, lam, 1 / mu), method="ctmc", within=[1e6])["classes"]["c"]
    assert far["response_time"]["within"] == [[1e6, 1.0]]  # its chain made discrete ends long before L t steps


@pytest.mark.parametrize("c, lam, s", [(3, 2.5, 1.0), (2, 1.2, 0.5)])
def test_mmc_wait_is_erlang_c_and_the_response_adds_a_service(c, lam, s):
    mu = 1 / s
    C, gamma = erlang_c(c, lam * s), c * mu - lam
    res = solved(one_station(c, lam, s))["classes"]["c"]

    def response(t):  # W + S: no wait with 1 - C, else Exp(gamma) + Exp(mu), independent
        both = (mu * math.exp(-gamma * t) - gamma * math.exp(-mu * t)) / (mu - gamma)
        return 1 - (1 - C) * math.exp(-mu * t) - C * both

    agrees(res["waiting_time"], lambda t: 1 - C * math.exp(-gamma * t))
    agrees(res["response_time"], response)


def test_an_open_jackson_tandem_is_reichs_sum_of_independent_sojourns():
    """Two one-server FIFO stations, Poisson arrivals, unbounded (the chain truncated): the
    sojourns at each are independent Exp(mu_i - lam) (Reich 1957), their sum hypoexponential."""
    lam, mu_a, mu_b = 0.3, 1.0, 1.2
    m = {"brewput": 1, "name": "jackson", "stations": {"a": {"servers": 1}, "b": {"servers": 1}},
         "classes": {"c": {"rate": lam, "route": [{"station": "a", "service": f"exp({1 / mu_a})"},
                                                  {"station": "b", "service": f"exp({1 / mu_b})"}]}}}
    a, b = mu_a - lam, mu_b - lam
    c = solved(m)["classes"]["c"]
    agrees(c["response_time"], lambda t: 1 - (b * math.exp(-a * t) - a * math.exp(-b * t)) / (b - a))


def absorbing_cdf(start, generator):
    """P(T <= t) of the absorbing time from `start` under the transient `generator`, by dense expm."""
    start, generator = np.asarray(start, float), np.asarray(generator, float)
    return lambda t: 1.0 - float(start @ linalg.expm(generator * t) @ np.ones(len(start)))


@pytest.mark.parametrize("lam, mu, c, cap", [(0.9, 1.0, 1, 4), (2.4, 1.0, 2, 5)])
def test_mmck_is_the_tagged_chain_by_hand(lam, mu, c, cap):
    """M/M/c with room for cap: an arrival finding n < cap (PASTA, those admitted) waits
    through n - c + 1 departures at rate c mu when n >= c, then its own Exp(mu)."""
    births = [lam] * cap
    pi = stationary([n for n in range(cap)] + [n + 1 for n in range(cap)],
                    [n + 1 for n in range(cap)] + [n for n in range(cap)],
                    births + [min(n + 1, c) * mu for n in range(cap)], cap + 1)
    found = pi[:cap] / pi[:cap].sum()
    # phases: 0 in service, j >= 1 waiting for j more departures; from j to j - 1 at c mu
    phases = cap - c + 1
    q = np.zeros((phases, phases))
    q[0, 0] = -mu
    for j in range(1, phases):
        q[j, j], q[j, j - 1] = -c * mu, c * mu
    start = np.zeros(phases)
    for n, p in enumerate(found):
        start[max(n - c + 1, 0)] += p
    res = solved(one_station(c, lam, 1 / mu, buffer=cap - c))["classes"]["c"]
    agrees(res["response_time"], absorbing_cdf(start, q))
    waits = np.where(np.arange(phases) > 0)[0]
    agrees(res["waiting_time"], absorbing_cdf(start[waits], q[np.ix_(waits, waits)]))


def tandem_tagged_by_hand(lam, mu_a, mu_b, cap_a, cap_b, stretch=1.0):
    """A then B, one server each, cap_a and cap_b present, blocking after service at A:
    the tagged arrival's chain, keeping only what is ahead of it (FIFO: those behind never
    matter). States ("A", k ahead at A (0: the tagged itself is served or blocked), jobs at
    B, A's head blocked) and ("B", k ahead at B). (start, generator, waiting) over them;
    `stretch` speeds up every state but the waiting ones (their time -> 0: the waits' law)."""
    system = [(a, b, blk) for a in range(cap_a + 1) for b in range(cap_b + 1) for blk in (0, 1)
              if not blk or (a >= 1 and b == cap_b)]
    index = {s: i for i, s in enumerate(system)}
    rows, cols, rates = [], [], []
    for a, b, blk in system:
        moves = []
        if a < cap_a:
            moves.append(((a + 1, b, blk), lam))
        if a >= 1 and not blk:
            moves.append(((a - 1, b + 1, 0) if b < cap_b else (a, b, 1), mu_a))
        if b >= 1:
            moves.append(((a - 1, b, 0) if blk else (a, b - 1, 0), mu_b))
        for target, rate in moves:
            rows.append(index[(a, b, blk)]), cols.append(index[target]), rates.append(rate)
    pi = dict(zip(system, stationary(rows, cols, rates, len(system))))
    states = [("A", k, b, blk) for k in range(cap_a) for b in range(cap_b + 1) for blk in (0, 1)
              if not blk or b == cap_b] + [("B", k) for k in range(cap_b)]
    at = {s: i for i, s in enumerate(states)}
    q = np.zeros((len(states), len(states)))
    waiting = np.array([s[1] >= 1 for s in states])

    def move(s, t, rate):
        q[at[s], at[s]] -= rate
        if t is not None:
            q[at[s], at[t]] += rate

    for s in states:
        if s[0] == "B":
            move(s, ("B", s[1] - 1) if s[1] else None, mu_b)
            continue
        _, k, b, blk = s
        if not blk:  # A's head (the tagged when k = 0) ends its service
            if b < cap_b:
                move(s, ("A", k - 1, b + 1, 0) if k else ("B", b), mu_a)
            else:
                move(s, ("A", k, b, 1), mu_a)
        if b >= 1:  # B's job leaves; a blocked head of A takes its place
            if blk:
                move(s, ("A", k - 1, b, 0) if k else ("B", b - 1), mu_b)
            else:
                move(s, ("A", k, b - 1, 0), mu_b)
    q[~waiting] *= stretch
    start = np.zeros(len(states))
    admitted = sum(p for (a, _, _), p in pi.items() if a < cap_a)
    for (a, b, blk), p in pi.items():
        if a < cap_a:
            start[at[("A", a, b, blk)]] += p / admitted
    return start, q, waiting


def test_a_blocking_tandem_is_the_tagged_chain_by_hand():
    """The wait here is at A and again at B: the censored chain, against the tagged chain
    by hand whose other states are sped up 10^7 times (their time -> 0)."""
    m = {"brewput": 1, "name": "tandem", "stations": {"a": {"servers": 1, "buffer": 2}, "b": {"servers": 1, "buffer": 1}},
         "classes": {"c": {"rate": 0.9, "route": [{"station": "a", "service": "exp(0.8)"},
                                                  {"station": "b", "service": "exp(1)"}]}}}
    res = solved(m)
    assert res["method"] == "ctmc"
    c = res["classes"]["c"]
    start, q, _ = tandem_tagged_by_hand(0.9, 1 / 0.8, 1.0, 3, 2)
    agrees(c["response_time"], absorbing_cdf(start, q))
    start, q, waiting = tandem_tagged_by_hand(0.9, 1 / 0.8, 1.0, 3, 2, stretch=1e7)
    served = ~waiting  # at t = 0, the share never waiting: done from the states not waiting, never entering one
    never = np.linalg.solve(-q[np.ix_(served, served)], -q[served].sum(axis=1))
    stretched = absorbing_cdf(start, q)
    agrees(c["waiting_time"], lambda t: start[served] @ never if t == 0 else stretched(t), rel=1e-5)
    assert c["waiting_time"]["p50"] > 0  # half of them wait: the law's atom at 0 is below one half


def test_a_closed_customer_per_cycle_by_the_arrival_theorem():
    """The repairman: 4 machines, think exp(3), one FIFO server exp(1): one who comes
    back finds the chain of 3 (arrival theorem) and waits for those ahead, Erlang."""
    n, think, s = 4, 3.0, 1.0
    m = {"brewput": 1, "name": "repair", "stations": {"s": {"servers": 1}},
         "classes": {"c": {"population": n, "think": f"exp({think})", "route": [{"station": "s", "service": f"exp({s})"}]}}}
    seen = [math.factorial(n - 1) / math.factorial(n - 1 - k) * (s / think) ** k for k in range(n)]
    seen = np.array(seen) / sum(seen)
    mu = 1 / s

    def erlang_cdf(k, t):  # k phases of rate mu
        return 1 - sum(math.exp(-mu * t) * (mu * t) ** i / math.factorial(i) for i in range(k))

    c = solved(m)["classes"]["c"]
    agrees(c["response_time"], lambda t: sum(p * erlang_cdf(k + 1, t) for k, p in enumerate(seen)))
    agrees(c["waiting_time"], lambda t: seen[0] + sum(p * erlang_cdf(k, t) for k, p in enumerate(seen) if k))


def test_a_tagged_chain_too_large_or_too_stiff_gives_nulls_and_says_why(monkeypatch):
    m = one_station(1, 0.9, 1.0, buffer=9)  # 11 states; its tagged chain has more (a priority station:
    m["stations"]["s"]["discipline"] = "priority"  # who comes later may matter, so arrivals are kept)
    res = brewput.solve(m, method="ctmc", max_states=20, quantiles=[80])
    c = res["classes"]["c"]
    assert c["response_time"]["p80"] is None and c["waiting_time"]["p50"] is None and c["law"] is None
    assert "c: no percentiles or service levels: its tagged customer's chain has more than 20 states" in res["notes"]
    monkeypatch.setattr("brewput.analytic.chain.passage.WORK", 100)
    res = brewput.solve(m, method="ctmc", within=[1.0])
    c = res["classes"]["c"]
    assert c["response_time"]["p999"] is None and c["response_time"]["within"] == [[1.0, None]]
    assert any("rates are too unlike" in note for note in res["notes"])


def test_a_closed_customer_without_think_per_cycle_by_the_arrival_theorem():
    """N customers cycling through two one-server stations, no think: one who starts a cycle
    (the moment it ends the last) sees the network of N - 1 (product form), waits at 1 for
    those ahead while the others at 2 come back behind it, then at 2 for those there."""
    n, mu1, mu2 = 4, 1.0, 1.5
    m = {"brewput": 1, "name": "cycle", "stations": {"one": {"servers": 1}, "two": {"servers": 1}},
         "classes": {"c": {"population": n, "route": [{"station": "one", "service": f"exp({1 / mu1})"},
                                                       {"station": "two", "service": f"exp({1 / mu2})"}]}}}
    seen = np.array([(1 / mu1) ** k * (1 / mu2) ** (n - 1 - k) for k in range(n)])
    seen /= seen.sum()
    # ("one", ahead at one, at two) then ("two", ahead at two)
    states = [("one", k, j) for k in range(n) for j in range(n - k)] + [("two", j) for j in range(n)]
    at = {st: i for i, st in enumerate(states)}

    def chain(stretch):
        q = np.zeros((len(states), len(states)))

        def move(a, b, rate):
            q[at[a], at[a]] -= rate
            if b is not None:
                q[at[a], at[b]] += rate

        for st in states:
            if st[0] == "two":
                move(st, ("two", st[1] - 1) if st[1] else None, mu2)
                continue
            _, k, j = st
            move(st, ("one", k - 1, j + 1) if k else ("two", j), mu1)
            if j:
                move(st, ("one", k, j - 1), mu2)
        waiting = np.array([st[1] >= 1 for st in states])
        q[~waiting] *= stretch
        return q, waiting

    start = np.zeros(len(states))
    for k, p in enumerate(seen):
        start[at[("one", k, n - 1 - k)]] = p
    c = solved(m)["classes"]["c"]
    q, _ = chain(1.0)
    agrees(c["response_time"], absorbing_cdf(start, q))
    q, waiting = chain(1e7)
    never = np.linalg.solve(-q[np.ix_(~waiting, ~waiting)], -q[~waiting].sum(axis=1))
    stretched = absorbing_cdf(start, q)
    agrees(c["waiting_time"], lambda t: start[~waiting] @ never if t == 0 else stretched(t), rel=1e-5)


ONE_STATION = {"brewput": 1, "name": "two kinds", "stations": {"s": {"servers": 2, "buffer": 4}},
               "classes": {"short": {"rate": 1.0, "route": [{"station": "s", "service": "exp(0.5)"}]},
                           "long": {"rate": 0.4, "route": [{"station": "s", "service": "hyperexp(2, 2)"}]}}}
LINE = {"brewput": 1, "name": "line", "stations": {"a": {"servers": 1, "buffer": 1}, "b": {"servers": 1, "buffer": 1},
                                                   "x": {"servers": 1, "buffer": 1}},
        "classes": {"c": {"rate": 0.5, "route": [{"station": "a", "service": "exp(0.8)", "next": {"b": 0.8, "exit": 0.2}},
                                                 {"id": "b", "station": "b", "service": "exp(1)"}]},
                    "e": {"rate": 0.3, "route": [{"station": "a", "service": "exp(0.5)"}]},       # behind, then out
                    "f": {"rate": 0.2, "route": [{"station": "x", "service": "exp(1)"}]},         # elsewhere
                    "g": {"population": 1, "think": "exp(3)", "route": [{"station": "b", "service": "exp(0.5)"}]}}}


@pytest.mark.parametrize("m", [ONE_STATION, LINE], ids=["one-fifo-station", "a-line-of-one-server-stations"])
def test_leaving_out_the_arrivals_behind_changes_nothing(monkeypatch, m):
    """Where nobody who comes later reaches the tagged customer (one FIFO station; a line of
    one-server FIFO stations that others enter only at its start), its chain without
    arrivals gives the law the whole chain gives."""
    fast = solved(m)
    monkeypatch.setattr("brewput.analytic.chain.tagged.behind_never_matters", lambda floor, c: False)
    whole = solved(m)
    for name, klass in whole["classes"].items():
        for times in ("response_time", "waiting_time"):
            for key, value in klass[times].items():
                if key != "within":
                    assert fast["classes"][name][times][key] == pytest.approx(value, rel=1e-9), (name, times, key)
            for (_, share), (_, again) in zip(klass[times]["within"], fast["classes"][name][times]["within"]):
                assert again == pytest.approx(share, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("change, reaches", [
    ({}, False),
    ({"stations": {"a": {"servers": 2}}}, True),                       # passed at a two-server station
    ({"stations": {"b": {"discipline": "priority"}}}, True),           # passed by priority
    ({"classes": {"f": {"route": [{"station": "b", "service": "exp(1)"}]}}}, True),   # enters the line past its start
    ({"resources": {"t": 1},                                           # a token
      "classes": {"f": {"route": [{"station": "x", "service": "exp(1)", "uses": ["t"]}]}}}, True),
])
def test_who_comes_later_reaches_the_tagged_customer(change, reaches):
    floor = floor_of(as_model(deep_update(LINE, change)).compile(), "line", constant_phases=1)
    assert behind_never_matters(floor, 0) is not reaches


def deep_update(base, change):
    out = {**base, **change}
    for k, v in base.items():
        if isinstance(v, dict) and isinstance(change.get(k), dict):
            out[k] = deep_update(v, change[k])
    return out


def test_a_fitted_constant_says_how_far_its_percentiles_moved_from_the_last_k():
    """A constant service is Erlang-k, k doubling while the chain is small: the note gives the
    response's p50 and p99 change from the k before, the same as the two Erlang laws solved
    exactly, each on its own."""
    def station(service):
        return {"brewput": 1, "name": "md1", "stations": {"s": {"servers": 1, "buffer": 3}},
                "classes": {"c": {"rate": 0.8, "route": [{"station": "s", "service": service}]}}}

    fitted = solved(station("const(1)"))
    assert fitted["classes"]["c"]["law"] == {"exact": False, "method": "ctmc"}
    note = next(n for n in fitted["notes"] if n.startswith("from Erlang-"))
    before, after = (int(k) for k in note[len("from Erlang-"):].split(":")[0].split(" to Erlang-"))
    assert after == 2 * before
    old, new = (solved(station(f"erlang({k}, 1)"))["classes"]["c"] for k in (before, after))
    assert new["response_time"]["p99"] == pytest.approx(fitted["classes"]["c"]["response_time"]["p99"], rel=1e-9)
    moved = [f"{key} {100 * (new['response_time'][key] - old['response_time'][key]) / old['response_time'][key]:+.2g} %"
             for key in ("p50", "p99")]
    assert note.endswith(f"; c response {moved[0]}, {moved[1]}"), note
    plain = brewput.solve(station("const(1)"), method="ctmc")
    assert "p99" not in next(n for n in plain["notes"] if n.startswith("from Erlang-"))


def test_laws_are_computed_only_when_asked():
    plain = brewput.solve(one_station(1, 0.5, 1.0), method="ctmc")["classes"]["c"]
    assert "law" not in plain and "p50" not in plain["response_time"]


def level_covers(sim, name, times, share):
    """The simulated P(<= t) of class `name` covers `share`: its 95 % interval widened to
    99.9 % (conftest's rule for the figures of one run checked together)."""
    (low, high), r = sim["classes"][name][times]["within_ci"][0], sim["settings"]["replications"]
    half = (high - low) / 2 * student_t.ppf(0.9995, r - 1) / student_t.ppf(0.975, r - 1)
    assert abs(sim["classes"][name][times]["within"][0][1] - share) <= half, (name, times, share, low, high)


def test_the_simulator_covers_the_blocking_tandem():
    """A buffer inside a network: only the chain solves it; the simulator's percentiles
    and service levels cover its laws."""
    m = {"brewput": 1, "name": "tandem", "stations": {"a": {"servers": 1, "buffer": 2}, "b": {"servers": 1, "buffer": 0}},
         "classes": {"c": {"rate": 0.9, "route": [{"station": "a", "service": "exp(0.8)"},
                                                  {"station": "b", "service": "exp(1)"}]}}}
    exact = brewput.solve(m, quantiles=[80], within=[2.0])
    assert exact["method"] == "ctmc" and exact["classes"]["c"]["law"]["exact"]
    sim = brewput.simulate(m, customers=100_000, replications=10, seed=11, quantiles=[80], within=[2.0])
    for times in ("response_time", "waiting_time"):
        for key in ("p50", "p90", "p80"):
            # the histograms keep three significant digits
            check(sim, ("classes", "c", times, key), exact["classes"]["c"][times][key],
                  resolution=2e-3 * exact["classes"]["c"][times][key])
        level_covers(sim, "c", times, exact["classes"]["c"][times]["within"][0][1])


MULTI = {"brewput": 1, "name": "multi", "resources": {"till": 1},
         "stations": {"a": {"servers": 2, "buffer": 2, "discipline": "priority"}, "b": {"servers": 1, "buffer": 1}},
         "classes": {"urgent": {"rate": 0.6, "priority": 2, "route": [{"station": "a", "service": "exp(1)", "uses": ["till"]}]},
                     "routine": {"rate": 0.9, "priority": 1, "route": [{"station": "a", "service": "exp(0.8)"},
                                                                     {"station": "b", "service": "exp(0.9)", "uses": ["till"]}]},
                     "staff": {"population": 2, "think": "exp(5)", "route": [{"station": "b", "service": "exp(0.5)"}]}}}


OUTSIDE = {"brewput": 1, "name": "outside", "stations": {"a": {"servers": 1, "buffer": 1}, "b": {"servers": 2, "buffer": 0}},
           "classes": {"c": {"population": 5, "think": "exp(2)", "route": [{"station": "a", "service": "exp(0.5)"},
                                                                         {"station": "b", "service": "erlang(2, 1.5)"}]},
                       "d": {"population": 2, "think": "exp(1)", "route": [{"station": "b", "service": "exp(1)"}]}}}


FEEDBACK = {"brewput": 1, "name": "feedback", "stations": {"s": {"servers": 1, "buffer": 5}},
            "classes": {"c": {"rate": 0.5, "route": [{"id": "s", "station": "s", "service": "exp(0.5)",
                                                      "next": {"s": 0.4, "exit": 0.6}}]}}}


@pytest.mark.parametrize("m", [MULTI, OUTSIDE, FEEDBACK],
                         ids=["priority-token-blocking", "outside-a-full-station", "fed-back-behind-later-arrivals"])
def test_the_laws_means_are_littles_on_every_rule(m):
    """The mean of each law (its survival integrated) is the chain's mean by Little's law,
    reached another way (time averages of the numbers present): on a priority station, a
    token, blocking and a closed class; on closed customers who wait outside a full
    station, blocked behind Erlang services; and on one station whose customers, fed back,
    queue again behind those who came after them (so their arrivals are kept)."""
    model = as_model(m)
    sol = solve_chain(model, network(model), passages=True)
    for c, laws in sol.laws.items():
        for law, mean in ((laws.response, sol.response_time[c]), (laws.waiting, sol.waiting_time[c])):
            end = law.quantile(1 - 1e-13)  # beyond it the survival adds under 1e-12
            integrated = integrate.quad(lambda t: 1 - law.cdf(t), 0, end, limit=500, epsabs=1e-12, epsrel=1e-10)[0]
            assert integrated == pytest.approx(mean, rel=1e-7)


def test_the_simulator_covers_priority_tokens_blocking_and_a_closed_class():
    """Every rule the tagged customer meets (a priority station, a till token held at b,
    blocking into b, closed staff who also use b) against the simulator's intervals."""
    m = MULTI
    exact = brewput.solve(m, method="ctmc", quantiles=[80], within=[2.0])
    sim = brewput.simulate(m, customers=100_000, replications=10, seed=7, quantiles=[80], within=[2.0])
    for name, klass in exact["classes"].items():
        assert klass["law"] == {"exact": True, "method": "ctmc"}
        for times in ("response_time", "waiting_time"):
            for key in ("p50", "p80", "p90"):
                check(sim, ("classes", name, times, key), klass[times][key], resolution=2e-3 * klass[times][key])
            level_covers(sim, name, times, klass[times]["within"][0][1])
