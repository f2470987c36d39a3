"""What the generator measured (seconds, per second) in the one results
schema (docs/results.md): `engine: "load"`, times in ms, throughput per ms,
one class `request` whose `response_time` (from the intended start),
`service_time` (from the send) and `lag` (the send's lateness) carry the
engine's named percentiles, the spectrum to 99.9999 % where samples reach it,
the max and the .hgrm rows; the counts and rates under `load`, with a block
per stage of the schedule (a ramp's tenths) under `load.stages`."""
from __future__ import annotations

from typing import List, Optional

from .. import _native
from .options import shown_settings

MS = 1e3
_BLOCKS = {"response_time": "response", "service_time": "service", "lag": "lag"}


def _ms(value: Optional[float]) -> Optional[float]:
    return None if value is None else value * MS


def times(block: dict) -> dict:
    """A Rust `Times` (seconds) as the schema's block (ms); a percentile the
    samples do not reach is None."""
    named = dict(block["percentiles"])
    out: dict = {"mean": _ms(block["mean"])}
    for name, _ in _native.PERCENTILES:
        out[name] = _ms(named.get(name))
    out["max"] = _ms(block["max"])
    out["min"] = _ms(block["min"])
    out["std_deviation"] = _ms(block["std_deviation"])
    out["spectrum"] = [[p, v * MS] for p, v in block["spectrum"]]
    out["count"] = block["count"]
    if block.get("distribution"):
        d = block["distribution"]
        out["distribution"] = {**d, "rows": [[v * MS, p, n] for v, p, n in d["rows"]], "mean": d["mean"] * MS,
                               "std_deviation": d["std_deviation"] * MS, "max": d["max"] * MS}
    return out


def stage(summary: dict) -> dict:
    """A Rust `StageSummary`: the requests intended in one stage (or ramp
    slice), their response times in ms as the schema's block."""
    offered = summary["measured"] + summary["dropped"]
    out = {k: summary[k] for k in ("start_seconds", "end_seconds", "target_rate", "steady", "settled", "sent",
                                   "sent_rate", "measured", "answered", "failed", "dropped", "achieved_rate")}
    out.update(error_rate=(summary["failed"] + summary["dropped"]) / offered if offered else None,
               response_time=times(summary["response"]), service_time_mean=_ms(summary["service_mean"]))
    return out


def to_results(summary: dict, *, target: str, method: str, settings: dict) -> dict:
    counts = summary["counts"]
    offered = counts["sent"] + counts["dropped"]
    errors = counts["failed"] + counts["dropped"]
    request = {block: times(summary[key]) for block, key in _BLOCKS.items()}
    request.update(throughput=summary["achieved_rate"] / MS, completed=counts["answered"], lost=counts["dropped"],
                   loss_probability=(counts["dropped"] / offered) if offered else None)
    results = {
        "model": target, "engine": "load", "method": method, "time_unit": "ms", "params": {},
        "settings": shown_settings(settings),
        "classes": {"request": request},
        "load": {
            "target_rate": summary["target_rate"], "achieved_rate": summary["achieved_rate"],
            "elapsed_seconds": summary["elapsed_seconds"],
            "error_rate": (errors / offered) if offered else None,
            **{k: counts[k] for k in ("sent", "answered", "failed", "late", "dropped", "warmup", "answers", "errors")},
            "late_after_ms": summary["late_seconds"] * MS,
            "stages": [stage(s) for s in summary["stages"]], "sent_per_second": summary["sent_per_second"],
            "interrupted": summary["interrupted"],
        },
        "warnings": warnings(summary),
    }
    return results


# Below this share of the target rate the run says it could not hold the rate.
HELD_SHARE = 0.95


def warnings(summary: dict) -> List[str]:
    found = []
    target, achieved = summary["target_rate"], summary["achieved_rate"]
    counts = summary["counts"]
    if counts["sent"] and achieved < HELD_SHARE * target:
        found.append(f"achieved {achieved:,.1f}/s, below {HELD_SHARE:.0%} of the target {target:,.1f}/s: the service "
                     "(or this generator) did not keep up; response times include the wait")
    if counts["dropped"]:
        found.append(f"{counts['dropped']:,} requests dropped: the in-flight window was full when they were due "
                     "(raise --max-in-flight or lower the rate); error_rate counts them")
    if counts["sent"] and counts["late"] > 0.01 * counts["sent"]:
        found.append(f"{counts['late']:,} of {counts['sent']:,} requests were sent more than "
                     f"{summary['late_seconds'] * MS:g} ms late (all connections busy, or this machine too "
                     "busy): see lag")
    if counts["sent"] == 0:
        found.append("no request was measured (a run shorter than its warm-up?)")
    return found
