"""`solve --method ctmc`: the model's continuous-time Markov chain, built and
solved; exact when every law in the model is phase-type (exponential, Erlang,
hyperexponential), else marked approximate with its phase-type fit named.

A constant (and any law less variable than Erlang-k) takes k Erlang phases: k
doubles from 2 while the chain stays within FIT_STATES states (and at most
MAX_PHASES phases), and the answer at the last k is given with its change from
the k before, so the user sees how far it may still move.

An open class that visits a station of unbounded buffer could pile up without end:
its chain is truncated at a limit on the open jobs in the system (an arrival beyond
it is cut off), doubled from FIRST_OPEN_LIMIT until at most TRUNCATION of each open
class's arrivals are cut off, and the notes say where it stopped.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Tuple, TypeVar

import numpy as np

from ...errors import BrewputError
from ...model import Model
from ...percentiles import NAMED as NAMED_PERCENTILES
from ...steps import told
from ..network import Network
from ..support import Unsupported
from ..laws import Laws
from ..solution import Solution
from .figures import Averages, averages, resource_figures
from .floor import Floor, floor_of
from .generate import Chain, TooManyStates, generate
from .passage import passage_laws
from .tagged import CompletedTimes, Passage, completed_times, passage
from .sizing import state_bound, state_limit, too_large
from .steady import stationary

T = TypeVar("T")

METHOD = "ctmc"
#: The most states a rung of the ladder of Erlang phases may take: scipy's LU of the
#: chain of 4 constant stages at Erlang-8 (20,000 states) fills 13 million entries and
#: takes 28 s, at Erlang-4 (1,900 states) 0.07 s.
FIT_STATES = 5_000
#: How far the bound (sizing.py) may exceed the limit before the walk is not even
#: tried: the bound counts placements the model's rules never reach (a closed line of
#: one-server stations holds one job in service at each), often by this much.
BOUND_SLACK = 50
#: The most of an open class's arrivals a truncated chain may cut off, and the limit on
#: open jobs it starts from (doubled until it holds).
TRUNCATION = 1e-12
FIRST_OPEN_LIMIT = 16
#: The most Erlang phases a constant is given.
MAX_PHASES = 64
#: The most states of a tagged customer's chain (passage.py), within --max-states: it is
#: walked and its laws followed once per class.
PASSAGE_STATES = 200_000
LAST_PERCENTILE = max(percent for _, percent in NAMED_PERCENTILES) / 100


@dataclass
class Solved:
    """One chain built and solved: the floor it was built from (with its truncation),
    its time averages and its size."""
    floor: Floor
    averages: Averages
    states: int
    #: The largest fraction of an open class's arrivals the truncation cut off (0 untruncated).
    cut: float = 0.0
    #: The chain and its stationary law, from which the passage times are followed.
    chain: Optional[Chain] = None
    pi: Optional[np.ndarray] = None
    #: Per class, its tagged customer's chain once walked (None: beyond the limit), walked
    #: once for both the times of those who complete and the laws.
    passages: Dict[int, Optional[Passage]] = field(default_factory=dict)

    def passage(self, c: int, limit: int) -> Optional[Passage]:
        """Class c's tagged customer's chain, None beyond `limit` states or where a dispatch
        step chooses (`why_no_passage`)."""
        if c not in self.passages and any(job.dispatches for job in self.floor.classes):
            self.passages[c] = None
        if c not in self.passages:
            try:
                self.passages[c] = passage(self.floor, self.chain, self.pi, c, limit)
            except TooManyStates:
                self.passages[c] = None
        return self.passages[c]


def why_no_passage(floor: Floor, limit: int) -> str:
    """Why `Solved.passage` gave no chain."""
    if any(job.dispatches for job in floor.classes):
        # the tagged customer would be a class of its own: not counted in its class's
        # branches, nor in turn at round_robin, nor in its place in a shared queue
        return "is not built where a dispatch step chooses"
    return f"has more than {limit:,} states"


class TooLarge(Exception):
    """The chain of `floor` has more states than the limit: by its `bound` (sizing.py),
    or (None) found while building it."""

    def __init__(self, floor: Floor, bound: Optional[int] = None):
        self.floor = floor
        self.bound = bound


def solve_chain(model: Model, net: Network, max_states: Optional[int] = None, truncate: bool = True,
                passages: bool = False) -> Solution:
    """The model by its Markov chain, or Unsupported naming what the chain does not
    follow yet or the size beyond `max_states`; without `truncate`, an open class that
    could pile up without end is not followed. With `passages`, each class's response-
    and waiting-time laws too (tagged.py, passage.py): asked for, as they cost a chain
    per class larger than the model's."""
    limit = state_limit(max_states)
    where = model.file or model.name
    compiled = model.compile()

    def refused(e: TooLarge, states: int) -> Unsupported:
        return too_large(where, e.floor, states, e.bound)

    floor = floor_of(compiled, where, constant_phases=1, truncate=truncate)
    _check_stable(floor, net)
    if floor.exact:
        try:
            solved = _solved(floor, limit, where)
        except TooLarge as e:
            raise refused(e, limit) from None
        notes = _notes(solved)
        laws = _passage_laws(model, solved, min(limit, PASSAGE_STATES), notes) if passages else {}
        return _solution(model, net, solved, notes, laws, min(limit, PASSAGE_STATES))
    def attempt(floor: Floor, budget: int) -> Solved:
        try:
            return _solved(floor, budget, where)
        except TooLarge as e:
            raise refused(e, budget) from None

    rungs = [(phases, solved) for phases, _, solved in fitted_rungs(compiled, where, limit, attempt)]
    phases, solved = rungs[-1]
    notes = [f"approximate, times replaced by phase-type laws: {'; '.join(solved.floor.fits)}"]
    notes += _notes(solved)
    laws = _passage_laws(model, solved, min(limit, PASSAGE_STATES), notes) if passages else {}
    if len(rungs) > 1:
        before, last = rungs[-2]
        change = _change(model, last.averages, solved.averages)
        if passages:  # the tails move most: a constant's Erlang-k is less spread out as k grows
            change += _percentile_change(model, _passage_laws(model, last, min(limit, PASSAGE_STATES), []), laws)
        notes.insert(1, f"from Erlang-{before} to Erlang-{phases}: {change}")
    elif phases < MAX_PHASES and (floor_of(compiled, where, constant_phases=2 * phases)
                                  != floor_of(compiled, where, constant_phases=phases)):
        # One rung only: no change to show, and the answer may yet be far from the model's laws.
        notes.insert(1, f"Erlang-{2 * phases} would pass {min(limit, FIT_STATES):,} states and was not tried: "
                        f"how far Erlang-{phases} is from the model's own laws is not known")
    return _solution(model, net, solved, notes, laws, min(limit, PASSAGE_STATES))


