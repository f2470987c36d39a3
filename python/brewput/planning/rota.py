"""Plan a rota: the fewest servers per interval of a day such that every interval meets
every objective (planning/slo.py's, judged on each interval's figures: of those who
arrived in it, and of its time), by a method of solve's for a day:

- sipp, lag-sipp, psa, mol: each interval on its own (the method's figures of an
  interval depend on its servers alone): the smallest count meeting the objectives;
- exact: the transient, where an interval's waits depend on the servers before it (the
  backlog they leave) and during the waits: from the lagged-SIPP rota, a server is
  added where an interval breaks an objective until none does, then one is taken away
  from each interval in turn (from the last) while every interval still holds. Adding
  servers never lengthens a wait, so the rota found is minimal: no interval can do with
  one fewer; it need not be the only minimal one.

Every rota found is then judged interval by interval by the exact transient (held or
broken), so that a user sees where an approximate rota falls short, and `confirm`
simulates the day on it (held, broken or undecided by the 95 % intervals).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ..errors import BrewputError
from ..steps import told

#: The methods a rota is planned by, as `plan --rota` names them.
ROTA_METHODS = ("sipp", "lag-sipp", "psa", "mol", "exact")
#: The most servers an interval is given before the plan gives up.
MOST_SERVERS = 1000


@dataclass
class RotaPlan:
    method: str
    station: str
    labels: List[str]
    counts: List[int]
    held: List[bool]                 # each interval by the exact transient
    worst: List[Dict[str, Optional[float]]] = field(default_factory=list)  # objective -> its figure, per interval
    server_hours: float = 0.0
    simulated: Optional[List[str]] = None  # held, broken or undecided per interval, when confirmed
    notes: List[str] = field(default_factory=list)  # the transient's, where its judgement is approximate

    def as_dict(self) -> dict:
        simulated = self.simulated or [None] * len(self.counts)
        return {"method": self.method, "station": self.station, "server_hours": self.server_hours, "notes": self.notes,
                "intervals": [{"label": label, "servers": count, "held": held, "figures": figures,
                               "simulated": verdict}
                              for label, count, held, figures, verdict in zip(self.labels, self.counts, self.held,
                                                                                self.worst, simulated)]}

    @classmethod
    def from_dict(cls, saved: dict) -> "RotaPlan":
        """The plan as_dict gave (a page's record redrawn by `brewput report`)."""
        intervals = saved["intervals"]
        simulated = [i["simulated"] for i in intervals]
        return cls(saved["method"], saved["station"], [i["label"] for i in intervals],
                   [i["servers"] for i in intervals], [i["held"] for i in intervals],
                   [i["figures"] for i in intervals], saved["server_hours"],
                   None if all(v is None for v in simulated) else simulated, list(saved["notes"]))


def plan_rota(model, objectives: Sequence, method: str = "exact") -> RotaPlan:
    """The rota for `model`'s one station with a day, meeting `objectives` (planning/slo.py)."""
    from ..units import time_factor

    if method not in ROTA_METHODS:
        raise BrewputError(f"--rota: expected one of {', '.join(ROTA_METHODS)}, got {method!r}")
    if model.day is None:
        raise BrewputError("--rota: plans servers per interval of a day; the model has no day: block")
    queues = [name for name, station in model.stations.items() if station.servers != float("inf")]
    if len(queues) != 1:
        raise BrewputError(f"--rota: plans the rota of one station; the model has {len(queues)} that queue "
                           f"({', '.join(queues) or 'none'})")
    station = queues[0]
    day = model.day.timeline
    def judged(counts: List[int], by: str):
        return judge(model, station, objectives, counts, by)

    if method == "exact":
        counts = _exact(judged, _per_interval(judged, "lag-sipp", day.intervals))
    else:
        counts = _per_interval(judged, method, day.intervals)
    solved = _solved(model, station, objectives, counts, "exact")
    verdicts = _verdicts(objectives, solved, len(counts))
    hours = sum(counts) * day.interval * time_factor(model.time_unit, "h")
    return RotaPlan(method=method, station=station, labels=day.labels, counts=counts,
                    held=[held for held, _ in verdicts], worst=[figures for _, figures in verdicts],
                    server_hours=hours, notes=[] if solved is None else list(solved.get("notes", ())))


def judge(model, station: str, objectives, counts: List[int], by: str = "exact"):
    """(held, figures) per interval of `counts` servers at `station`, solved by `by`;
    every interval broken where the rota has no answer (no server ever on, or a queue
    that never settles)."""
    verdicts = _verdicts(objectives, _solved(model, station, objectives, counts, by), len(counts))
    short = sum(not held for held, _ in verdicts)
    told(f"{by}: a rota of {sum(counts):,} server-intervals, {short} of {len(counts)} intervals short")
    return verdicts


def _solved(model, station: str, objectives, counts: List[int], by: str) -> Optional[dict]:
    """solve's results for `counts` servers at `station` by `by`, None where it has none."""
    from ..engine.solve import solve
    from .slo import asked_by

    try:
        edited = model.with_edits({f"stations.{station}.servers": [int(c) for c in counts]})
        return solve(edited, method="transient" if by == "exact" else by, **asked_by(objectives))
    except BrewputError:
        return None


def _verdicts(objectives, solved: Optional[dict], intervals: int):
    if solved is None:
        return [(False, {o.text: None for o in objectives})] * intervals
    return [_holds(objectives, interval) for interval in solved["intervals"]]


def confirm(model, station: str, objectives, counts: List[int], replications: int = 20, seed: int = 1) -> List[str]:
    """Each interval of `counts` servers at `station` simulated (the whole day, with its
    backlogs): held, broken or undecided, as each objective's 95 % interval lies wholly
    on one side of its bound or across it (planning/slo.py's verdict); broken if any
    objective is, else undecided if any is."""
    from ..engine.simulate import simulate
    from .slo import asked_by

    edited = model.with_edits({f"stations.{station}.servers": [int(c) for c in counts]})
    res = simulate(edited, seed=seed, replications=replications, **asked_by(objectives))
    verdicts = []
    for interval in res["intervals"]:
        found = [objective.verdict(value, objective.interval(interval, name))
                 for objective in objectives for name, value in objective.figures(interval)]
        verdicts.append("broken" if "broken" in found else "undecided" if "undecided" in found else "held")
    told(f"the rota confirmed: the day simulated {replications} times")
    return verdicts


def _holds(objectives, interval: dict):
    """Whether an interval meets every objective, and each objective's figure there."""
    figures, held = {}, True
    for objective in objectives:
        _, value, ok = objective.worst(interval)
        figures[objective.text] = value
        held = held and ok
    return held, figures


def _per_interval(judged, method: str, intervals: int) -> List[int]:
    """The smallest count meeting every objective in each interval, for a method whose
    figures of an interval depend on its own servers only."""
    counts: List[Optional[int]] = [None] * intervals
    for servers in range(1, MOST_SERVERS + 1):
        verdicts = judged([servers] * intervals, method)
        for i, (held, _) in enumerate(verdicts):
            if counts[i] is None and held:
                counts[i] = servers
        if all(c is not None for c in counts):
            return counts
    raise BrewputError(f"--rota: no count up to {MOST_SERVERS} servers meets the objectives in every interval")


def _exact(judged, start: List[int]) -> List[int]:
    counts = list(start)
    while True:  # up: a server more wherever an interval breaks an objective
        broken = [i for i, (held, _) in enumerate(judged(counts, "exact")) if not held]
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
