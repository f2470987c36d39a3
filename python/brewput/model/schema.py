"""The model language's fields and rules, declared with fields.py. Values here are
already free of `${...}`; names are still names (compile.py turns them into indices).

Every check raises FieldError with the model language's own wording; the loader
turns the problems found into one-line ModelErrors with file and line."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ..errors import FieldError, format_path
from ..units import TIME_UNITS
from ..vocabulary import (ASSIGNS, DEFAULTS, DISCIPLINES, MARKED, OFF_SHIFTS, POLICIES, PREEMPTS,
                          READS_FIRST_STATIONS, TAKES, TIES, TYING_POLICIES, not_modelled)
from .day import DayField, RateShape, Rota, VaryingRate, timeline_rate
from .distributions import Distribution, EmpiricalBudget, Exp, parse_distribution
from .distributions import json_schema as distribution_schema
from .fields import Field, ListOf, MapOf, Maybe, Strict, Text, Value, WithContext
from .limits import (MAX_BALK_PROBABILITIES, MAX_BRANCH_DEPTH, MAX_ITEMS, MAX_SIZE, MAX_TIME, MAX_TOTAL_POPULATION,
                     MAX_TOTAL_STEPS, MIN_TIME)
from .params import or_expression
from .routes import EXIT, flatten, known
from .values import count, first_repeat, integer, is_whole, name, number, one_of, show, version

PROBABILITY_TOLERANCE = 1e-9


def _distribution(value: Any, context: Dict[str, Any]) -> Distribution:
    return parse_distribution(value, context.get("base_dir", Path(".")),
                              context.setdefault("empirical", EmpiricalBudget()), context.get("time_unit", "s"))


def _next(value: Any) -> Union[str, Dict[str, float]]:
    """`next:` as given: a step id or `exit`, or {id or exit: probability} summing to 1."""
    if isinstance(value, str):
        return name(value)
    if not isinstance(value, dict) or not value:
        raise FieldError(f"expected a step id, exit, or a mapping of them to probabilities, got {show(value)}")
    for target, p in value.items():
        name(target)
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise FieldError(f"expected a probability between 0 and 1, got {show(p)}", target)
    total = math.fsum(value.values())
    if abs(total - 1) > PROBABILITY_TOLERANCE:
        raise FieldError(f"probabilities must sum to 1, got {total:g}")
    return {target: float(p) for target, p in value.items()}


def _sized(what: str, required: bool, most: int = MAX_ITEMS) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, (dict, list)):
            if required and not value:
                raise FieldError(f"needs at least one {what}")
            if len(value) > most:
                raise FieldError(f"at most {most:,} allowed, got {len(value):,}")
        return value

    check.limits = (1 if required else 0, most)  # type: ignore[attr-defined]
    return check


def _resolved(value: Any) -> Union[int, float]:
    """A param's value: resolve_params has checked and computed it before the walk."""
    return value


_PROBABILITY = or_expression({"type": "number", "minimum": 0, "maximum": 1})
_next.schema = {"anyOf": [name.schema,  # type: ignore[attr-defined]
                          {"type": "object", "minProperties": 1, "additionalProperties": _PROBABILITY}]}
_resolved.schema = or_expression({"type": "number"})  # type: ignore[attr-defined]


class Either:
    """A value of type `kind` checked by `shape`, anything else by `other` (a count
    or a mapping of typed counts; a list of types or a mapping of types to services).
    A value of neither is told both (`what`)."""

    def __init__(self, kind: type, shape: Any, other: Any, what: str):
        self.kind, self.shape, self.other, self.what = kind, shape, other, what

    def check(self, value: Any, context: Dict) -> Any:
        if isinstance(value, self.kind):
            return self.shape.check(value, context)
        try:
            return self.other.check(value, context)
        except FieldError as e:
            if e.path or isinstance(value, (int, float)) or not str(e).startswith("expected"):
                raise  # a number's own complaint is the more precise
            raise FieldError(f"expected {self.what}, got {show(value)}") from None

    def schema(self, defs: Dict[str, Any]) -> Dict[str, Any]:
        return {"anyOf": [self.other.schema(defs), self.shape.schema(defs)]}


