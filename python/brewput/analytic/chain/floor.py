"""The compiled model (docs/compiled-model.md) as the chain reads it: stations,
tokens, classes and their steps, every time law as phases (phases.py).

Why a file of its own: this is the one interface between the model and the
state space's generation (generate.py), plain numbers and tuples, so that the
generation can move to Rust with its input unchanged. What the chain does not
model yet is refused here, by field, before anything is built.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Optional, Tuple

from ..support import ChainDoesNotFollow, TruncationUnasked
from .phases import PhaseType, phase_type

#: The disciplines whose order the chain follows (the head of a station's queue).
DISCIPLINES = ("fifo", "priority")
#: The dispatch policies whose choice the chain follows (crates/chain/src/dispatch.rs).
POLICIES = ("random", "round_robin", "shortest_queue", "power_of_d", "least_utilized", "shared")


@dataclass(frozen=True)
class Dispatch:
    """A dispatch step's choice: no station, a decision when a job reaches the step."""
    policy: str
    #: The first step of each branch, in file order.
    branches: Tuple[int, ...]
    #: `random`: each branch's weight (else empty).
    weights: Tuple[float, ...] = ()
    #: `power_of_d`: the branches drawn (else 0).
    d: int = 0
    #: Among branches found equal, one drawn at random (else the first in file order).
    tie_random: bool = False


@dataclass(frozen=True)
class Step:
    station: int
    #: The service as phases; None for a service of 0 (refused for now).
    service: PhaseType
    uses: Tuple[int, ...]
    #: (next step or None for the exit, probability), probabilities above 0.
    routes: Tuple[Tuple[Optional[int], float], ...]
    #: Per number of jobs seen waiting in the station's queue, the probability a job
    #: entering the step balks (the last holds beyond; a threshold of n is n zeros, a
    #: one); None: it always joins.
    balk: Optional[Tuple[float, ...]] = None
    #: The rate at which a job waiting at the step runs out of patience (exponential);
    #: None: it waits for ever.
    patience: Optional[float] = None
    #: A dispatch step: it holds no job; its station and service are its first branch's
    #: first step's (a place a bound may count), its routes where a job goes after its
    #: branch. None for a station step.
    dispatch: Optional[Dispatch] = None
    #: (the dispatch step, the branch) the step lies in; None outside any branch. Inside a
    #: branch a route to None ends the branch.
    scope: Optional[Tuple[int, int]] = None

    @property
    def gives_up(self) -> bool:
        return self.balk is not None or self.patience is not None

    @property
    def waits_at_most(self) -> Optional[int]:
        """The most jobs it joins a queue behind: where it balks for sure beyond a queue
        (a threshold), that queue; None where it joins any queue."""
        sure = [n for n, p in enumerate(self.balk or ()) if p >= 1]
        return sure[0] if sure else None


@dataclass(frozen=True)
class JobClass:
    name: str
    priority: int
    #: Open: arrivals per time unit (Poisson); None for a closed class.
    rate: Optional[float]
    #: Closed: customers; 0 for an open class.
    population: int
    #: Closed: the think time as phases; None for a think of 0 (back at once).
    think: Optional[PhaseType]
    steps: Tuple[Step, ...]

    @property
    def is_open(self) -> bool:
        return self.rate is not None

    @property
    def served(self) -> Tuple[Step, ...]:
        """Its station steps: the steps where its jobs are (not its dispatch steps)."""
        return tuple(step for step in self.steps if step.dispatch is None)

    @property
    def dispatches(self) -> bool:
        return any(step.dispatch is not None for step in self.steps)

    @property
    def gives_up_inside(self) -> bool:
        """Whether its customer can give up after spending time in the system (patience
        anywhere, or a balk at a step it comes to from another, or from a shared dispatch
        queue): then the mean times of those who complete, which simulate reports, are not
        its jobs present over its throughput."""
        entered = {target for step in self.steps for target, _ in step.routes if target is not None}
        entered |= {first for i, step in enumerate(self.steps) if step.dispatch is not None
                    and (i in entered or step.dispatch.policy == "shared") for first in step.dispatch.branches}
        return any(step.patience is not None or (step.balk is not None and i in entered)
                   for i, step in enumerate(self.steps))


