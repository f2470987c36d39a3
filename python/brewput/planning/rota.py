"""Plan a rota: the fewest servers per interval of a day such that every interval meets
every objective (planning/slo.py's, judged on each interval's figures: of those who
arrived in it, and of its time), by a method of solve's for a day:

- sipp, lag-sipp, psa, mol: each interval on its own (the method's figures of an
  interval depend on its servers alone): the smallest count meeting the objectives;
- simulate: the iterative staffing algorithm (rota_simulated.py), for any model the
  simulator runs: the rota staffed from what arrivals found in the day simulated on the
  last rota, until it stops moving;
- exact: the transient, where an interval's waits depend on the servers before it (the
  backlog they leave) and during the waits: from the lagged-SIPP rota, a server is
  added where an interval breaks an objective until none does, then one is taken away
  from each interval in turn (from the last) while every interval still holds. Adding
  servers never lengthens a wait, so the rota found is minimal: no interval can do with
  one fewer; it need not be the only minimal one.

Every rota found is then judged interval by interval by the exact transient (held or
broken; none where the transient does not solve the model, which simulate's may), so that a user sees where an approximate rota falls short, and `confirm`
simulates the day on it (held, broken or undecided by the 95 % intervals).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ..errors import BrewputError, OptionError
from ..steps import told
from .rota_simulated import iterate

#: The methods a rota is planned by, as `plan --rota` names them.
ROTA_METHODS = ("sipp", "lag-sipp", "psa", "mol", "simulate", "exact")
#: The most servers an interval is given before the plan gives up.
MOST_SERVERS = 1000
#: The figures a rota is planned by (planning/slo.py's metrics): the wait at the station,
#: what a day's solve gives per interval and the ISA's chain steers by.
PLANNED_BY = ("P(wait)", "wait_mean", "loss", "utilization")


@dataclass
class RotaPlan:
    method: str
    station: str
    labels: List[str]
    counts: List[int]
    held: List[Optional[bool]]       # each interval by the exact transient (None: not solved)
    worst: List[Dict[str, Optional[float]]] = field(default_factory=list)  # objective -> its figure, per interval
    interval_hours: float = 0.0
    simulated: Optional[List[str]] = None  # held, broken or undecided per interval, when confirmed
    notes: List[str] = field(default_factory=list)  # the transient's, where its judgement is approximate
    price: Optional[float] = None  # what a server-hour costs (plan --cost STATION=PRICE)

    def hours(self, counts: Sequence[int]) -> float:
        """The server-hours of `counts` servers per interval (the plan's, or shifts')."""
        return sum(counts) * self.interval_hours

    @property
    def server_hours(self) -> float:
        return self.hours(self.counts)

    def cost(self, counts: Sequence[int]) -> Optional[float]:
        """What `counts` servers per interval cost at the plan's price; None unpriced."""
        return None if self.price is None else self.price * self.hours(counts)

    def as_dict(self, shifts=None) -> dict:
        """`plan --rota --json`: the plan, and the `shifts` that cover it (rota_shifts.py) with their hours and cost."""
        simulated = self.simulated or [None] * len(self.counts)
        plan = {"method": self.method, "station": self.station, "server_hours": self.server_hours,
                "interval_hours": self.interval_hours, "price_per_server_hour": self.price,
                "cost": self.cost(self.counts), "notes": self.notes,
                "intervals": [{"label": label, "servers": count, "held": held, "figures": figures,
                               "simulated": verdict}
                              for label, count, held, figures, verdict in zip(self.labels, self.counts, self.held,
                                                                                self.worst, simulated)]}
        if shifts is not None:
            plan["shifts"] = {**shifts.as_dict(), "server_hours": self.hours(shifts.covered),
                              "cost": self.cost(shifts.covered)}
        return plan

    @classmethod
    def from_dict(cls, saved: dict) -> "RotaPlan":
        """The plan as_dict gave (a page's record redrawn by `brewput report`)."""
        intervals = saved["intervals"]
        simulated = [i["simulated"] for i in intervals]
        return cls(saved["method"], saved["station"], [i["label"] for i in intervals],
                   [i["servers"] for i in intervals], [i["held"] for i in intervals],
                   [i["figures"] for i in intervals], saved["interval_hours"],
                   None if all(v is None for v in simulated) else simulated, list(saved["notes"]),
                   saved["price_per_server_hour"])


