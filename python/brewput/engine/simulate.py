"""`brewput.simulate`: a model in, the results schema out, through the Rust engine."""
from __future__ import annotations

import json
import os
from typing import Callable, Mapping, Optional, Sequence, Union

from .. import _native, percentiles
from ..errors import EngineError, OptionError
from .cancellable import run_controlled
from .pilot import LOSING, Paced, paced
from .work import Work, cores, simulation_work
from ..model import Model, as_model
from ..model.limits import MAX_TIME
from ..model.no_effect import no_effect_warnings
from ..results import simulation_results
from ..vocabulary import MAX_SEED
from ..analytic.traffic import instability_warnings
from ..analytic.feasibility import check_run_ends

DEFAULT_CUSTOMERS = 1_000_000
DEFAULT_REPLICATIONS = 5
WARMUP_SHARE = 0.1  # of the run, when no warm-up is given
MAX_CUSTOMERS = 4 * 10**9  # per replication: the histograms count in u32 buckets
MAX_REPLICATIONS = 100_000
MAX_THREADS = 1024  # engine threads; each reserves 1 MiB of stack
PROGRESS_INTERVAL = 0.1  # seconds between progress reports

# Called with (customers done, customers in all or None when stopping by horizon).
ProgressCallback = Callable[[int, Optional[int]], None]


def simulate(
    model: Union[Model, str, os.PathLike],
    *,
    params: Optional[Mapping[str, float]] = None,
    seed: int = 1,
    replications: int = DEFAULT_REPLICATIONS,
    customers: Optional[int] = None,
    horizon: Optional[float] = None,
    warmup: Optional[float] = None,
    threads: Optional[int] = None,
    progress: Optional[ProgressCallback] = None,
    distribution: bool = False,
    quantiles: Sequence[float] = (),
    within: Sequence[float] = (),
    bins: Optional[Union[float, str]] = None,
    found: bool = False,
) -> dict:
    """Simulates `model` (a Model or a model file) and returns the results dict
    (docs/results.md).

    The run stops after `customers` completed customers per replication
    (default 1,000,000) or after `horizon` model time units, not counting the
    warm-up. `warmup` is in customers when stopping by customers and in model
    time when stopping by horizon; by default a tenth of the run is discarded.
    `progress` is called about ten times a second while the engine runs.
    `distribution=True` adds each class's response-time percentile distribution
    (all replications together, the rows of an .hgrm file: report/hgrm.py).
    `quantiles` (percents) and `within` (times in the model's unit) add those
    quantiles and the service levels P(time <= t) of every time, each with its
    interval across replications, from the replications' histograms
    (percentiles.py names them).
    A model with a `day:` runs the day: arrivals in [0, length), until its
    customers have left (`customers`, `horizon` and `warmup` do not apply), and
    its results hold `intervals`, per the model's interval or per `bins` (a
    time in the model's time_unit, or with a unit: "15min"). A day that
    repeats runs `warmup` whole days (default WARMUP_DAYS) before the one
    measured, from `at_start`; its figures are the measured day's.
    `found=True` adds each interval's `found` at each station: the share of its
    arrivals there who found n present, n = 0, 1, ... (what a rota is staffed
    from: planning/rota_simulated.py).
    Ctrl-C (KeyboardInterrupt) cancels the run. A run that cannot finish raises
    an EngineError: DeadlockError, UnstableError, CancelledError, ...
    """
    model = as_model(model, params)
    settings = day_settings(model, bins, customers, horizon, warmup) or {}
    settings = {**run_settings(seed, replications, customers, horizon, warmup, threads), **settings}
    settings["distribution"] = bool(distribution)
    extra = percentiles.asked(quantiles, within)
    if extra["quantiles"] or extra["within"]:
        settings["asked"] = extra
    if found:
        if model.day is None:
            raise OptionError("found", "is kept per interval of a day; this model has no day: block")
        settings["found"] = True
    check_run_ends(model, settings["stop"].get("time"), settings["warmup"].get("time"), MAX_CUSTOMERS)
    warnings = instability_warnings(model) + no_effect_warnings(model)
    try:
        summary = _run_engine(json.dumps(model.compile()), settings, progress)
    except EngineError as e:  # each its own class (crates/py/src/errors.rs), said of the model
        raise type(e)(f"{model_label(model)}: {e}") from None
    return simulation_results(model, settings, json.loads(summary), warnings)


def _run_engine(compiled: str, settings: dict, progress: Optional[ProgressCallback]) -> str:
    """Runs the engine, reporting progress; Ctrl-C cancels it (engine/cancellable.py)."""
    total = _customers_in_all(settings)
    watch = None if progress is None else (lambda shown: progress(shown["customers"], total))
    return run_controlled("simulate", lambda control: _native.simulate(compiled, json.dumps(settings), control),
                          watch=watch, interval=PROGRESS_INTERVAL)


def _customers_in_all(settings: dict) -> Optional[int]:
    if settings["stop"]["kind"] != "customers":
        return None
    return settings["replications"] * (settings["stop"]["count"] + settings["warmup"]["count"])


def model_label(model: Model) -> str:
    return getattr(model, "file", None) or model.name


