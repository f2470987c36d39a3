"""GI/M/1 FCFS (renewal arrivals, one exponential server): an arrival waits with
probability sigma = 1 - tau, and then an exponential time of rate tau / s; the
response time is exponential of rate tau / s (analytic/gim1.py)."""
from __future__ import annotations

import math

from .. import gim1
from . import Law, Laws


def gim1_laws(s: float, tau: float) -> Laws:
    return Laws(
        waiting=Law(cdf=lambda t: 1.0 - (1.0 - tau) * math.exp(-tau * t / s),
                    quantile=lambda q: gim1.wait_quantile(q, s, tau)),
        response=Law(cdf=lambda t: -math.expm1(-tau * t / s),
                     quantile=lambda q: gim1.response_quantile(q, s, tau)),
        exact=True, method="gi-m-1")
