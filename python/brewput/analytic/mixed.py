"""Mixed networks: open and closed classes together.

The standard reduction (Lazowska, Zahorjan, Graham and Sevcik, Quantitative
System Performance, ch. 7): in a product-form network the open classes' load
U_m = sum_open lam_r D_rm at a single-server station m stretches every closed
customer's time there as if the station were 1 - U_m as fast, so

  1. the closed classes alone, with demands D_rm / (1 - U_m), are solved exactly
     (closed.py), which gives their figures as they are in the mixed network;
  2. an open customer at m then finds the closed customers Q_m^closed there and
     the open ones in the M/M/1 proportion: R_rm = D_rm (1 + Q_m^closed) / (1 - U_m).

Delay stations need nothing (R = D for everyone). A multi-server station that
only open classes visit behaves as M/M/c whatever the closed classes do
(R_rm = D_rm L_m / a_m, with L_m the mean number present in M/M/c at offered
load a_m), and one that only closed classes visit is the closed solution's
load-dependent station: both exact. A multi-server station shared by open and
closed classes has no such reduction: it becomes Seidmann's single server c
times faster plus a delay of (c - 1) / c of the service, and is marked approximate.
"""
from __future__ import annotations

import numpy as np

from ..errors import BrewputError
from . import queues, sizing
from .closed import product_form_stations, solve_arrays, utilization
from .network import Network
from .solution import Solution


def solve_mixed(net: Network, method: str = "auto") -> Solution:
    """Solve a network with open and closed classes (method: as for closed networks,
    applied to the closed classes)."""
    opened = net.is_open
    if opened.all() or not opened.any():
        raise ValueError("solve_mixed needs both open and closed classes")
    product_form, notes = product_form_stations(net)
    demand, delay = net.demand, net.is_delay
    servers = np.where(delay, 1.0, net.servers)
    offered = net.arrival_rate[opened] @ demand[opened]       # (M,) busy servers open classes need
    load = np.where(delay, 0.0, offered / servers)             # per server
    if (load >= 1).any():
        m = int(np.argmax(load))
        raise BrewputError(f"station {net.stations[m]}: the open classes alone load it to {load[m]:.4g} "
                           f">= 1; the model is unstable, no steady state exists")
    with_closed = demand[~opened].sum(axis=0) > 0
    open_only = ~with_closed & (offered > 0)
    shared = ~delay & (servers > 1) & with_closed & (offered > 0)

    # Seidmann at shared multi-server stations: the single server takes D / c, the
    # delay (c - 1) D / c joins the closed classes' think time.
    part = np.where(shared, demand / servers, demand)
    aside = demand - part
    stretch = np.where(delay, 1.0, 1.0 / (1.0 - load))
    closed = solve_arrays((part * stretch)[~opened], np.where(shared, 1.0, net.servers),
                          net.think[~opened] + aside[~opened].sum(axis=1),
                          net.population[~opened], method)
    closed_present = closed.queue_length.sum(axis=0)  # closed customers at each queueing part

    residence = np.zeros_like(demand)
    residence[~opened] = closed.residence_time + aside[~opened]
    at_m = np.where(delay, 1.0, stretch * (1 + closed_present))  # an open customer's slowdown
    erlang = np.flatnonzero(open_only & ~delay)
    sizing.check(f"{len(erlang):,} open stations of up to {servers[erlang].max(initial=0):,.0f} servers",
                 sum((sizing.erlang_cost(servers[m]) for m in erlang), sizing.NOTHING), "use brewput simulate")
    for m in erlang:
        at_m[m] = queues.mmc(offered[m], 1.0, int(servers[m])).in_system / offered[m]
    residence[opened] = part[opened] * at_m + aside[opened]

    throughput = np.where(opened, net.arrival_rate, 0.0)
    throughput[~opened] = closed.throughput
    closed_exact = closed.exact and not shared.any()
    exact_station = product_form.all() & (open_only | closed_exact)
    station_method = ["delay" if delay[m] else "seidmann" if shared[m] else closed.station_method[m]
                      if with_closed[m] else "processor-sharing" if net.discipline[m] == "ps" else "erlang-c"
                      for m in range(len(servers))]
    notes = closed.notes + notes
    if shared.any():
        names = ", ".join(np.array(net.stations)[shared])
        notes.append(f"{names}: multi-server stations that open and closed classes share, solved by "
                     f"Seidmann's approximation (one server c times faster and a delay)")
    return Solution(
        method=f"mixed-{closed.method}",
        throughput=throughput,
        response_time=residence.sum(axis=1),
        utilization=utilization(demand, net.servers, throughput),
        queue_length=throughput[:, None] * residence,
        residence_time=residence,
        exact_class=np.array([closed_exact and product_form.all() if not opened[r]
                              else exact_station[net.visits[r] > 0].all() for r in range(len(opened))]),
        exact_station=exact_station,
        station_method=station_method,
        notes=notes,
    )
