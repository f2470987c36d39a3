"""Priorities per class (analytic/priority.py) against independent truths:
truncated Markov chains of two-class M/M/1 and M/M/2 stations, preemptive and
non-preemptive, solved with scipy; the conservation laws of work-conserving
M/G/1 disciplines; and the limits (one level is FCFS, the top class alone)."""
import itertools

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.linalg import spsolve

from brewput.analytic import queues
from brewput.analytic.priority import non_preemptive, preemptive_repeat, preemptive_resume

CUT = 70  # jobs per class kept in the chains: at total load 0.7 the tail beyond is below 1e-9


def steady_state(states, transitions):
    """The stationary distribution of the chain whose `transitions(state)` yields
    (next state, rate), over `states` (kept where both ends are in it)."""
    index = {s: i for i, s in enumerate(states)}
    rows, cols, rates = [], [], []
    for s in states:
        for t, rate in transitions(s):
            if rate > 0 and t in index:
                rows.append(index[s])
                cols.append(index[t])
                rates.append(rate)
    n = len(states)
    q = sparse.coo_matrix((rates, (rows, cols)), shape=(n, n)).tocsr()
    q = q - sparse.diags(np.asarray(q.sum(axis=1)).ravel())
    a = q.T.tolil()
    a[0, :] = 1.0  # replace one balance equation by the normalisation
    b = np.zeros(n)
    b[0] = 1.0
    return spsolve(a.tocsc(), b)


def mm1_preemptive(lam, mu):
    """Two classes at one server, class 0 preempting class 1: state (n0, n1)."""
    states = list(itertools.product(range(CUT + 1), repeat=2))

    def transitions(s):
        n0, n1 = s
        yield (n0 + 1, n1), lam[0]
        yield (n0, n1 + 1), lam[1]
        if n0:
            yield (n0 - 1, n1), mu[0]
        elif n1:
            yield (n0, n1 - 1), mu[1]

    p = steady_state(states, transitions)
    return [sum(pi * s[k] for pi, s in zip(p, states)) for k in (0, 1)]


def mm1_non_preemptive(lam, mu):
    """Two classes at one server, class 0 first when the server frees: state
    (waiting 0, waiting 1, class in service or None)."""
    states = [(0, 0, None)] + [(q0, q1, j) for q0 in range(CUT + 1) for q1 in range(CUT + 1) for j in (0, 1)]

    def transitions(s):
        q0, q1, j = s
        if j is None:
            yield (0, 0, 0), lam[0]
            yield (0, 0, 1), lam[1]
            return
        yield (q0 + 1, q1, j), lam[0]
        yield (q0, q1 + 1, j), lam[1]
        yield ((q0 - 1, q1, 0) if q0 else (q0, q1 - 1, 1) if q1 else (0, 0, None)), mu[j]

    p = steady_state(states, transitions)
    return [sum(pi * s[k] for pi, s in zip(p, states)) for k in (0, 1)]  # jobs waiting per class


def mm2_preemptive(lam, mu):
    """Two classes at two servers of one rate: state (n0, n1); class 0 takes
    min(n0, 2) servers, class 1 the rest."""
    states = list(itertools.product(range(CUT + 1), repeat=2))

    def transitions(s):
        n0, n1 = s
        yield (n0 + 1, n1), lam[0]
        yield (n0, n1 + 1), lam[1]
        busy0 = min(n0, 2)
        yield (n0 - 1, n1), busy0 * mu
        yield (n0, n1 - 1), min(n1, 2 - busy0) * mu

    p = steady_state(states, transitions)
    return [sum(pi * s[k] for pi, s in zip(p, states)) for k in (0, 1)]


