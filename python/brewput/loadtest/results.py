"""What the generator measured (seconds, per second) in the one results
schema (docs/results.md): `engine: "load"`, times in ms, throughput per ms,
one class `request` whose `response_time` (from the intended start),
`service_time` (from the send) and `lag` (the send's lateness) carry the
engine's named percentiles, the spectrum to 99.9999 % where samples reach it,
the max and the .hgrm rows; the counts and rates under `load`, with a block
per stage of the schedule (a ramp's tenths) under `load.stages`."""
from __future__ import annotations

import math
from typing import List, Optional, Tuple

from .. import _native
from ..percentiles import name as percentile_name
from ..measured import BUSY_MACHINE, LEVEL, Interval, batch_means, batch_percentile
from ..report import hgrm
from ..units import rate_factor, rate_in, time_in
from .options import shown_settings

#: The unit of the generator's times (crates/load/src/record.rs), and the one the results show.
GENERATOR, SHOWN = "s", "ms"
_BLOCKS = {"response_time": "response", "service_time": "service", "lag": "lag"}


def _ms(value: Optional[float]) -> Optional[float]:
    return time_in(value, GENERATOR, SHOWN)


def times(block: dict) -> dict:
    """A Rust `Times` (seconds) as the schema's block (ms); a percentile the
    samples do not reach is None."""
    named = dict(block["percentiles"])
    out: dict = {"mean": _ms(block["mean"])}
    for name, _ in _native.PERCENTILES:
        out[name] = _ms(named.get(name))
    for percent, seconds in (block.get("asked") or {}).get("quantiles", ()):  # asked for by a threshold
        out[percentile_name(percent)] = _ms(seconds)
    if (block.get("asked") or {}).get("within"):
        out["within"] = [[_ms(seconds), share] for seconds, share in block["asked"]["within"]]
    out["max"] = _ms(block["max"])
    out["min"] = _ms(block["min"])
    out["std_deviation"] = _ms(block["std_deviation"])
    out["spectrum"] = [[p, _ms(v)] for p, v in block["spectrum"]]
    out["count"] = block["count"]
    if block.get("distribution"):
        out["distribution"] = hgrm.in_unit(block["distribution"], GENERATOR, SHOWN)
    return out


def stage(summary: dict, run: dict) -> dict:
    """A Rust `StageSummary`: the requests intended in one stage (or ramp
    slice), their response times in ms as the schema's block; a steady
    stage's mean with its batch-means interval over the run's slots inside it."""
    offered = summary["measured"] + summary["dropped"]
    out = {k: summary[k] for k in ("start_seconds", "end_seconds", "target_rate", "steady", "settled", "sent",
                                   "sent_rate", "measured", "answered", "failed", "dropped", "achieved_rate")}
    out.update(error_rate=(summary["failed"] + summary["dropped"]) / offered if offered else None,
               response_time=times(summary["response"]), service_time_mean=_ms(summary["service_mean"]))
    if summary["steady"]:
        mean = intervals(run, summary["start_seconds"], summary["end_seconds"])["response"]
        out["response_time"]["mean_ci"] = _ci_ms(mean, out["response_time"]["mean"])
    else:  # a ramp's slice: its rate changes across it, so its batches do not share one mean
        out["response_time"]["mean_ci"] = None
    return out


def _slots(summary: dict, start: float, end: float) -> Tuple[float, List[dict]]:
    """The slot width and the whole measured slots (slots.rs) inside [start,
    end) seconds of the schedule, empty ones included (a slot with no answer
    is a rate of 0). The first slot with an answer is left out: the warm-up
    may end inside it, so that only part of it was measured."""
    slots, width = summary["slots"]["slots"], summary["slots"]["width_seconds"]
    measured = next((k + 1 for k, slot in enumerate(slots) if slot["answered"]), len(slots))
    first, last = max(measured, math.ceil(start / width - 1e-9)), math.floor(end / width + 1e-9)
    empty = {"answered": 0, "response_sum": 0.0, "service_sum": 0.0, "response": []}
    return width, [slots[k] if k < len(slots) else empty for k in range(first, max(first, last))]


def intervals(summary: dict, start: float, end: float) -> dict:
    """Batch-means intervals over the measured part of [start, end): the mean
    response and service times (seconds) and the answers per second; and the
    slots' response-time histograms, for the percentiles' (`percentile_cis`)."""
    width, slots = _slots(summary, start, end)
    answered = [s["answered"] for s in slots]
    return {"response": batch_means([s["response_sum"] for s in slots], answered),
            "service": batch_means([s["service_sum"] for s in slots], answered),
            "rate": batch_means(answered, [width] * len(slots)), "slot_seconds": width, "slots": len(slots),
            "histograms": [s["response"] for s in slots]}


