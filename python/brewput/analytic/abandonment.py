"""Customers who give up at an M/M/c FCFS station: balking on arrival (an arrival
that finds n present joins with probability join[n]) and reneging while waiting
(exponential patience of mean `patience`, Erlang A, M/M/c+M), alone or together.

The number present is a birth-death chain: from n, arrivals that join at rate
lam join[n], departures at rate min(n, c) / s + max(n - c, 0) / patience
(Kleinrock, Queueing Systems vol. 1, sec. 3.4, discouraged arrivals; Garnett,
Mandelbaum and Reiman, "Designing a call center with impatient customers",
MSOM 4(3), 2002, for Erlang A). Poisson arrivals see its time averages, which
gives the fractions of arrivals that balk, abandon and are served. A buffer of
K places in all is join = [1] * K (M/M/c/K; queues.mmck is its closed form).

Notation as queues.py: arrival rate `lam`, mean service `s`, `c` servers.
Pure Python: see birth_death.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence

from .birth_death import stationary

#: What the chain may leave out when it has no end (everyone joins): the
#: probability of the states beyond the truncation, relative to the whole.
TAIL = 2.0 ** -60


@dataclass(frozen=True)
class Impatience:
    """The steady state of an M/M/c station whose customers may give up."""

    throughput: float             # customers served per time unit
    balked: float                 # fraction of arrivals that do not join
    abandoned: float              # fraction of arrivals that join and leave before service
    served: float                 # fraction of arrivals served (the three sum to 1)
    wait_probability: float       # fraction of arrivals that join and find every server busy
    mean_wait: float              # mean time waiting of those who join (until service or giving up)
    mean_wait_served: float       # mean wait of those served
    mean_wait_abandoned: Optional[float]  # mean time to give up of those who abandon; None if nobody can
    mean_response: float          # mean time at the station of those served: their wait + s
    mean_in_queue: float          # Lq: customers waiting
    mean_in_system: float         # L: customers present
    utilization: float            # busy servers / c
    at_end: float                 # fraction of arrivals finding a bounded chain's last state (len(join)
                                  # present), who cannot join: the station full when join ends at its capacity


def impatient(lam: float, s: float, c: int, *, join: Optional[Sequence[float]] = None,
              beyond: Optional[float] = None, patience: float = math.inf) -> Impatience:
    """M/M/c FCFS with balking (`join`, None: everyone joins) and exponential
    patience (`patience` is its mean; inf: nobody reneges), exact.

    An arrival that finds len(join) or more present joins with probability
    `beyond` (default: 0, it balks, when `join` is given; 1 when it is None).
    With `beyond` > 0 the chain has no end: without patience the station must
    then be stable (lam beyond s < c); otherwise any load is allowed. An
    unbounded chain is truncated where the states beyond hold less than TAIL of
    the probability: its ratios p_{n+1}/p_n decrease from max(c, len(join)) on,
    so the tail after n is at most p_n r_n / (1 - r_n).

    The waits by outcome follow a tagged arrival that finds j waiting ahead (FCFS):
    at place i in line it leaves that place at rate c/s + i/patience (a service
    ends or someone ahead of it gives up, or it gives up itself: rate 1/patience),
    so it is served with probability prod_{i=1}^{j+1} (c/s + (i-1)/patience) /
    (c/s + i/patience), and the time at each place is exponential whatever ends it.

    Time and memory grow with the states kept: len(join), or c plus the queue's
    bulk, about (lam - c/s) patience past c when overloaded and 42 / (1 - lam s / c)
    without patience (about 4 microseconds each: a million states take 4 s), so a
    caller sizes them first (sizing.py), as for M/M/c/K. Classes that share one
    service mean and one patience see the same figures (FCFS is blind to class).
    """
    _check(s, c, patience)
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lam must be positive and finite, got {lam}")
    mu, theta = 1.0 / s, 1.0 / patience
    if beyond is None:
        beyond = 1.0 if join is None else 0.0
    join = list(join or ())
    if any(not 0 <= b <= 1 for b in join + [beyond]):
        raise ValueError("join probabilities must lie between 0 and 1")
    unbounded = beyond > 0
    if unbounded:
        join += [beyond] * (_untruncated_length(lam * beyond, mu, c, theta, len(join)) - len(join))
    # An arrival finding a bounded chain full balks; where the chain has no end the
    # truncation's last state joins on (its states beyond hold less than TAIL).
    return _steady_state([lam] * (len(join) + 1), join + [beyond], s, c, theta, unbounded)


def finite_source(population: int, think: float, s: float, c: int, *, join: Optional[Sequence[float]] = None,
                  beyond: Optional[float] = None, patience: float = math.inf) -> Impatience:
    """The same station fed by `population` customers who each think an exponential
    time of mean `think` before coming (the machine-repairman model, Kleinrock vol. 1
    sec. 3.8), exact: from n present, arrivals come at (population - n) / think. One
    who balks or reneges thinks again, as one who is served does. `join` and
    `beyond` as for `impatient`; the chain ends at `population` present, so it is
    stable at any load. Fractions are of arrivals, which come at the time-average
    rate sum_n p_n (population - n) / think."""
    _check(s, c, patience)
    if isinstance(population, bool) or not isinstance(population, int) or population < 1:
        raise ValueError(f"population must be a positive integer, got {population!r}")
    if not (think > 0 and math.isfinite(think)):
        raise ValueError(f"think must be positive and finite, got {think}")
    if beyond is None:
        beyond = 1.0 if join is None else 0.0
    join = list(join or ())[:population]
    if any(not 0 <= b <= 1 for b in join + [beyond]):
        raise ValueError("join probabilities must lie between 0 and 1")
    end = population if beyond > 0 else len(join)  # the most present: everyone, or where joining stops
    join += [beyond] * (end - len(join))
    offered = [(population - n) / think for n in range(end + 1)]
    return _steady_state(offered, join + [0.0], s, c, 1.0 / patience, unbounded=False)


def _check(s: float, c: int, patience: float) -> None:
    if not (s > 0 and math.isfinite(s)):
        raise ValueError(f"s must be positive and finite, got {s}")
    if isinstance(c, bool) or not isinstance(c, int) or c < 1:
        raise ValueError(f"c must be a positive integer, got {c!r}")
    if not patience > 0:
        raise ValueError(f"patience must be positive (inf: nobody reneges), got {patience}")


def _steady_state(offered: List[float], joins: List[float], s: float, c: int, theta: float,
                  unbounded: bool) -> Impatience:
    """The chain on 0..K present (K = len(offered) - 1) whose arrivals come at
    offered[n] and join with joins[n] when n are present. Arrivals see the chain
    weighted by their rate: state n has p_n offered[n] of them."""
    mu = 1.0 / s

    def death(n: int) -> float:  # rate from n to n - 1
        return min(n, c) * mu + max(n - c, 0) * theta

    states = len(offered) - 1
    p = stationary([offered[n] * joins[n] for n in range(states)], [death(n) for n in range(1, states + 1)])
    seen = [pn * a for pn, a in zip(p, offered)]  # the rate of arrivals finding n present
    arriving = math.fsum(seen)
    joined = math.fsum(x * b for x, b in zip(seen, joins))
    in_queue = math.fsum(max(n - c, 0) * pn for n, pn in enumerate(p))
    busy = math.fsum(min(n, c) * pn for n, pn in enumerate(p))

    # Per place i in line: served_i / abandoned_i the chances of each outcome from
    # there, wait_served_i / wait_abandoned_i the expected wait times each outcome's
    # indicator; each place from the one before, so nothing cancels.
    served_i, abandoned_i, ws_i, wa_i = 1.0, 0.0, 0.0, 0.0
    terms_served = [x * b for x, b in zip(seen[:c], joins[:c])]  # served at once
    terms_abandoned, terms_ws, terms_wa = [], [], []
    for n in range(c, len(p)):
        rate = c * mu + (n - c + 1) * theta
        stay = (c * mu + (n - c) * theta) / rate
        served_i, abandoned_i = stay * served_i, theta / rate + stay * abandoned_i
        ws_i, wa_i = served_i / rate + stay * ws_i, abandoned_i / rate + stay * wa_i
        weight = seen[n] * joins[n]
        terms_served.append(weight * served_i)
        terms_abandoned.append(weight * abandoned_i)
        terms_ws.append(weight * ws_i)
        terms_wa.append(weight * wa_i)
    served_weight, abandon_weight = math.fsum(terms_served), math.fsum(terms_abandoned)
    wait_served, wait_abandoned = math.fsum(terms_ws), math.fsum(terms_wa)

    throughput = busy * mu
    return Impatience(
        throughput=throughput,
        balked=math.fsum(x * (1.0 - b) for x, b in zip(seen, joins)) / arriving,
        abandoned=theta * in_queue / arriving,
        served=throughput / arriving,
        wait_probability=math.fsum(x * b for x, b in zip(seen[c:], joins[c:])) / arriving,
        mean_wait=in_queue / joined,
        mean_wait_served=wait_served / served_weight,
        mean_wait_abandoned=wait_abandoned / abandon_weight if abandon_weight > 0 else None,
        mean_response=wait_served / served_weight + s,
        mean_in_queue=in_queue,
        mean_in_system=math.fsum(n * pn for n, pn in enumerate(p)),
        utilization=busy / c,
        at_end=0.0 if unbounded else seen[-1] / arriving,
    )


def erlang_a(lam: float, s: float, c: int, patience: float) -> Impatience:
    """Erlang A (M/M/c+M): everyone joins and waits at most an exponential
    patience of mean `patience`, exact; stable at any load."""
    return impatient(lam, s, c, patience=patience)


def balking(lam: float, s: float, c: int, join: Sequence[float]) -> Impatience:
    """M/M/c with queue-length-dependent balking: an arrival that finds n present
    joins with probability join[n] (none beyond len(join)), exact. A threshold
    (join = [1] * K) is M/M/c/K."""
    return impatient(lam, s, c, join=join)


def chain_states(lam: float, s: float, c: int, *, join_length: int = 0, beyond: float = 1.0,
                 patience: float = math.inf) -> float:
    """About how many states `impatient` keeps (its cost grows with them), from a
    few closed forms rather than the chain, so a caller can size it first: the
    list, then past max(c, len) the states until the tail is cut. Without
    patience the ratios stay r = lam beyond s / c: geometric. With patience they
    fall from the peak (where arrivals balance services and abandonment) like
    lam / (lam + i theta), so the tail is cut some sqrt(2 ln(1/TAIL) lam / theta)
    states on, or sooner when the geometric bound from its first ratio says so.
    inf for an unstable chain (impatient refuses it)."""
    if beyond <= 0:
        return join_length + 1.0
    rate, mu, theta = lam * beyond, 1.0 / s, 1.0 / patience
    start = max(join_length, c)
    cut = -math.log(TAIL)
    if theta == 0:
        if rate >= c * mu:
            return math.inf
        r = rate / (c * mu)
        return start + 2.0 + (cut + math.log(r / (1 - r))) / -math.log(r) if r > 0 else start + 2.0
    peak = max(start, c + max(0.0, (rate - c * mu) / theta))
    r = rate / (c * mu + (peak + 1 - c) * theta)
    tail = math.sqrt(2 * cut * rate / theta)
    if r < 1:
        tail = min(tail, (cut + math.log(r / (1 - r))) / -math.log(r))
    return peak + 2.0 + max(tail, 0.0)


def _untruncated_length(lam: float, mu: float, c: int, theta: float, start: int = 0) -> int:
    """How many states an unbounded chain needs, whose joining arrivals come at
    rate `lam` from `start` present on: past max(c, start) its ratios
    r_n = lam / (c mu + (n + 1 - c) theta) fall; from the first below 1 on, the
    states are kept until the tail beyond holds less than TAIL of the whole: it
    holds at most (p_n / p_first) r_n / (1 - r_n) of the largest state."""
    if theta == 0 and lam >= c * mu:
        raise ValueError(f"without patience or a limit to join, lam s = {lam / mu:.6g} must be below "
                         f"c = {c}: the queue would grow without end")
    n = max(start, c + (max(0, math.floor((lam - c * mu) / theta)) if theta > 0 else 0))
    while lam >= c * mu + (n + 1 - c) * theta:  # the division's rounding fell short
        n += 1
    log_drop = 0.0  # log(p_n / p_first)
    while True:
        r = lam / (c * mu + (n + 1 - c) * theta)
        if log_drop + math.log(r) - math.log1p(-r) < math.log(TAIL):
            return n + 1  # states 0..n + 1 (the last holds the rounding's worth)
        log_drop += math.log(r)
        n += 1
