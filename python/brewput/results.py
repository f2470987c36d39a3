"""The one results schema (docs/results.md), filled from an engine's summary."""
from __future__ import annotations

import math
from typing import Iterable, List, Optional

from . import _native
from .percentiles import NAMED as NAMED_PERCENTILES, name as percentile_name


def _put(out: dict, name: str, estimate: Optional[dict]) -> None:
    """A figure and its `_ci` twin from the engine's {mean, ci} estimate."""
    out[name] = None if estimate is None else estimate["mean"]
    out[f"{name}_ci"] = None if estimate is None else estimate["ci"]


def _figures(summary: dict, names: Iterable[str]) -> dict:
    out: dict = {}
    for name in names:
        _put(out, name, summary[name])
    return out


# The named percentiles are the engine's (crates/sim/src/stats.rs), in its order.
PERCENTILE_NAMES = tuple(name for name, _ in NAMED_PERCENTILES)
TIME_FIGURES = ("mean",) + PERCENTILE_NAMES


def _times(summary: dict) -> dict:
    out = _figures(summary, TIME_FIGURES)
    # The engine's max starts at 0; where nobody was measured there is no max either.
    out["max"] = None if out["mean"] is None else summary["max"]
    # [[percent, value], ...] and its `_ci` twin, one [low, high] (or null) per point
    out["spectrum"] = [[p, estimate["mean"]] for p, estimate in summary["spectrum"]]
    out["spectrum_ci"] = [estimate["ci"] for _, estimate in summary["spectrum"]]
    asked(out, summary)
    if "distribution" in summary:  # asked for: the rows of an .hgrm file (report/hgrm.py)
        out["distribution"] = summary["distribution"]
    return out


def asked(out: dict, summary: dict) -> None:
    """The quantiles and service levels a run asked for beyond the fixed list
    (percentiles.py): each quantile under its name, the levels as `within`."""
    for percent, estimate in summary.get("quantiles", ()):
        _put(out, percentile_name(percent), estimate)
    if "within" in summary:
        out["within"] = [[t, estimate["mean"]] for t, estimate in summary["within"]]
        out["within_ci"] = [estimate["ci"] for _, estimate in summary["within"]]


def asked_record(quantiles, within) -> dict:
    """What a run was asked beyond the fixed list, as its results say it (none: nothing)."""
    return {"asked": {"quantiles": list(quantiles), "within": list(within)}} if quantiles or within else {}


def _class(summary: dict) -> dict:
    out = _figures(summary, ("throughput",))
    out["response_time"] = _times(summary["response_time"])
    out["waiting_time"] = _times(summary["waiting_time"])
    out["completed"] = summary["completed"]
    out["lost"] = summary["lost"]
    _put(out, "loss_probability", summary["loss_probability"])
    out["lost_by"] = {reason: summary["lost_by"][reason] for reason in LOSS_REASONS}
    by = {reason: summary["loss_probability_by"][reason] for reason in LOSS_REASONS}
    out["loss_probability_by"] = {reason: estimate["mean"] for reason, estimate in by.items()}
    out["loss_probability_by_ci"] = {reason: estimate["ci"] for reason, estimate in by.items()}
    if "measures" in summary:  # a class with measures between marks
        out["measures"] = {name: _times(times) for name, times in summary["measures"]}
        out["measures_count"] = dict(summary["measures_count"])
    return out


STATION_FIGURES = ("utilization", "busy_servers", "queue_length", "waiting", "response_time", "throughput")
#: A class's figures at a station it visits (a station's `classes` block, docs/results.md).
CLASS_AT_STATION_FIGURES = ("queue_length", "utilization", "response_time", "throughput", "waiting")


def _station(summary: dict) -> dict:
    out = _figures(summary, STATION_FIGURES)
    if "server_types" in summary:  # a typed station
        out["server_types"] = {kind["name"]: _server_type(kind) for kind in summary["server_types"]}
    out["classes"] = {c["name"]: _figures(c, CLASS_AT_STATION_FIGURES) for c in summary["classes"]}
    return out


def _server_type(summary: dict) -> dict:
    out = _figures(summary, ("utilization",))
    out["served"] = {name: estimate["mean"] for name, estimate in summary["served"]}
    out["served_ci"] = {name: estimate["ci"] for name, estimate in summary["served"]}
    return out


# A day's figures per interval (docs/results.md "Intervals"): of the interval's
# time, and of the customers who arrived in it (their waits, who gave up).
INTERVAL_CLASS_FIGURES = ("arrivals", "completions", "abandoned", "abandonment")
INTERVAL_STATION_FIGURES = ("busy_servers", "utilization", "queue_length", "waiting", "completions")


