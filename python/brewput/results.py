"""The one results schema (docs/results.md), filled from an engine's summary."""
from __future__ import annotations

from typing import Iterable, List, Optional


def _put(out: dict, name: str, estimate: Optional[dict]) -> None:
    """A figure and its `_ci` twin from the engine's {mean, ci} estimate."""
    out[name] = None if estimate is None else estimate["mean"]
    out[f"{name}_ci"] = None if estimate is None else estimate["ci"]


def _figures(summary: dict, names: Iterable[str]) -> dict:
    out: dict = {}
    for name in names:
        _put(out, name, summary[name])
    return out


TIME_FIGURES = ("mean", "p50", "p90", "p95", "p99", "p999")


def _times(summary: dict) -> dict:
    out = _figures(summary, TIME_FIGURES)
    out["max"] = summary["max"]
    return out


def _class(summary: dict) -> dict:
    out = _figures(summary, ("throughput",))
    out["response_time"] = _times(summary["response_time"])
    out["waiting_time"] = _times(summary["waiting_time"])
    out["completed"] = summary["completed"]
    out["lost"] = summary["lost"]
    _put(out, "loss_probability", summary["loss_probability"])
    return out


STATION_FIGURES = ("utilization", "busy_servers", "queue_length", "waiting", "response_time", "throughput")


def simulation_results(model, settings: dict, summary: dict, warnings: List[str]) -> dict:
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
        "stations": {s["name"]: _figures(s, STATION_FIGURES) for s in summary["stations"]},
        "resources": {r["name"]: _figures(r, ("utilization", "in_use")) for r in summary["resources"]},
        "events": summary["events"],
        "warnings": list(warnings),
    }