def mm2_non_preemptive(lam, mu):
    """Two classes at two servers of one rate, class 0 first when a server frees:
    state (waiting 0, waiting 1, busy servers); nobody waits while one is idle."""
    states = [(0, 0, b) for b in range(2)] + [(q0, q1, 2) for q0 in range(CUT + 1) for q1 in range(CUT + 1)]

    def transitions(s):
        q0, q1, b = s
        if b < 2:
            yield (0, 0, b + 1), lam[0] + lam[1]
            if b:
                yield (0, 0, b - 1), b * mu
            return
        yield (q0 + 1, q1, 2), lam[0]
        yield (q0, q1 + 1, 2), lam[1]
        yield ((q0 - 1, q1, 2) if q0 else (q0, q1 - 1, 2) if q1 else (0, 0, 1)), 2 * mu

    p = steady_state(states, transitions)
    return [sum(pi * s[k] for pi, s in zip(p, states)) for k in (0, 1)]


@pytest.mark.parametrize("lam, s", [((0.3, 0.4), (1.0, 1.0)), ((0.2, 0.5), (0.5, 1.2)), ((0.5, 0.1), (1.0, 2.0))])
def test_mm1_preemptive_resume_matches_its_chain(lam, s):
    truth = mm1_preemptive(lam, [1 / x for x in s])
    result = preemptive_resume(lam, s, [1.0, 1.0], [2, 1])
    assert result.in_system == pytest.approx(truth, rel=1e-7)
    # Restarting with a new exponential draw is resuming: the same numbers.
    assert preemptive_repeat(lam, s, [2, 1]) == result


@pytest.mark.parametrize("lam, s", [((0.3, 0.4), (1.0, 1.0)), ((0.2, 0.5), (0.5, 1.2)), ((0.5, 0.1), (1.0, 2.0))])
def test_mm1_non_preemptive_matches_its_chain(lam, s):
    truth = mm1_non_preemptive(lam, [1 / x for x in s])
    result = non_preemptive(lam, s, [1.0, 1.0], [2, 1])
    assert result.in_queue == pytest.approx(truth, rel=1e-7)


@pytest.mark.parametrize("lam, s", [((0.5, 0.8), 1.0), ((0.9, 0.3), 0.5), ((0.1, 1.2), 1.0)])
def test_mm2_priorities_with_one_rate_match_their_chains(lam, s):
    preemptive = preemptive_resume(lam, (s, s), (1.0, 1.0), (1, 0), c=2)
    assert preemptive.in_system == pytest.approx(mm2_preemptive(lam, 1 / s), rel=1e-7)
    waiting = non_preemptive(lam, (s, s), (1.0, 1.0), (1, 0), c=2)
    assert waiting.in_queue == pytest.approx(mm2_non_preemptive(lam, 1 / s), rel=1e-7)


LAMS, MEANS, SCVS = (0.1, 0.2, 0.15), (1.0, 0.5, 2.0), (4.0, 0.0, 0.5)  # load 0.5, far from exponential


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_non_preemptive_waits_keep_kleinrocks_conservation_law(order):
    # sum_k rho_k Wq_k = rho Wq(FCFS) for every order blind to service times (M/G/1).
    result = non_preemptive(LAMS, MEANS, SCVS, order)
    lam = sum(LAMS)
    mean = sum(r * s for r, s in zip(LAMS, MEANS)) / lam
    cs2 = sum(r * s * s * (1 + v) for r, s, v in zip(LAMS, MEANS, SCVS)) / lam / mean**2 - 1
    fcfs = queues.pollaczek_khinchine(lam, mean, cs2).wait
    rho = [r * s for r, s in zip(LAMS, MEANS)]
    assert sum(p * w for p, w in zip(rho, result.wait)) == pytest.approx(sum(rho) * fcfs, rel=1e-12)


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_preemptive_resume_keeps_the_work_in_the_system(order):
    result = preemptive_resume(LAMS, MEANS, SCVS, order)
    rho = [r * s for r, s in zip(LAMS, MEANS)]
    top, bottom = order.index(2), order.index(0)
    # The top class sees nobody: M/G/1 of its own, by Pollaczek-Khinchine.
    alone = queues.pollaczek_khinchine(LAMS[top], MEANS[top], SCVS[top])
    assert result.response[top] == pytest.approx(alone.response, rel=1e-12)
    # The bottom class leaves once all the work present at its arrival (the same
    # for every work-conserving order: the FCFS wait, by Poisson arrivals seeing
    # time averages) and its own, stretched by the arrivals above it, are done.
    lam = sum(LAMS)
    mean = sum(r * s for r, s in zip(LAMS, MEANS)) / lam
    cs2 = sum(r * s * s * (1 + v) for r, s, v in zip(LAMS, MEANS, SCVS)) / lam / mean**2 - 1
    work = queues.pollaczek_khinchine(lam, mean, cs2).wait
    above = sum(rho) - rho[bottom]
    assert result.response[bottom] == pytest.approx((work + MEANS[bottom]) / (1 - above), rel=1e-12)


