"""Priorities between classes at one station with Poisson arrivals, per class:
non-preemptive (Cobham), preemptive-resume, and preemptive-repeat where it is
exactly resume. Only what is exact: M/G/1, and M/M/c when every class has one
exponential service mean (while all servers are busy they then finish jobs at
rate c / s whoever holds them, as one fast server would).

Arguments per class, in one order: arrival rates `lams`, mean services `means`,
squared coefficients of variation `scvs`, and `priorities` (higher is served
first; classes of one level are served FCFS among themselves and never preempt
each other), as the model language gives them. Needs a stable station.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

from . import queues

#: Tolerance for "one exponential service mean for all classes".
TOL = 1e-9


@dataclass(frozen=True)
class PerClass:
    """Mean figures per class, in the order of the arguments."""

    throughput: Tuple[float, ...]  # = the arrival rates: nobody is lost
    wait: Tuple[float, ...]        # time present but not in service (before it, and while preempted)
    response: Tuple[float, ...]    # time at the station: wait + service
    in_queue: Tuple[float, ...]    # jobs present not in service
    in_system: Tuple[float, ...]   # jobs present


def non_preemptive(lams: Sequence[float], means: Sequence[float], scvs: Sequence[float],
                   priorities: Sequence[float], c: int = 1) -> PerClass:
    """Non-preemptive priority by Cobham's formula (queues.priority_waits; Cobham,
    "Priority assignment in waiting line problems", Operations Research 2, 1954):
    M/G/1 with any service laws, M/M/c with one exponential mean for all classes."""
    lam, mean, cs2 = _mixture(lams, means, scvs, c)
    if c == 1:
        fcfs_wait = queues.pollaczek_khinchine(lam, mean, cs2).wait
    else:
        _check_one_exponential(means, scvs, c)
        fcfs_wait = queues.mmc(lam, mean, c).wait
    waits = queues.priority_waits(fcfs_wait, [rate * s / c for rate, s in zip(lams, means)], priorities)
    return _per_class(lams, means, waits)


def preemptive_resume(lams: Sequence[float], means: Sequence[float], scvs: Sequence[float],
                      priorities: Sequence[float], c: int = 1) -> PerClass:
    """Preemptive-resume priority (a preempted job later continues where it stopped).

    M/G/1 (Avi-Itzhak and Naor, "Some queuing problems with the service station
    subject to breakdown", Operations Research 11, 1963; Kleinrock, Queueing
    Systems vol. 2, eq. 3.65): a class of level p, with sigma_above the load of
    higher levels, sigma_through that with p's own, and R = sum over levels >= p
    of lam_i E[S_i^2] / 2, has
    T = s / (1 - sigma_above) + R / ((1 - sigma_above) (1 - sigma_through)):
    lower levels are invisible to it, so it waits for the work of its own and
    higher levels present, then its own service stretched by higher arrivals.

    M/M/c with one exponential mean: the jobs of levels >= p see an M/M/c of
    their own, so level p holds L(M/M/c of levels >= p) - L(M/M/c of levels > p)
    jobs, shared among its classes in proportion to their rates.
    """
    _, mean, _ = _mixture(lams, means, scvs, c)
    if c == 1:
        responses = []
        for s, p in zip(means, priorities):
            above = sum(r * m for r, m, q in zip(lams, means, priorities) if q > p)
            through = sum(r * m for r, m, q in zip(lams, means, priorities) if q >= p)
            residual = sum(r * m * m * (1 + v) / 2 for r, m, v, q in zip(lams, means, scvs, priorities) if q >= p)
            responses.append(s / (1 - above) + residual / ((1 - above) * (1 - through)))
        return _per_class(lams, means, [t - s for t, s in zip(responses, means)])
    _check_one_exponential(means, scvs, c)
    responses = []
    for p in priorities:
        above = sum(r for r, q in zip(lams, priorities) if q > p)
        through = sum(r for r, q in zip(lams, priorities) if q >= p)
        present = queues.mmc(through, mean, c).in_system - (queues.mmc(above, mean, c).in_system if above else 0.0)
        responses.append(present / (through - above))  # the level's L over its rate: Little per class
    return _per_class(lams, means, [t - s for t, s in zip(responses, means)])


def preemptive_repeat(lams: Sequence[float], means: Sequence[float], priorities: Sequence[float],
                      c: int = 1) -> PerClass:
    """Preemptive-repeat with exponential service, where a preempted job starts
    again with a new draw: the service left is exponential of the same mean
    whether resumed or redrawn (memoryless), so this is preemptive_resume,
    exactly. Repeating the same draw (repeat-identical) is not: it is not here."""
    return preemptive_resume(lams, means, [1.0] * len(lams), priorities, c)


def _mixture(lams: Sequence[float], means: Sequence[float], scvs: Sequence[float],
             c: int) -> Tuple[float, float, float]:
    """Total rate, mean and scv of the service a stable station of c servers sees
    (classes mixed by rate)."""
    if not len(lams) == len(means) == len(scvs):
        raise ValueError("lams, means and scvs need one value per class")
    lam = sum(lams)
    mean = sum(r * s for r, s in zip(lams, means)) / lam
    second = sum(r * s * s * (1 + v) for r, s, v in zip(lams, means, scvs)) / lam
    if lam * mean >= c:
        raise ValueError(f"the classes load the {c} servers to {lam * mean / c:.6g} >= 1: no steady state")
    return lam, mean, second / mean**2 - 1


def _check_one_exponential(means: Sequence[float], scvs: Sequence[float], c: int) -> None:
    if any(abs(v - 1) > TOL for v in scvs) or max(means) - min(means) > TOL * max(means):
        raise ValueError(f"priorities at {c} servers are exact here only with one exponential service "
                         f"mean for all classes")


def _per_class(lams: Sequence[float], means: Sequence[float], waits: Sequence[float]) -> PerClass:
    responses = [w + s for w, s in zip(waits, means)]
    return PerClass(
        throughput=tuple(float(r) for r in lams),
        wait=tuple(float(w) for w in waits),
        response=tuple(float(t) for t in responses),
        in_queue=tuple(float(r * w) for r, w in zip(lams, waits)),
        in_system=tuple(float(r * t) for r, t in zip(lams, responses)),
    )
