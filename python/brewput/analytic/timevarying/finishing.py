"""Servers that finish the job in hand when they go off shift (`off_shift: finish`, the
default): the Mt/M/ct+M station's chain on (n, m), n present and m servers off shift
still finishing a job, exactly as simulate runs it.

The simulator (crates/sim/src/service/pool.rs `set_servers`, called at each rota change
by station.rs `shift`, then simulation.rs `tick` dispatches) keeps one pool of servers:
the rota sets how many are on, c, and the jobs holding a server, h, are never taken
off. Fewer on than hold a job (h > c): no job starts until fewer hold one, so it is the
first servers to finish, whichever they are, that go off. With m = max(h - c, 0):

- m = 0: the usual station, min(n, c) in service, each ending at mu, the max(n - c, 0)
  waiting each giving up at theta: n -> n - 1;
- m > 0 (then n >= c + m: every holder busy, no job starts): a service ends at (c + m) mu,
  (n, m) -> (n - 1, m - 1), and one of the n - c - m waiting gives up at theta,
  (n, m) -> (n - 1, m);
- at a change of the rota to c': idle servers go first and busy ones keep their jobs
  (a fall), servers coming on take waiting jobs at once (a rise, `dispatch`), so the
  holders h = min(n, c) + m stay, or grow to min(n, c') where servers are free:
  m' = max(min(n, c) + m - c', 0).

A tagged arrival finding (n, m) has k = n ahead (FIFO); those behind it do not matter.
It waits while m > 0 or k >= c (nobody is handed back, so its first wait is its whole
wait); its number ahead moves as the station's (k, m) does, and it starts service once
m = 0 and k < c (after a move, or a rise of the rota to c' > k). The rewards
w and b (virtual_wait.py's, on (k, m)) are solved backward piece by piece as there,
each change of the rota moving a state to its image above.

States are laid out n major: (n, m) at n * width + m, width = 1 + the most the rota
ever falls below a count it had before (m never exceeds it). States with m > 0 and
n < c + m cannot be reached (their probability stays 0 exactly).
"""
from __future__ import annotations

from typing import Callable, Sequence, Tuple

import numpy as np
import scipy.sparse as sparse

from .linear_ode import LinearSystem, solve_at
from .windows import Window, solve_windows

# Products by the generator that uniformization may spend on a piece: the chain of (n, m)
# is too wide for a banded implicit step, whose sparse factorizations cost far more.
UNIFORM_STEPS = 1_000_000
# Below this probability of servers still finishing (m > 0) the chain of n alone is
# solved, m > 0 moved to m = 0: the law changes by at most that much, counted in `lost`.
COLLAPSE = 1e-13
# The wide chain is solved in stretches this many times 1 / ((c + 1) mu), the mean of
# m's slowest step down, before P(m > 0) is looked at again (fewer, longer stretches
# cost less: each starts a uniformization afresh).
_DRAINS = 40


def finishing_width(counts: np.ndarray, repeat: bool) -> int:
    """1 + the most servers ever still finishing: the deepest fall below an earlier
    count (any count, on a repeating day); 1 where the rota never falls."""
    if repeat:
        return 1 + int(counts.max() - counts.min())
    highest = np.maximum.accumulate(counts)
    return 1 + int(np.max(highest - counts))