def estimate(model: Union[Model, str, os.PathLike], *, params: Optional[Mapping[str, float]] = None, seed: int = 1,
             replications: int = DEFAULT_REPLICATIONS, customers: Optional[int] = None,
             horizon: Optional[float] = None, warmup: Optional[float] = None, threads: Optional[int] = None,
             distribution: bool = False, quantiles: Sequence[float] = (),
             within: Sequence[float] = ()) -> Union[Work, Paced]:
    """The work `simulate` with these arguments would do (engine/work.py), known
    before doing it; it takes simulate's arguments as they are (`distribution`,
    `quantiles` and `within` cost nothing to speak of). Where customers may be lost and the run stops by
    completed customers, a pilot's pace (engine/pilot.py) where it is slower."""
    model = as_model(model, params)
    settings = day_settings(model, None, customers, horizon, warmup) or {}
    settings = {**run_settings(seed, replications, customers, horizon, warmup, threads), **settings}
    # A run that could never end is refused as simulate refuses it, naming the class at fault.
    check_run_ends(model, settings["stop"].get("time"), settings["warmup"].get("time"), MAX_CUSTOMERS)
    work = simulation_work(model, settings)
    total = _customers_in_all(settings)
    if total is None or not model.features() & LOSING:
        return work
    parallel = max(1, min(settings["replications"], settings["threads"] or threads or cores()))
    pace = paced(json.dumps(model.compile()), settings, total, parallel)
    return pace if pace is not None and pace.seconds > work.seconds else work


#: A repeating day's whole days run before the one measured, unless `warmup` says.
WARMUP_DAYS = 3
MAX_WARMUP_DAYS = 1000


def day_settings(model: Model, bins, customers, horizon, warmup) -> Optional[dict]:
    """A day's run settings: measured from 0 (a repeating day: from the start of
    the day after `warmup` whole days), its horizon the day (the engine goes on
    until the day's customers have left), reported per interval or per `bins`;
    None for a model without a day (which takes no `bins`)."""
    if model.day is None:
        if bins is not None:
            raise OptionError("bins", "reports per interval of a day; this model has no day: block")
        return None
    length = model.day.length
    for field, value in (("customers", customers), ("horizon", horizon), ("warmup", warmup)):
        if value is not None and not (field == "warmup" and model.day.repeat):
            raise OptionError(field, "a day runs from its start until its customers have left "
                                     f"(day: length {length:g} {model.time_unit}); leave it out")
    days = warmup_days(warmup) if model.day.repeat else 0
    settings = {"stop": {"kind": "horizon", "time": float(length)}, "warmup": {"kind": "time", "time": float(days * length)}}
    if bins is not None:
        settings["bins"] = bin_width(bins, model)
    return settings


def warmup_days(warmup) -> int:
    """A repeating day's whole days before the one measured: `warmup`, else WARMUP_DAYS."""
    if warmup is None:
        return WARMUP_DAYS
    if isinstance(warmup, bool) or not isinstance(warmup, (int, float)) or not 0 <= warmup <= MAX_WARMUP_DAYS \
            or warmup != int(warmup):
        raise OptionError("warmup", f"on a day that repeats, the whole days run before the one measured: "
                                    f"expected a whole number from 0 to {MAX_WARMUP_DAYS:,}, got {warmup!r}")
    return int(warmup)


#: The most reporting intervals a day may be cut into (each keeps its figures in every replication).
MAX_BINS = 10_000


def bin_width(bins: Union[float, str], model: Model) -> float:
    """--bins as a width in the model's time_unit: a number in it, or a time with its unit."""
    from ..model.distributions import typed_time

    width = typed_time(bins, model.time_unit) if isinstance(bins, str) else bins
    if isinstance(bins, str) and width is None:
        try:
            width = float(bins)
        except ValueError:
            raise OptionError("bins", f"expected a time like 15min or a number in {model.time_unit}, "
                                      f"got {bins!r}") from None
    if not (isinstance(width, (int, float)) and 0 < width < float("inf")):
        raise OptionError("bins", f"expected a positive time, got {bins!r}")
    if model.day.length / width > MAX_BINS:
        raise OptionError("bins", f"at most {MAX_BINS:,} intervals in the day ({model.day.length:g} "
                                  f"{model.time_unit}), got {bins!r}")
    return float(width)


def run_settings(seed, replications, customers, horizon, warmup, threads) -> dict:
    """Checks the run options and turns them into the engine's settings."""
    if customers is not None and horizon is not None:
        raise OptionError(("customers", "horizon"), "give one, not both")
    _check_int("seed", seed, 0, MAX_SEED)
    _check_int("replications", replications, 1, MAX_REPLICATIONS)
    if threads is not None:
        _check_int("threads", threads, 1, MAX_THREADS)
    if horizon is not None:
        _check_positive("horizon", horizon)
        warmup_time = WARMUP_SHARE * horizon if warmup is None else warmup
        _check_positive("warmup", warmup_time, allow_zero=True)
        for field, time in (("horizon", horizon), ("warmup", warmup_time)):
            if time > MAX_TIME:
                raise OptionError(field, f"at most {MAX_TIME:g} time units (as any time in a model), got {time:g}")
        stop = {"kind": "horizon", "time": float(horizon)}
        warm = {"kind": "time", "time": float(warmup_time)}
    else:
        count = DEFAULT_CUSTOMERS if customers is None else customers
        _check_int("customers", count, 1, MAX_CUSTOMERS)
        warm_count = int(WARMUP_SHARE * count) if warmup is None else warmup
        _check_int("warmup", warm_count, 0, MAX_CUSTOMERS)
        stop = {"kind": "customers", "count": int(count)}
        warm = {"kind": "customers", "count": int(warm_count)}
    return {"seed": int(seed), "replications": int(replications), "threads": threads,
            "stop": stop, "warmup": warm}


def _check_int(field: str, value, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise OptionError(field, f"expected a whole number, got {value!r}")
    if not low <= value <= high:
        raise OptionError(field, f"expected a number from {low:,} to {high:,}, got {value:,}")


def _check_positive(field: str, value, allow_zero: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and value != float("inf") and (value >= 0 if allow_zero else value > 0)
    if not ok:
        raise OptionError(field, f"expected a {'non-negative' if allow_zero else 'positive'} finite number, "
                                 f"got {value!r}")
