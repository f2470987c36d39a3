"""Dispatching one Poisson stream (rate lam) over c identical stations, each one
exponential server of mean service s (rate mu = 1 / s): mean wait and response
per job, and the mean number of jobs present over all stations.

- `random`: each job to a station drawn uniformly, so each station is M/M/1 at
  lam / c (Poisson splitting). Exact.
- `round_robin`: job n to station n mod c, so each station sees Erlang-c gaps
  (the sum of c Exp(lam)): E_c/M/1, a GI/M/1 queue (gim1.py). Exact.
- `shared`: one queue feeding every station: M/M/c (queues.mmc). Exact.
- `power_of_d`: each job samples d stations and joins the shortest. In the limit
  of many stations (the supermarket model: Vvedenskaya, Dobrushin and Karpelevich
  1996, Problems of Information Transmission 32(1); Mitzenmacher 2001, IEEE TPDS
  12(10)) the fraction of stations with at least i jobs is
  rho^((d^i - 1) / (d - 1)), so the mean present per station is the sum over
  i >= 1. A large-system limit for any finite c: approximate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import BrewputError
from . import gim1
from .queues import mmc

POLICIES = ("random", "round_robin", "shared", "power_of_d")


@dataclass(frozen=True)
class Dispatched:
    """Mean figures of c stations fed through one dispatch policy."""

    wait: float       # per job: time queued before service
    response: float   # per job: wait + service
    in_system: float  # jobs present, over all stations
    exact: bool
    method: str       # "mm1-split", "erlang-gm1", "erlang-c" or "supermarket-mean-field"


def dispatch(policy: str, lam: float, s: float, stations: int, choices: int = 2) -> Dispatched:
    """Mean figures of `stations` identical exponential stations fed by one Poisson
    stream through `policy` (one of POLICIES); `choices` is power of d's d."""
    _check(lam, s, stations)
    if policy == "random":
        per = mmc(lam / stations, s, 1)
        return Dispatched(per.wait, per.response, stations * per.in_system, True, "mm1-split")
    if policy == "round_robin":  # each station's gaps: erlang(stations, stations / lam)
        response = s / gim1.tau(gim1.gamma_complement(stations, stations / lam), s)
        return Dispatched(response - s, response, lam * response, True, "erlang-gm1")
    if policy == "shared":
        means = mmc(lam, s, stations)
        return Dispatched(means.wait, means.response, means.in_system, True, "erlang-c")
    if policy == "power_of_d":
        if not (isinstance(choices, int) and not isinstance(choices, bool) and 1 <= choices <= stations):
            raise BrewputError(f"dispatch power_of_d: choices must be an integer from 1 to the {stations} "
                               f"stations, got {choices!r}")
        per_station = supermarket_mean_queue(lam * s / stations, choices)
        response = per_station * stations / lam
        return Dispatched(response - s, response, stations * per_station, False, "supermarket-mean-field")
    raise BrewputError(f"dispatch: policy {policy!r} has no closed form here (covered: {', '.join(POLICIES)}); "
                       "use brewput simulate")


def supermarket_mean_queue(rho: float, choices: int) -> float:
    """Mean jobs per station in the supermarket model's fixed point: the sum over
    i >= 1 of rho^((d^i - 1) / (d - 1)); d = 1 is the M/M/1 queue, rho / (1 - rho).
    The exponents grow as d^i, so the terms fall below rounding within a few dozen."""
    if choices == 1:
        return rho / (1.0 - rho)
    total, i = 0.0, 1
    while True:
        term = rho ** ((choices**i - 1) / (choices - 1))
        total += term
        if term < 1e-17 * total:
            return total
        i += 1


def _check(lam: float, s: float, stations: int) -> None:
    if not (isinstance(stations, int) and not isinstance(stations, bool) and stations >= 1):
        raise BrewputError(f"dispatch: stations must be a positive integer, got {stations!r}")
    for name, value in (("arrival rate", lam), ("mean service", s)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise BrewputError(f"dispatch: {name} must be a positive number, got {value!r}")
    rho = lam * s / stations
    if rho >= 1:
        raise BrewputError(f"dispatch: the stations are loaded to {rho:.4g} >= 1, unstable; no steady state exists")
