"""Closed networks: exact mean value analysis, exact normalizing constants in log
space for multi-server stations, and approximate MVA (Bard-Schweitzer, Linearizer).

Every algorithm reads per-class arrays: demands D (R, M), servers (M,), think Z
(R,) and population N (R,). A closed class's think time is a delay station of
its own; the figures reported leave it out.

| method            | stations                       | exact                                  |
|-------------------|--------------------------------|----------------------------------------|
| `mva-exact`       | delay and single-server        | yes, for product-form stations         |
| `convolution`     | any, multi-server included     | yes, for product-form stations         |
| `bard-schweitzer` | any (multi-server: Seidmann)   | no                                     |
| `linearizer`      | any (multi-server: Seidmann)   | no                                     |

`mva-exact` asked for on a network with multi-server stations runs on Seidmann's
stand-in for them and is reported as `mva-exact+seidmann`, not exact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Tuple

import numpy as np

from ..errors import Field, OptionError
from . import sizing
from .network import Network, Unsupported, shortest_job_first
from .methods import check_method
from .solution import Solution


# method="auto" runs the exact method when its estimated time (sizing.py) is within
# AUTO_BUDGET, else Linearizer when its estimate is, else Bard-Schweitzer, so that
# `solve` stays well under 0.3 s. So exact MVA reaches 3 classes x 45 customers at
# 50 stations, or one class of 3,000; the convolution 2 classes x 25 customers at
# 10 stations, or one class of 550 at 10 stations; Linearizer 10 classes at 70
# stations, or 5 at 1,000.
AUTO_BUDGET = 0.1

# Approximate MVA's Newton steps stop once a full step moves no throughput by more
# than this (relative): the next would be below rounding.
TOLERANCE = 1e-9
MAX_ITERATIONS = 100
# Linearizer's rounds stop once its correction (a difference of queue shares) moves
# by less than this; it moves some five to ten times less each round.
LINEARIZER_TOLERANCE = 1e-10
MAX_ROUNDS = 100


@dataclass
class Figures:
    """What a closed algorithm computes, before it becomes a Solution."""
    method: str
    exact: bool                 # exact for a product-form network
    throughput: np.ndarray      # (R,)
    residence_time: np.ndarray  # (R, M)
    queue_length: np.ndarray    # (R, M)
    station_method: List[str]
    notes: List[str]


def solve_closed(net: Network, method: str = "auto") -> Solution:
    """Solve a network of closed classes only: exactly where product form and the
    population allow, otherwise by a named approximation with `exact` false."""
    if net.is_open.any():
        raise Unsupported("solve_closed: the network has open classes; use solve_mixed")
    figures = solve_arrays(net.demand, net.servers, net.think, net.population, method)
    product_form, notes = product_form_stations(net)
    exact = figures.exact and bool(product_form.all())
    return Solution(
        method=figures.method,
        throughput=figures.throughput,
        response_time=figures.residence_time.sum(axis=1),
        utilization=utilization(net.demand, net.servers, figures.throughput),
        queue_length=figures.queue_length,
        residence_time=figures.residence_time,
        exact_class=np.full(len(net.classes), exact),
        # In a closed network one station's error moves every other's figures.
        exact_station=np.full(len(net.stations), exact),
        station_method=figures.station_method,
        notes=figures.notes + notes,
    )


def utilization(demand: np.ndarray, servers: np.ndarray, throughput: np.ndarray) -> np.ndarray:
    """(R, M) busy servers / servers by the utilization law; for a delay station,
    the mean number of the class in service."""
    per_server = np.where(np.isinf(servers), 1.0, servers)
    return throughput[:, None] * demand / per_server


def product_form_stations(net: Network) -> Tuple[np.ndarray, List[str]]:
    """(M,) whether each station meets the BCMP product-form conditions, and a
    note for each that does not (its figures are then the product-form network's).

    Delay and processor-sharing stations are insensitive to the service
    distribution. FIFO and non-preemptive LIFO stations need exponential service
    with one mean for all classes there: the job to serve next is then chosen
    regardless of class, so the same product form balances the chain. Priority
    is FIFO while every class there has the same priority, and is approximated
    as FIFO otherwise. Shortest-job-first looks at the service times themselves,
    which mean values cannot capture: Unsupported.
    """
    ok = np.ones(len(net.stations), dtype=bool)
    notes = []
    for m, name in enumerate(net.stations):
        visiting = net.visits[:, m] > 0
        discipline = net.discipline[m]
        if net.is_delay[m] or discipline == "ps" or not visiting.any() or not net.service[visiting, m].any():
            continue  # insensitive, unvisited, or taking no time
        if discipline == "sjf":
            raise shortest_job_first(name, "in a closed network")
        means = net.service[visiting, m]
        why = []
        if not net.service_exponential[visiting, m].all():
            why.append("service not exponential")
        if means.max() - means.min() > 1e-9 * means.max():
            why.append("classes' mean service times differ")
        if discipline == "priority" and len(set(net.priority[visiting])) > 1:
            why.append("priorities ignored (served as fifo)")
        if why:
            ok[m] = False
            notes.append(f"station {name} ({discipline}): {', '.join(why)}: not product-form, so its "
                         f"figures are those of exponential service with the same means (approximate)")
    return ok, notes


# ---- choosing the algorithm -----------------------------------------------------------


def solve_arrays(demand, servers, think, population, method="auto") -> Figures:
    """The closed network given as arrays, solved by `method` (see METHODS)."""
    check_method(method)
    population = np.asarray(population, dtype=int)
    idle = (demand.sum(axis=1) + think) <= 0
    if idle.any():
        raise Unsupported(f"closed class {int(np.argmax(idle))} has no service and no think time: "
                          f"it would cycle infinitely fast")
    multiserver = np.isfinite(servers) & (servers > 1) & (demand.sum(axis=0) > 0)
    method, notes = _choose(method, population, demand.shape[1], int(np.isfinite(servers).sum()),
                            bool(multiserver.any()))
    name, exact, extra = method, method in ("mva-exact", "convolution"), []
    if method == "convolution":
        throughput, residence = _convolution(demand, servers, think, population)
    else:
        # Seidmann: c servers of demand D act as one server of demand D / c followed by
        # a delay of D (c - 1) / c (exact for c = 1, at light load and at saturation).
        queueing = demand / np.where(np.isinf(servers), np.inf, servers)
        delay = demand - queueing
        if method == "mva-exact":
            throughput, residence = _mva(queueing, delay, think, population)
        else:
            throughput, residence, extra = _amva(queueing, delay, think, population,
                                                 linearizer=method == "linearizer")
        if multiserver.any():
            name, exact = method + "+seidmann", False
            extra.append("multi-server stations approximated by Seidmann's method: one server "
                         "c times faster followed by a delay of (c - 1) / c of the service time")
    if not exact:
        throughput, residence = _within_capacity(throughput, residence, demand, servers, think)
    station_method = ["delay" if math.isinf(c) else name if c > 1 else method for c in servers]
    return Figures(name, exact, throughput, residence, throughput[:, None] * residence,
                   station_method, notes + extra)


def _within_capacity(throughput, residence, demand, servers, think):
    """An approximation's throughputs scaled down where they would ask a station
    for more than all its servers (utilization > 1: Seidmann's stand-in can, by
    rounding, near saturation), each class's residence stretched to match, so
    that N = X (Z + R) still holds: R' = f R + (f - 1) Z for X' = X / f."""
    per_server = np.where(np.isinf(servers), 0.0, demand / np.where(np.isinf(servers), 1.0, servers))
    excess = float((throughput @ per_server).max(initial=0.0))
    if excess <= 1.0:
        return throughput, residence
    total = residence.sum(axis=1)
    stretch = np.divide(excess * total + (excess - 1.0) * think, total, out=np.full(len(total), excess),
                        where=total > 0)
    return throughput / excess, residence * stretch[:, None]


def _choose(method, population, stations, queueing, multiserver) -> Tuple[str, List[str]]:
    """The algorithm for `method` (resolving auto, exact, approx, mva), and a note
    when the choice is not the obvious one. Refuses a method whose estimated cost
    (sizing.py) is beyond the limits, naming it and the population."""
    asked = method
    if method == "mva":
        method = "mva-exact"
    exact = "convolution" if multiserver else "mva-exact"
    linearizer = sizing.closed_cost("linearizer", population, stations, queueing)
    approx = "linearizer" if linearizer.seconds <= AUTO_BUDGET else "bard-schweitzer"
    notes = []
    if method == "exact":
        method = exact
    elif method == "approx":
        method = approx
    elif method == "auto":
        seconds = sizing.closed_cost(exact, population, stations, queueing).seconds
        if seconds <= AUTO_BUDGET:
            return exact, []
        method, notes = approx, [f"auto chose {approx}: {exact} would take about {seconds:.2g} s "
                                 f"for this population"]
    named = method if asked == method else f"{asked} ({method})"
    cost = sizing.closed_cost(method, population, stations, queueing)
    if not cost.affordable:
        advice = ("use ", Field("method"), " approx") if method in ("mva-exact", "convolution") else \
            ("no analytic method fits a model this large; use brewput simulate",)
        raise OptionError("method", f"on {sizing.population_text(population)} at {stations:,} "
                                    f"station{'s' * (stations != 1)} {sizing.beyond(cost)}; ", *advice, value=named)
    return method, notes


# ---- exact MVA --------------------------------------------------------------------------


class Lattice:
    """Every population vector 0 <= n <= N, numbered row-major (class 0 slowest), so
    that n - k is numbered `index(n) - index(k)` whenever k <= n."""

    def __init__(self, population: np.ndarray):
        self.population = population
        shape = tuple(int(p) + 1 for p in population)
        self.size = int(np.prod(shape))
        self.stride = np.array([int(np.prod(shape[r + 1:])) for r in range(len(shape))])
        self.points = np.indices(shape).reshape(len(shape), -1).T  # (size, R)
        self.top = self.size - 1  # the index of N itself


def _mva(queueing, delay, think, population):
    """Exact multi-class MVA (Reiser and Lavenberg): with n - e_r one customer of
    class r fewer, R_rm(n) = delay_rm + queueing_rm (1 + Q_m(n - e_r)),
    X_r(n) = n_r / (Z_r + sum_m R_rm(n)), Q_rm(n) = X_r(n) R_rm(n).

    All population vectors with the same total depend only on the total below, so
    each total is one vectorized step over its vectors, classes and stations."""
    lattice = Lattice(population)
    points = lattice.points
    total = points.sum(axis=1)
    order = np.argsort(total, kind="stable")
    starts = np.searchsorted(total[order], np.arange(total[-1] + 2))
    busy = np.zeros((lattice.size, queueing.shape[1]))  # customers at each queueing part
    for level in range(1, total[-1] + 1):
        index = order[starts[level]:starts[level + 1]]
        n = points[index]                                          # (P, R)
        # Vector 0 (nobody) stands in for n - e_r where n_r = 0; its X_r is 0 anyway.
        fewer = np.where(n > 0, index[:, None] - lattice.stride, 0)
        waiting = queueing * (1 + busy[fewer])                     # (P, R, M)
        residence = delay + waiting
        throughput = n / (think + residence.sum(axis=2))
        busy[index] = np.einsum("pr,prm->pm", throughput, waiting)
    return throughput[0], residence[0]


# ---- exact normalizing constants in log space ---------------------------------------------


def _log_factor(lattice: Lattice, demand: np.ndarray, servers: float) -> np.ndarray:
    """log of a station's product-form factor f(k) at every population vector k:
    f(k) = (|k|! / prod k_r!) prod D_r^k_r / prod_{j<=|k|} min(j, c), and
    f(k) = prod D_r^k_r / k_r! for a delay station."""
    k = lattice.points
    total = k.sum(axis=1)
    log_factorial = np.array([math.lgamma(j + 1) for j in range(int(total[-1]) + 1)])
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 log 0, left out by the where
        powers = np.where(k > 0, k * np.log(demand), 0.0).sum(axis=1)
    arrangements = log_factorial[k].sum(axis=1)
    if math.isinf(servers):
        return powers - arrangements
    busy = np.minimum(total, int(servers))
    rates = log_factorial[busy] + (total - busy) * math.log(servers)
    return log_factorial[total] - arrangements + powers - rates


class _Pairs:
    """Every pair k <= n of lattice vectors, sorted by n, for convolutions."""

    def __init__(self, lattice: Lattice):
        n_flat, k_flat = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        for size, stride in zip(lattice.population + 1, lattice.stride):
            n_r, k_r = np.tril_indices(int(size))
            n_flat = (n_flat[:, None] + stride * n_r).ravel()
            k_flat = (k_flat[:, None] + stride * k_r).ravel()
        order = np.argsort(n_flat, kind="stable")
        self.n, self.k = n_flat[order], k_flat[order]
        self.starts = np.flatnonzero(np.r_[True, self.n[1:] != self.n[:-1]])

    def convolve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """log of (e^a * e^b)(n) = sum_{k <= n} e^{a(k) + b(n - k)}, for every n,
        each sum scaled by its largest term so nothing overflows or underflows."""
        terms = a[self.k] + b[self.n - self.k]
        top = np.maximum.reduceat(terms, self.starts)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            return top + np.log(np.add.reduceat(np.exp(terms - top[self.n]), self.starts))


def _convolution(demand, servers, think, population):
    """Exact solution of a product-form network with load-dependent (multi-server)
    stations from its normalizing constant G(n) = (f_think * f_1 * ... * f_M)(n),
    Buzen's convolution over the population lattice, computed in log space: every
    term is positive, so unlike load-dependent MVA's marginal probabilities (which
    go negative for many servers) nothing cancels and nothing overflows.

    X_r = G(N - e_r) / G(N); station m holds k with probability
    f_m(k) G_-m(N - k) / G(N), where G_-m leaves station m out, which is the
    convolution of the stations before m with those after it."""
    lattice = Lattice(population)
    pairs = _Pairs(lattice)
    delays = np.isinf(servers)
    # Delay stations and think times merge into one delay: their factors convolve
    # to that of the summed demand.
    prefix = [_log_factor(lattice, think + demand[:, delays].sum(axis=1), np.inf)]
    queueing = np.flatnonzero(~delays)
    factors = [_log_factor(lattice, demand[:, m], servers[m]) for m in queueing]
    for f in factors:
        prefix.append(pairs.convolve(prefix[-1], f))
    suffix = [np.where(np.arange(lattice.size) == 0, 0.0, -np.inf)]  # the empty network
    for f in reversed(factors[1:]):
        suffix.insert(0, pairs.convolve(f, suffix[0]))
    log_g = prefix[-1]
    throughput = np.exp(log_g[lattice.top - lattice.stride] - log_g[lattice.top])
    queue = throughput[:, None] * demand  # delay stations: Little's law with R = D
    for i, m in enumerate(queueing):
        log_rest = pairs.convolve(prefix[i], suffix[i])
        p = np.exp(factors[i] + log_rest[lattice.top - np.arange(lattice.size)] - log_g[lattice.top])
        queue[:, m] = lattice.points.T @ p
    return throughput, queue / throughput[:, None]


# ---- approximate MVA ------------------------------------------------------------------


def _amva_core(queueing, delay, think, population, correction, throughput=None):
    """The approximate-MVA fixed point at populations N (B, R):

        Q_sm(N - e_r) ~ (N_s - [s = r]) (Q_sm(N) / N_s + correction[r, s, m])
        R_rm = delay_rm + queueing_rm (1 + sum_s Q_sm(N - e_r))
        X_r = N_r / (Z_r + sum_m R_rm),   Q_rm = X_r queueing_rm (1 + sum_s Q_sm(N - e_r))

    where Q counts the customers at each station's queueing part. correction = 0
    is Bard-Schweitzer's (every class keeps its share of a queue when one customer
    leaves); Linearizer estimates it.

    Substituting round and round converges in thousands of steps near saturation,
    where how the bottleneck splits between classes is only weakly pinned. So the
    fixed point is solved by Newton's method in the throughputs X alone: for given
    X each station's queues solve a linear system,
    (I - diag(X q_m) W) Q_m = X q_m (1 + o_m), with W_rs = (N_s - [s = r]) / N_s and
    o the correction's part, and the throughputs must put every customer somewhere:
    f(X) = X (Z + sum delay) + sum_m Q_m(X) - N = 0, whose Jacobian is
    diag(Z + sum delay) + sum_m (I - diag(X q_m) W)^-1 diag(Q_m / X). It starts from
    X (or nobody served) and halves any step that would leave queues negative or
    grow f, so it converges in some ten steps to rounding error.
    Returns X (B, R), R (B, R, M), the queueing parts' Q (B, R, M) and whether it
    converged."""
    classes = population.shape[1]
    fewer = np.maximum(population[:, None, :] - np.eye(classes), 0)      # [b, r]: N - e_r
    share = np.divide(1.0, population, out=np.zeros(population.shape), where=population > 0)
    weight = fewer * share[:, None, :]                                     # W (B, R, R)
    offset = np.einsum("brs,rsm->bmr", fewer, correction)                 # o (B, M, R)
    rate = queueing.T                                                      # q (M, R)
    outside = think + delay.sum(axis=1)                                    # Z + sum delay
    eye = np.eye(classes)
    active = population > 0  # classes without customers keep X = 0

    def queues(x):
        xq = x[:, None, :] * rate
        system = eye - xq[..., None] * weight[:, None]
        queue = np.linalg.solve(system, (xq * (1 + offset))[..., None])[..., 0]
        return system, queue, x * outside + queue.sum(axis=1) - population

    x = np.zeros(population.shape) if throughput is None else throughput
    system, queue, f = queues(x)
    converged = False
    for _ in range(MAX_ITERATIONS):
        per_x = rate * (1 + offset + np.einsum("brs,bms->bmr", weight, queue))  # Q_m / X
        jacobian = outside[:, None] * eye + np.linalg.solve(system, per_x[:, :, None, :] * eye).sum(axis=1)
        jacobian = np.where(active[:, :, None] & active[:, None, :], jacobian, eye)
        step = np.linalg.solve(jacobian, np.where(active, f, 0.0)[..., None])[..., 0]
        if np.abs(step).max() <= TOLERANCE * x.max():
            # Newton converges quadratically: after a step this small x is exact to rounding.
            x = x - step
            system, queue, f = queues(x)
            converged = True
            break
        error = np.abs(f).max()
        for halving in range(40):
            trial = x - step / 2**halving
            if trial.min() < 0:
                continue
            try:
                trial_system, trial_queue, trial_f = queues(trial)
            except np.linalg.LinAlgError:
                continue
            if trial_queue.min() >= 0 and np.abs(trial_f).max() < error:
                break
        else:
            break  # no step helps: stuck
        x, system, queue, f = trial, trial_system, trial_queue, trial_f
    queue = queue.transpose(0, 2, 1)
    residence = delay + np.divide(queue, x[..., None], out=np.zeros_like(queue), where=x[..., None] > 0)
    return x, residence, queue, converged


def _amva(queueing, delay, think, population, linearizer: bool):
    """Bard-Schweitzer, or Chandy and Neuse's Linearizer: solve the core at N and at
    every N - e_r (all at once), set correction[r, s, m] = Q_sm(N - e_r) / (N - e_r)_s
    - Q_sm(N) / N_s from their queue shares, and repeat until the correction stops
    moving (rather than the customary three rounds), so the answer is Linearizer's
    fixed point."""
    classes, stations = queueing.shape
    correction = np.zeros((classes, classes, stations))
    throughput, residence, queue, converged = _amva_core(queueing, delay, think, population[None],
                                                         correction)
    fewer = population[None, :] - np.eye(classes, dtype=int)  # row r: N - e_r
    held = fewer[..., None] > 0
    sub_throughput, settled = None, not linearizer
    for _ in range(MAX_ROUNDS if linearizer else 0):
        sub_throughput, _, sub_queue, sub_converged = _amva_core(queueing, delay, think, fewer,
                                                                 correction, sub_throughput)
        new = np.where(held, sub_queue / np.maximum(fewer, 1)[..., None] - queue / population[:, None], 0.0)
        throughput, residence, queue, converged = _amva_core(queueing, delay, think, population[None],
                                                             new, throughput)
        converged = converged and sub_converged
        moved = np.abs(new - correction).max()
        correction = new
        if moved <= LINEARIZER_TOLERANCE:
            settled = True
            break
    notes = []
    if not (converged and settled):
        name = "linearizer" if linearizer else "bard-schweitzer"
        notes.append(f"{name} stopped before its fixed point: the figures are its last iterate")
    return throughput[0], residence[0], notes
