"""HdrHistogram percentile-distribution files (.hgrm): each class's response
times as wrk2 prints them and HdrHistogram's plotter reads them.

The engine computes the rows (crates/sim/src/distribution.rs) when a run asks
for them (`simulate(..., distribution=True)`); this module only lays them out,
in the model's time unit.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Iterator, List, Mapping, Tuple, Union

from ..errors import BrewputError
from ..units import time_in

SUFFIX = ".hgrm"
MOST_FIXED_DECIMALS = 15  # beyond, values print in scientific notation
SIGNIFICANT_DIGITS = 3


def in_unit(distribution: Mapping, from_unit: str, to_unit: str) -> dict:
    """A distribution (the engines' rows and footer) with its values, the rows'
    first column and the footer's mean, deviation and max, in `to_unit`: the
    lab's microseconds and the load's seconds shown in ms."""
    rows = [[time_in(value, from_unit, to_unit), quantile, count] for value, quantile, count in distribution["rows"]]
    return {**distribution, "rows": rows,
            **{key: time_in(distribution[key], from_unit, to_unit) for key in ("mean", "std_deviation", "max")}}


def write_hgrm(record_or_results: Mapping, folder: Union[str, Path]) -> List[Path]:
    """Writes one .hgrm file per scenario and class into `folder` (created if
    missing) and returns their paths. Takes a results dict from
    `simulate(..., distribution=True)` or an experiment record of such runs;
    scenarios without a distribution (solve) are skipped."""
    folder = Path(folder)
    written: List[Path] = []
    taken = set()
    for stem, distribution in _distributions(record_or_results):
        name = _unique(_safe(stem), taken)
        path = folder / (name + SUFFIX)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(format_hgrm(distribution), encoding="utf-8")
        except OSError as e:
            raise BrewputError(f"{path}: cannot write the .hgrm file: {e.strerror or e}") from None
        written.append(path)
    if not written:
        raise BrewputError("no response-time distributions to write: simulate with distribution=True "
                           "(--hgrm on the command line)")
    return written


def format_hgrm(distribution: Mapping) -> str:
    """The text of an .hgrm file, as HdrHistogram's outputPercentileDistribution
    prints it (values with enough decimals for three significant digits)."""
    rows = distribution["rows"]
    value = _value_format([r[0] for r in rows] + [distribution["mean"], distribution["max"]])
    lines = [f"{'Value':>12} {'Percentile':>14} {'TotalCount':>10} {'1/(1-Percentile)':>14}", ""]
    for v, percentile, count in rows:
        line = f"{value(v)} {percentile:2.12f} {count:10d}"
        lines.append(line if percentile >= 1 else f"{line} {1 / (1 - percentile):14.2f}")
    lines += [
        f"#[Mean    = {value(distribution['mean'])}, StdDeviation   = {value(distribution['std_deviation'])}]",
        f"#[Max     = {value(distribution['max'])}, Total count    = {distribution['total_count']:12d}]",
        f"#[Buckets = {distribution['buckets']:12d}, SubBuckets     = {distribution['sub_buckets']:12d}]",
    ]
    return "\n".join(lines) + "\n"


def _value_format(values: List[float]):
    """wrk2 prints three decimals; times in the model's unit may be far smaller,
    so as many decimals as keep three significant digits of the smallest value."""
    smallest = min((v for v in values if v > 0), default=1.0)
    decimals = max(SIGNIFICANT_DIGITS, SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(smallest)))
    if decimals > MOST_FIXED_DECIMALS:
        return lambda v: f"{v:12.{SIGNIFICANT_DIGITS - 1}e}"
    return lambda v: f"{v:12.{decimals}f}"


def _distributions(source: Mapping) -> Iterator[Tuple[str, Mapping]]:
    """(file stem, distribution) for every class that has one."""
    if source.get("brewput") == "experiment":
        for scenario in source.get("scenarios", []):
            params = scenario.get("params") or {}
            yield from _of_results(scenario["results"], [str(scenario["model"])] + _params(params))
    else:
        yield from _of_results(source, [str(source.get("model", "model"))] + _params(source.get("params") or {}))


def _of_results(results: Mapping, stem: List[str]) -> Iterator[Tuple[str, Mapping]]:
    for name, figures in (results.get("classes") or {}).items():
        distribution = (figures.get("response_time") or {}).get("distribution")
        if distribution:
            yield "-".join(stem + [str(name)]), distribution


def _params(params: Mapping) -> List[str]:
    return [f"{name}={value}" for name, value in params.items()]


def _safe(stem: str) -> str:
    """A file name on every system: letters, digits and . _ = - only."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", stem).strip("._") or "class"


def _unique(name: str, taken: set) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate
