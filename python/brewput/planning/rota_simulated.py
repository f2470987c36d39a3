"""`plan --rota simulate`: the iterative staffing algorithm (ISA) of Feldman, Mandelbaum,
Massey and Whitt (2008, "Staffing of time-varying queues to achieve time-stable
performance", Management Science 54(2)), for any model the simulator runs.

Staff as if servers were unlimited (s0: MOST_SERVERS each interval), simulate the day, and
read off what arrivals at the station found there in each interval (the law of the number
present, engine/simulate.py's `found`). The next rota gives each interval the fewest
servers s with which those arrivals would meet every objective:
    an arrival finding k present starts at once if k < s, else it waits while the k - s + 1
    ahead of its turn leave, each at s / (mean service) + (those waiting ahead) / (mean patience),
    and gives up at 1 / (mean patience) (analytic/timevarying/virtual_wait.py's pure-death
    chain, with s servers through the wait);
so P(wait <= x) of those served, the mean wait, the share who give up follow from the law
found, and utilization from the busy servers simulated. Where the chain is not the model
(service or patience not exponential), each figure's shortfall (the share not served within
x, the share lost, the mean wait) is scaled by what the simulation measured on the servers
it ran over the chain's figure for them, so the chain says how a
figure changes with s and the simulation where it stands. Simulate again on that rota,
and so on until it stops moving: at that fixed point the law found is the one the rota
itself makes, backlogs and all, and the figures judged are the ones simulated (the
paper's delay-probability target is P(k >= s) <= alpha, the x = 0 case of the above). After the first iteration each interval moves half way to the
servers proposed (_toward), so that a peak does not swing between a backlog and none.
Each iteration runs the day from one seed (common random
numbers), so the rota moves only where the staffing does, not where the noise would.

The rota is then judged by the exact transient where it solves the model, and confirmed
by simulation like every rota (planning/rota.py).
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import BrewputError
from ..steps import told

#: The replications of each iteration's day: a law found from their arrivals pooled.
REPLICATIONS = 100
#: Iterations before the plan stops waiting for the rota to settle.
MOST_ITERATIONS = 20


def iterate(model, station: str, objectives: Sequence, most_servers: int, seed: int = 1,
            replications: int = REPLICATIONS) -> Tuple[List[int], List[str]]:
    """The ISA's rota for `station` (the counts per interval) and its notes; `objectives`
    those of planning/rota.py's PLANNED_BY (rota_objectives)."""
    from ..engine.simulate import simulate
    from .slo import asked_by

    intervals = model.day.timeline.intervals
    counts, seen, notes = [most_servers] * intervals, [], []
    for iteration in range(1, MOST_ITERATIONS + 1):
        edited = model.with_edits({f"stations.{station}.servers": counts})
        results = simulate(edited, seed=seed, replications=replications, found=True, **asked_by(objectives))
        waits = _WaitChain(*_service_and_patience(model, station, results, notes if iteration == 1 else []))
        proposed = [_fewest(objectives, interval, station, current, waits, most_servers, model.time_unit)
                    for interval, current in zip(results["intervals"], counts)]
        following = proposed if iteration == 1 else [_toward(c, p) for c, p in zip(counts, proposed)]
        told(f"simulate: iteration {iteration}, {sum(a != b for a, b in zip(counts, following))} of "
             f"{intervals} intervals changed")
        if following == counts:
            return counts, notes
        if following in seen:
            # Going round (servers are whole: one fewer lets the backlog grow, which asks
            # for one more): each interval is given the most of the rotas in the cycle.
            cycle = seen[seen.index(following):] + [counts]
            notes.append(f"simulate: from iteration {iteration - len(cycle) + 1} the rota went round {len(cycle)} "
                         "rotas: each interval is given the most servers of them")
            return [max(column) for column in zip(*cycle)], notes
        seen.append(counts)
        counts = following
    notes.append(f"the rota still moved after {MOST_ITERATIONS} iterations: the last one is given")
    return counts, notes