def plan_rota(model, objectives: Sequence, method: str = "exact", seed: int = 1) -> RotaPlan:
    """The rota for `model`'s one station with a day, meeting `objectives` (planning/slo.py);
    `seed` the simulations' of method simulate."""
    from ..units import time_factor

    if method not in ROTA_METHODS:
        raise BrewputError(f"--rota: expected one of {', '.join(ROTA_METHODS)}, got {method!r}")
    station = rota_station(model)
    objectives = rota_objectives(objectives, model)
    day = model.day.timeline
    def judged(counts: List[int], by: str):
        return judge(model, station, objectives, counts, by, searching=True)

    def climb():
        return Climb(objectives, day.labels, model.time_unit)

    notes: List[str] = []
    if method == "exact":
        counts = _exact(judged, _per_interval(judged, "lag-sipp", climb()), climb())
    elif method == "simulate":
        counts, notes = iterate(model, station, objectives, MOST_SERVERS, seed=seed)
    else:
        counts = _per_interval(judged, method, climb())
    solved = _answer(model, station, objectives, counts, "exact")
    verdicts = _verdicts(objectives, solved, len(counts))
    held: List[Optional[bool]] = [held for held, _ in verdicts]
    if solved is None and method == "simulate":
        held = [None] * len(counts)
        notes.append("the exact transient does not solve this model's day: the rota is judged by simulation alone")
    return RotaPlan(method=method, station=station, labels=day.labels, counts=counts, held=held,
                    worst=[figures for _, figures in verdicts],
                    interval_hours=day.interval * time_factor(model.time_unit, "h"),
                    notes=notes + ([] if solved is None else list(solved.get("notes", ()))))


def rota_station(model) -> str:
    """The station whose rota is planned: the one that queues, of a model with a day."""
    if model.day is None:
        raise BrewputError("--rota: plans servers per interval of a day; the model has no day: block")
    queues = [name for name, station in model.stations.items() if station.servers != float("inf")]
    if len(queues) != 1:
        raise BrewputError(f"--rota: plans the rota of one station; the model has {len(queues)} that queue "
                           f"({', '.join(queues) or 'none'})")
    return queues[0]


def rota_objectives(objectives: Sequence, model) -> list:
    """The objectives as a rota of `model`'s station is planned by them (a wait's
    percentile as its service level: Objective.as_service_level), each one of PLANNED_BY
    at the station and one some count of servers could meet, else refused in one line."""
    station = rota_station(model)
    planned = [objective.as_service_level() for objective in objectives]
    for objective in planned:
        if objective.metric not in PLANNED_BY or (objective.metric == "utilization"
                                                  and objective.scope not in (None, station)):
            raise OptionError("slo", f"--rota staffs {station} by the wait there: P(wait<=T), wait_pNN<=T, "
                                     f"wait_mean, loss and {station}'s utilization", value=objective.text)
        _reachable(objective, model, station)
    return planned


def _reachable(objective, model, station: str) -> None:
    """Refuse the objectives no count of servers meets, which a search would otherwise
    chase for ever: the figure comes ever nearer its bound (a loss towards 0, a service
    level towards 100 %) and never reaches it, until it rounds there and a rota is claimed
    to meet it. Arrivals of a day come at random (a Poisson process per interval), so any
    number can come at once:
    - loss<=0 where a class can be lost at the station (patience, a balk that turns
      someone away, a finite buffer): some are, whatever the servers;
    - P(wait<=T)>=100 % where nobody balks and any patience is exponential: some find
      every server busy and a queue that takes longer than T to clear, and may wait it
      out, whatever the servers (a balk or a patience with a most can bound the wait,
      so there Climb's stop decides)."""
    steps = [step for name, job_class in model.classes.items() if objective.scope in (None, name)
             for step in job_class.route if getattr(step, "station", None) == station]
    if not steps:
        return
    turned_away = [step.balk for step in steps if step.balk is not None
                   and (not isinstance(step.balk, list) or any(p > 0 for p in step.balk))]
    gives_up = [step for step in steps if step.patience is not None]
    finite = math.isfinite(model.stations[station].buffer)
    if objective.metric == "loss" and objective.value <= 0 and (turned_away or gives_up or finite):
        why = "give up waiting (patience)" if gives_up else "balk" if turned_away else "find the buffer full"
        raise OptionError("slo", f"customers at {station} {why}, so some are lost whatever the servers: "
                                 "no rota meets it; bound the loss above 0, e.g. loss<=1%", value=objective.text)
    bounded = turned_away or any(not step.patience.is_exponential for step in gives_up)
    if objective.metric == "P(wait)" and objective.value >= 1 and not bounded:
        raise OptionError("slo", f"arrivals come at random, so some find every server at {station} busy and wait "
                                 "longer whatever the servers: no rota meets it; ask for a share below 100 %",
                          value=objective.text)


