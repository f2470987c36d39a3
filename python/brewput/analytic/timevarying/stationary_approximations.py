"""Approximations of a time-varying M/M/c(t)(+M) station by stationary formulas, each
labelled approximate (exact=False): Erlang C without patience (queues.py), Erlang A
with it (abandonment.py), at an arrival rate each method chooses:

- psa       pointwise stationary: lambda(t) at each instant (Green and Kolesar 1991);
- sipp      stationary independent period by period: the interval's mean rate;
- lag-sipp  SIPP on the rate lagged by the mean service time: the mean of lambda over
            [start - E[S], end - E[S]] (Green, Kolesar and Soares 2001);
- mol       modified offered load: lambda_MOL(t) = m(t) / E[S] at each instant, m the
            infinite-server offered load (offered_load.py; Jennings, Mandelbaum, Massey
            and Whitt 1996), which lags and smooths the rate as the station does.

A pointwise method's figures for an interval are averages over its instants (of time,
or weighted by arrivals for those who arrive), by 16-point Gauss-Legendre on each piece
between the rate's breaks. Where a stationary formula has no answer (Erlang C at
lambda E[S] >= c, or no server on) the figure is nan and the interval is named in
details["overloaded"].
"""
from __future__ import annotations

import math
from typing import Dict, List, Sequence

import numpy as np

from ...model.distributions import Exp
from ...model.timeline import Rate, Rota
from ..abandonment import erlang_a
from ..laws.erlang_a import erlang_a_laws
from ..queues import mmc, mmc_wait_tail
from .figures import IntervalFigures
from .offered_load import offered_load

METHODS = ("psa", "sipp", "lag-sipp", "mol")
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)
_FIGURES = ("in_system", "in_queue", "utilization", "wait", "abandoned")


def stationary_figures(lam: float, service_mean: float, servers: int, patience: float,
                       targets: Sequence[float]) -> Dict[str, float]:
    """The stationary station at rate `lam` (Erlang C, or Erlang A with patience);
    nan for everything when it has no steady state."""
    nan = dict.fromkeys(_FIGURES, math.nan)
    nan.update({x: math.nan for x in targets})
    if servers <= 0:
        return nan
    if lam <= 0:
        idle = dict(in_system=0.0, in_queue=0.0, utilization=0.0, wait=0.0, abandoned=0.0)
        idle.update({x: 1.0 for x in targets})
        return idle
    if math.isinf(patience):
        if lam * service_mean >= servers:
            return nan
        means = mmc(lam, service_mean, servers)
        out = dict(in_system=means.in_system, in_queue=means.in_queue, utilization=lam * service_mean / servers,
                   wait=means.wait, abandoned=0.0)
        out.update({x: 1.0 - mmc_wait_tail(x, lam, service_mean, servers) for x in targets})
        return out
    chain = erlang_a(lam, service_mean, servers, patience)
    out = dict(in_system=chain.mean_in_system, in_queue=chain.mean_in_queue, utilization=chain.utilization,
               wait=chain.mean_wait_served, abandoned=chain.abandoned)
    if targets:  # the wait of those served (analytic/laws/erlang_a.py)
        served_wait = erlang_a_laws(lam, service_mean, servers, patience).waiting
        out.update({x: float(served_wait.cdf(x)) for x in targets})
    return out


def approximate(method: str, rate: Rate, service_mean: float, rota: Rota, *, patience: float = math.inf,
                targets: Sequence[float] = ()) -> IntervalFigures:
    """One approximation's figures per interval of the rota."""
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}' (one of {', '.join(METHODS)})")
    edges = rota.edges
    count = edges.size - 1
    columns: Dict = {name: np.full(count, np.nan) for name in (*_FIGURES, *targets)}
    overloaded: List[int] = []
    for i in range(count):
        a, b, servers = edges[i], edges[i + 1], int(rota.counts[i])
        if method in ("sipp", "lag-sipp"):
            lag = service_mean if method == "lag-sipp" else 0.0
            lam = float(np.diff(rate.cumulative([a - lag, b - lag]))[0]) / (b - a)
            at = stationary_figures(lam, service_mean, servers, patience, targets)
            for name in columns:
                columns[name][i] = at[name]
        else:
            t, w = _nodes(rate, a, b)
            lam = rate.rate(t) if method == "psa" else offered_load(rate, Exp(service_mean), t) / service_mean
            each = [stationary_figures(float(x), service_mean, servers, patience, targets) for x in lam]
            arriving = w * rate.rate(t)  # the customers who arrive, at the true rate
            for name in columns:
                values = np.array([e[name] for e in each])
                weights = w if name in ("in_system", "in_queue", "utilization") else arriving
                columns[name][i] = (float(weights @ values) / weights.sum()) if weights.sum() > 0 else math.nan
        if servers > 0 and math.isnan(columns["in_system"][i]):
            overloaded.append(i)
    return IntervalFigures(method=method, exact=False, edges=edges, servers=rota.counts.copy(),
                           arrivals=np.diff(rate.cumulative(edges)), mean_in_system=columns["in_system"],
                           mean_in_queue=columns["in_queue"], utilization=columns["utilization"],
                           mean_wait=columns["wait"], abandoned=columns["abandoned"],
                           service_level={x: columns[x] for x in targets}, details={"overloaded": overloaded})


def _nodes(rate: Rate, a: float, b: float):
    inner = rate.breaks[(rate.breaks > a) & (rate.breaks < b)] if not rate.repeat else np.array([])
    cuts = np.concatenate([[a], inner, [b]])
    lo, hi = cuts[:-1], cuts[1:]
    half = (hi - lo) / 2
    t = ((lo + hi)[:, None] / 2 + half[:, None] * _NODES[None, :]).ravel()
    w = (half[:, None] * _WEIGHTS[None, :]).ravel()
    return t, w