def _interval(summary: dict, label: str) -> dict:
    classes = {}
    for c in summary["classes"]:
        figures = _figures(c, INTERVAL_CLASS_FIGURES)
        # also by the whole run's name for it, as solve's intervals give it (plan's loss objective reads it)
        _put(figures, "loss_probability", c["abandonment"])
        classes[c["name"]] = {**figures, "waiting_time": _times(c["waiting_time"])}
    stations = {s["name"]: {"servers": s["servers"], **_figures(s, INTERVAL_STATION_FIGURES),
                            **({"found": s["found"]} if "found" in s else {})}
                for s in summary["stations"]}
    return {"start": summary["start"], "end": summary["end"], "label": label, "classes": classes,
            "stations": stations}


def interval_labels(model, starts: List[float]) -> List[str]:
    """Each interval's label: its clock time from the day's `start` ("06:15"),
    else its start in the model's time_unit ("15 min"), as model/timeline.py's Day."""
    day = model.day.timeline
    if len(starts) == day.intervals and all(abs(a - b) < 1e-9 * day.length for a, b in zip(starts, day.edges)):
        return day.labels
    from .model.timeline import Day

    # The second interval of a day twice t long starts at t.
    return [Day(2 * t, t, day.start_label, time_unit=day.time_unit).labels[1] if t > 0 else day.labels[0]
            for t in starts]


def simulation_results(model, settings: dict, summary: dict, warnings: List[str]) -> dict:
    results = _simulation_results(model, settings, summary, warnings)
    if model.day is not None:
        results["settings"]["bins"] = settings.get("bins")
        intervals = summary.get("intervals", [])
        labels = interval_labels(model, [i["start"] for i in intervals])
        results["intervals"] = [_interval(i, label) for i, label in zip(intervals, labels)]
        if model.day.repeat:
            days = round(settings["warmup"]["time"] / model.day.length)
            results["notes"] = [f"a repeating day: {days} day{'s' if days != 1 else ''} run before the one measured"]
    return results


def _simulation_results(model, settings: dict, summary: dict, warnings: List[str]) -> dict:
    stop, warmup = settings["stop"], settings["warmup"]
    return {
        "model": model.name,
        "engine": "simulate",
        "method": "des",
        "time_unit": model.time_unit,
        "params": dict(model.params),
        "settings": {
            "seed": settings["seed"],
            "replications": settings["replications"],
            "customers": stop.get("count"),
            "horizon": stop.get("time"),
            "warmup": {"customers": warmup["count"]} if warmup["kind"] == "customers"
            else {"time": warmup["time"]},
        },
        "classes": {c["name"]: _class(c) for c in summary["classes"]},
        "stations": {s["name"]: _station(s) for s in summary["stations"]},
        "resources": {r["name"]: _figures(r, ("utilization", "in_use")) for r in summary["resources"]},
        "events": summary["events"],
        "warnings": list(warnings),
        **asked_record(*(settings.get("asked", {}).get(k, ()) for k in ("quantiles", "within"))),
    }


def _exactness(figures: dict, exact: bool, method: str) -> dict:
    figures["exact"] = bool(exact)
    figures["method"] = method
    return figures


def _queues(net):
    """(M,) stations where jobs wait before service: not delays, and not
    processor sharing, where every job present is being served (slowly)."""
    return [_queues_at(net, m) for m in range(len(net.stations))]


def _queues_at(net, m: int) -> bool:
    """Whether jobs wait before service at station `m` (see `_queues`)."""
    return not net.is_delay[m] and net.discipline[m] != "ps"


#: Why a customer is lost: a full station turned it away, it balked, it reneged
#: (the engine's list, crates/sim/src/giving_up.rs).
LOSS_REASONS = tuple(_native.LOSS_REASONS)


def _from_law(law, asked: dict) -> dict:
    """A time's percentiles (the fixed list and those asked) and the service
    levels asked, read off its law (analytic/laws/); None where it is not known."""
    def known(value) -> Optional[float]:  # an approximate law may not reach a figure (NaN)
        return float(value) if math.isfinite(value) else None

    percents = [*(p for _, p in NAMED_PERCENTILES), *asked.get("quantiles", ())]
    figures = {percentile_name(p): None if law is None else known(law.quantile(p / 100)) for p in percents}
    if asked.get("within"):
        figures["within"] = [[t, None if law is None else known(law.cdf(t))] for t in asked["within"]]
    return figures