def percentile_cis(block: dict, histograms: list) -> dict:
    """Each named percentile of a response_time `block` (ms) given its
    interval from the batches' own percentiles (measured.batch_percentile),
    where every batch has enough answers beyond it; `{name: note}` of those
    that have none, and why."""
    why = {}
    for name, percent in _native.PERCENTILES:
        value = block.get(name)
        interval = None if value is None else batch_percentile(histograms, percent, time_in(value, SHOWN, GENERATOR))
        block[f"{name}_ci"] = None if interval is None else _ci_ms(interval, value)
        if interval is not None and interval.half_width is None:
            why[name] = interval.note
    return why


def _ci_ms(interval: Interval, value: Optional[float], shown=_ms) -> Optional[list]:
    """The interval about the figure shown (`value`, in the shown unit): its half-width moved there by `shown`."""
    if value is None or interval.half_width is None:
        return None
    half = shown(interval.half_width)
    return [value - half, value + half]


def _batching(interval: Interval, slot_seconds: float, slots: int) -> dict:
    """How an interval was made, as the results keep it: a batch is a whole
    number of slots (measured.batch_means)."""
    return {"level": LEVEL, "method": "batch means", "batches": interval.batches,
            "batch_seconds": slot_seconds * (slots // interval.batches) if interval.batches else None,
            "lag1": interval.lag1, "note": interval.note}


def to_results(summary: dict, *, target: str, method: str, settings: dict) -> dict:
    counts = summary["counts"]
    offered = counts["sent"] + counts["dropped"]
    errors = counts["failed"] + counts["dropped"]
    request = {block: times(summary[key]) for block, key in _BLOCKS.items()}
    stages = summary["stages"]
    if len(stages) == 1 and stages[0]["steady"]:
        run = intervals(summary, stages[0]["start_seconds"], stages[-1]["end_seconds"])
        without = percentile_cis(request["response_time"], run["histograms"])
    else:  # batches across stages of different rates share no one mean
        none = Interval(math.nan, None, note="the stages differ in rate: each steady stage's mean has its own, "
                                             "in the stage table")
        run = {"response": none, "service": none, "rate": none, "slot_seconds": None, "slots": 0}
        request["response_time"].update({f"{name}_ci": None for name, _ in _native.PERCENTILES})
        without = {}
    request["response_time"]["mean_ci"] = _ci_ms(run["response"], request["response_time"]["mean"])
    request["service_time"]["mean_ci"] = _ci_ms(run["service"], request["service_time"]["mean"])
    throughput = rate_in(summary["achieved_rate"], GENERATOR, SHOWN)
    # The interval's half-width times the table's factor, as it always was (to the bit).
    request.update(throughput=throughput,
                   throughput_ci=_ci_ms(run["rate"], throughput, lambda half: half * rate_factor(GENERATOR, SHOWN)),
                   completed=counts["answered"], lost=counts["dropped"],
                   loss_probability=(counts["dropped"] / offered) if offered else None)
    results = {
        "model": target, "engine": "load", "method": method, "time_unit": SHOWN, "params": {},
        "settings": shown_settings(settings),
        "classes": {"request": request},
        "load": {
            "target_rate": summary["target_rate"], "achieved_rate": summary["achieved_rate"],
            "elapsed_seconds": summary["elapsed_seconds"],
            "error_rate": (errors / offered) if offered else None,
            **{k: counts[k] for k in ("sent", "answered", "failed", "late", "dropped", "warmup", "answers", "errors")},
            "late_after_ms": _ms(summary["late_seconds"]),
            "stages": [stage(s, summary) for s in stages], "sent_per_second": summary["sent_per_second"],
            "interrupted": summary["interrupted"],
            "intervals": {**_batching(run["response"], run["slot_seconds"], run["slots"]),
                          "percentiles_without": without},
            "others_utilization": summary.get("others_share"),
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
                     f"{_ms(summary['late_seconds']):g} ms late (all connections busy, or this machine too "
                     "busy): see lag")
    if counts["sent"] == 0:
        found.append("no request was measured (a run shorter than its warm-up?)")
    others = summary.get("others_share")
    if others is not None and others > BUSY_MACHINE:
        found.append(f"other processes took {others:.0%} of the CPUs while this was measured (the target too, if it "
                     "runs on this machine): the times include waits for a CPU")
    return found
