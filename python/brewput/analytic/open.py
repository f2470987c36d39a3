"""Open networks: every class arrives from outside and leaves.

Each station is fed its total flow lam_m = sum_r lam_r visits[r, m] and solved
alone by the formula for its kind (queues.py). That is exact when the network
has product form (Jackson, BCMP): Poisson arrivals, and every station a delay,
processor sharing, or fifo/lifo with one exponential service for all classes;
each station then behaves as if fed by Poisson arrivals even where (feedback)
its arrivals are not Poisson. A station visited directly, once per customer,
by Poisson arrivals also gets exact answers when its kind has an exact formula
for Poisson input (M/G/1 by Pollaczek-Khinchine, Cobham's priorities, M/M/c/K).
Shortest-job-first at one server is M/G/1 SJF (sjf.py); elsewhere Unsupported.

Otherwise the figures are approximate and say so: a station that is not
product-form makes the flows it sends on non-Poisson, and the network does not
record where they go, so every station is then solved as if fed by Poisson
arrivals (scv 1); non-Poisson external arrivals enter the formulas only at a
single station visited once per customer (their flow-weighted scv), and inside
a network are taken as Poisson too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..errors import Unstable
from . import gim1, mg1k, queues, sizing, sjf
from .laws.approximate import exponential_wait_laws
from .laws.birth_death import birth_death_laws
from .laws.gim1 import gim1_laws
from .laws.mmc import mmc_laws
from .mixed_poisson import mixture
from .network import Network, Unsupported, shortest_job_first
from .solution import Solution

#: Tolerance for "exponential" (scv 1), "Poisson" and "equal service means".
TOL = 1e-9


@dataclass
class _Station:
    response: np.ndarray       # (R,) mean response per visit
    method: str
    exact: bool                # exact when the station's arrivals are Poisson
    product_form: bool         # keeps a network's product form (BCMP)
    loss: float = 0.0          # probability an arrival is refused (finite capacity)
    accepted: float = 1.0      # 1 - loss, kept apart: at heavy load the loss rounds to 1
    note: Optional[str] = None  # why the formula is approximate, if it is


def solve_open(net: Network) -> Solution:
    """Mean figures of an open network, marked exact or approximate per station
    and class; time laws for a single M/M/c FCFS or GI/M/1 station; raises BrewputError
    for an unstable station and Unsupported where no formula applies."""
    if not net.is_open.all():
        raise ValueError("solve_open needs a network of open classes only")
    flow = net.arrival_rate[:, None] * net.visits  # (R, M) visits per time unit
    visited = np.flatnonzero(flow.sum(axis=0) > 0)
    poisson = bool(np.all(net.arrival_poisson))
    # One station, each customer visiting it once: its arrivals are the external ones.
    direct = len(visited) == 1 and bool(np.all(np.abs(net.visits[:, visited[0]] - 1.0) <= TOL))
    ca2 = float(flow[:, visited[0]] @ net.arrival_scv / flow[:, visited[0]].sum()) if direct else 1.0

    _check_cost(net, visited, flow)
    stations = [_station(net, m, flow[:, m], ca2, direct) for m in range(len(net.stations))]
    not_product = [net.stations[m] for m in visited if not stations[m].product_form]
    poisson_inside = poisson and (direct or not not_product)
    exact_station = np.array([
        st.exact and (poisson_inside or st.method in ("infinite-server", "idle", "gi-m-1")) for st in stations])
    notes = [st.note for st in stations if st.note]
    if not poisson and not exact_station.all():
        notes.append("arrivals are not Poisson: " + (
            f"Allen-Cunneen takes their scv ({ca2:.3g}), other formulas take them as Poisson" if direct
            else "inside a network every station is solved as if fed by Poisson arrivals (scv 1)")
            + " (approximate)")
    elif poisson and not poisson_inside:
        notes.append(
            f"not product-form: {', '.join(not_product)}; the flows between stations are then not "
            f"Poisson, and every station is solved as if fed by Poisson arrivals (approximate)")

    loss = np.array([st.loss for st in stations])[visited].max()
    throughput = net.arrival_rate * np.array([st.accepted for st in stations])[visited].min()
    per_visit = np.column_stack([st.response for st in stations])
    residence = net.visits * per_visit
    with np.errstate(divide="ignore", invalid="ignore"):
        busy_share = throughput[:, None] * net.demand / np.where(net.is_delay, 1.0, net.servers)
    if len(visited) == 1:
        method = stations[visited[0]].method
    else:
        method = "jackson" if poisson_inside else "decomposition"
    return Solution(
        method=method,
        throughput=throughput,
        response_time=residence.sum(axis=1),
        utilization=busy_share,
        queue_length=throughput[:, None] * residence,
        residence_time=residence,
        exact_class=np.array([exact_station[net.visits[r] > 0].all() for r in range(len(net.classes))]),
        exact_station=exact_station,
        station_method=[st.method for st in stations],
        laws=_laws(net, visited[0], flow[:, visited[0]], stations[visited[0]]) if direct else {},
        loss_probability=np.full(len(net.classes), loss) if np.isfinite(net.capacity[visited]).any() else None,
        notes=notes,
    )


def _check_cost(net: Network, visited: np.ndarray, flow: np.ndarray) -> None:
    """Refuses stations whose formulas would take too long or too much memory
    (sizing.py): Erlang's recursion over millions of servers at thousands of
    stations, or an embedded chain over millions of places."""
    costs = []
    for m in visited:
        servers, capacity = net.servers[m], net.capacity[m]
        if math.isfinite(capacity):
            costs.append(sizing.loss_station_cost(capacity, _embedded_chain(net, m, flow[:, m])))
        else:
            costs.append(sizing.erlang_cost(servers))
    worst = int(np.argmax([c.seconds for c in costs]))
    m = visited[worst]
    size = (f"room for {net.capacity[m]:,.0f} jobs" if math.isfinite(net.capacity[m])
            else f"{net.servers[m]:,.0f} servers")
    sizing.check(f"station {net.stations[m]} with {size}", costs[worst], "use brewput simulate")
    sizing.check(f"{len(costs):,} stations of up to {net.servers[visited].max():,.0f} servers",
                 sum(costs, sizing.NOTHING), "use brewput simulate")


def _station(net: Network, m: int, flow: np.ndarray, ca2: float, direct: bool) -> _Station:
    """Station m fed `flow` (per class) with arrival scv `ca2`."""
    name, c, discipline = net.stations[m], net.servers[m], net.discipline[m]
    s, scv = net.service[:, m], net.service_scv[:, m]
    lam = flow.sum()
    if lam == 0:
        return _Station(np.zeros_like(flow), "idle", True, True)
    if discipline == "sjf" and not (c == 1 and direct and math.isinf(net.capacity[m])):
        raise shortest_job_first(name, "with more than one server" if c != 1 else "inside a network"
                                 if not direct else "with a finite buffer")
    used = flow > 0
    # The station serves the flow-weighted mixture of its classes' service times.
    mean = flow @ s / lam
    if mean == 0:  # every job leaves the instant it arrives: nobody waits, nothing fills
        return _Station(np.zeros_like(flow), "no-service", True, True)
    cs2 = flow @ (s * s * (1.0 + scv)) / lam / mean**2 - 1.0
    exponential = _exponential(net, m, flow)
    if math.isinf(c):
        return _Station((queues.infinite_server(lam, mean).wait + s) * used, "infinite-server", True, True)
    c = int(c)
    if math.isfinite(net.capacity[m]):
        return _finite_station(net, m, c, int(net.capacity[m]), flow, mean, exponential, direct)
    rho = lam * mean / c
    if rho >= 1.0:
        raise Unstable(f"station {name}: utilization {rho:.4g} >= 1, the open model is unstable; "
                           f"no steady state exists")
    if discipline == "sjf":
        waits, converged = sjf.sjf_waits(lam, mean * mean * (1.0 + cs2), [
            (r, net.arrival_rate[r] * visits / lam, dist)
            for r, steps in enumerate(net.steps) for station, visits, dist in steps if station == m and visits > 0],
            len(flow))
        note = None if converged else (f"station {name}: shortest job first's integrals over the service "
                                       f"laws did not reach their tolerance (approximate)")
        return _Station((np.array(waits) + s) * used, "sjf", converged, False, note=note)
    if discipline == "ps":
        slowdown = queues.processor_sharing(lam, mean, c).response / mean
        return _Station(s * slowdown * used, "processor-sharing", True, True)
    renewal = _renewal_arrivals(net, m, flow, direct)
    if renewal is not None and c == 1 and exponential:
        t = gim1.tau(renewal, mean)
        return _Station((gim1.means(lam, mean, t).wait + s) * used, "gi-m-1", True, True)
    poisson = abs(ca2 - 1.0) <= TOL
    if poisson and exponential:
        wait, method, exact = queues.mmc(lam, mean, c).wait, "erlang-c", True
    elif poisson and c == 1:
        wait, method, exact = queues.pollaczek_khinchine(lam, mean, cs2).wait, "pollaczek-khinchine", True
    else:
        wait, method, exact = queues.allen_cunneen(lam, mean, c, ca2, cs2).wait, "allen-cunneen", False
    note = None
    if poisson and not exact:
        note = (f"station {name}: service times not one exponential for all classes at a multi-server "
                f"{discipline} station; Allen-Cunneen on their flow-weighted mix (approximate)")
    prio = net.priority
    if discipline == "priority" and len(set(prio[used])) > 1:
        waits = np.array(queues.priority_waits(wait, flow * s / c, prio))
        method = "cobham" if exact else "cobham-allen-cunneen"
        return _Station((waits + s) * used, method, exact, False, note=note)
    return _Station((wait + s) * used, method, exact, exponential, note=note)


def _renewal_arrivals(net: Network, m: int, flow: np.ndarray, direct: bool):
    """1 - A* of the time between arrivals at station m (gim1.py) when they are
    one open class's own and not Poisson (each law knows its transform); else
    None. Several classes' arrivals together are no renewal process."""
    fed = np.flatnonzero(flow > 0)
    if not direct or len(fed) != 1 or net.arrival_poisson[fed[0]] or net.discipline[m] == "lifo":
        return None
    return net.interarrival[fed[0]].laplace_complement()


