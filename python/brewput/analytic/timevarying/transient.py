"""The exact transient of one station through the day: Poisson arrivals at lambda(t),
exponential service, c(t) servers from a rota, FIFO, optional exponential patience
(Mt/M/ct+M; Erlang A at each instant, Erlang C without patience). A server going off
shift hands its job back to the head of the queue (`off_shift: resume` or `restart`,
the same for exponential service): the station serves min(n, c(t)) at a time; or
finishes the job in hand first (`off_shift: finish`): finishing.py's chain on (n, m),
m the servers still finishing, where the rota falls.

The number present is a birth-death chain whose Kolmogorov forward equations
p' = p Q(t) are solved piece by piece (linear_ode.py: uniformization where the rate is
steady, an implicit integrator where it moves) between the times where the rota or the
rate jumps. The chain is truncated at N present (an arrival finding N is turned away);
coupling the truncated chain with the true one, they differ by the day's end with
probability at most the expected number turned away, `lost` = integral of
lambda(t) p_N(t) dt, which is kept below LOST_BOUND by growing N (as the law's tail says, at most doubling).

Per interval, of its time: mean number present and waiting, utilization (busy over
servers on); of the customers who arrive in it (virtual_wait.py, from the state law at
each arrival time): the fraction who give up, and the mean wait and P(wait <= x) of
those served (as simulate times waits: one who gives up is lost, not timed). Each is an
integral over the interval by Gauss-Legendre on pieces cut where the rate or the rota
jumps (where the solutions have boundary layers: the cuts are graded geometrically
towards each jump, down to the fastest rate's time scale) and where the
window of a service-level target crosses a rota change.
"""
from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Sequence, Union

import numpy as np
import scipy.sparse as sparse

from ...model.timeline import Rate, Rota
from . import finishing, virtual_wait
from .figures import IntervalFigures
from .finishing import FinishingChain, finishing_width
from .linear_ode import LinearSystem, solve_at

LOST_BOUND = 1e-9
MAX_STATES = 20_000
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)
_PERIODIC_DAYS = 200         # a repeating day: run day after day until the start repeats ...
# ... to this: the total variation of the state law, each day's divided by its mass (the
# integrator's tolerance loses about 1e-12 of it a day, and a day's change can be no
# smaller), and the relative change of the rewards; above the integrator's own error.
_PERIODIC_TOLERANCE = 1e-10