def fitted_rungs(compiled: dict, where: str, limit: int, attempt: Callable[[Floor, int], T]) -> List[Tuple[int, Floor, T]]:
    """(phases, floor, attempt(floor, budget)) with the laws that are not phase-type
    fitted by Erlang-k, k doubling from 2: the first try within `limit` states (its
    Unsupported raised), each after within FIT_STATES, until one is refused or more
    phases change nothing (every law fitted by its own moments) or k passes MAX_PHASES."""
    rungs: List[Tuple[int, Floor, T]] = []
    phases = 2
    while phases <= MAX_PHASES:
        floor = floor_of(compiled, where, constant_phases=phases)
        try:
            rungs.append((phases, floor, attempt(floor, limit if not rungs else min(limit, FIT_STATES))))
        except Unsupported:
            if not rungs:
                raise
            break
        if floor == floor_of(compiled, where, constant_phases=2 * phases):
            break
        phases *= 2
    return rungs


def _check_stable(floor: Floor, net: Network) -> None:
    """Refuses an open model that piles up without end, where no finite buffer can turn
    its customers away: the open load of those who join at some station, beyond any
    queue (a balk's last chance held), is all its servers or more (the truncated chain
    would never hold, up to the limit on states), where some open job would wait there
    for ever (no patience, and no queue it balks at for sure)."""
    if not floor.unbounded or any(floor.capacity[step.station] is not None
                                  for job in floor.classes if job.is_open for step in job.served):
        return
    joins = np.ones_like(net.demand)
    for c, job in enumerate(floor.classes):
        for m in {step.station for step in job.served}:
            joins[c, m] = max(1.0 - (step.balk[-1] if step.balk else 0.0) for step in job.served if step.station == m)
    load = (net.arrival_rate[:, None] * net.demand * joins).sum(axis=0) / net.servers
    waits_for_ever = {step.station for job in floor.classes if job.is_open for step in job.served
                      if step.patience is None and step.waits_at_most is None}
    for m in np.flatnonzero(load >= 1):
        if m not in waits_for_ever:
            continue
        raise BrewputError(f"station {net.stations[m]}: utilization {load[m]:.4g} >= 1, the open model is "
                           f"unstable; no steady state exists")


