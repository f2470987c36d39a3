"""`brewput.solve`: a model in, the results schema out, from queueing theory."""
from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence, Union

from .. import percentiles
from ..errors import BrewputError, Field, OptionError
from ..model import Model, as_model
from ..results import solution_results
from ..analytic.feasibility import check_cycles_take_time, turned_away_at
from ..analytic.methods import AUTO_MAX_STATES, CHAIN, check_max_states, check_method
from ..analytic.support import ChainDoesNotFollow, TruncationUnasked, Unsupported, check_measures, check_supported

def solve(
    model: Union[Model, str, os.PathLike],
    *,
    params: Optional[Mapping[str, float]] = None,
    method: str = "auto",
    quantiles: Sequence[float] = (),
    within: Sequence[float] = (),
    max_states: Optional[int] = None,
    from_state: Optional[Mapping[str, int]] = None,
    over: Optional[Union[float, str]] = None,
    bins: Optional[Union[float, str]] = None,
) -> dict:
    """Solves `model` analytically and returns the results dict (docs/results.md),
    with `engine: "solve"` and every figure marked exact or approximate.

    `quantiles` (percents) and `within` (times in the model's unit) add those
    quantiles and service levels P(time <= t) of every class's waiting and
    response times, read off their laws where solve knows them (each class's
    `law` says exact or how approximated; None where unknown).

    `method="ctmc"` builds the model's Markov chain (at most `max_states` states,
    default analytic/chain/sizing.DEFAULT_MAX_STATES); `auto` builds it where no
    other method answers. Raises `Unsupported` (a BrewputError) naming the model
    feature that no analytic method covers, or the chain's size.

    `from_state` ({station: jobs}) and `over` (a time in the model's unit, or with
    its unit: "1h") follow the model's chain from those jobs over [0, over] (at
    `bins` wide steps, default 20 steps): the results hold `from` with the expected
    figures at each time and the time until the backlog clears (docs/solve.md,
    "From a given state"), beside the steady state's.
    """
    if from_state is not None or over is not None or bins is not None:
        return _solve_from(model, params, method, max_states, percentiles.asked(quantiles, within),
                           from_state, over, bins)
    asked = percentiles.asked(quantiles, within)
    check_max_states(max_states)
    model = as_model(model, params)
    if model.day is not None:  # through the day, per interval (analytic/timevarying/), its own methods
        from ..analytic.timevarying.day_model import solve_day

        return solve_day(model, method, asked)
    check_method(method)
    check_cycles_take_time(model)
    if method == CHAIN:
        return _solve_chain(model, max_states, asked)
    try:
        return _solve_by_formula(model, method, asked)
    except Unsupported as refused:
        if method != "auto":
            raise
        try:  # unasked, a chain small enough to answer at once (generation is Python yet), untruncated
            return _solve_chain(model, AUTO_MAX_STATES if max_states is None else max_states, asked,
                                truncate=False)
        except TruncationUnasked:  # the chain follows all the rest: say how to ask for it
            raise Unsupported(f"{refused}, or --method ctmc: its Markov chain, truncated where the open "
                              "arrivals could pile up") from None
        except ChainDoesNotFollow:
            raise refused from None


def _solve_by_formula(model: Model, method: str, asked) -> dict:
    """The model by the methods of queueing theory, or Unsupported."""
    check_supported(model)
    check_measures(model)
    # The methods are numpy arrays: imported once the model is known to be solvable,
    # so that a refusal is one line without numpy's import.
    from ..analytic.bounds import network_bounds
    from ..analytic.floor import solve_floor
    from ..analytic.network import network_of

    net = network_of(model)
    try:
        floor = solve_floor(model, net)
        if floor is not None:
            _check_exact_method(method, "a station of the service floor is solved by its own exact method")
            net, sol = floor
        else:
            sol = _solve_network(net, method)
    except MemoryError:  # sizing.py estimates every method first; this is the last line of defence
        raise OptionError("method", f"{model.file or model.name} does not fit in this machine's memory; "
                                    "use a smaller model or brewput simulate", value=method) from None
    # Reasons of loss come where customers balk or renege (a closed one's bounds then loosen).
    gives_up = None if sol.loss_by is None else ~net.is_open
    return solution_results(model, net, sol, network_bounds(net, gives_up), asked)