def solve_transient(rate: Rate, service_mean: float, rota: Rota, *, patience: float = math.inf,
                    at_start: int = 0, targets: Sequence[float] = (), states: Optional[int] = None,
                    off_shift: str = "resume") -> IntervalFigures:
    """The station over the rota's intervals; `targets` are the x of P(wait <= x).
    `off_shift`: "resume" or "restart" (the chain of n alone), or "finish" (the chain
    of (n, m), finishing.py, where the rota falls).
    details: `states` kept (N + 1), `lost` (the truncation's bound), `law_at_edges`
    (P(n present) at each edge, a column each). `states` fixes N + 1 (no doubling)."""
    if not (service_mean > 0 and math.isfinite(service_mean)):
        raise ValueError(f"the mean service time must be positive and finite, got {service_mean}")
    if not patience > 0:
        raise ValueError(f"the mean patience must be positive (inf: nobody gives up), got {patience}")
    if any(not (x >= 0 and math.isfinite(x)) for x in targets):
        raise ValueError(f"a service level's time must be >= 0 and finite, got {list(targets)}")
    if off_shift not in ("finish", "resume", "restart"):
        raise ValueError(f"off_shift is finish, resume or restart, got {off_shift!r}")
    theta = 0.0 if math.isinf(patience) else 1.0 / patience
    width = finishing_width(rota.counts, rota.repeat) if off_shift == "finish" else 1
    cuts = _cuts(rate, rota)
    size = states or _first_guess(rate, service_mean, rota, theta, at_start)
    while True:
        if at_start >= size:
            size = at_start + 1 + size
        chain = FinishingChain(size, width, service_mean, theta) if width > 1 else None
        nodes, weights, owner = _nodes(rate, rota, cuts, targets, service_mean, theta, size)
        law, law_at_edges = _forward(rate, service_mean, rota, theta, at_start, size, cuts, nodes, chain)
        shown = None if chain is None else chain.part(chain.widest)  # the layout of law's rows
        present = law if chain is None else shown.present_of(law)
        lost = float(np.sum(weights * rate.rate(nodes) * present[-1]))
        if lost <= LOST_BOUND or states is not None:
            break
        if size >= MAX_STATES:
            raise ArithmeticError(f"the queue outgrows {MAX_STATES:,} states (probability {lost:.2g} "
                                  "of reaching them): the station is overloaded for too long")
        size = min(_more_states(present, lost, size), MAX_STATES)
    # handed back where the rota falls (resume, restart): waits through service; the
    # service levels stay the first wait's, of those who start service
    handed_back = off_shift != "finish" and finishing_width(rota.counts, rota.repeat) > 1
    rewards = _backward(service_mean, rota, theta, size, cuts, nodes, chain, through_service=handed_back)
    started = _backward(service_mean, rota, theta, size, cuts, nodes)[size:] if handed_back and targets else None
    figures = _figures(rate, service_mean, rota, theta, targets, size, nodes, weights, owner, law, rewards, chain,
                       shown, started)
    if chain is not None:
        lost += chain.collapsed
    figures.details.update(states=size, lost=lost,
                           law_at_edges=law_at_edges if chain is None else shown.present_of(law_at_edges))
    if chain is not None:
        figures.details["finishing"] = width - 1
    return figures


def _more_states(law: np.ndarray, lost: float, size: int) -> int:
    """States enough for the next try: the law's tail falls geometrically below the top
    (its most over the day, states N - 20 to N - 10, clear of the cut), so the states
    that take `lost` below LOST_BOUND are about log(LOST_BOUND / lost) / log(ratio) more;
    at least a quarter more, at most twice as many."""
    if size > 40:
        most = law[size - 21:size - 9].max(axis=1)
        if most[0] > 0 and most[-1] > 0 and most[-1] < most[0]:
            ratio = (most[-1] / most[0]) ** (1 / (most.size - 1))
            extra = math.log(LOST_BOUND / lost) / math.log(ratio) + 10
            return int(min(max(size + extra, 1.25 * size), 2 * size))
    return 2 * size


def _first_guess(rate: Rate, service_mean: float, rota: Rota, theta: float, at_start: int) -> int:
    """States enough for the fluid queue (lambda - served - abandoned, by Euler steps of
    a fraction of an interval) and six standard deviations of a Poisson about it (doubled
    while the truncation loses too much)."""
    edges = rota.edges
    t = np.linspace(0.0, edges[-1], 200 * (edges.size - 1) + 1)
    dt = t[1] - t[0]
    lam, c = rate.rate(t), rota.servers(t)
    q, top = float(at_start), float(at_start)
    for i in range(t.size):
        q = max(0.0, q + dt * (lam[i] - min(q, c[i]) / service_mean - theta * max(q - c[i], 0.0)))
        top = max(top, q)
    return int(min(top + 6 * math.sqrt(top + 1) + int(np.max(rota.counts)) + 10, MAX_STATES))


def _cuts(rate: Rate, rota: Rota) -> np.ndarray:
    """Where the equations jump or bend: the rota's changes of count, the rate's breaks, the day's ends."""
    changes = rota.edges[1:-1][np.diff(rota.counts) != 0]
    breaks = rate.breaks[(rate.breaks > 0) & (rate.breaks < rota.edges[-1])]
    if rate.repeat and rate.length < rota.edges[-1]:
        raise ValueError("a repeating rate must repeat with the day")
    return np.unique(np.concatenate([rota.edges[[0, -1]], changes, breaks]))