def _solved(floor: Floor, limit: int, where: str) -> Solved:
    """The floor's chain solved, truncated where an open class could pile up without
    end: its limit on open jobs doubles until the arrivals cut off are at most
    TRUNCATION of each class's. TooLarge beyond `limit` states."""
    if not floor.unbounded:
        return _solved_once(floor, limit, where)
    open_limit, sizes = FIRST_OPEN_LIMIT, []
    while True:
        solved = _solved_once(replace(floor, open_limit=open_limit), limit, where)
        if solved.cut <= TRUNCATION:
            return solved
        sizes.append(solved.states)
        open_limit = doubled(floor, open_limit, sizes, limit)


def doubled(floor: Floor, open_limit: int, sizes: List[int], limit: int) -> int:
    """Twice `open_limit`, the truncation's next try; TooLarge where the chain's growth
    over the last doubling (`sizes`, the states of each try so far) says the next would
    pass `limit` states. Walking there to find out would take the walk to the limit (a
    million states: about 7 s of CPU and 500 MB, bench/RESULTS.md) for a chain refused."""
    if len(sizes) >= 2 and sizes[-1] * sizes[-1] / max(sizes[-2], 1) > limit:
        raise TooLarge(replace(floor, open_limit=2 * open_limit))
    return 2 * open_limit


def _solved_once(floor: Floor, limit: int, where: str) -> Solved:
    # A truncated chain's bound counts every open job in every place at once, far above
    # what one station's line reaches: the walk, stopped at the limit, decides there.
    bound = state_bound(floor, beyond=limit * BOUND_SLACK) if floor.open_limit is None else None
    if bound is not None and bound > limit * BOUND_SLACK:
        raise TooLarge(floor, bound)
    try:
        chain = generate(floor, limit)
    except TooManyStates:  # the bound says how far, where it is above the limit
        raise TooLarge(floor, bound if bound is not None and bound > limit else None) from None
    if len(chain.states) > 1 and (chain.generator.diagonal() == 0).any():
        # The simulator stops there too (DeadlockError); the balance equations would be singular.
        raise BrewputError(f"{where}: the model deadlocks: its Markov chain reaches a state no event leaves "
                           "(every customer blocked: finite buffers in a cycle?), where it stays for ever")
    pi = stationary(chain.generator)
    offered = np.array([job.rate or 0.0 for job in floor.classes])
    cut = pi @ chain.truncated
    cut = float(max((cut[c] / offered[c] for c in range(len(offered)) if offered[c] > 0), default=0.0))
    told(f"ctmc: {len(chain.states):,} states solved" + truncation_told(floor))
    return Solved(floor, averages(floor, chain, pi), len(chain.states), cut, chain, pi)


def truncation_told(floor: Floor) -> str:
    """A try's truncation, where it has one."""
    return "" if floor.open_limit is None else f" (open jobs up to {floor.open_limit})"


