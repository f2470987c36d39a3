"""`solve --from STATE --over T`: the model's chain started with jobs placed at its
stations (the helpdesk at 9 am with 12 calls waiting), followed over [0, T]: the
expected figures at each point of a grid, and the time until the backlog clears.

The start is the state the simulator is in with those jobs present, placed as a
day's `at_start` places them (generate.generate_placed): each station's jobs are of the
first class (in file order) that visits it (a closed class's out of its population),
they take the free servers and the rest wait; a service started draws its first phase
as the simulator does (the start is a law over states where it is drawn at random).

The backlog clears at the first time the system is empty (no job at a station or
waiting outside one; a closed class's thinking customers are not in it): the mean of
that passage from the absorbing chain's linear system, (-Q_TT) m = 1 over the states T
with jobs, and its quantiles from the same chain by uniformization
(passage.PhaseTypeLaw). The same for the first time no job waits (every job left in
service), the backlog's end as a helpdesk sees it where arrivals keep the desk busy.

Where an open class can pile up without end the chain is truncated at a limit on open
jobs (floor.open_limit): from twice the jobs placed (at least solve.FIRST_OPEN_LIMIT),
doubled until the arrivals cut off, over [0, T] and before the backlog clears, are at
most solve.TRUNCATION of those offered.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.linalg import expm_multiply

from ...errors import BrewputError, Field, OptionError
from ...steps import told
from .floor import Floor, floor_of
from .generate import Chain, NoRoom, TooManyStates, generate_placed
from .passage import PhaseTypeLaw
from .sizing import state_limit, too_large
from .solve import FIRST_OPEN_LIMIT, TRUNCATION, TooLarge, doubled, fitted_rungs, truncation_told

#: The quantiles of the clearing time reported (keys p50, p90, p99).
CLEARING_QUANTILES = (50, 90, 99)
#: The most jobs placed: the chain is truncated at twice as many open jobs at least. (Set
#: when the Python walk kept every job of every state, memory growing as the square of the
#: jobs: 2,000 at one desk, 155 MB and 4 s for the whole process; the Rust walk keeps a run
#: of like jobs in a few integers: 79 MB and 0.8 s.)
MOST_JOBS = 4_000
#: The most events at the chain's fastest rate a span may hold: expm_multiply's products
#: grow with them (an M/M/1 of 65 states: 60,000 in 8 s).
MOST_EVENTS = 1e5
#: The most the absorbing system (-Q_TT) m = 1 may be off.
RESIDUAL = 1e-9


def placements(floor: Floor, state: Mapping[str, int]) -> List[Tuple[int, int, int]]:
    """(class, step, jobs) per station of `state`, each of the first class whose route
    visits the station (docs/model-language.md, `at_start`); OptionError naming the
    station where none can be placed."""
    placed = []
    for name, jobs in state.items():
        if name not in floor.stations:
            raise OptionError("from_state", f"unknown station '{name}' (stations: {', '.join(floor.stations)})",
                              value=_shown(state))
        m = floor.stations.index(name)
        visits = [(c, i, step) for c, job in enumerate(floor.classes) for i, step in enumerate(job.steps)
                  if step.station == m and step.dispatch is None]
        first = next(((c, i) for c, i, step in visits if step.scope is None), None)
        if first is None and visits:
            # as a day's at_start, which the simulator places on route steps only
            raise OptionError("from_state", f"station '{name}' is visited only inside a dispatch's branches, where "
                                            "no job is placed", value=_shown(state))
        if first is None:
            raise OptionError("from_state", f"no class visits station '{name}', so its jobs would have nowhere "
                                            "to go", value=_shown(state))
        if floor.capacity[m] is not None and jobs > floor.capacity[m]:
            raise _no_room(floor, m, _shown(state))
        c, step = first
        if jobs:
            placed.append((c, step, jobs))
    for c, job in enumerate(floor.classes):
        jobs = sum(n for placed_class, _, n in placed if placed_class == c)
        if not job.is_open and jobs > job.population:
            raise OptionError("from_state", f"{jobs} jobs of class '{job.name}' placed, more than its population "
                                            f"of {job.population}", value=_shown(state))
    return placed


def placed_jobs(floor: Floor, state: Mapping[str, int], max_states: int) -> List[Tuple[int, int, int]]:
    """placements(), with the jobs' count checked against what a chain can hold: what is
    refused of a state before any chain is walked (the steady state's either)."""
    placed = placements(floor, state)
    jobs = sum(n for _, _, n in placed)
    if jobs > MOST_JOBS:
        raise OptionError("from_state", f"from {jobs:,} jobs: the state-space engine follows at most "
                          f"{MOST_JOBS:,} (its memory grows as their square); use brewput simulate with a day that "
                          "starts with them (day: at_start)")
    if jobs >= max_states:  # a state for each count of jobs left as they go, at least: refused before placing them
        raise OptionError("from_state", f"from {jobs:,} jobs its Markov chain has more than {jobs:,} "
                          f"states, beyond ", Field("max_states"), f" {max_states:,}; use brewput simulate, or a "
                          "larger ", Field("max_states"))
    return placed


def _no_room(floor: Floor, m: int, shown: str) -> OptionError:
    return OptionError("from_state", f"station '{floor.stations[m]}' holds at most {floor.capacity[m]} jobs "
                                     "(its servers and buffer)", value=shown)


def _shown(state: Mapping[str, int]) -> str:
    return ",".join(f"{name}={jobs}" for name, jobs in state.items())


def _per_state(chain: Chain) -> Dict[str, np.ndarray]:
    """(S, M) per state and station, the jobs present (waiting, in service, blocked on a
    server there), in service and waiting; (S,) those waiting outside a full station:
    counted as figures.averages counts them."""
    waiting, busy = chain.by_station(chain.waiting), chain.by_station(chain.busy)
    present = chain.by_station(chain.blocked) + waiting + busy
    return {"present": present, "busy": busy, "waiting": waiting, "outside": np.asarray(chain.outside.sum(axis=1)).ravel()}


def without_steady_state(model, problem: str) -> dict:
    """The results of an overloaded model followed from a given state: the keys of the
    results schema, no class or station figures (it has no steady state), the reason in
    the notes."""
    return {"model": model.name, "engine": "solve", "method": "ctmc", "time_unit": model.time_unit,
            "params": dict(model.params), "classes": {}, "stations": {}, "resources": {}, "bounds": {},
            "notes": [f"{problem}: its figures are those from the given state over the span followed only"],
            "warnings": []}


def follow(compiled: dict, where: str, state: Mapping[str, int], over: float, steps: int,
           max_states: Optional[int], settles: bool = True) -> dict:
    """The `from` block of the model's chain: exact where every law is phase-type, else
    with the laws fitted as the steady state's chain fits them (solve.py): constants as
    Erlang-k, k doubling from 2 while the chain stays within FIT_STATES, the change from
    the k before in the notes. Unsupported beyond `max_states`. Where the model does not
    `settle` (overloaded), the passage times are null: it may never empty."""
    limit = state_limit(max_states)
    floor = floor_of(compiled, where, constant_phases=1)
    if floor.exact:
        return _sized(floor, state, over, steps, limit, where, settles)
    rungs = fitted_rungs(compiled, where, limit,
                         lambda floor, budget: _sized(floor, state, over, steps, budget, where, settles))
    phases, floor, block = rungs[-1]
    notes = [f"--from: approximate, times replaced by phase-type laws: {'; '.join(floor.fits)}"]
    if len(rungs) > 1:
        before = rungs[-2][2]
        moved = [(label, old, new) for label, old, new in (
            ("first empty", before["clears"]["mean"], block["clears"]["mean"]),
            ("no job waiting", before["clears"]["waiting"]["mean"], block["clears"]["waiting"]["mean"]),
            ("in system at the end", before["points"][-1]["number"], block["points"][-1]["number"]))
            if old and new is not None]
        notes.append(f"--from: from Erlang-{rungs[-2][0]} to Erlang-{phases}: "
                     + ", ".join(f"{label} {100 * (new - old) / old:+.2g} %" for label, old, new in moved))
    block["notes"] = notes + block["notes"]
    return {**block, "exact": False}


def _sized(floor: Floor, state: Mapping[str, int], over: float, steps: int, limit: int, where: str,
           settles: bool) -> dict:
    """solve_from, or Unsupported naming the size beyond `limit` states."""
    try:
        return solve_from(floor, state, over, steps, limit, where, settles)
    except TooLarge as e:
        raise too_large(where, e.floor, limit) from None


def solve_from(floor: Floor, state: Mapping[str, int], over: float, steps: int, max_states: int,
               where: str, settles: bool = True) -> dict:
    """The `from` block of the results (docs/results.md): the figures at `steps` + 1
    evenly spaced times over [0, over] and the time until the backlog clears (null
    unless the model `settles`)."""
    placed = placed_jobs(floor, state, max_states)
    if not floor.unbounded:
        chain, curves, clears = _followed(floor, placed, over, steps, max_states, where, settles)
        notes = []
    else:
        offered = sum(job.rate for job in floor.classes if job.is_open)
        open_limit = max(FIRST_OPEN_LIMIT, 1 << (2 * sum(jobs for _, _, jobs in placed)).bit_length())
        sizes = []
        while True:
            truncated = replace(floor, open_limit=open_limit)
            chain, curves, clears = _followed(truncated, placed, over, steps, max_states, where, settles)
            cut = max(curves["cut"][-1] / (offered * over),
                      clears["cut"] / (offered * clears["mean"]) if clears["mean"] else 0.0)
            if cut <= TRUNCATION:
                break
            sizes.append(len(chain.states))
            open_limit = doubled(floor, open_limit, sizes, max_states)
        notes = [f"--from: open arrivals truncated at {open_limit} jobs in the system: {cut:.1g} of them cut off "
                 f"(at most {TRUNCATION:g})"]
    notes.append(f"--from: ctmc: {len(chain.states):,} states")
    clears, waiting = _with_quantiles(clears), _with_quantiles(clears["waiting"])
    times = np.linspace(0.0, over, steps + 1)
    points = []
    for k, t in enumerate(times):
        points.append({
            "time": float(t),
            "number": float(curves["number"][k]),
            "throughput": float(curves["throughput"][k]),
            "completions": float(curves["completions"][k]),
            "empty": float(curves["empty"][k]),
            "stations": {name: {"queue_length": float(curves["present"][k, m]),
                                "waiting": float(curves["waiting"][k, m]),
                                "busy_servers": float(curves["busy"][k, m]),
                                # null at servers: inf, as the steady state's (busy_servers says it)
                                "utilization": None if floor.servers[m] is None else
                                float(curves["utilization"][k, m])}
                         for m, name in enumerate(floor.stations)},
        })
    return {"state": dict(state), "over": float(over), "exact": floor.exact, "method": "ctmc", "points": points,
            "clears": {**clears, "waiting": waiting}, "notes": notes}


def _followed(floor: Floor, placed, over: float, steps: int, max_states: int, where: str, settles: bool):
    """The chain from the placed jobs, its curves and its clearing times (where it
    `settles`); TooLarge beyond `max_states`."""
    try:
        chain = generate_placed(floor, placed, max_states)
    except NoRoom as room:  # placements() refuses this first; the walk's own guard
        raise _no_room(floor, room.args[0], ",".join(f"{floor.stations[floor.classes[c].steps[i].station]}={n}"
                                                     for c, i, n in placed)) from None
    except TooManyStates:
        raise TooLarge(floor) from None
    p0 = np.zeros(len(chain.states))
    p0[:len(chain.start)] = chain.start
    counts = _per_state(chain)
    in_system = counts["present"].sum(axis=1) + counts["outside"]
    curves = _curves(floor, chain, p0, counts, in_system, over, steps)
    told(f"--from: {len(chain.states):,} states followed" + truncation_told(floor))
    if not settles:  # the truncated chain would empty, the model may never: not asked of it
        never = {"mean": None, "cut": 0.0, "law": None}
        return chain, curves, {**never, "waiting": never}
    clears = _clearing(chain, p0, in_system > 0, where)
    clears["waiting"] = _clearing(chain, p0, counts["waiting"].sum(axis=1) + counts["outside"] > 0, where)
    return chain, curves, clears


def _curves(floor: Floor, chain: Chain, p0: np.ndarray, counts, in_system: np.ndarray, over: float,
            steps: int) -> Dict[str, np.ndarray]:
    """The expected figures at the grid's times. scipy's expm_multiply (Al-Mohy and
    Higham) and not timevarying/linear_ode: the generator is constant over [0, T], so
    p(t) = p0 exp(Q t) exactly, and expm_multiply gives it on an evenly spaced grid
    at once, its error bounded to double precision, where linear_ode's uniformization
    is budgeted for a day's short pieces and its implicit steps only meet tolerances.
    Two rows are added to the forward equations: the completions and the arrivals cut
    off, accumulated since 0 (y' = rate . p)."""
    n = len(chain.states)
    completing = chain.completions.sum(axis=1)
    cut = chain.truncated.sum(axis=1)
    forward = sp.hstack([sp.vstack([chain.generator.T, sp.csr_matrix(np.vstack([completing, cut]))]),
                         sp.csr_matrix((n + 2, 2))], format="csr")
    # expm_multiply's products grow as the norm times the span: a span of many lifetimes
    # of the chain's fastest event would run for hours, so it is refused first.
    events = float(abs(forward).sum(axis=0).max()) * over
    if events > MOST_EVENTS:
        raise OptionError("over", f"the chain's fastest events come about {events:.2g} times over the span, more "
                          f"than the {MOST_EVENTS:,.0f} it follows; a shorter span "
                          "shows the way to the steady state, which solve without ", Field("from_state"),
                          " gives", value=f"{over:g}")
    y = expm_multiply(forward, np.concatenate([p0, [0.0, 0.0]]), start=0.0, stop=over, num=steps + 1,
                      endpoint=True)
    p = np.maximum(y[:, :n], 0.0)  # rounding below 0 on states not yet reached
    servers = np.array([1 if s is None else s for s in floor.servers])
    present = p @ counts["present"]
    busy = p @ counts["busy"]
    return {
        "present": present,
        "busy": busy,
        "waiting": p @ counts["waiting"],
        "utilization": busy / servers,
        "number": p @ in_system,
        "throughput": p @ completing,
        "completions": y[:, n],
        "cut": y[:, n + 1],
        "empty": p @ (in_system == 0),
    }


def _clearing(chain: Chain, p0: np.ndarray, busy: np.ndarray, where: str) -> dict:
    """The mean and quantiles of the time until the chain first leaves the `busy` states
    (nobody in the system; no job waiting), and the arrivals cut off meanwhile
    (truncation): the chain with the other states absorbing. None where it may never
    leave them (closed customers who never think: the system is never empty)."""
    transient = np.flatnonzero(busy)
    start = p0[transient]
    if not start.sum():
        return {"mean": 0.0, "cut": 0.0, "law": None}
    never = {"mean": None, "cut": 0.0, "law": None}
    if len(transient) == len(busy):
        return never
    q_tt = chain.generator[transient][:, transient].tocsc()
    ones = np.ones(len(transient))
    cut_rate = chain.truncated.sum(axis=1)[transient]
    try:
        lu = spla.splu(-q_tt)
    except RuntimeError:  # singular: from some state no way leads out
        return never
    mean_to_clear = lu.solve(ones)
    cut_before = lu.solve(cut_rate)
    residual = float(np.abs(-q_tt @ mean_to_clear - ones).max())
    if not np.isfinite(residual) or residual > RESIDUAL:
        raise BrewputError(f"{where}: the time until the backlog clears is off by {residual:.1e} (more than "
                           f"{RESIDUAL:g}): its solution is not trusted; use brewput simulate")
    fastest = float(-q_tt.diagonal().min())
    moves = q_tt.T.tocsr()
    law = PhaseTypeLaw(start, fastest, lambda v: v + moves @ v / fastest, q_tt.nnz)
    return {"mean": float(start @ mean_to_clear), "cut": float(start @ cut_before), "law": law}


def _with_quantiles(passage: dict) -> dict:
    """The mean and the quantiles of a passage (_clearing): read off its law once the
    truncation is settled (each costs up to passage.WORK)."""
    mean, law = passage["mean"], passage["law"]
    if law is None:
        return {"mean": mean, **{f"p{q}": mean for q in CLEARING_QUANTILES}}
    return {"mean": mean, **{f"p{q}": _or_none(law.quantile(q / 100, mean)) for q in CLEARING_QUANTILES}}


def _or_none(value: float) -> Optional[float]:
    """A quantile uniformization gave up on (NaN) is the results' null."""
    return None if math.isnan(value) else float(value)