@dataclass(frozen=True)
class Floor:
    stations: Tuple[str, ...]
    #: Servers per station; None for infinitely many.
    servers: Tuple[Optional[int], ...]
    #: Most jobs present per station; None when unbounded.
    capacity: Tuple[Optional[int], ...]
    discipline: Tuple[str, ...]
    tokens: Tuple[int, ...]
    classes: Tuple[JobClass, ...]
    #: The most jobs of open classes in the system at once, where one of them visits a
    #: station of unbounded buffer: an arrival beyond is cut off (truncated), which the
    #: solution keeps below a bound (solve.py); None where every station is finite.
    open_limit: Optional[int] = None
    #: The class of the one tagged customer whose passage is followed (tagged.py): it
    #: has no arrivals of its own and leaves for good when done; None in the model's chain.
    tagged: Optional[int] = None
    #: Whether open classes arrive: a tagged chain leaves them out where no later arrival
    #: can reach the tagged customer (tagged.py).
    arrivals: bool = True

    @cached_property
    def unbounded(self) -> bool:
        """Whether an open class can pile up without end (it needs `open_limit`): at a station
        of unbounded buffer, or after a dispatch step, which turns nobody away (its jobs
        wait in its shared queue, or outside a full branch)."""
        return any(job.is_open and (job.dispatches or any(self.holds(step) is None for step in job.served))
                   for job in self.classes)

    def holds(self, step: Step) -> Optional[int]:
        """The most jobs of a step at its station: its buffer, else its servers and the
        queue beyond which it balks for sure; None where they can pile up without end."""
        if self.capacity[step.station] is not None:
            return self.capacity[step.station]
        if self.servers[step.station] is None or step.waits_at_most is None:
            return None
        return self.servers[step.station] + step.waits_at_most

    @property
    def gives_up(self) -> bool:
        """Whether any customer can balk or renege."""
        return any(step.gives_up for job in self.classes for step in job.steps)

    @property
    def laws(self):
        """Every law of the model as phases: the services, then the thinks."""
        for job in self.classes:
            yield from (step.service for step in job.served)
            if job.think is not None:
                yield job.think

    @property
    def exact(self) -> bool:
        return all(law.exact for law in self.laws)

    @property
    def fits(self) -> Tuple[str, ...]:
        """How the laws that are not phase-type were replaced, each once."""
        return tuple(dict.fromkeys(law.fit for law in self.laws if not law.exact))

    @cached_property
    def tokens_bind(self) -> bool:
        """Whether a job can ever wait for tokens: a resource has fewer tokens than the
        jobs that could hold one at once (at most the servers of the stations whose steps
        use it, and the closed customers who take those steps). Then the order in which
        jobs came, across those stations, says who gets a freed token, and the chain
        keeps it."""
        for r, tokens in enumerate(self.tokens):
            users = [job for job in self.classes if any(r in step.uses for step in job.steps)]
            stations = {step.station for job in users for step in job.steps if r in step.uses}
            servers = sum(float("inf") if self.servers[m] is None else self.servers[m] for m in stations)
            customers = float("inf") if any(job.is_open for job in users) else sum(job.population for job in users)
            if min(servers, customers) > tokens:
                return True
        return False

    @cached_property
    def token_stations(self) -> frozenset:
        """The stations where a step holds tokens: their waiting jobs' order across
        stations matters where tokens bind."""
        return frozenset(step.station for job in self.classes for step in job.steps if step.uses)


