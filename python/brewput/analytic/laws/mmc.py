"""M/M/c FCFS (Poisson arrivals, exponential service, every class alike): the
wait is 0 with probability 1 - C (Erlang's C) and else exponential of rate
c mu - lam, P(W <= t) = 1 - C e^{-(c mu - lam) t}; the response adds an
independent exponential service (queues.py has the tails and quantiles)."""
from __future__ import annotations

from .. import queues
from . import Law, Laws


def mmc_laws(lam: float, s: float, c: int) -> Laws:
    return Laws(
        waiting=Law(cdf=lambda t: 1.0 - queues.mmc_wait_tail(t, lam, s, c),
                    quantile=lambda q: queues.mmc_wait_quantile(q, lam, s, c)),
        response=Law(cdf=lambda t: 1.0 - queues.mmc_response_tail(t, lam, s, c),
                      quantile=lambda q: queues.mmc_response_quantile(q, lam, s, c)),
        exact=True, method="erlang-c")