def _finite_station(net: Network, m: int, c: int, k: int, flow: np.ndarray, mean: float,
                    exponential: bool, direct: bool) -> _Station:
    """A station holding at most k jobs (network_of allows it only as the one
    station of an open model): M/G/1/K by its embedded chain where the service
    law allows (mg1k.py), else M/M/c/K."""
    name, discipline, s = net.stations[m], net.discipline[m], net.service[:, m]
    if not direct:
        raise Unsupported(f"station {name}: a finite buffer at a station visited more than once per "
                          f"customer has no analytic method here; use brewput simulate")
    if discipline == "priority" and k > c and len(set(net.priority[flow > 0])) > 1:
        raise Unsupported(f"station {name}: priorities between classes with a finite buffer have no "
                          f"analytic method here; use brewput simulate")
    lam = flow.sum()
    chain = (mg1k.solve_mg1k(lam, mean, k, lambda count: _service_law(net, m, flow, count))
             if _embedded_chain(net, m, flow) else None)
    if chain is not None:
        loss, means = chain
        return _Station((means.wait + s) * (flow > 0), "mg1k", True, False, loss=loss,
                        accepted=_accepted(lam, means))
    loss, means = queues.mmck(lam, mean, c, k)
    exact = exponential or k == c or discipline == "ps"
    if discipline == "ps":
        response = s * means.response / mean
    else:
        response = means.wait + s
    why = ("more than one server" if c > 1 else "a service time spread over too many arrivals per "
           "service to integrate for the embedded chain")
    note = None if exact else (
        f"station {name}: finite buffer with {why} and service not one exponential for all "
        f"classes; M/M/c/K with their flow-weighted mean (approximate)")
    return _Station(response * (flow > 0), "erlang-b" if k == c else "mmck", exact, exponential,
                    loss=loss, accepted=_accepted(lam, means), note=note)


