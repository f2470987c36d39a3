"""Erlang A (M/M/c+M: Poisson arrivals, c exponential servers, FCFS, each
waiting customer gives up after an exponential patience): the law of the wait
of those served, as the simulator measures it (a customer who gives up is
lost, not timed), and of their response time.

An arrival finds n present with the chain's stationary probability (PASTA,
abandonment.py). Below c it is served at once. Otherwise it has j = n - c
customers ahead; while it waits with i ahead, someone ahead leaves (a service
starts, or one of them gives up) at rate c mu + i theta and it gives up itself
at rate theta: it leaves state i after an Exp(c mu + (i + 1) theta) time
whichever way it goes, so that it is served with probability
prod_{i <= j} (c mu + i theta) / (c mu + (i + 1) theta), and given that, its
wait is the sum of those exponentials. The law of the wait of the served is
then a phase-type law of a pure-death chain of phases, computed by
uniformization (phase_type.py); the response adds an exponential service.
"""
from __future__ import annotations

import math

import numpy as np

from ..abandonment import chain_states
from ..birth_death import stationary
from . import Law, Laws, by_bisection
from .phase_type import DeathChain


def erlang_a_laws(lam: float, s: float, c: int, patience: float) -> Laws:
    mu, theta = 1.0 / s, 1.0 / patience
    states = int(math.ceil(chain_states(lam, s, c, patience=patience)))
    birth = [lam] * states
    death = [min(n + 1, c) * mu + max(n + 1 - c, 0) * theta for n in range(states)]
    found = np.array(stationary(birth, death))
    ahead = np.arange(len(found) - c)  # j customers ahead, for n = c + j found
    leave = c * mu + (ahead + 1) * theta  # the rate of leaving phase j, served or not
    served_from = np.cumprod((c * mu + ahead * theta) / leave)
    queued = found[c:] * served_from
    at_once = found[:c].sum()
    total = at_once + queued.sum()
    waits = DeathChain(rates=leave, start=queued / total)
    responses = DeathChain(rates=np.concatenate(([mu], leave)), start=np.concatenate(([at_once], queued)) / total)

    def law(chain: DeathChain) -> Law:
        return Law(cdf=chain.cdf, quantile=lambda q: by_bisection(chain.cdf, q, chain.mean() + s))

    return Laws(waiting=law(waits), response=law(responses), exact=True, method="erlang-a")
