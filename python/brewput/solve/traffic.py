"""Traffic equations on a compiled model: how often each step is visited per
customer, and the load each station and resource is offered by open classes.

The simulator uses it to warn about unstable open models before running them;
the analytic solver builds on the same visit ratios.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List

EXIT = None


def dist_mean(dist: dict) -> float:
    """The mean of a compiled distribution (docs/compiled-model.md)."""
    kind = dist["kind"]
    if kind == "const":
        return dist["value"]
    if kind in ("exp", "erlang"):
        return dist["mean"]
    if kind == "gamma":
        return dist["shape"] * dist["scale"]
    if kind == "lognormal":
        return math.exp(dist["mu"] + dist["sigma"] ** 2 / 2)
    if kind == "uniform":
        return (dist["low"] + dist["high"]) / 2
    if kind == "normal":
        return _normal_truncated_at_zero_mean(dist["mean"], dist["sd"])
    if kind == "hyperexp":
        return dist["p"] * dist["mean1"] + (1 - dist["p"]) * dist["mean2"]
    if kind == "empirical":
        return sum(dist["values"]) / len(dist["values"])
    raise ValueError(f"unknown distribution kind {kind!r}")


def _normal_truncated_at_zero_mean(mean: float, sd: float) -> float:
    if sd == 0:
        return mean
    alpha = -mean / sd
    pdf = math.exp(-alpha * alpha / 2) / math.sqrt(2 * math.pi)
    survival = 0.5 * math.erfc(alpha / math.sqrt(2))
    return mean + sd * pdf / survival


def step_visits(steps: List[dict]) -> List[float]:
    """Expected visits to each step per customer: the solution of
    v = e_0 + P^T v, where P is the step-to-step routing (exit absorbs)."""
    import numpy as np  # only models that need it pay numpy's import time

    n = len(steps)
    routing = np.zeros((n, n))
    for i, step in enumerate(steps):
        for target, p in step["next"]:
            if target is not EXIT:
                routing[i, target] += p
    start = np.zeros(n)
    start[0] = 1.0
    try:
        visits = np.linalg.solve(np.eye(n) - routing.T, start)
    except np.linalg.LinAlgError:
        # Exit unreachable: a closed loop visited for ever. Only closed classes
        # may do that, and their load is not "offered" from outside.
        return [math.inf] * n
    return [float(v) for v in visits]


@dataclass(frozen=True)
class OfferedLoad:
    """Utilization that open arrivals alone demand of each station and resource."""

    stations: Dict[str, float]
    resources: Dict[str, float]


def open_offered_load(compiled: dict) -> OfferedLoad:
    stations = compiled["stations"]
    resources = compiled["resources"]
    work_at_station = [0.0] * len(stations)
    work_on_resource = [0.0] * len(resources)
    for cls in compiled["classes"]:
        source = cls["source"]
        if source["kind"] != "open":
            continue
        rate = 1.0 / dist_mean(source["interarrival"])
        for visits, step in zip(step_visits(cls["steps"]), cls["steps"]):
            work = rate * visits * dist_mean(step["service"])
            work_at_station[step["station"]] += work
            for r in step["uses"]:
                work_on_resource[r] += work
    return OfferedLoad(
        stations={s["name"]: w / s["servers"] for s, w in zip(stations, work_at_station)
                  if s["servers"] is not None and w > 0},
        resources={r["name"]: w / r["tokens"] for r, w in zip(resources, work_on_resource) if w > 0},
    )


def instability_warnings(compiled: dict) -> List[str]:
    """One line per station or resource that open arrivals load to 100 % or more."""
    if all(c["source"]["kind"] != "open" for c in compiled["classes"]):
        return []
    load = open_offered_load(compiled)
    where = [("station", name, rho) for name, rho in load.stations.items()] + \
            [("resource", name, rho) for name, rho in load.resources.items()]
    return [
        f"{kind} {name}: open arrivals offer utilization {rho:.3g} >= 1; the model is unstable "
        f"and its queues grow without bound (figures depend on the run length)"
        for kind, name, rho in where if rho >= 1.0
    ]
