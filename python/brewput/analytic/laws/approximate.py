"""Where solve knows a station's mean wait but not the law of the wait (M/G/1
by Pollaczek-Khinchine, M/G/c and GI/G/c by Allen-Cunneen): the law
approximated, and marked so (`exact: false`, method `exponential-wait`). An
arrival waits with probability P, Erlang C's at the same load (exactly rho at
one server, whatever the service law); a wait is exponential with the mean
that makes the whole wait's mean solve's: E[W] / P. This is exact for M/M/c
(Erlang C's law), a two-moment fit elsewhere: heavy traffic makes a wait
exponential (Kingman), light traffic and low-variance service do not.

The response adds the class's own service, independent of the wait under
FCFS, by numerical convolution (Gauss-Legendre) with its law where the
model's distribution gives one (Distribution.quantile_law, scipy's, imported
only then); otherwise its figures are null.
"""
from __future__ import annotations

import math
import numpy as np

from .. import queues
from . import Law, Laws, by_bisection

METHOD = "exponential-wait"
#: Gauss-Legendre nodes of the convolution: an approximate law needs no more.
_NODES = 200


def exponential_wait_laws(lam: float, mean_service: float, c: int, mean_wait: float, service) -> Laws:
    """The approximate laws at a station of `c` servers, arrival rate `lam`, mean
    service `mean_service` (of all classes there), solve's `mean_wait`, and this
    class's service distribution `service`."""
    waits = queues.erlang_c(c, lam * mean_service) if mean_wait > 0 else 0.0
    rate = waits / mean_wait if mean_wait > 0 else math.inf

    def wait_cdf(t: float) -> float:
        return 1.0 - waits * math.exp(-rate * t) if t >= 0 else 0.0

    def wait_quantile(q: float) -> float:
        return 0.0 if 1.0 - q >= waits else math.log(waits / (1.0 - q)) / rate

    return Laws(waiting=Law(cdf=wait_cdf, quantile=wait_quantile),
                response=_response(waits, rate, service), exact=False, method=METHOD)


def _response(waits: float, rate: float, service) -> Law:
    """The law of wait + service, its service law read (and scipy imported) on
    first use; NaN throughout where the service has no law to convolve with."""
    known: dict = {}

    def law():
        if "law" not in known:
            try:
                known["law"] = service.quantile_law()[0]
            except TypeError:  # no density (const, empirical, hyperexp): its convolution is not written here
                known["law"] = None
        return known["law"]

    nodes, weights = np.polynomial.legendre.leggauss(_NODES)

    def cdf(t: float) -> float:
        """(1 - P) F(t) + P int_0^t rate e^{-rate x} F(t - x) dx, the integral by Gauss-Legendre."""
        if law() is None:
            return math.nan
        if t <= 0:
            return 0.0
        if waits == 0:
            return float(law().cdf(t))
        x = (nodes + 1.0) * t / 2.0
        waited = float(weights @ (rate * np.exp(-rate * x) * law().cdf(t - x))) * t / 2.0
        return (1.0 - waits) * float(law().cdf(t)) + waits * waited

    def quantile(q: float) -> float:
        if law() is None:
            return math.nan
        return by_bisection(cdf, q, 2.0 * (float(law().mean()) + (waits / rate if waits else 0.0)))

    return Law(cdf=cdf, quantile=quantile)