class FinishingChain:
    """The chain on (n, m) for n = 0..size-1 and m = 0..width-1 (module docstring)."""

    def __init__(self, size: int, width: int, service_mean: float, theta: float):
        self.size, self.width = size, width
        self.service_rate, self.theta = 1.0 / service_mean, theta
        self.n = np.repeat(np.arange(size), width)
        self.m = np.tile(np.arange(width), size)
        self.states = size * width
        # what the forward equations leave for the backward: the stretches solved,
        # [(t0, t1, servers, wide), ...], and the probability collapsed to n alone
        self.schedule: list = []
        self.collapsed = 0.0
        self._parts: dict = {}
        self._generators: dict = {}
        self._waiting: dict = {}

    def present_of(self, law: np.ndarray) -> np.ndarray:
        """P(n present), summed over m (a row per n)."""
        return law.reshape(self.size, self.width, *law.shape[1:]).sum(axis=1)

    def narrow(self, law: np.ndarray) -> np.ndarray:
        """The law of n alone, m > 0 moved to m = 0."""
        return law.reshape(self.size, self.width).sum(axis=1)

    def part(self, width: int) -> "FinishingChain":
        """The chain on m < width (kept: its matrices are built once)."""
        if width == self.width:
            return self
        if width not in self._parts:
            self._parts[width] = FinishingChain(self.size, width, 1.0 / self.service_rate, self.theta)
        return self._parts[width]

    def width_at(self, t: float) -> int:
        """The width the forward equations solved at time t (their schedule's)."""
        return int(self.widths_at(np.array([t]))[0])

    def widths_at(self, times: np.ndarray) -> np.ndarray:
        """width_at each of `times`."""
        starts = np.array([t0 for t0, *_ in self.schedule])
        stretch = np.maximum(np.searchsorted(starts, times, side="right") - 1, 0)
        return np.array([width for *_, width in self.schedule])[stretch]

    @property
    def widest(self) -> int:
        """The widest stretch's width (its schedule's): m never reached beyond."""
        return max(width for *_, width in self.schedule)

    def cut(self, law: np.ndarray, width: int) -> np.ndarray:
        """A law's part on m < width (the rest is 0)."""
        return law.reshape(self.size, self.width)[:, :width].ravel()

    def embed(self, law: np.ndarray, width: int) -> np.ndarray:
        """A law on m < width as one on every m (on m < this chain's width: cut beyond)."""
        full = np.zeros((self.size, self.width))
        kept = min(width, self.width)
        full[:, :kept] = law.reshape(self.size, width)[:, :kept]
        return full.ravel()

    def in_service(self, servers: int) -> np.ndarray:
        """States where a tagged arrival finding them starts service at once."""
        return (self.m == 0) & (self.n < servers)

    def image(self, before: int, after: int) -> np.ndarray:
        """Each state's index after the rota changes from `before` to `after` servers."""
        moved = np.clip(np.minimum(self.n, before) + self.m - after, 0, self.width - 1)
        return self.n * self.width + moved

    def _moves(self, servers: int, tagged: bool) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(from, to, rate) of every move down in n (a service ends or one waiting gives up);
        for a tagged arrival only from the states where it waits."""
        n, m, c, mu, theta = self.n, self.m, servers, self.service_rate, self.theta
        index = np.arange(self.states)
        plain = (m == 0) & (n > 0) & ((n >= c) if tagged else True)
        over = (m > 0) & (n >= c + m)
        giving_up = over & (n > c + m) & (theta > 0)
        origin = np.concatenate([index[plain], index[over], index[giving_up]])
        target = np.concatenate([index[plain] - self.width, index[over] - self.width - 1,
                                 index[giving_up] - self.width])
        rate = np.concatenate([np.minimum(n[plain], c) * mu + np.maximum(n[plain] - c, 0) * theta,
                               (c + m[over]) * mu, (n[giving_up] - c - m[giving_up]) * theta])
        keep = rate > 0
        return origin[keep], target[keep], rate[keep]

    def arrivals(self) -> sparse.csr_matrix:
        """Column form (p' = Q^T p) of an arrival at rate 1: n -> n + 1 below the cut."""
        up = (self.n < self.size - 1).astype(float)
        index = np.arange(self.states)[self.n < self.size - 1]
        moves = sparse.coo_matrix((np.ones(index.size), (index + self.width, index)), shape=(self.states,) * 2)
        return (moves - sparse.diags(up)).tocsr()

    def departures(self, servers: int) -> sparse.csr_matrix:
        """Column form of the moves down in n with `servers` on."""
        origin, target, rate = self._moves(servers, tagged=False)
        out = np.bincount(origin, weights=rate, minlength=self.states)
        return (sparse.coo_matrix((rate, (target, origin)), shape=(self.states,) * 2) - sparse.diags(out)).tocsr()

    def tagged_generator(self, servers: int) -> sparse.csr_matrix:
        """Row form G of the tagged arrival's (k, m), killed at theta while it waits;
        rows where it is in service are zero (absorbed)."""
        if servers not in self._generators:
            self._generators[servers] = self._tagged_generator(servers)
        return self._generators[servers]

    def waiting_system(self, servers: int) -> LinearSystem:
        """u' = G u over the tagged arrival's wait (tagged_generator's): built once for
        the many windows of a day's service levels (building costs more than a short solve)."""
        if servers not in self._waiting:
            self._waiting[servers] = LinearSystem([(None, self.tagged_generator(servers))],
                                                  uniform_steps=UNIFORM_STEPS)
        return self._waiting[servers]

    def _tagged_generator(self, servers: int) -> sparse.csr_matrix:
        origin, target, rate = self._moves(servers, tagged=True)
        waiting = ~self.in_service(servers)
        out = np.bincount(origin, weights=rate, minlength=self.states) + self.theta * waiting
        return (sparse.coo_matrix((rate, (origin, target)), shape=(self.states,) * 2) - sparse.diags(out)).tocsr()

    def stationary_rewards(self, servers: int):
        """(w, b) where the servers never change again, by k upwards (each move lowers k):
        b = 1, w = 0 in service; else b = sum(rate b') / leave, w = (b + sum(rate w')) /
        leave, leave = the moves' rates + theta; w is inf where nobody ever leaves."""
        origin, target, rate = self._moves(servers, tagged=True)
        wait, served = np.zeros(self.states), np.ones(self.states)
        waiting = ~self.in_service(servers) & ((self.m == 0) | (self.n >= servers + self.m))  # and reachable
        order = np.argsort(origin // self.width, kind="stable")
        origin, target, rate = origin[order], target[order], rate[order]
        starts = np.searchsorted(origin // self.width, np.arange(self.size + 1))
        for k in range(self.size):
            here = slice(starts[k], starts[k + 1])
            states = np.arange(k * self.width, (k + 1) * self.width)
            states = states[waiting[states]]
            o, t, r = origin[here], target[here], rate[here]
            leave = np.bincount(o, weights=r, minlength=self.states)[states] + self.theta
            to_b = np.bincount(o, weights=r * served[t], minlength=self.states)[states]
            with np.errstate(invalid="ignore"):
                to_w = np.bincount(o, weights=np.where(r > 0, r * wait[t], 0.0), minlength=self.states)[states]
            stuck = leave == 0
            with np.errstate(divide="ignore", invalid="ignore"):
                served[states] = np.where(stuck, 1.0, to_b / leave)
                wait[states] = np.where(stuck, np.inf, (served[states] + to_w) / leave)
        return wait, served


def forward(chain: FinishingChain, spans: Sequence[Tuple[float, float, int]], before_first: int, p0: np.ndarray,
            times: np.ndarray, plain: Callable, wide: Callable):
    """The forward equations over `spans` [(a, b, servers), ...] from the law p0 on (n, m):
    (the law at each of `times`, a column each, on m below the widest stretch's width;
    the law at the end; the schedule [(t0, t1, servers, width), ...] of the stretches
    solved; the probability collapsed).
    A change of the rota moves the law to the images. While P(m > 0) exceeds COLLAPSE the
    chain of (n, m) is solved (`wide(part, t0, t1, servers)`, in stretches a few drains
    long) on m below the highest m with any probability (m only falls between changes),
    else the chain of n alone (`plain(t0, t1, servers)`, m > 0 moved to m = 0)."""
    found = []  # (the times' columns, the law there on m < width) of each stretch
    y, previous, schedule, collapsed = p0.astype(float), before_first, [], 0.0
    for i, (a, b, servers) in enumerate(spans):
        if previous != servers:
            y = np.bincount(chain.image(previous, servers), weights=y, minlength=chain.states)
        previous = servers
        t0 = a
        while t0 < b:
            by_m = y.reshape(chain.size, chain.width).sum(axis=0)
            width = 1 + int(np.flatnonzero(by_m > 0).max()) if by_m[1:].sum() > COLLAPSE else 1
            t1 = min(b, t0 + _DRAINS / ((servers + 1) * chain.service_rate)) if width > 1 else b
            inside = (times >= t0) & ((times <= t1) if (i == len(spans) - 1 and t1 == b) else (times < t1))
            if width > 1:
                part = chain.part(width)
                values, end = solve_at(chain.cut(y, width), [(t0, t1, wide(part, t0, t1, servers))], times[inside])
            else:
                collapsed += float(by_m[1:].sum())
                values, end = solve_at(chain.narrow(y), [(t0, t1, plain(t0, t1, servers))], times[inside])
            found.append((inside, values.reshape(chain.size, width, -1)))
            y = chain.embed(end, width)
            schedule.append((t0, t1, servers, width))
            t0 = t1
    widest = max(width for *_, width in schedule)
    out = np.zeros((chain.size, widest, times.size))
    for inside, values in found:
        out[:, :values.shape[1], inside] = values
    return out.reshape(-1, times.size), y, schedule, collapsed


def side_by_side(states: int) -> np.ndarray:
    """The order [w_0, b_0, w_1, b_1, ...] of the stacked [w; b]."""
    return np.arange(2 * states).reshape(2, states).T.ravel()


def rewards_system(chain: FinishingChain, servers: int) -> LinearSystem:
    """-u' = r + G u for u = [w; b] side by side: w's reward rate is b while waiting."""
    g = chain.tagged_generator(servers)
    waiting = sparse.diags((~chain.in_service(servers)).astype(float))
    stacked = sparse.bmat([[g, waiting], [None, g]], format="csr")
    order = side_by_side(chain.states)
    return LinearSystem([(None, stacked[order][:, order])], uniform_steps=UNIFORM_STEPS)


def backward(chain: FinishingChain, schedule, after_last: int, end: np.ndarray, times: np.ndarray,
             plain: Callable, wide: Callable):
    """The rewards backward over the forward's `schedule`, from `end` (a row per state of
    (n, m), a column per reward: [w, b]) just after it: (the rewards at each of `times`,
    a row per state on m below the widest stretch's width, a column per reward and time
    [w ..., b ...]; at the start, on every m). At each stretch's end a state takes the
    value of its image in the stretch after, then those in service are set (w = 0,
    b = 1). Each stretch is solved on the forward's width (`wide(part, servers)`, its
    rewards side by side; `plain(servers)` for n alone), the states beyond it never
    reached there. `times` are read in the stretch that holds them, on its forward clock."""
    widest, parts = max(width for *_, width in schedule), 2
    out = np.zeros((chain.size * widest, parts * times.size))
    rewards_of = out.reshape(chain.size, widest, parts * times.size)
    full, later = end.reshape(chain.states, parts).astype(float), after_last
    in_service_value = np.array([0.0, 1.0])
    for t0, t1, servers, width in reversed(schedule):
        if later != servers:
            full = full[chain.image(servers, later)]
        full[chain.in_service(servers)] = in_service_value
        later = servers
        inside = np.flatnonzero((times >= t0) & ((times < t1) | ((t1 == schedule[-1][1]) & (times == t1))))
        system = wide(chain.part(width), servers) if width > 1 else plain(servers)
        start = full.reshape(chain.size, chain.width, parts)[:, :width, :].ravel()
        values, y = solve_at(start, [(0.0, t1 - t0, system)], t1 - times[inside])
        for j in range(parts):
            rewards_of[:, :width, j * times.size + inside] = values[j::parts].reshape(chain.size, width, -1)
        at_start = y.reshape(chain.size, width, parts)
        # beyond the width: never reached in this stretch, but the chain of n alone
        # leaves m > 0 its m = 0 values (what collapsing there moved)
        full = np.repeat(at_start, chain.width, axis=1) if width == 1 else \
            np.concatenate([at_start, np.zeros((chain.size, chain.width - width, parts))], axis=1)
        full = full.reshape(chain.states, parts)
    return out, full


def served_within(chain: FinishingChain, windows: Sequence[Window]) -> np.ndarray:
    """P(served within x | (k, m) found) on all of `chain` (rows), a column per window
    [(duration, servers), ...] in time order (its pieces of constant servers, durations
    summing to x), each change of the rota moving a state to its image (as `backward`)."""

    def entering(servers, later, value):
        if later is not None and later != servers:
            value = value[chain.image(servers, later)]
        value[chain.in_service(servers)] = 1.0
        return value

    return np.clip(solve_windows(np.zeros(chain.states), windows, chain.waiting_system, entering), 0.0, 1.0)