def _accepted(lam: float, means: queues.Means) -> float:
    """The share of arrivals a finite station accepts, from its throughput by Little's law."""
    return means.in_system / means.response / lam


def _exponential(net: Network, m: int, flow: np.ndarray) -> bool:
    """Whether station m serves one exponential distribution to every class it sees."""
    used, s = flow > 0, net.service[:, m]
    mean = flow @ s / flow.sum()
    return bool(np.all(net.service_exponential[used, m]) and np.all(np.abs(s[used] - mean) <= TOL * mean))


def _embedded_chain(net: Network, m: int, flow: np.ndarray) -> bool:
    """Whether finite station m is M/G/1/K for the embedded chain: Erlang's loss
    system (no waiting room), processor sharing and exponential service are
    insensitive or M/M/c/K already, and the chain needs one server."""
    return (net.servers[m] == 1 and net.capacity[m] > 1 and net.discipline[m] != "ps"
            and not _exponential(net, m, flow))


def _service_law(net: Network, m: int, flow: np.ndarray, count: int):
    """The law of Poisson arrivals during a service at station m (arrivals_law with
    `count` tails), whose service time is the mixture of every class's steps there
    weighted by their flows; None when a step's distribution has no exact law."""
    lam = flow.sum()
    laws, weights = [], []
    for r, steps in enumerate(net.steps):
        for station, visits, dist in steps:
            if station != m or flow[r] == 0 or visits == 0:
                continue
            law = mg1k.arrivals_law(dist, lam, count)
            if law is None:
                return None
            laws.append(law)
            weights.append(net.arrival_rate[r] * visits / lam)
    return mixture(laws, weights)