def _solved_class(net, sol, r: int, measures, asked: dict) -> dict:
    laws = sol.laws.get(r)
    queues = _queues(net)
    waited = float(sol.waiting_time[r] if sol.waiting_time is not None
                   else (sol.residence_time[r] - net.demand[r])[queues].sum())
    # The fixed list where the law is exact; an approximate law's figures, or nulls, only where asked for.
    known = (laws is not None and laws.exact) or bool(asked.get("quantiles") or asked.get("within"))
    response = {"mean": float(sol.response_time[r]), **(_from_law(laws and laws.response, asked) if known else {})}
    waiting = {"mean": max(0.0, waited), **(_from_law(laws and laws.waiting, asked) if known else {})}
    figures = {"throughput": float(sol.throughput[r]), "response_time": response, "waiting_time": waiting}
    if known:  # how the percentiles and service levels are known: exact, or by which approximation (or not at all)
        figures["law"] = None if laws is None else {"exact": laws.exact, "method": laws.method}
    if sol.loss_probability is not None:
        figures["loss_probability"] = float(sol.loss_probability[r])
        by = sol.loss_by or {"full": sol.loss_probability}
        figures["loss_probability_by"] = {reason: float(by[reason][r]) if reason in by else 0.0
                                          for reason in LOSS_REASONS}
    if measures:  # solve answers those from arrived to done (analytic/support.py): the response time
        figures["measures"] = {name: dict(response) for name in measures}
    return _exactness(figures, sol.exact_class[r], sol.method)


def _solved_station(net, sol, m: int) -> dict:
    delay = bool(net.is_delay[m])
    per_class_busy = sol.utilization[:, m]
    busy = float(per_class_busy.sum()) if delay else float(per_class_busy.sum() * net.servers[m])
    present = float(sol.queue_length[:, m].sum())
    throughput = float((sol.throughput * net.visits[:, m]).sum() if sol.served is None else sol.served[:, m].sum())
    served_time = sol.station_response_time[m] if sol.station_response_time else None
    figures = {
        "utilization": None if delay else float(per_class_busy.sum()),
        "busy_servers": busy,
        "queue_length": present,
        "waiting": (float(sol.waiting_number.sum(axis=0)[m]) if sol.waiting_number is not None
                    else max(0.0, present - busy) if _queues_at(net, m) else 0.0),
        "response_time": float(served_time) if served_time is not None else present / throughput if throughput > 0
        else None,
        "throughput": throughput,
    }
    if m in sol.server_types:
        figures["server_types"] = sol.server_types[m]
    figures["classes"] = {net.classes[r]: _solved_class_at(net, sol, r, m)
                          for r in range(len(net.classes)) if net.visits[r, m] > 0}
    return _exactness(figures, sol.exact_station[m], sol.station_method[m])


def _solved_class_at(net, sol, r: int, m: int) -> dict:
    """Class `r`'s figures at station `m` (CLASS_AT_STATION_FIGURES), from the Solution's
    (classes x stations) arrays, as the station's totals are (`_solved_station`)."""
    delay = bool(net.is_delay[m])
    present = float(sol.queue_length[r, m])
    busy = float(sol.utilization[r, m] if delay else sol.utilization[r, m] * net.servers[m])
    waiting = (float(sol.waiting_number[r, m]) if sol.waiting_number is not None
               else max(0.0, present - busy) if _queues_at(net, m) else 0.0)
    return {
        "queue_length": present,
        "utilization": None if delay else float(sol.utilization[r, m]),
        "response_time": float(sol.residence_time[r, m] / net.visits[r, m]),
        "throughput": float(sol.throughput[r] * net.visits[r, m] if sol.served is None else sol.served[r, m]),
        "waiting": waiting,
    }


def solution_results(model, net, sol, bounds: Optional[dict] = None, asked: Optional[dict] = None) -> dict:
    """The results schema from an analytic Solution: the same keys as a
    simulation's (no `_ci` twins), each class and station marked `exact` with
    the method that produced it."""
    return {
        "model": model.name,
        "engine": "solve",
        "method": sol.method,
        "time_unit": model.time_unit,
        "params": dict(model.params),
        "classes": {name: _solved_class(net, sol, r, model.classes[name].measures, asked or {})
                    for r, name in enumerate(net.classes)},
        "stations": {name: _solved_station(net, sol, m) for m, name in enumerate(net.stations)},
        # Plain floats: a method's numpy scalars would compare into numpy booleans, which JSON cannot write.
        "resources": {name: {k: float(v) for k, v in figures.items()} for name, figures in sol.resources.items()},
        "bounds": bounds or {},
        "notes": list(sol.notes),
        "warnings": [],
        **asked_record(*((asked or {}).get(k, ()) for k in ("quantiles", "within"))),
    }