def _nodes(rate, rota, cuts, targets, service_mean, theta, size):
    """Quadrature nodes, weights and the interval of each: 8-point Gauss-Legendre on
    pieces between the jumps, graded geometrically (by 4) towards each jump down to
    1 / q, q the fastest rate of the chain, and cut where a target's window starts to
    cross a change."""
    edges = rota.edges
    fastest = float(rate.bound(0.0, edges[-1])) + int(np.max(rota.counts)) / service_mean + size * theta
    points = [edges, cuts]
    for x in targets:
        points.append(cuts - x)
    points = np.unique(np.concatenate(points))
    points = points[(points >= 0) & (points <= edges[-1])]
    jumps = set(cuts.tolist())
    pieces = []
    for a, b in zip(points[:-1], points[1:]):
        width = b - a
        depth = int(np.clip(math.ceil(math.log(max(width * fastest, 1.0), 4)), 0, 30))
        inner = [a, b]
        for j in range(1, depth + 1):
            if a in jumps:
                inner.append(a + width * 4.0 ** -j)
            if b in jumps:
                inner.append(b - width * 4.0 ** -j)
        pieces.append(np.unique(inner))
    cut = np.unique(np.concatenate(pieces))
    lo, hi = cut[:-1], cut[1:]
    half = (hi - lo) / 2
    nodes = ((lo + hi)[:, None] / 2 + half[:, None] * _NODES[None, :]).ravel()
    weights = (half[:, None] * _WEIGHTS[None, :]).ravel()
    owner = np.clip(np.searchsorted(edges, nodes, side="right") - 1, 0, edges.size - 2)
    return nodes, weights, owner


def _forward_system(rate: Rate, service_mean: float, servers: int, theta: float, size: int,
                    a: float, b: float) -> LinearSystem:
    """p' = Q^T p: arrivals lambda(t) from n to n + 1 (none from N), departures from n."""
    n = np.arange(size)
    up = (n < size - 1).astype(float)
    death = virtual_wait.departure_rates(size, servers, service_mean, theta)
    arrivals = sparse.diags([-up, up[:-1]], [0, -1], format="csr")        # column form: into n + 1
    departures = sparse.diags([-death, death[1:]], [0, 1], format="csr")  # from n + 1 into n
    return LinearSystem([(_scalar(rate, a, b), arrivals), (None, departures)])


def _scalar(rate: Rate, a: float, b: float) -> Union[float, Callable[[float], float]]:
    """lambda(t) on the piece [a, b]: its one value where the rate is steady there."""
    if rate.steady_between_breaks:
        return float(rate.rate(np.array([(a + b) / 2]))[0])
    return lambda t: float(rate.rate(np.array([a + t]))[0])


def _forward(rate, service_mean, rota, theta, at_start, size, cuts, nodes, chain=None):
    """The state law at each node and at each edge (a column each); with servers
    finishing their jobs (finishing.py), of (n, m), and the schedule of its stretches
    and the probability collapsed to n alone."""
    times = np.concatenate([nodes, rota.edges])
    if chain is None:
        p0 = np.zeros(size)
        p0[at_start] = 1.0
        pieces = [(a, b, _forward_system(rate, service_mean, int(rota.servers([a])[0]), theta, size, a, b))
                  for a, b in zip(cuts[:-1], cuts[1:])]

        def solve(p):
            return solve_at(p, pieces, times)
    else:
        p0 = np.zeros(chain.states)
        p0[at_start * chain.width] = 1.0
        spans = [(a, b, int(rota.servers([a])[0])) for a, b in zip(cuts[:-1], cuts[1:])]
        matrices = {}

        def wide(part, t0, t1, servers):
            if (part.width, servers) not in matrices:
                matrices[part.width, servers] = (part.arrivals(), part.departures(servers))
            arrivals, departures = matrices[part.width, servers]
            return LinearSystem([(_scalar(rate, t0, t1), arrivals), (None, departures)],
                                uniform_steps=finishing.UNIFORM_STEPS)

        def plain(t0, t1, servers):
            return _forward_system(rate, service_mean, servers, theta, size, t0, t1)

        before_first = spans[-1][2] if rota.repeat else spans[0][2]
        collapsed = [0.0]

        def solve(p):
            values, end, chain.schedule, collapsed[0] = finishing.forward(chain, spans, before_first, p, times,
                                                                          plain, wide)
            return values, end
    values, end = solve(p0)
    if rota.repeat or rate.repeat:
        for _ in range(_PERIODIC_DAYS):
            if np.abs(end / end.sum() - p0 / p0.sum()).sum() <= _PERIODIC_TOLERANCE:
                break
            p0 = end
            values, end = solve(p0)
        else:
            raise ArithmeticError("the repeating day does not settle: the station is overloaded day after day")
    values = np.clip(values, 0.0, None)
    if chain is not None:
        chain.collapsed = collapsed[0]
    return values[:, :nodes.size], values[:, nodes.size:]


