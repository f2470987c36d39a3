"""`brewput load --day MODEL[:CLASS]`: the rate of a model's day as the load's
schedule, and the day's intervals as what the run reports.

The model's time is the wall clock's: a day of 4 s in ms, or of 10 min in s,
runs that long, at the model's rates converted to requests per second;
`--speedup K` runs its clock K times faster at the same rates (speedup.py). The
schedule is the generator's own (crates/measure's arrivals.rs: unit-rate points
mapped through the inverse of the cumulative rate), given the day's rate as
stages it draws exactly: a rate per interval (a list, a CSV of counts, a
constant) as one constant stage per interval, a piecewise linear rate as one
linear stage between each pair of its points, and a curve in `t` as the
straight lines that follow it within a millionth of its highest rate
(`_following`). The rate's arithmetic (each interval's mean rate, exact) is
model/timeline.py's.

`--days N` runs the day N times back to back, each day's intervals reported
on their own by the generator, and gives each interval's figures as the
replication method does (as `simulate` does a day): the mean over the days
of each day's own figure, with its 95 % Student-t interval across the days.
A day after the first starts with what the day before left queued.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, List, Mapping, Optional, Tuple

from ..errors import BrewputError, OptionError
from .. import _native
from ..measured import half_width
from ..units import SECONDS

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class DayLoad:
    """A day's schedule: the generator's stages (rates per second) over all
    `days`, the intervals it reports (`spans`: seconds, each day's), and the
    day's own intervals' labels."""

    model: str
    job_class: str
    time_unit: str
    stages: List[dict]
    spans: List[dict]
    labels: List[str]
    days: int = 1
    speedup: float = 1.0
    #: The model's interval, in its time unit.
    interval: float = 0.0


def split_spec(text: str) -> Tuple[str, Optional[str]]:
    """`MODEL.yaml:CLASS` -> (MODEL.yaml, CLASS); a path that exists as typed is
    all path (it may hold a colon)."""
    if Path(text).exists() or ":" not in text:
        return text, None
    path, _, name = text.rpartition(":")
    return path, name or None


def day_load(text: str, params: Mapping[str, object], days: int = 1, speedup: float = 1.0) -> DayLoad:
    """The schedule of `days` days of the model named by `text` (`MODEL[:CLASS]`,
    with `params`); each problem one OptionError naming --day (or --days)."""
    from ..model import load
    from ..model import timeline
    from .options import MAX_RATE, MAX_SECONDS

    path, wanted = split_spec(text)
    try:
        model = load(path).with_params(**params) if params else load(path)
    except BrewputError as e:
        raise OptionError("day", str(e), value=text) from None
    day = model.day
    if day is None:
        raise OptionError("day", "the model has no day: block (its length and interval); a steady rate is "
                                 "--rate", value=text)
    open_classes = [name for name, job in model.classes.items() if job.population is None]
    if wanted is None:
        if len(open_classes) != 1:
            raise OptionError("day", f"the model has {len(open_classes)} open classes "
                                     f"({', '.join(open_classes)}): name one, as MODEL:CLASS", value=text)
        wanted = open_classes[0]
    if wanted not in open_classes:
        raise OptionError("day", f"no open class {wanted!r} (open classes: {', '.join(open_classes) or 'none'})",
                          value=text)
    job = model.classes[wanted]
    if job.time_varying:
        rate = job.day_rate
    elif job.rate is not None:
        rate = timeline.Constant(float(job.rate), length=day.length, repeat=day.repeat)
    else:
        raise OptionError("day", f"class {wanted!r} arrives by a renewal law (arrivals:), not a Poisson rate: "
                                 "give it a rate:", value=text)
    unit = SECONDS[model.time_unit]  # seconds per model time unit (a rate's)
    clock = unit / speedup  # wall seconds per model time unit (a time's)
    edges = day.timeline.edges
    if (edges.size - 1) * days > _native.LOAD_MAX_STAGES:
        raise OptionError(("day", "days") if days > 1 else "day",
                          f"{days} day(s) of {edges.size - 1} intervals; the load reports at most "
                          f"{_native.LOAD_MAX_STAGES} intervals: give a longer interval or fewer days", value=text)
    if day.length * clock * days > MAX_SECONDS:
        raise OptionError(("day", "days") if days > 1 else "day",
                          f"{days} day(s) of {day.length * clock:g} s: at most {MAX_SECONDS:g} s of load", value=text)
    stages = _stages(rate, day.length, text)
    means = rate.interval_means(edges)
    spans = [{"start_seconds": float(a * clock), "end_seconds": float(b * clock), "target_rate": float(r / unit),
              "steady": bool(rate.steady_between_breaks)} for a, b, r in zip(edges[:-1], edges[1:], means)]
    for stage in stages:
        stage.update({"from": stage["from"] / unit, "to": stage["to"] / unit, "seconds": stage["seconds"] * clock})
    highest = max(max(stage["from"], stage["to"]) for stage in stages)
    if highest > MAX_RATE:
        raise OptionError("day", f"the day's rate reaches {highest:,.4g} requests per second; the load sends at most "
                                 f"{MAX_RATE:,.0f} per second", value=text)
    # The day's length in seconds as the stages add it up, so that the days' spans meet the stages' ends.
    length = sum(stage["seconds"] for stage in stages)
    spans[-1]["end_seconds"] = length
    every = [{**span, "start_seconds": span["start_seconds"] + d * length,
              "end_seconds": span["end_seconds"] + d * length} for d in range(days) for span in spans]
    for before, span in zip(every, every[1:]):  # end to end exactly, whatever the additions rounded
        span["start_seconds"] = before["end_seconds"]
    return DayLoad(path, wanted, model.time_unit, [dict(s) for _ in range(days) for s in stages], every,
                   day.timeline.labels, days, speedup, float(day.interval))


def model_rota(text: str, speedup: float = 1.0) -> Tuple[List[int], float]:
    """The servers per interval of a model's station through its day (`MODEL[:STATION]`,
    the only station if none is named) and the interval in wall seconds: what
    `brewput serve --rota` follows. Each problem one OptionError naming --rota."""
    from ..model import load

    path, wanted = split_spec(text)
    try:
        model = load(path)
    except BrewputError as e:
        raise OptionError("rota", str(e), value=text) from None
    if model.day is None:
        raise OptionError("rota", "the model has no day: block (its length and interval)", value=text)
    stations = list(model.stations)
    if wanted is None and len(stations) != 1:
        raise OptionError("rota", f"the model has {len(stations)} stations ({', '.join(stations)}): name one, as "
                                  "MODEL:STATION", value=text)
    wanted = wanted if wanted is not None else stations[0]
    if wanted not in model.stations:
        raise OptionError("rota", f"no station {wanted!r} (stations: {', '.join(stations)})", value=text)
    station = model.stations[wanted]
    if station.server_types:
        raise OptionError("rota", f"station {wanted!r} has typed servers: serve runs one kind of worker",
                          value=text)
    if station.rotas:
        counts = [int(n) for n in station.rotas[None]]
    elif station.servers == float("inf"):
        raise OptionError("rota", f"station {wanted!r} is a delay station (servers: inf): no rota to serve",
                          value=text)
    else:
        counts = [int(station.servers)] * model.day.intervals
    return counts, model.day.interval * SECONDS[model.time_unit] / speedup


def _stages(rate, length: float, text: str) -> List[dict]:
    """The rate as stages (model time, per model time unit) the generator draws exactly
    (a curve: the lines that follow it)."""
    from ..model import timeline

    if isinstance(rate, timeline.Constant):
        return [{"from": rate.value, "to": rate.value, "seconds": length}]
    if isinstance(rate, timeline.Steps):
        return [{"from": float(r), "to": float(r), "seconds": float(b - a)}
                for a, b, r in zip(rate.edges[:-1], rate.edges[1:], rate.values)]
    if isinstance(rate, timeline.Linear):
        # Held flat before its first point and after its last, as timeline.Linear is.
        knots_t = [0.0, *rate.times, length]
        knots_r = [rate.rates[0], *rate.rates, rate.rates[-1]]
        return [{"from": float(r0), "to": float(r1), "seconds": float(t1 - t0)}
                for t0, t1, r0, r1 in zip(knots_t[:-1], knots_t[1:], knots_r[:-1], knots_r[1:]) if t1 > t0]
    times, rates = _following(rate, length, text)
    return [{"from": float(r0), "to": float(r1), "seconds": float(t1 - t0)}
            for t0, t1, r0, r1 in zip(times[:-1], times[1:], rates[:-1], rates[1:])]


#: A curve is followed by straight lines within this share of its highest rate over the day ...
CURVE_FOLLOWED_WITHIN = 1e-6
#: ... in at most this many of them a day.
MAX_CURVE_STAGES = 100_000


def _following(rate, length: float, text: str) -> Tuple["np.ndarray", "np.ndarray"]:
    """Knots (times, rates) of straight lines that follow the curve `rate` over [0, length]
    within CURVE_FOLLOWED_WITHIN of its highest rate (checked at each line's quarter
    points), each line halved until it does. The generator draws a piecewise linear rate
    exactly (it inverts its integral); to draw the curve itself it would invert an
    integral known only numerically, to no closer than this."""
    import numpy as np

    quarters = np.array([0.25, 0.5, 0.75])
    times = np.linspace(0.0, length, 65)
    inside = np.nextafter(length, 0.0)  # the day's rate is 0 from its end on: the last line ends at its limit
    highest = 1e-300
    while times.size <= MAX_CURVE_STAGES + 1:
        values = rate.rate(np.minimum(times, inside))
        a, b = times[:-1], times[1:]
        found = rate.rate((a[:, None] + (b - a)[:, None] * quarters).ravel()).reshape(a.size, quarters.size)
        straight = values[:-1, None] + (values[1:] - values[:-1])[:, None] * quarters
        highest = max(highest, float(values.max()), float(found.max()))
        off = np.abs(found - straight).max(axis=1) > CURVE_FOLLOWED_WITHIN * highest
        if not off.any():
            return times, values
        halved = np.unique(np.concatenate([times, (a[off] + b[off]) / 2]))
        if halved.size == times.size:  # lines as short as the clock's resolution, still off
            break
        times = halved
    raise OptionError("day", f"the curve bends too sharply for {MAX_CURVE_STAGES:,} straight lines a day to "
                             f"follow it within {CURVE_FOLLOWED_WITHIN:g} of its highest rate: give it per interval "
                             "or piecewise linear (linear:)", value=text)


def day_schedule(day: DayLoad, *, arrivals: str, requests_text: Optional[str], warmup_text: str,
                 seed: int) -> dict:
    """The schedule settings the generator takes for `day` (options.schedule's, the day giving the stages)."""
    from .options import requests, seconds

    if arrivals not in ("poisson", "constant"):
        raise OptionError("arrivals", "expected poisson or constant", value=arrivals)
    return {"arrivals": arrivals, "stages": day.stages,
            "requests": requests(requests_text) if requests_text is not None else None,
            "warmup_seconds": seconds("warmup", warmup_text, zero=True), "seed": seed}


def add_intervals(results: dict, day: DayLoad) -> None:
    """The results' time axis (docs/results.md): `intervals`, a row per interval of
    the day with its `start` and `end` (ms, the results' unit) and `label`, and what
    the requests due in it measured under `classes.request`: `arrivals` (due: sent
    or dropped), `completed`, `target_rate` and `achieved_rate` (per second),
    `error_rate`, `response_time` (mean, named percentiles, min, max) and
    `service_time` (mean). Over one day each is that day's, the mean with its
    batch-means interval where the run's slots allow one (load.stages); over
    several days each is the mean of the days' own with its `_ci` across them
    (the error rate and min and max over all of them). `day` says which model's
    day, and how many days ran."""
    n = len(day.labels)
    stages = results["load"]["stages"]
    rows = []
    for k, label in enumerate(day.labels):
        each = stages[k::n]
        request = _one_day(each[0]) if day.days == 1 else _over_days(each)
        rows.append({"start": each[0]["start_seconds"] * 1e3, "end": each[0]["end_seconds"] * 1e3, "label": label,
                     "classes": {"request": request}})
    results["day"] = {"model": day.model, "class": day.job_class, "time_unit": day.time_unit, "days": day.days,
                      "speedup": day.speedup, "note": clock_note(day) + ("" if day.days == 1 else
                                                                         "; each figure the mean over the days, with "
                                                                         "its interval across them")}
    results["intervals"] = rows
    made = results["load"]["intervals"]
    if not made["batches"]:  # said of a day's intervals, not of a stage table there is not
        made["note"] = ("the day's rate changes: each interval's figures stand on their own, in the table of "
                        "intervals" + (" with their intervals across the days" if day.days > 1 else
                                       "; --days N gives them intervals"))


def clock_note(day: DayLoad) -> str:
    """How model time ran: as wall time, or K times faster (an interval's wall seconds)."""
    if day.speedup == 1:
        return "model time as wall time"
    wall = day.spans[0]["end_seconds"] - day.spans[0]["start_seconds"]
    seconds = day.interval * SECONDS[day.time_unit]
    model = next(f"{seconds / size:g} {unit}" for size, unit in ((3600, "h"), (60, "min"), (1, "s"), (0, "s"))
                 if seconds >= size)
    return (f"model time {day.speedup:g} times faster than wall time: an interval of {model} lasted {wall:.4g} s, "
            "at the model's rates")


def _one_day(stage: dict) -> dict:
    return {"arrivals": stage["measured"] + stage["dropped"], "completed": stage["answered"],
            "target_rate": stage["target_rate"], "achieved_rate": stage["achieved_rate"],
            "error_rate": stage["error_rate"], "response_time": stage["response_time"],
            "service_time": {"mean": stage["service_time_mean"]}}


def _mean_ci(values: List[Optional[float]]) -> Tuple[Optional[float], Optional[list]]:
    """The mean of the days' figures that exist, and its t-interval (None below two)."""
    known = [v for v in values if v is not None]
    if not known:
        return None, None
    mean = sum(known) / len(known)
    half = half_width(known)
    return mean, None if half is None else [mean - half, mean + half]


def _over_days(stages: List[dict]) -> dict:
    """One interval over the days (`stages`: its stage of each day), by the replication method."""
    out: dict = {}
    for key, values in (("arrivals", [s["measured"] + s["dropped"] for s in stages]),
                        ("completed", [s["answered"] for s in stages]),
                        ("achieved_rate", [s["achieved_rate"] for s in stages])):
        out[key], out[f"{key}_ci"] = _mean_ci(values)
    offered = sum(s["measured"] + s["dropped"] for s in stages)
    out["target_rate"] = stages[0]["target_rate"]
    out["error_rate"] = sum(s["failed"] + s["dropped"] for s in stages) / offered if offered else None
    response: dict = {}
    for figure in ["mean"] + [name for name, _ in _native.PERCENTILES]:
        response[figure], response[f"{figure}_ci"] = _mean_ci([s["response_time"].get(figure) for s in stages])
    lows = [s["response_time"]["min"] for s in stages if s["response_time"].get("min") is not None]
    highs = [s["response_time"]["max"] for s in stages if s["response_time"].get("max") is not None]
    response.update(min=min(lows, default=None), max=max(highs, default=None),
                    days=sum(s["response_time"].get("mean") is not None for s in stages))
    out["response_time"] = response
    mean, ci = _mean_ci([s["service_time_mean"] for s in stages])
    out["service_time"] = {"mean": mean, "mean_ci": ci}
    return out