#: The mean-value methods whose FIFO station gets approximate time laws (laws/approximate.py).
APPROXIMATED = ("pollaczek-khinchine", "allen-cunneen")


def _laws(net: Network, m: int, flow: np.ndarray, station: _Station) -> dict:
    """The waiting- and response-time laws of the one station of an open
    model: exact when it is M/M/c FCFS with Poisson arrivals (all classes then
    share them), M/M/c/K FCFS (those admitted) or GI/M/1 FCFS (one class); approximate (marked) at a FIFO
    station solved by Pollaczek-Khinchine or Allen-Cunneen."""
    lam = float(flow.sum())
    mean = float(flow @ net.service[:, m]) / lam
    if station.method == "gi-m-1":  # one class, whose mean response s / tau gives tau back
        laws = gim1_laws(mean, mean / float(station.response[flow > 0][0]))
    elif station.method in ("mmck", "erlang-b") and station.exact and net.discipline[m] == "fifo":
        k = int(net.capacity[m])  # an arrival finding k present is turned away
        laws = birth_death_laws(lam, mean, int(net.servers[m]), math.inf, lambda n: float(n < k), k + 1,
                                station.method)
    elif station.method in APPROXIMATED and net.discipline[m] == "fifo":
        wait = float(station.response[flow > 0][0] - net.service[flow > 0, m][0])  # FIFO: every class's
        first_service = {r: steps[0][2] for r, steps in enumerate(net.steps) if flow[r] > 0}  # the one visit
        return {r: exponential_wait_laws(lam, mean, int(net.servers[m]), wait, service)
                for r, service in first_service.items()}
    elif station.method != "erlang-c" or net.discipline[m] == "lifo" or not net.arrival_poisson.all():
        return {}
    else:
        laws = mmc_laws(lam, mean, int(net.servers[m]))
    return {r: laws for r in range(len(net.classes))}