def _rewards_system(size: int, servers: int, service_mean: float, theta: float,
                    through_service: bool = False) -> LinearSystem:
    """-u' = r + G u for the stacked [w; b] of k ahead (virtual_wait.py), w_k and b_k side
    by side (k ahead at 2k, 2k + 1): a banded system; w's reward rate is b while waiting.
    `through_service`: G goes on through service, where b's source is the completion."""
    waiting = np.arange(size) >= servers
    order = _side_by_side(size)
    if through_service:
        g = virtual_wait.through_service(size, servers, service_mean, theta)
        source = np.concatenate([np.zeros(size), (~waiting) / service_mean])[order]
    else:
        g = virtual_wait.generator(size, servers, service_mean, theta, killing=True)
    stacked = sparse.bmat([[g, sparse.diags(waiting.astype(float))], [None, g]], format="csr")
    return LinearSystem([(None, stacked[order][:, order])], [(None, source)] if through_service else ())


def _backward(service_mean, rota, theta, size, cuts, nodes, chain=None, through_service=False):
    """w and b (virtual_wait.py) at each node, stacked: solved in reversed time tau = L - s
    from the day's end back to 0; w's reward rate is b, the chance of being served.
    `through_service`: a customer in service may be handed back (virtual_wait.py), b the
    chance of completing service, w its whole wait."""
    if chain is not None:
        return _backward_finishing(service_mean, rota, theta, nodes, chain)
    day = rota.edges[-1]
    last = int(rota.servers([day])[0])
    w_end, b_end = virtual_wait.stationary_rewards(size, last, service_mean, theta)
    if not (np.all(np.isfinite(w_end)) or rota.repeat):
        raise ArithmeticError("after the day no server is on and nobody gives up: those waiting wait forever")
    pieces, counts, systems = [], [], {}
    for a, b in zip(cuts[-2::-1], cuts[:0:-1]):  # latest first
        servers = int(rota.servers([a])[0])
        if servers not in systems:
            systems[servers] = _rewards_system(size, servers, service_mean, theta, through_service)
        pieces.append((day - b, day - a, systems[servers]))
        counts.append(servers)

    def in_service(i, y):  # fewer than c ahead at the piece's end (in time): in service
        y[0:2 * counts[i]:2] = 0.0
        y[1:2 * counts[i]:2] = 1.0
        return y

    start = np.concatenate([np.nan_to_num(w_end, posinf=0.0), b_end])[_side_by_side(size)]
    for _ in range(_PERIODIC_DAYS if rota.repeat else 1):
        # through service, in service is not the end: the chain goes on through it
        values, end = solve_at(start, pieces, day - nodes, entering=None if through_service else in_service)
        if not rota.repeat or np.abs(end - start).max() <= _PERIODIC_TOLERANCE * max(1.0, np.abs(end).max()):
            break
        start = end
    return np.concatenate([values[0::2], values[1::2]])


