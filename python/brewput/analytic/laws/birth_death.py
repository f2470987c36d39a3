"""One FCFS station of c exponential servers whose arrivals are Poisson and may
balk (an arrival finding n present joins with a chance of its own) and whose
waiting customers may give up after an exponential patience (Erlang A,
M/M/c+M), or be turned away by a full buffer (M/M/c/K): the law of the wait
of those served, as the simulator measures it (a customer who gives up is
lost, not timed), and of their response time.

An arrival finds n present with the chain's stationary probability (PASTA,
abandonment.py) and joins with its chance at n. Below c it is served at once.
Otherwise it has j = n - c customers ahead; while it waits with i ahead,
someone ahead leaves (a service starts, or one of them gives up) at rate
c mu + i theta and it gives up itself at rate theta: it leaves state i after
an Exp(c mu + (i + 1) theta) time whichever way it goes, so that it is served
with probability prod_{i <= j} (c mu + i theta) / (c mu + (i + 1) theta), and
given that, its wait is the sum of those exponentials (those behind it never
matter under FCFS). The law of the wait of the served is then a phase-type law
of a pure-death chain of phases, computed by uniformization (phase_type.py);
the response adds an exponential service.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..birth_death import stationary
from . import Law, Laws, by_bisection
from .phase_type import DeathChain


def birth_death_laws(lam: float, s: float, c: int, patience: float, chance: Callable[[int], float], states: int,
                     method: str) -> Laws:
    """The laws over the chain's `states` (0 .. states - 1 present; beyond it no
    arrival joins), an arrival finding n joining with `chance(n)`."""
    mu, theta = 1.0 / s, 0.0 if math.isinf(patience) else 1.0 / patience
    joins = np.array([chance(n) for n in range(states)])
    death = [min(n + 1, c) * mu + max(n + 1 - c, 0) * theta for n in range(states - 1)]
    found = np.array(stationary(list(lam * joins[:-1]), death)) * joins  # joined, by what they found
    ahead = np.arange(max(len(found) - c, 0))  # j customers ahead, for n = c + j found
    leave = c * mu + (ahead + 1) * theta  # the rate of leaving phase j, served or not
    queued = found[c:] * np.cumprod((c * mu + ahead * theta) / leave)
    at_once = found[:c].sum()
    total = at_once + queued.sum()
    waits = DeathChain(rates=leave, start=queued / total)
    responses = DeathChain(rates=np.concatenate(([mu], leave)), start=np.concatenate(([at_once], queued)) / total)

    def law(chain: DeathChain) -> Law:
        return Law(cdf=chain.cdf, quantile=lambda q: by_bisection(chain.cdf, q, chain.mean() + s))

    return Laws(waiting=law(waits), response=law(responses), exact=True, method=method)