Name = Value(name)
Dist = WithContext(_distribution, schema=distribution_schema())
Servers = Value(count(1, MAX_SIZE, infinite=True), expressions=True)
Buffer = Value(count(0, MAX_SIZE, infinite=True), expressions=True)
Count = Value(count(1, MAX_SIZE), expressions=True)
Priority = Value(integer(-MAX_SIZE, MAX_SIZE), expressions=True)
# A rate's mean time between arrivals is a time like any other.
Rate = Value(number(1 / MAX_TIME, 1 / MIN_TIME, "a rate"), expressions=True)
# Balking: a threshold of waiting jobs seen, or the probability of balking by the number seen.
Balk = Either(list, ListOf(Value(number(0, 1, "a probability"), expressions=True),
                           before=_sized("probability", required=True, most=MAX_BALK_PROBABILITIES)),
              Value(count(0, MAX_SIZE), expressions=True), "a non-negative integer or a list of probabilities")


#: Servers per interval (a rota) or a count.
RotaOrCount = Either(list, Rota, Count, "a positive integer or a list of them per interval (a rota)")


class Station(Strict):
    """A station. With typed servers (`servers: {type: count}`), `servers` is read as
    their total and `server_types` holds the groups (empty when untyped). With a
    rota (servers per interval, for a type or the station), the count is the most
    on at once and `rotas` holds the lists: {type: list}, or {None: list} untyped."""

    servers = Field(Either(list, Rota, Either(dict, MapOf(Name, RotaOrCount, before=_sized("server type",
                                                                                        required=True)),
                                               Servers, "a positive integer, inf or a mapping of server types "
                                                        "to counts"),
                           "a positive integer, inf, a list per interval (a rota) or a mapping of server types "
                           "to counts"), default=1)
    buffer = Field(Buffer, default="inf")
    discipline = Field(Value(one_of(*DISCIPLINES), expressions=True), default=DEFAULTS["discipline"])
    take = Field(Value(one_of(*TAKES), expressions=True), default=DEFAULTS["take"])
    assign = Field(Value(one_of(*ASSIGNS), expressions=True), default=DEFAULTS["assign"])
    preempt = Field(Value(one_of(*PREEMPTS), expressions=True), default=DEFAULTS["preempt"])
    off_shift = Field(Value(one_of(*OFF_SHIFTS), expressions=True), default=DEFAULTS["off_shift"])

    def _check(self) -> None:
        self._read_rotas()
        if self.preempt != "none" and self.discipline != "priority":
            raise FieldError(f"preempt: {self.preempt} takes a server by priority; it needs discipline: priority "
                             f"(this station's is {self.discipline})", "preempt")
        types = self.servers if isinstance(self.servers, dict) else {}
        object.__setattr__(self, "server_types", types)
        if types and self.preempt != "none":
            refused = not_modelled("preempt-at-typed-servers", f"preempt: {self.preempt}")
            raise FieldError(f"{refused}; use one type, or preempt: none", "preempt")
        if types:
            total = sum(types.values())
            if total > MAX_SIZE:
                raise FieldError(f"{total:,} servers in all is too many (at most {MAX_SIZE:,})", "servers")
            if self.discipline == "ps":
                *others, last = (d for d in DISCIPLINES if d != "ps")
                raise FieldError("processor sharing shares untyped servers; typed servers take "
                                 f"{', '.join(others)} or {last}", "discipline")
            object.__setattr__(self, "servers", total)
        for field in ("take", "assign"):
            if field in self.given and not types:
                raise FieldError(f"{field}: is for typed servers (servers: {{type: count}}); this "
                                 "station's servers are untyped", field)
        if "off_shift" in self.given and not self.rotas:
            raise FieldError("off_shift: says what a server going off shift does; this station has no rota "
                             "(servers: a list per interval)", "off_shift")
        if self.off_shift != DEFAULTS["off_shift"] and (types or self.preempt != "none"):
            raise FieldError(f"off_shift: {self.off_shift} hands a job back to the queue at untyped servers without "
                             "preempt: not simulated yet at typed servers or with preemptive priority; use "
                             "off_shift: finish", "off_shift")
        if self.rotas and self.discipline == "ps":
            raise FieldError("a rota at a processor-sharing station is not simulated yet; give its servers as "
                             "a count", "servers")
        if self.rotas and math.isfinite(self.buffer):
            raise FieldError("a rota with a finite buffer is not simulated yet (whether the room changes with "
                             "the servers on); leave buffer: inf", "buffer")

    def _read_rotas(self) -> None:
        """Rotas (tuples) out of `servers`: each list's most, kept in `rotas`."""
        rotas = {}
        if isinstance(self.servers, tuple):
            rotas[None] = self.servers
            object.__setattr__(self, "servers", max(self.servers))
        elif isinstance(self.servers, dict):
            counts = {}
            for kind, n in self.servers.items():
                if isinstance(n, tuple):
                    rotas[kind], n = n, max(n)
                counts[kind] = n
            object.__setattr__(self, "servers", counts)
        object.__setattr__(self, "rotas", rotas)
        for kind, rota in rotas.items():
            at = ("servers", *(() if kind is None else (kind,)))
            if max(rota) == 0:
                raise FieldError("0 servers in every interval: nobody would ever be served", *at)
            if rota[-1] == 0:
                # After the day a rota keeps its last interval's servers, to serve who is left.
                raise FieldError("0 servers in the last interval: customers still there at the day's end would "
                                 "never be served", *at, len(rota) - 1)