def test_one_priority_level_is_fcfs_and_preemption_moves_no_total_at_one_rate():
    lam, s = (0.2, 0.3, 0.25), (0.8, 0.8, 0.8)
    fcfs = queues.mmc(sum(lam), 0.8, 1)
    for solve in (non_preemptive, preemptive_resume):
        level = solve(lam, s, (1, 1, 1), (0, 0, 0))
        assert level.response == pytest.approx((fcfs.response,) * 3, rel=1e-12)
    for c in (1, 3):
        total = queues.mmc(sum(lam), 0.8, c).in_system
        for solve in (non_preemptive, preemptive_resume):
            assert sum(solve(lam, s, (1, 1, 1), (2, 0, 1), c=c).in_system) == pytest.approx(total, rel=1e-12)


def test_classes_of_one_level_share_it_and_a_level_above_preempts_them():
    # Levels {0, 1} above {2}: classes 0 and 1, one rate, together are one class of rate 0.5.
    split = preemptive_resume((0.2, 0.3, 0.25), (1.0,) * 3, (1.0,) * 3, (5, 5, 1), c=2)
    merged = preemptive_resume((0.5, 0.25), (1.0,) * 2, (1.0,) * 2, (5, 1), c=2)
    assert split.response[0] == split.response[1] == pytest.approx(merged.response[0], rel=1e-12)
    assert split.response[2] == pytest.approx(merged.response[1], rel=1e-12)


@pytest.mark.parametrize("call, problem", [
    (lambda: preemptive_resume((0.5, 0.6), (1.0, 1.0), (1.0, 1.0), (1, 0)), "no steady state"),
    (lambda: non_preemptive((0.5, 0.6), (1.0, 2.0), (1.0, 1.0), (1, 0), c=2), "one exponential service mean"),
    (lambda: preemptive_resume((0.5, 0.6), (1.0, 1.0), (1.0, 0.5), (1, 0), c=2), "one exponential service mean"),
    (lambda: non_preemptive((0.5,), (1.0, 1.0), (1.0, 1.0), (1, 0)), "one value per class"),
])
def test_what_is_not_exact_here_is_refused(call, problem):
    with pytest.raises(ValueError, match=problem):
        call()


@pytest.mark.parametrize("preempt", ["resume", "restart"])
def test_preemption_at_infinitely_many_servers_is_each_class_alone(preempt):
    """Every job has a server on arrival, so nobody is preempted: each class is
    M/G/inf (response = its service mean, L = lambda s), whatever its priority;
    solved with a note that preempt has no effect, where it once crashed."""
    import brewput

    model = {"brewput": 1, "name": "inf", "stations": {"s": {"servers": "inf", "discipline": "priority",
                                                            "preempt": preempt}},
             "classes": {"hi": {"rate": 1, "priority": 1, "route": [{"station": "s", "service": "exp(2)"}]},
                         "lo": {"rate": 3, "priority": 2, "route": [{"station": "s", "service": "gamma(0.5, 2)"}]}}}
    res = brewput.solve(model)
    assert res["classes"]["hi"]["response_time"]["mean"] == pytest.approx(2.0)
    assert res["classes"]["lo"]["response_time"]["mean"] == pytest.approx(0.5)
    assert res["stations"]["s"]["queue_length"] == pytest.approx(1 * 2.0 + 3 * 0.5)
    assert res["classes"]["lo"]["exact"] is True
    assert any("preempt has no effect" in note for note in res["notes"])