def server_hour_price(options: Sequence[str], station: str) -> Optional[float]:
    """`--cost STATION=PRICE` with --rota: what a server-hour at the station costs (None
    without --cost). A rota is paid by the hour: no price bought once, no running cost."""
    from .npv import parse_costs

    if not options:
        return None
    for option in options:
        name = str(option).partition("=")[0].strip()
        if name != station:
            raise OptionError("cost", f"with --rota, the price of a server-hour at the station planned: "
                                      f"{station}=PRICE", value=option)
    cost = parse_costs(options, {station: None})[station]
    if cost.running:
        raise OptionError("cost", f"with --rota, the price of a server-hour alone: {station}=PRICE (no running cost)",
                          value=options[0])
    return cost.purchase


def judge(model, station: str, objectives, counts: List[int], by: str = "exact", searching: bool = False):
    """(held, figures) per interval of `counts` servers at `station`, solved by `by`;
    every interval broken where the rota has no answer (no server ever on, or a queue
    that never settles). `searching`: a rota a search tried, where solve's refusal of a
    rota with a server in every interval is the answer (the method does not solve the
    model: its service, or its states at this many servers), raised, not read as a
    rota short everywhere that more servers might mend up to MOST_SERVERS."""
    try:
        solved = _solved(model, station, objectives, counts, by)
    except BrewputError:
        if searching and min(counts) >= 1:
            raise
        solved = None
    verdicts = _verdicts(objectives, solved, len(counts))
    short = sum(not held for held, _ in verdicts)
    told(f"{by}: a rota of {sum(counts):,} server-intervals, {short} of {len(counts)} intervals short")
    return verdicts


def _solved(model, station: str, objectives, counts: List[int], by: str) -> dict:
    """solve's results for `counts` servers at `station` by `by` (its BrewputError where it has none)."""
    from ..engine.solve import solve
    from .slo import asked_by

    edited = model.with_edits({f"stations.{station}.servers": [int(c) for c in counts]})
    return solve(edited, method="transient" if by == "exact" else by, **asked_by(objectives))


def _answer(model, station: str, objectives, counts: List[int], by: str) -> Optional[dict]:
    """_solved's results, None where solve has none."""
    try:
        return _solved(model, station, objectives, counts, by)
    except BrewputError:
        return None


def _verdicts(objectives, solved: Optional[dict], intervals: int):
    if solved is None:
        return [(False, {o.text: None for o in objectives})] * intervals
    return [_holds(objectives, interval) for interval in solved["intervals"]]


def confirm(model, station: str, objectives, counts: List[int], replications: int = 20, seed: int = 1):
    """Each interval of `counts` servers at `station` simulated (the whole day, with its
    backlogs): held, broken or undecided, as each objective's 95 % interval lies wholly
    on one side of its bound or across it (planning/slo.py's verdict); broken if any
    objective is, else undecided if any is. Also each interval's figures (objective ->
    its worst figure simulated), as `judge` gives the transient's."""
    from ..engine.simulate import simulate
    from .slo import asked_by

    edited = model.with_edits({f"stations.{station}.servers": [int(c) for c in counts]})
    res = simulate(edited, seed=seed, replications=replications, **asked_by(objectives))
    verdicts, figures = [], []
    for interval in res["intervals"]:
        found = [objective.verdict(value, objective.interval(interval, name))
                 for objective in objectives for name, value in objective.figures(interval)]
        verdicts.append("broken" if "broken" in found else "undecided" if "undecided" in found else "held")
        figures.append(_holds(objectives, interval)[1])
    told(f"the rota confirmed: the day simulated {replications} times")
    return verdicts, figures


def _holds(objectives, interval: dict):
    """Whether an interval meets every objective, and each objective's figure there."""
    figures, held = {}, True
    for objective in objectives:
        _, value, ok = objective.worst(interval)
        figures[objective.text] = value
        held = held and ok
    return held, figures