def _types(value: List[str]) -> List[str]:
    twice = first_repeat(value)
    if twice is not None:
        raise FieldError(f"server type '{value[twice]}' is listed twice", twice)
    return value


def _check_mark(mark: Optional[str]) -> None:
    if mark in MARKED:
        raise FieldError(f"'{mark}' is a mark every class has ({' and '.join(MARKED)}: the response time's "
                         "start and end); name yours otherwise", "mark")


def _measure(value: Any) -> Tuple[str, str]:
    """A measure: [from mark, to mark]."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise FieldError(f"expected [from mark, to mark], got {show(value)}")
    start, end = (name(mark) for mark in value)
    if start == end:
        raise FieldError(f"measures from '{start}' to itself; name two different marks")
    if start == MARKED[1] or end == MARKED[0]:
        raise FieldError(f"nothing comes after '{MARKED[1]}' or before '{MARKED[0]}', so [{start}, {end}] would "
                         "never be measured")
    return start, end


_measure.schema = {"type": "array", "items": name.schema, "minItems": 2, "maxItems": 2}  # type: ignore[attr-defined]


def most_jobs(route: List[Any]) -> int:
    """The most jobs one customer on `route` can be at once: one, or more inside a fork."""
    return max(step.jobs_at_once for step in route)


class Step(Strict):
    """A step at a station. `service` is absent (None) when `served_by` maps each
    server type to its own service."""

    jobs_at_once = 1

    station = Field(Name)
    service = Field(Maybe(Dist), default=None)
    served_by = Field(Maybe(Either(dict, MapOf(Name, Dist, before=_sized("server type", required=True)),
                                   ListOf(Name, before=_sized("server type", required=True),
                                          after=_types),
                                   "a list of server types or a mapping of server types to services")),
                      default=None)
    uses = Field(ListOf(Name), default=[])
    balk = Field(Maybe(Balk), default=None)
    patience = Field(Maybe(Dist), default=None)
    id = Field(Maybe(Name), default=None)
    next = Field(Maybe(Value(_next)), default=None)
    mark = Field(Maybe(Name), default=None)

    def _check(self) -> None:
        _check_mark(self.mark)
        twice = first_repeat(self.uses)
        if twice is not None:
            raise FieldError(f"resource '{self.uses[twice]}' is listed twice", "uses", twice)
        if self.id == EXIT:
            raise FieldError(f"'{EXIT}' is reserved for leaving the route", "id")
        if isinstance(self.served_by, dict) and self.service is not None:
            raise FieldError("give service: or served_by: as a mapping of server types to services, not both",
                             "served_by")
        if self.service is None and not isinstance(self.served_by, dict):
            raise FieldError("missing required field", "service")

    def services(self) -> List[Tuple[str, Distribution]]:
        """Every service time the step may draw, with the field that gives it:
        its `service`, or one per server type (`served_by.espresso`)."""
        if isinstance(self.served_by, dict):
            return [(f"served_by.{kind}", service) for kind, service in self.served_by.items()]
        return [("service", self.service)]

    @property
    def least_service_mean(self) -> float:
        """The least mean service time a visit may take (its fastest server type's):
        for bounds that must not overstate the work."""
        return min(service.mean for _, service in self.services())


JOINS = ("all", "any")


class _Route:
    """A route or a branch: a list of steps, each at a station (Step) or a fork: or
    dispatch: step whose branches are routes again, nested at most MAX_BRANCH_DEPTH deep."""

    def __init__(self) -> None:
        self.steps = ListOf(self, before=_sized("step", required=True))

    def check(self, value: Any, context: Dict) -> Any:
        """One step of the route (ListOf calls this for each item)."""
        kinds = [kind for kind in (ForkStep, DispatchStep) if isinstance(value, dict) and kind.kind in value]
        if len(kinds) > 1:
            raise FieldError("a step is a fork: or a dispatch:, not both", "dispatch")
        if not kinds:
            return Step.check(value, context)
        depth = context.get("branch_depth", 0) + 1
        if depth > MAX_BRANCH_DEPTH:
            raise FieldError(f"forks and dispatches nest at most {MAX_BRANCH_DEPTH} deep", kinds[0].kind)
        context["branch_depth"] = depth
        try:
            return kinds[0].check(value, context)
        finally:
            context["branch_depth"] = depth - 1

    def schema(self, defs: Dict[str, Any]) -> Dict[str, Any]:
        return {"anyOf": [Step.schema(defs), ForkStep.schema(defs), DispatchStep.schema(defs)]}


Route = _Route().steps
Branches = MapOf(Name, Route, before=_sized("branch", required=True))


def _join(value: Any) -> Union[str, int]:
    if value in JOINS:
        return value
    if not is_whole(value) or value < 1:
        raise FieldError(f"expected all, any or a number of branches, got {show(value)}")
    return int(value)


_join.schema = {"anyOf": [{"enum": list(JOINS)}, {"type": "integer", "minimum": 1}]}  # type: ignore[attr-defined]


class _Branching(Strict):
    """A step whose branches are routes (`kind`: its field naming them). It has no
    station, service or resources of its own."""

    kind = ""
    station = None
    uses: Tuple[str, ...] = ()
    least_service_mean = 0.0

    @property
    def branches(self) -> Dict[str, List[Any]]:
        return getattr(self, self.kind)

    def services(self) -> List[Tuple[str, Distribution]]:
        return []

    def _check(self) -> None:
        _check_mark(self.mark)
        if self.id == EXIT:
            raise FieldError(f"'{EXIT}' is reserved for leaving the route", "id")
        if len(self.branches) < 2:
            raise FieldError(f"a {self.kind} needs at least two branches (one branch is a plain route: "
                             "write its steps in place)", self.kind)


class ForkStep(_Branching):
    """A fork: the job splits into one sub-job per branch and goes on when `join` of them ended."""

    kind = "fork"
    fork = Field(Branches)
    join = Field(Value(_join, expressions=True), default="all")
    id = Field(Maybe(Name), default=None)
    next = Field(Maybe(Value(_next)), default=None)
    mark = Field(Maybe(Name), default=None)

    @property
    def jobs_at_once(self) -> int:
        """Every branch's jobs together: a fork runs them all at once."""
        return sum(most_jobs(branch) for branch in self.fork.values())

    @property
    def join_count(self) -> int:
        """How many branches must end for the job to go on."""
        return len(self.fork) if self.join == "all" else 1 if self.join == "any" else self.join

    def _check(self) -> None:
        super()._check()
        if isinstance(self.join, int) and self.join > len(self.fork):
            raise FieldError(f"join: {self.join} waits for more branches than the fork's {len(self.fork)}",
                             "join")


class DispatchStep(_Branching):
    """A dispatch: the job takes one of the branches, chosen by `policy`."""

    kind = "dispatch"
    dispatch = Field(Branches)
    policy = Field(Value(one_of(*POLICIES), expressions=True), default=DEFAULTS["policy"])
    d = Field(Maybe(Value(count(2, MAX_ITEMS), expressions=True)), default=None)
    weights = Field(Maybe(MapOf(Name, Value(number(0, 1, "a probability"), expressions=True))), default=None)
    tie = Field(Value(one_of(*TIES), expressions=True), default=DEFAULTS["tie"])
    id = Field(Maybe(Name), default=None)
    next = Field(Maybe(Value(_next)), default=None)
    mark = Field(Maybe(Name), default=None)

    @property
    def jobs_at_once(self) -> int:
        """The most of any one branch: a dispatch takes one."""
        return max(most_jobs(branch) for branch in self.dispatch.values())

    @property
    def choices(self) -> int:
        """power_of_d's d (2 unless given)."""
        return 2 if self.d is None else self.d

    def shares(self) -> List[float]:
        """Each branch's share of the jobs: random's weights (equal by default); for the
        other policies an even split, exact for round_robin and the long-run split of
        identical branches under the others."""
        if self.weights is None:
            return [1 / len(self.dispatch)] * len(self.dispatch)
        return [float(self.weights.get(label, 0.0)) for label in self.dispatch]

    def _check(self) -> None:
        super()._check()
        if self.d is not None and self.policy != "power_of_d":
            raise FieldError(f"d: is for policy: power_of_d (this dispatch's is {self.policy})", "d")
        if self.tie != DEFAULTS["tie"] and self.policy not in TYING_POLICIES:
            raise FieldError(f"tie: is for the policies that can find branches equal ({', '.join(TYING_POLICIES)}; "
                             f"this dispatch's is {self.policy})", "tie")
        if self.choices > len(self.dispatch):
            raise FieldError(f"power_of_d draws {self.choices} of the {len(self.dispatch)} branches; d must be "
                             f"from 2 to {len(self.dispatch)}", "d")
        if self.weights is not None:
            if self.policy != "random":
                raise FieldError(f"weights: are for policy: random (this dispatch's is {self.policy})", "weights")
            for label in self.weights:
                if label not in self.dispatch:
                    raise FieldError(f"unknown branch '{label}' (branches: {known(self.dispatch)})",
                                     "weights", label)
            total = math.fsum(self.weights.values())
            if abs(total - 1) > PROBABILITY_TOLERANCE:
                raise FieldError(f"weights must sum to 1, got {total:g}", "weights")
        if self.policy in READS_FIRST_STATIONS:
            for label, branch in self.dispatch.items():
                if isinstance(branch[0], _Branching):
                    raise FieldError(f"policy {self.policy} reads each branch's first station, and branch "
                                     f"'{label}' starts with a {branch[0].kind}", "dispatch", label, 0)


class JobClass(Strict):
    """A class of customers: open (arrivals or rate) or closed (population)."""

    arrivals = Field(Maybe(Dist), default=None)
    rate = Field(Maybe(RateShape(Rate)), default=None)
    population = Field(Maybe(Count), default=None)
    think = Field(Dist, default=0)
    priority = Field(Priority, default=0)
    route = Field(Route)
    measures = Field(MapOf(Name, Value(_measure), before=_sized("measure", required=False)), default={})

    @property
    def is_open(self) -> bool:
        return self.population is None

    @property
    def time_varying(self) -> bool:
        """Whether the class's rate changes through the day (rate: a list, counts, curve or linear)."""
        return isinstance(self.rate, VaryingRate)

    @property
    def interarrival(self) -> Optional[Distribution]:
        """An open class's time between arrivals (`rate:` is Poisson); None if closed.
        With a rate that changes through the day: at the day's mean rate, for what
        asks only how much work a run is (the day's own engines read `rate`)."""
        if self.time_varying:
            return Exp(self.day_rate.length / self.day_rate.total)
        return Exp(1 / self.rate) if self.rate is not None else self.arrivals

    def routing(self) -> List[List[Tuple[Optional[int], float]]]:
        """Each step's (of `steps`) [(next step index, or None: its route or branch ends,
        probability)]: what the engine follows."""
        return self._flat.next

    def visits_routing(self) -> List[List[Tuple[Optional[int], float]]]:
        """`routing()` with a fork leading into every branch (each visited as often as
        the fork) and a dispatch into each branch by its share: the routing whose
        traffic equations give each step's expected visits per customer."""
        table = [list(row) for row in self._flat.next]
        for owner, firsts in self._flat.branches.items():
            step = self._flat.steps[owner].step
            shares = step.shares() if isinstance(step, DispatchStep) else [1.0] * len(firsts)
            table[owner].extend(zip(firsts, shares))
        return table

    @property
    def steps(self) -> List[Tuple[Tuple, Any]]:
        """Every step, branches' too, with its path in the class (`("route", 1, "fork",
        "milk", 0)`), in the compiled order: the route's own steps first, at their index."""
        return [(placed.path, placed.step) for placed in self._flat.steps]

    def scopes(self) -> List[Optional[int]]:
        """Per step of `steps`, the index of the fork or dispatch whose branch holds it (None: the route)."""
        return [placed.scope for placed in self._flat.steps]

    def branch_starts(self, index: int) -> List[int]:
        """The first step (an index into `steps`) of each branch of fork or dispatch step `index`."""
        return self._flat.branches[index]

    def _check(self) -> None:
        if self.arrivals is not None and self.rate is not None:
            raise FieldError("give arrivals or rate, not both", "rate")
        is_open = self.rate is not None or self.arrivals is not None
        if is_open and self.population is not None:
            raise FieldError("a class is open (arrivals: or rate:) or closed (population:), not both")
        if not is_open and self.population is None:
            raise FieldError("needs arrivals: or rate: (an open class) or population: (a closed class)")
        if is_open and "think" in self.given:
            raise FieldError("think: is for closed classes (an open class has arrivals)", "think")
        if is_open and not self.time_varying and self.interarrival.mean <= 0:
            raise FieldError("the mean time between arrivals must be positive", "arrivals")
        object.__setattr__(self, "_flat", flatten(self.route))
        self._check_marks()

    @property
    def marks(self) -> List[str]:
        """The class's marks, as the compiled model indexes them: arrived, done, then
        the steps' marks in the compiled order."""
        return [*MARKED, *(step.mark for _, step in self.steps if step.mark is not None)]

    def _check_marks(self) -> None:
        seen: Dict[str, Tuple] = {}
        for path, step in self.steps:
            if step.mark in seen:
                raise FieldError(f"duplicate mark '{step.mark}' (also {format_path(seen[step.mark])})",
                                 *path, "mark")
            if step.mark is not None:
                seen[step.mark] = path
        for label, marks in self.measures.items():
            for j, mark in enumerate(marks):
                if mark not in MARKED and mark not in seen:
                    raise FieldError(f"unknown mark '{mark}' (marks in this class: "
                                     f"{known([*MARKED, *seen])})", "measures", label, j)


def _total(classes: Dict[str, JobClass], field: str, size: Callable[[JobClass], int], limit: int,
           what: str) -> None:
    """Refuse a model whose classes together ask for more than `limit`, naming the
    class that goes over: each may be within its own limit, but the engine holds them all."""
    total = 0
    for label, job_class in classes.items():
        total += size(job_class)
        if total > limit:
            raise FieldError(f"more than {limit:,} {what} together (the engine holds every one in memory "
                             "in each replication)", "classes", label, field)


class ModelSpec(Strict):
    brewput = Field(Value(version))
    name = Field(Maybe(Name), default=None)
    time_unit = Field(Value(one_of(*TIME_UNITS), expressions=True), default="s")
    params = Field(MapOf(Text, Value(_resolved)), default={})
    # Before the stations and classes: their lists per interval are checked against it.
    day = Field(Maybe(DayField), default=None)
    resources = Field(MapOf(Name, Count, before=_sized("resource", required=False)), default={})
    stations = Field(MapOf(Name, Station, before=_sized("station", required=True)))
    classes = Field(MapOf(Name, JobClass, before=_sized("class", required=True)))

    def _check(self) -> None:
        _total(self.classes, "population", lambda c: c.population or 0, MAX_TOTAL_POPULATION,
               "customers in all closed classes")
        # A fork's branches are jobs of their own, each held in memory as a customer is.
        _total(self.classes, "population", lambda c: (c.population or 0) * most_jobs(c.route), MAX_TOTAL_POPULATION,
               "closed-class jobs at once (a customer is one; a fork makes one per branch)")
        _total(self.classes, "route", lambda c: len(c.steps), MAX_TOTAL_STEPS, "steps in all routes")
        for label, job_class in self.classes.items():
            for path, step in job_class.steps:
                if isinstance(step, _Branching):
                    continue
                at = ("classes", label, *path)
                if step.station not in self.stations:
                    raise FieldError(f"unknown station '{step.station}' (stations: {known(self.stations)})",
                                     *at, "station")
                for j, resource in enumerate(step.uses):
                    if resource not in self.resources:
                        raise FieldError(f"unknown resource '{resource}' (resources: "
                                         f"{known(self.resources)})", *at, "uses", j)
                _check_served_by(step, self.stations[step.station], at)
                _check_waits(step, self.stations[step.station], at, in_fork="fork" in path)
        self._check_day()
        if self.resources:
            for name, station in self.stations.items():
                if station.preempt != "none":
                    raise FieldError(not_modelled("preempt-with-resources", f"preempt: {station.preempt}"),
                                     "stations", name, "preempt")


    def _check_day(self) -> None:
        """A day's jobs at the start name stations their class visits first-hand;
        a rate through the day is one (model/timeline.py's `day_rate`, kept on the
        class) and brings someone."""
        if self.day is None:
            return
        for station, jobs in self.day.at_start.items():
            if station not in self.stations:
                raise FieldError(f"unknown station '{station}' (stations: {known(self.stations)})",
                                 "day", "at_start", station)
            if jobs and first_class_at(self, station) is None:
                raise FieldError(f"no class visits station '{station}' on its route (outside forks), so its "
                                 "jobs at the start would have nowhere to go", "day", "at_start", station)
        for label, job_class in self.classes.items():
            if job_class.time_varying:
                try:
                    rate = timeline_rate(job_class.rate, self.day)
                except ValueError as e:
                    raise FieldError(str(e), "classes", label, "rate", job_class.rate.form) from None
                if not rate.total > 0:
                    raise FieldError("the rate is 0 all day: this class never arrives", "classes", label, "rate")
                object.__setattr__(job_class, "day_rate", rate)


def first_class_at(spec: "ModelSpec", station: str) -> Optional[Tuple[str, int]]:
    """The first class (in file order) with a route step (outside forks and
    dispatches) at `station`, and that step's index: whose jobs a day starts with there."""
    for label, job_class in spec.classes.items():
        for i, step in enumerate(job_class.route):
            if getattr(step, "station", None) == station:
                return label, i
    return None


def _check_served_by(step: Step, station: Station, at: Tuple) -> None:
    if step.served_by is None:
        return
    if not station.server_types:
        raise FieldError(f"station '{step.station}' has untyped servers; served_by: needs typed ones "
                         "(servers: {type: count})", *at, "served_by")
    if isinstance(step.served_by, dict) and station.discipline == "sjf":
        raise FieldError(f"station '{step.station}' serves the shortest job first, by a service time drawn on "
                         "arrival; a service that depends on the server type has none until a server is chosen",
                         *at, "served_by")
    for j, kind in enumerate(step.served_by):
        if kind not in station.server_types:
            raise FieldError(f"unknown server type '{kind}' at station '{step.station}' (types: "
                             f"{known(station.server_types)})", *at, "served_by",
                             kind if isinstance(step.served_by, dict) else j)


def _check_waits(step: Step, station: Station, at: Tuple, in_fork: bool) -> None:
    """Balking and patience need a queue (refused where nobody waits) and a
    customer to lose (a fork's branch is a part of one, not modelled)."""
    nobody_waits = ("servers: inf" if math.isinf(station.servers)
                    else "discipline: ps" if station.discipline == "ps" else None)
    for field in ("balk", "patience"):
        if getattr(step, field) is None:
            continue
        if nobody_waits:
            raise FieldError(f"nobody waits at station '{step.station}' ({nobody_waits}), so no one can "
                             f"{'balk' if field == 'balk' else 'run out of patience'} there", *at, field)
        if in_fork:
            raise FieldError(f"{not_modelled('giving-up-in-a-fork', field)}; give it at a step before the fork",
                             *at, field)


def json_schema() -> Dict[str, Any]:
    """The JSON Schema of a model file, for editors (docs/model-language.md):
    every field typed, `${...}` allowed wherever a number or choice may be."""
    return ModelSpec.json_schema("brewput model file")