def _notes(solved: Solved) -> List[str]:
    notes = []
    if solved.floor.open_limit is not None:
        notes.append(f"open arrivals truncated at {solved.floor.open_limit} jobs in the system: "
                     f"{solved.cut:.1g} of them cut off (at most {TRUNCATION:g})")
    notes.append(_size_note(solved.states))
    return notes


def _size_note(states: int) -> str:
    # No time in it: the same model gives the same results, to the character.
    return f"ctmc: {states:,} states"


def _change(model: Model, before: Averages, after: Averages) -> str:
    parts = []
    for c, name in enumerate(model.classes):
        moved = []
        for label, old, new in (("throughput", before.throughput[c], after.throughput[c]),
                                ("response time", _response(before, c), _response(after, c))):
            if old > 0:
                moved.append(f"{label} {100 * (new - old) / old:+.2g} %")
        parts.append(f"{name} {', '.join(moved)}")
    return "; ".join(parts)


def _response(avg: Averages, c: int) -> float:
    jobs = avg.present[c].sum() + avg.outside[c]
    return jobs / avg.throughput[c] if avg.throughput[c] > 0 else 0.0


def _means(avg: Averages) -> Tuple[np.ndarray, np.ndarray]:
    """(R,) mean response and waiting times, by Little's law."""
    x = avg.throughput
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where(x > 0, 1 / x, 0.0)
    return np.array([_response(avg, c) for c in range(len(x))]), (avg.waiting.sum(axis=1) + avg.outside) * per


def _solution(model: Model, net: Network, solved: Solved, notes: List[str], laws: Dict[int, Laws],
              passage_limit: int) -> Solution:
    floor, avg = solved.floor, solved.averages
    n_classes, n_stations = avg.present.shape
    x = avg.throughput
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.where(x > 0, 1 / x, 0.0)
    servers = np.array([np.inf if s is None else s for s in floor.servers])
    utilization = np.where(np.isinf(servers), avg.busy, avg.busy / np.where(np.isinf(servers), 1, servers))
    exact = floor.exact
    loss = loss_by = None
    response, waiting = _means(avg)
    residence = avg.present * per[:, None]
    served = station_response = None
    completers = _completers(model, solved, passage_limit, notes)
    for c, times in completers.items():
        response[c], waiting[c] = times.response, times.waiting
    offered = np.array([job.rate or 0.0 for job in floor.classes])
    if floor.gives_up:
        served, residence, station_response = _per_visit(floor, net, avg, completers)
        # per arrival: an open class's offered, a closed one's cycles (each completes or gives up)
        arrivals = np.where(offered > 0, offered, x + avg.balked + avg.reneged)
        loss_by = {reason: np.clip(np.divide(rate, arrivals, out=np.zeros_like(rate), where=arrivals > 0), 0.0, 1.0)
                   for reason, rate in (("full", avg.lost), ("balked", avg.balked), ("reneged", avg.reneged))}
        loss = sum(loss_by.values())
    elif any(job.is_open and job.steps[0].dispatch is None and floor.capacity[job.steps[0].station] is not None
             for job in floor.classes):
        # a share: a station always full loses every arrival, which sums to 1 + rounding
        loss = np.clip(np.where(offered > 0, avg.lost / np.where(offered > 0, offered, 1), 0.0), 0.0, 1.0)
    return Solution(
        method=METHOD,
        throughput=x,
        response_time=response,
        utilization=utilization,
        queue_length=avg.present,
        residence_time=residence,
        exact_class=np.full(n_classes, exact),
        exact_station=np.full(n_stations, exact),
        station_method=[METHOD] * n_stations,
        loss_probability=loss,
        loss_by=loss_by,
        served=served,
        station_response_time=station_response or [],
        waiting_time=waiting,
        laws=laws,
        waiting_number=avg.waiting,
        notes=notes,
        resources=resource_figures(floor, list(model.resources), avg),
    )