def floor_of(compiled: dict, where: str, constant_phases: int, truncate: bool = True) -> Floor:
    """The chain's view of a compiled model, or Unsupported naming the field the
    chain does not follow yet. Without `truncate`, an open class that can pile up
    without end is refused (auto builds no truncated chain unasked)."""
    def refuse(field: str, problem: str) -> ChainDoesNotFollow:
        return ChainDoesNotFollow(f"{where}: {field}: {problem} is not in the state-space engine (--method ctmc) yet; "
                           f"use brewput simulate")

    stations = compiled["stations"]
    for s in stations:
        field = f"stations.{s['name']}"
        if s.get("server_types"):
            raise refuse(f"{field}.servers", "typed servers")
        if s.get("preempt"):
            raise refuse(f"{field}.preempt", "preemption")
        if s["discipline"] not in DISCIPLINES:
            raise refuse(f"{field}.discipline", f"discipline {s['discipline']}")
    classes = []
    for c in compiled["classes"]:
        field = f"classes.{c['name']}"
        source = c["source"]
        steps = []
        for i, step in enumerate(c["steps"]):
            if step.get("kind") == "dispatch" and "scope" not in step:
                if step["policy"] not in POLICIES:
                    raise refuse(f"{field}.route[{i}].policy", f"policy {step['policy']}")
                steps.append(_dispatch(step))
                continue
            if "kind" in step:
                inside = " inside a branch" if "scope" in step else ""
                raise refuse(f"{field}.route", f"a {step['kind']} step{inside}")
            patience = step.get("patience")
            if patience is not None and patience["kind"] != "exp":
                raise refuse(f"{field}.route[{i}].patience", f"a patience other than exponential ({patience['kind']})")
            service = phase_type(step["service"], constant_phases)
            if service is None:
                raise refuse(f"{field}.route[{i}].service", "a service time of 0")
            routes = tuple((target, p) for target, p in step["next"] if p > 0)
            steps.append(Step(step["station"], service, tuple(step["uses"]), routes, _balk(step.get("balk")),
                              None if patience is None else 1 / patience["mean"], scope=_scope(c["steps"], i)))
        steps = [replace(steps[step.dispatch.branches[0]], dispatch=step.dispatch, routes=step.routes, balk=None,
                         patience=None, uses=(), scope=None) if step.dispatch is not None else step for step in steps]
        if source["kind"] == "open":
            law = source["interarrival"]
            if law["kind"] != "exp":
                raise refuse(f"{field}.arrivals", "arrivals other than Poisson")
            rate, population, think = 1 / law["mean"], 0, None
        else:
            rate, population = None, source["population"]
            think = phase_type(source["think"], constant_phases)
        classes.append(JobClass(c["name"], c["priority"], rate, population, think, tuple(steps)))
    floor = Floor(
        stations=tuple(s["name"] for s in stations),
        servers=tuple(s["servers"] for s in stations),
        capacity=tuple(s["capacity"] for s in stations),
        discipline=tuple(s["discipline"] for s in stations),
        tokens=tuple(r["tokens"] for r in compiled["resources"]),
        classes=tuple(classes),
    )
    for job in floor.classes:
        if not truncate and job.is_open and job.dispatches:
            raise TruncationUnasked(f"{where}: classes.{job.name}.route: an open class after a dispatch step, where "
                                    "its jobs may wait without end, is followed by a truncated chain only when asked "
                                    "(--method ctmc)")
        if not truncate and job.is_open and any(floor.holds(step) is None for step in job.served):
            raise TruncationUnasked(f"{where}: classes.{job.name}.route: an open class at a station of unbounded "
                                    "buffer is followed by a truncated chain only when asked (--method ctmc)")
    return floor


def _dispatch(step: dict) -> Step:
    """A compiled dispatch step, its station and service still to be taken from its first branch."""
    choice = Dispatch(step["policy"], tuple(step["branches"]), tuple(step.get("weights", ())), step.get("d", 0),
                      step.get("tie") == "random")
    routes = tuple((target, p) for target, p in step["next"] if p > 0)
    return Step(-1, None, (), routes, dispatch=choice)


def _scope(steps: list, i: int) -> Optional[Tuple[int, int]]:
    """(dispatch step, branch) of compiled step i: the branches' steps follow one another."""
    scope = steps[i].get("scope")
    if scope is None:
        return None
    return scope, bisect_right(steps[scope]["branches"], i) - 1


def _balk(balk: Optional[dict]) -> Optional[Tuple[float, ...]]:
    """A compiled step's `balk` as the chance of balking per number of jobs seen waiting."""
    if balk is None:
        return None
    if "threshold" in balk:
        return (0.0,) * int(balk["threshold"]) + (1.0,)
    return tuple(float(p) for p in balk["probabilities"])