def _backward_finishing(service_mean, rota, theta, nodes, chain):
    """_backward on the chain of (n, m) (finishing.py), over the forward's stretches."""
    day = rota.edges[-1]
    last = int(rota.servers([day])[0])
    w_end, b_end = chain.stationary_rewards(last)
    if not (np.all(np.isfinite(w_end)) or rota.repeat):
        raise ArithmeticError("after the day no server is on and nobody gives up: those waiting wait forever")
    after_last = chain.schedule[0][2] if rota.repeat else last
    systems = {}

    def plain(servers):
        if ("plain", servers) not in systems:
            systems["plain", servers] = _rewards_system(chain.size, servers, service_mean, theta)
        return systems["plain", servers]

    def wide(part, servers):
        if (part.width, servers) not in systems:
            systems[part.width, servers] = finishing.rewards_system(part, servers)
        return systems[part.width, servers]

    start = np.column_stack([np.nan_to_num(w_end, posinf=0.0), b_end])
    for _ in range(_PERIODIC_DAYS if rota.repeat else 1):
        values, end = finishing.backward(chain, chain.schedule, after_last, start, nodes, plain, wide)
        if not rota.repeat or np.abs(end - start).max() <= _PERIODIC_TOLERANCE * max(1.0, np.abs(end).max()):
            break
        start = end
    return np.concatenate([values[:, :nodes.size], values[:, nodes.size:]])


def _side_by_side(size: int) -> np.ndarray:
    """The order [w_0, b_0, w_1, b_1, ...] of the stacked [w; b]."""
    return np.arange(2 * size).reshape(2, size).T.ravel()


def _figures(rate, service_mean, rota, theta, targets, size, nodes, weights, owner, law, rewards,
             chain=None, shown=None, started=None) -> IntervalFigures:
    """`shown`: with servers finishing (`chain`, finishing.py), the layout of the rows of
    `law` and `rewards` (m below the widest the forward equations reached). `started`:
    where customers are handed back, the chance of starting service (the first wait's
    service levels are of those who start)."""
    edges = rota.edges
    count = edges.size - 1
    # per state: the number present, and the servers still finishing a job
    k, finishing_now = (np.arange(size), 0) if chain is None else (shown.n, shown.m[:, None])
    states = k.size
    servers = rota.counts[owner]
    width = np.diff(edges)

    def per_interval(values, w):
        return np.bincount(owner, weights=w * values, minlength=count)

    in_system = per_interval(k @ law, weights) / width
    in_queue = per_interval(np.sum(np.maximum(k[:, None] - servers[None, :] - finishing_now, 0) * law, axis=0),
                            weights) / width
    busy = per_interval(np.sum((np.minimum(k[:, None], servers[None, :]) + finishing_now) * law, axis=0),
                        weights) / width
    arriving = weights * rate.rate(nodes)
    arrived = np.bincount(owner, weights=arriving, minlength=count)
    with np.errstate(invalid="ignore", divide="ignore"):
        served = per_interval(np.sum(law * rewards[states:], axis=0), arriving)
        mean_wait = per_interval(np.sum(law * rewards[:states], axis=0), arriving) / served
        # Without patience nobody gives up: 1 - served / arrived would show rounding (-2e-14)
        # and the truncation's turned-away (below LOST_BOUND) as giving up.
        abandoned = np.clip(1.0 - served / arrived, 0.0, 1.0) if theta > 0 else np.where(arrived > 0, 0.0, np.nan)
        levels = {}
        for x in targets:
            within = _served_within_at(size, nodes, x, rota, service_mean, theta, chain, shown)
            levels[x] = per_interval(np.sum(law * within, axis=0), arriving) / (
                served if started is None else per_interval(np.sum(law * started, axis=0), arriving))
        utilization = busy / rota.counts
    utilization[rota.counts == 0] = np.nan
    return IntervalFigures(method="transient", exact=True, edges=edges, servers=rota.counts.copy(),
                           arrivals=np.diff(rate.cumulative(edges)), mean_in_system=in_system,
                           mean_in_queue=in_queue, utilization=utilization, mean_wait=mean_wait,
                           abandoned=abandoned, service_level=levels)