class Climb:
    """The stop of a search that adds servers where an interval breaks an objective.
    Each figure a rota is planned by (PLANNED_BY) moves one way with every server more,
    in the interval and before it (a wait and a loss fall and a service level rises as
    the queue shortens; a utilization falls as the work is shared), so where STALL
    servers more bring a broken objective no nearer its bound (`utilization>=90%`, which
    they move away from; a figure already as near as rounding lets it), no count will
    meet it and the search is refused in one line, rather than climbing to MOST_SERVERS
    solving ever larger days."""

    #: Servers added to an interval still short before the figures are compared: more
    #: than one, so that a transient's numerical wobble at one count is not read as a stop.
    STALL = 3

    def __init__(self, objectives: Sequence, labels: Sequence[str], time_unit: str):
        self.objectives, self.labels, self.time_unit = objectives, labels, time_unit
        self.short: Dict[int, list] = {}  # interval -> (servers, figures) at each count it has broken at, in turn

    def check(self, counts: Sequence[int], verdicts) -> None:
        """Note each interval's verdict on `counts` servers; refuse if an interval short
        for STALL servers more has an objective they brought no nearer."""
        for i, (held, figures) in enumerate(verdicts):
            if held:
                self.short.pop(i, None)
                continue
            tried = self.short.setdefault(i, [])
            tried.append((counts[i], figures))
            if len(tried) <= self.STALL:
                continue
            (fewer, before), (more, after) = tried[-1 - self.STALL], tried[-1]
            for objective in self.objectives:
                stalled(objective, self.labels[i], (fewer, before[objective.text]), (more, after[objective.text]),
                        self.time_unit)


def stalled(objective, label: str, before, after, time_unit: str) -> None:
    """Refuse `objective` (Climb's rule) if the servers and figure `after`, broken, are
    no nearer its bound than `before`, STALL servers fewer (a figure None: not known)."""
    from .show import in_unit

    (fewer, was), (more, now) = before, after
    if was is None or now is None or objective.holds(now) or objective.nearer(was, now):
        return
    # with the digits that tell the two figures apart (99.99999999999% is not 100 %)
    (a, unit), (b, _) = in_unit(objective.kind, was, time_unit, objective.unit), \
        in_unit(objective.kind, now, time_unit, objective.unit)
    digits = next((d for d in (4, 8, 12) if f"{a:.{d}g}" != f"{b:.{d}g}"), 16)
    space = " " if objective.kind == "time" else ""
    raise OptionError("slo", f"servers added bring {label} no nearer it: {a:.{digits}g}{space}{unit} with "
                             f"{fewer:,} server{'' if fewer == 1 else 's'}, {b:.{digits}g}{space}{unit} with {more:,}, "
                             "and more will not; no rota is planned", value=objective.text)


def _per_interval(judged, method: str, climb: Climb) -> List[int]:
    """The smallest count meeting every objective in each interval, for a method whose
    figures of an interval depend on its own servers only."""
    intervals = len(climb.labels)
    counts: List[Optional[int]] = [None] * intervals
    for servers in range(1, MOST_SERVERS + 1):
        verdicts = judged([servers] * intervals, method)
        climb.check([servers] * intervals, [(held or found is not None, figures)
                                            for (held, figures), found in zip(verdicts, counts)])
        for i, (held, _) in enumerate(verdicts):
            if counts[i] is None and held:
                counts[i] = servers
        if all(c is not None for c in counts):
            return counts
    raise BrewputError(f"--rota: no count up to {MOST_SERVERS} servers meets the objectives in every interval")


def _exact(judged, start: List[int], climb: Climb) -> List[int]:
    counts = list(start)
    while True:  # up: a server more wherever an interval breaks an objective
        verdicts = judged(counts, "exact")
        climb.check(counts, verdicts)
        broken = [i for i, (held, _) in enumerate(verdicts) if not held]
        if not broken:
            break
        for i in broken:
            counts[i] += 1
        if max(counts) > MOST_SERVERS:
            raise BrewputError(f"--rota: no rota of up to {MOST_SERVERS} servers meets the objectives")
    for i in reversed(range(len(counts))):  # down: one fewer where every interval still holds
        while counts[i] > 0:
            fewer = counts[:i] + [counts[i] - 1] + counts[i + 1:]
            if not all(held for held, _ in judged(fewer, "exact")):
                break
            counts = fewer
    return counts