def _toward(current: int, proposed: int) -> int:
    """Half way from `current` to `proposed` servers, at least one step: an interval
    staffed short builds a backlog that asks for too many, and one staffed long asks for
    too few, so the full step can swing between the two for good (4 and 7 baristas at a
    peak that 6 serve)."""
    step = proposed - current
    return current + (0 if step == 0 else int(math.copysign(max(1, abs(step) // 2), step)))


def _service_and_patience(model, station: str, results: dict, notes: List[str]) -> Tuple[float, float, bool]:
    """The mean service time at `station`, the rate at which those waiting give up, and
    whether both are exponential (the chain is the model): its steps' where they agree,
    else the day's busy time per completion simulated and the steps' patience means
    averaged (noted)."""
    steps = [step for job_class in model.classes.values() for step in job_class.route
             if getattr(step, "station", None) == station and getattr(step, "service", None) is not None]
    means = {step.service.mean for step in steps}
    if len(means) == 1:
        service_mean = next(iter(means))
    else:
        parts = [(interval["stations"][station], interval["end"] - interval["start"]) for interval in results["intervals"]]
        busy = sum(part["busy_servers"] * width for part, width in parts)
        service_mean = busy / max(sum(part["completions"] for part, _ in parts), 1.0)
        notes.append(f"stations.{station}: its steps' service times differ: the waits are steered by their mean "
                     f"over the day simulated, {service_mean:.4g} {model.time_unit}")
    patience = [step.patience.mean for step in steps if step.patience is not None]
    if patience and len(set(patience)) > 1:
        notes.append(f"stations.{station}: its steps' patience differs: the waits are steered by the mean of theirs")
    exponential = len(means) == 1 and len(set(patience)) <= 1 and all(
        step.service.is_exponential and (step.patience is None or step.patience.is_exponential) for step in steps)
    if not exponential:
        notes.append(f"stations.{station}: the waits are not one exponential chain's: the chain with their means "
                     "says how each figure changes with the servers, the simulation where it stands")
    return service_mean, (1.0 / float(np.mean(patience)) if patience else 0.0), exponential


class _WaitChain:
    """What an arrival finding k present meets with s servers (virtual_wait.py's chain),
    per s: the probability of being served, its expected wait times that, and P(served
    within x); k = 0 .. size - 1, grown as the laws found grow. `exact`: the chain is
    the station's own (exponential service and patience, one mean each)."""

    def __init__(self, service_mean: float, theta: float, exact: bool):
        self.service_mean, self.theta, self.exact = service_mean, theta, exact
        self._rewards: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}
        self._within: Dict[Tuple[int, int, float], np.ndarray] = {}

    def rewards(self, size: int, servers: int) -> Tuple[np.ndarray, np.ndarray]:
        """(w, b): E[wait; served] and P(served) per k found."""
        from ..analytic.timevarying.virtual_wait import stationary_rewards

        key = (size, servers)
        if key not in self._rewards:
            self._rewards[key] = stationary_rewards(size, servers, self.service_mean, self.theta)
        return self._rewards[key]

    def within(self, size: int, servers: int, x: float) -> np.ndarray:
        """P(served within x) per k found."""
        from ..analytic.timevarying.virtual_wait import served_within

        key = (size, servers, x)
        if key not in self._within:
            self._within[key] = served_within(size, [((x, servers),)], self.service_mean, self.theta)[:, 0]
        return self._within[key]


def _fewest(objectives: Sequence, interval: dict, station: str, current: int, waits: _WaitChain, most: int,
            time_unit: str) -> int:
    """The fewest servers (at least one) with which an interval's arrivals, finding what
    its station's `found` says, meet every objective: the chain's figure for s servers;
    where the chain is not the station's, its shortfall scaled by the simulation's on
    `current` servers over the chain's for them (so that at the fixed point the figure
    judged is the one simulated: not where the chain is exact, as it would only add the
    simulation's noise). A ratio rather than a difference: a shortfall the chain
    overstates (exponential patience gives up early, gamma's seldom) it overstates at
    every s alike, and an offset would carry it from 4 servers to 3 unscaled."""
    from .rota import Climb, stalled

    part = interval["stations"][station]
    law = np.asarray(part.get("found") or [1.0])
    ratios = []
    for objective in objectives:
        measured, chained = objective.worst(interval)[1], _figure(objective, law, current, waits, part)
        exact = waits.exact or objective.metric == "utilization"  # busy per server on: nothing to miss
        short = None if exact or measured is None or chained is None else _shortfall(objective, chained)
        ratios.append(1.0 if not short else _shortfall(objective, measured) / short)
    tried = []  # each count's figures, scaled
    for servers in range(1, most + 1):
        figures = [_figure(objective, law, servers, waits, part) for objective in objectives]
        tried.append([None if f is None else _scaled(o, f, ratio) for o, f, ratio in zip(objectives, figures, ratios)])
        if all(f is not None and o.holds(f) for o, f in zip(objectives, tried[-1])):
            return servers
        if servers > Climb.STALL:  # planning/rota.py's stop where more servers bring a figure no nearer
            for o, was, now in zip(objectives, tried[-1 - Climb.STALL], tried[-1]):
                stalled(o, interval["label"], (servers - Climb.STALL, was), (servers, now), time_unit)
    raise BrewputError(f"--rota simulate: no count up to {most} servers meets --slo "
                       f"{', '.join(o.text for o in objectives)} in {interval['label']}")


def _shortfall(objective, figure: float) -> float:
    """What falls short in a figure: the share not served within x, the share lost, the mean wait."""
    return 1.0 - figure if objective.metric == "P(wait)" else figure


def _scaled(objective, figure: float, ratio: float) -> float:
    """The figure with its shortfall `ratio` times the chain's."""
    return 1.0 - (1.0 - figure) * ratio if objective.metric == "P(wait)" else figure * ratio


def _figure(objective, law: np.ndarray, servers: int, waits: _WaitChain, part: dict) -> Optional[float]:
    """The objective's figure for arrivals finding `law` with `servers` on (None: nobody served)."""
    if objective.metric == "utilization":
        return part["busy_servers"] / servers
    size = law.size
    wait, served = waits.rewards(size, servers)
    served_share = float(law @ served)
    if objective.metric == "loss":  # none where nobody gives up: not 1 - P(served) summed to a rounding short of 1
        return 1.0 - served_share if waits.theta > 0 else 0.0
    if served_share <= 0:
        return None
    if objective.metric == "wait_mean":
        return float(law @ wait) / served_share
    return float(law @ waits.within(size, servers, objective.at)) / served_share  # P(wait<=x)