_SERVED_WITHIN_CACHE: Dict[tuple, np.ndarray] = {}


def _served_within_at(size, nodes, x, rota, service_mean, theta, chain=None, shown=None) -> np.ndarray:
    """P(served within x | k ahead) for an arrival at each node, a column each: over the
    rota's pieces in [t, t + x]. Nodes alike in their window (one whose window crosses no
    edge sees one count of servers: ((x, c),) wherever it is) and in the forward's width
    at t (servers finishing) share one vector; the windows not yet known are solved
    together (windows.py), each kept for the next day solved (a plan tries many)."""
    edges = _window_edges(rota)
    crossing = np.searchsorted(edges, nodes, side="right") != np.searchsorted(edges, nodes + x, side="left")
    counts = rota.servers(nodes)
    widths = np.ones(nodes.size, dtype=int) if chain is None else chain.widths_at(nodes)
    keys: Dict[tuple, int] = {}
    key_of = np.empty(nodes.size, dtype=int)
    for count, width in set(zip(counts[~crossing].tolist(), widths[~crossing].tolist())):
        key_of[~crossing & (counts == count) & (widths == width)] = keys.setdefault(
            (((float(x), count),), width), len(keys))
    crossed = np.flatnonzero(crossing)
    for i, window in zip(crossed, _crossing_windows(nodes[crossed], x, edges, counts[crossed], rota)):
        # servers finishing: m below the forward's width at t, and each fall of the rota in
        # the window may add as many (a change moves m to at most m + before - later)
        falls = sum(max(before - later, 0) for (_, before), (_, later) in zip(window[:-1], window[1:]))
        width = 1 if chain is None else min(chain.width, int(widths[i]) + falls)
        key_of[i] = keys.setdefault((window, width), len(keys))
    missing = [key for key in keys if (size, service_mean, theta, *key) not in _SERVED_WITHIN_CACHE]
    if len(_SERVED_WITHIN_CACHE) + len(missing) > 4096:
        _SERVED_WITHIN_CACHE.clear()
        missing = list(keys)
    for width in {width for _, width in missing}:
        windows = [window for window, w in missing if w == width]
        found = virtual_wait.served_within(size, windows, service_mean, theta) if width == 1 \
            else finishing.served_within(chain.part(width), windows)
        for j, window in enumerate(windows):
            _SERVED_WITHIN_CACHE[(size, service_mean, theta, window, width)] = found[:, j]
    columns = [_SERVED_WITHIN_CACHE[(size, service_mean, theta, *key)] for key in keys]
    if not columns:
        return np.empty((size if chain is None else shown.states, 0))
    if chain is not None:
        columns = [shown.embed(found, width) for found, (_, width) in zip(columns, keys)]
    return np.column_stack(columns)[:, key_of]


def _window_edges(rota) -> np.ndarray:
    """The rota's edges, a second day's too where the day repeats (a window may cross midnight)."""
    return np.concatenate([rota.edges, rota.edges[1:] + rota.length]) if rota.repeat else rota.edges


def _crossing_windows(starts: np.ndarray, x: float, edges: np.ndarray, counts: np.ndarray, rota) -> list:
    """The window [(duration, servers), ...] of an arrival at each of `starts` (found
    `counts` servers on), whose [t, t + x] holds at least one of the rota's `edges`."""
    first = np.searchsorted(edges, starts, side="right")
    last = np.searchsorted(edges, starts + x, side="left")
    after = rota.servers(edges).tolist()
    windows = []
    for t, i, j, count in zip(starts.tolist(), first.tolist(), last.tolist(), counts.tolist()):
        points = [t, *edges[i:j].tolist(), t + x]
        windows.append(tuple(zip(np.diff(points).tolist(), [count, *after[i:j]])))
    return windows