def _solve_chain(model: Model, max_states: Optional[int], asked, truncate: bool = True) -> dict:
    """The model by its Markov chain (analytic/chain/), or Unsupported."""
    try:
        check_measures(model)
    except Unsupported as e:
        raise ChainDoesNotFollow(str(e)) from None
    turned_away = turned_away_at(model)
    if turned_away is not None:  # as the formulas and simulate refuse it: no customer would ever complete
        raise ChainDoesNotFollow(f"{model.file or model.name}: {turned_away} turns every arrival away: nobody is ever "
                                 f"served")
    from ..analytic.chain.floor import floor_of

    # What the chain does not follow is refused here, before numpy and scipy are imported
    # (a fifth of a second of a refusal's start-up otherwise).
    floor_of(model.compile(), model.file or model.name, constant_phases=1, truncate=truncate)
    from ..analytic.bounds import network_bounds
    from ..analytic.chain.solve import solve_chain
    from ..analytic.network import network

    net = network(model)
    sol = solve_chain(model, net, max_states, truncate, passages=bool(asked["quantiles"] or asked["within"]))
    # Reasons of loss come where customers balk or renege (a closed one's bounds then loosen).
    gives_up = None if sol.loss_by is None else ~net.is_open
    return solution_results(model, net, sol, network_bounds(net, gives_up), asked)


def _solve_from(model, params, method: str, max_states: Optional[int], asked, from_state, over, bins) -> dict:
    """The steady state by the model's chain, and the chain followed from `from_state`."""
    from ..analytic.chain.from_options import checked_state, grid

    if from_state is None and over is None:
        raise OptionError("bins", "is for a model followed from a given state (", Field("from_state"), " and ",
                          Field("over"), ")", value=str(bins))
    if from_state is None:
        raise OptionError("from_state", "needed with ", Field("over"), ": the jobs at each station to start from, "
                                        "e.g. desk=12")
    state = checked_state(from_state)
    check_max_states(max_states)
    model = as_model(model, params)
    if model.day is not None:
        raise OptionError("from_state", "follows a model without a day: a day starts from its own day.at_start",
                          value=",".join(f"{k}={v}" for k, v in state.items()))
    if method not in ("auto", CHAIN):
        raise OptionError("method", "the model is followed from a given state by its Markov chain; use ",
                          Field("method"), f" {CHAIN}", value=method)
    span, steps = grid(over, bins, model.time_unit)
    check_cycles_take_time(model)
    from ..analytic.chain.floor import floor_of

    where = model.file or model.name
    floor = floor_of(model.compile(), where, constant_phases=1)  # what the chain does not follow, refused first
    from ..analytic.chain.from_state import follow, placed_jobs, without_steady_state
    from ..analytic.chain.sizing import state_limit

    placed_jobs(floor, state, state_limit(max_states))  # before any chain is walked
    from ..analytic.chain.solve import _check_stable
    from ..analytic.network import network

    try:
        _check_stable(floor, network(model))
        problem = None
    except BrewputError as unstable:  # its one line says where: the load of all the servers or more
        problem = str(unstable)
    # Followed first: a span too long for the chain is refused before the steady state's
    # solve (seconds for a large chain) is spent. An overloaded model has no steady
    # state, but its next hours are still asked for.
    block = follow(model.compile(), where, state, span, steps, max_states, settles=not problem)
    res = without_steady_state(model, problem) if problem else _solve_chain(model, max_states, asked)
    res["notes"] = res["notes"] + block.pop("notes")
    res["from"] = block
    return res


def _solve_network(net, method: str):
    """The network by the solver for its kind: open, closed (waiting outside a
    full station, or a queueing network) or mixed."""
    from ..analytic.closed import solve_closed
    from ..analytic.mixed import solve_mixed
    from ..analytic.open import solve_open
    from ..analytic.outside import binding_buffer, solve_waiting_outside

    if net.is_open.all():
        _check_exact_method(method, "open networks are solved exactly (or by the named approximation per station)")
        return solve_open(net)
    if binding_buffer(net):
        _check_exact_method(method, "closed customers waiting outside a full station are solved by their "
                                    "own product form")
        return solve_waiting_outside(net)
    if not net.is_open.any():
        return solve_closed(net, method=method)
    return solve_mixed(net, method=method)


def _check_exact_method(method: str, why: str) -> None:
    """Refuses a method other than auto or exact where `why` says one exact method answers."""
    if method not in ("auto", "exact"):
        raise OptionError("method", f"{why}; use ", Field("method"), " auto", value=method)