def _per_visit(floor: Floor, net: Network, avg: Averages, completers: Dict[int, CompletedTimes]):
    """Where customers give up: (served, residence, station response), the services per
    time unit of each class at each station (not its completions times its visits), its
    time there per customer as visits times the time of a visit served, and each station's
    time per visit served, as simulate measures them. A visit served spends its wait, its
    service and its blocking there; where nobody of the class reneges at the station every
    job present there is served (Little's law), else its wait is from the tagged chain."""
    served = avg.served
    with np.errstate(divide="ignore", invalid="ignore"):
        visit = np.where(served > 0, avg.present / served, 0.0)
        for c, job in enumerate(floor.classes):
            for m in {step.station for step in job.served if step.patience is not None}:
                if served[c, m] > 0:
                    after_wait = (avg.busy[c, m] + avg.blocked[c, m]) / served[c, m]
                    visit[c, m] = completers[c].served_wait[m] + after_wait if c in completers else math.nan
        total = served.sum(axis=0)
        station = [float((served[:, m] * visit[:, m]).sum() / total[m]) if total[m] > 0 else None
                   for m in range(served.shape[1])]
    return served, visit * net.visits, station


def _completers(model: Model, solved: Solved, limit: int, notes: List[str]) -> Dict[int, CompletedTimes]:
    """Per class whose customers can give up after spending time in the system, the mean
    times of those who complete (as simulate measures them) and of its visits served at
    each station, from its tagged customer's chain; a class whose chain is beyond `limit`
    states is named in `notes`, its times null."""
    means = {}
    for c, name in enumerate(model.classes):
        if not solved.floor.classes[c].gives_up_inside or solved.averages.throughput[c] <= 0:
            continue
        chain = solved.passage(c, limit)
        if chain is None:
            notes.append(f"{name}: no response or waiting time: those who complete are timed on its tagged "
                         f"customer's chain, which {why_no_passage(solved.floor, limit)}")
            stations = len(solved.floor.stations)
            means[c] = CompletedTimes(math.nan, math.nan, np.full(stations, np.nan))
            continue
        means[c] = completed_times(chain)
        told(f"ctmc: {name}'s times of those who complete, {chain.start.size:,} states")
    return means


def _passage_laws(model: Model, solved: Solved, limit: int, notes: List[str]) -> Dict[int, Laws]:
    """Per class that completes, its laws from its tagged customer's chain; a class whose
    chain is beyond `limit` states, or too stiff to read, is named in `notes` (its figures null)."""
    laws = {}
    response, waiting = _means(solved.averages)
    for c, name in enumerate(model.classes):
        if solved.averages.throughput[c] <= 0:
            continue
        chain = solved.passage(c, limit)
        if chain is None:
            notes.append(f"{name}: no percentiles or service levels: its tagged customer's chain "
                         f"{why_no_passage(solved.floor, limit)}")
            continue
        laws[c] = passage_laws(chain, solved.floor.exact, response[c], waiting[c])
        told(f"ctmc: {name}'s response and waiting times, {chain.start.size:,} states")
        # The largest fixed percentile reads the law furthest (the others then cost little): a chain of
        # very unlike rates can need more steps of uniformization than passage.WORK allows (NaN: null).
        if any(math.isnan(law.quantile(LAST_PERCENTILE)) for law in (laws[c].response, laws[c].waiting)):
            notes.append(f"{name}: some percentiles or service levels not computed: its rates are too unlike "
                         f"(uniformization would take too long)")
    return laws


def _percentile_change(model: Model, before: Dict[int, Laws], after: Dict[int, Laws]) -> str:
    """'; latte response p50 +1.2 %, p99 -8 %': how far the response time's median and p99
    moved from the rung before."""
    parts = []
    for c, name in enumerate(model.classes):
        if c not in before or c not in after:
            continue
        moved = []
        for key, q in (("p50", 0.5), ("p99", 0.99)):
            old, new = before[c].response.quantile(q), after[c].response.quantile(q)
            if old > 0 and math.isfinite(old) and math.isfinite(new):
                moved.append(f"{key} {100 * (new - old) / old:+.2g} %")
        if moved:
            parts.append(f"{name} response {', '.join(moved)}")
    return "; " + "; ".join(parts) if parts else ""
