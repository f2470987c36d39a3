"""How far a measured figure can be trusted (brewput load, brewput lab): its
confidence interval, whether a prediction lies inside it, and whether other
processes took so much of the machine that the measurement says nothing.

The level is the engine's (`_native.CONFIDENCE`, the one home of the 95 %).

Independent repetitions give an interval from their spread (`over_repetitions`).
One run gives it by batch means (`batch_means`): the run is cut into B
consecutive batches of equal length; their means are nearly independent when
the batches are long beside the correlation time of the queue, and the
t-interval over them then covers the true mean at the stated level. Whether
they are long enough is checked, not assumed: the lag-1 autocorrelation of the
batch means is tested (over twice as many half-length batches, a stronger
test), and a run whose batches are correlated says so. A percentile of one
run gets its interval from the batches' own percentiles where every batch has
BEYOND answers beyond it (`batch_percentile`); a binomial order-statistic
interval over the whole run would assume independent samples, which a queue's
are not."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence

from . import _native
from .figures import number

LEVEL = _native.CONFIDENCE
LEVEL_TEXT = f"{LEVEL * 100:g} %"
#: The fewest batches an interval is made of (n // (n // 10) of n slots: 10 to
#: 19). Few long batches, as the literature on batch means advises (10 to 30):
#: over M/M/1 response times (Lindley's recursion, 1,600 to 20,000 customers at
#: 50 and 80 % load, 300 to 400 seeds) 40 batches covered the mean 90 to 91 %
#: of the time, these 93 to 96 %.
FEWEST_BATCHES = 10
#: Their correlation is tested over twice as many half-length batches, a
#: stronger test than ten means allow (their lag-1 spreads over ±0.5).
CHECKED_BATCHES = 2 * FEWEST_BATCHES
#: Other processes' share of the CPUs above which a measurement is not trusted.
BUSY_MACHINE = 0.10


@dataclass(frozen=True)
class Interval:
    """A figure and its confidence interval (`half_width` None: no interval,
    `note` says why); with batch means, how many batches and their lag-1
    autocorrelation, and a `note` when that correlation remained significant."""
    value: float
    half_width: Optional[float]
    batches: int = 0
    lag1: Optional[float] = None
    note: str = ""

    @property
    def ci(self) -> Optional[list]:
        """[low, high] as the results schema's `_ci` fields have it."""
        return None if self.half_width is None else [self.value - self.half_width, self.value + self.half_width]

    def covers(self, x: float) -> bool:
        return self.half_width is not None and abs(x - self.value) <= self.half_width


def half_width(values: Sequence[float]) -> Optional[float]:
    """The Student-t half-width of the mean of independent `values` at LEVEL (None below two)."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return _native.t_critical(LEVEL, n - 1) * sd / math.sqrt(n)


def over_repetitions(value: Optional[float], values: Sequence[Optional[float]]) -> Optional[list]:
    """The interval of a figure measured whole (`value`, over every repetition)
    from its independent repetitions' own `values`: their t half-width about
    `value` (sectioning); None with fewer than two repetitions that have it."""
    known = [v for v in values if v is not None]
    half = half_width(known)
    return None if value is None or half is None else [value - half, value + half]


def lag1(means: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a series (0 for a constant one)."""
    n = len(means)
    centre = math.fsum(means) / n
    deviations = [m - centre for m in means]
    spread = math.fsum(d * d for d in deviations)
    if spread == 0:
        return 0.0
    return math.fsum(a * b for a, b in zip(deviations, deviations[1:])) / spread


def _correlated(r: float, batches: int) -> bool:
    """Whether lag-1 autocorrelation r of independent batch means would exceed
    this only 1 - LEVEL of the time (one-sided; r is near N(0, 1/B) then)."""
    from scipy.stats import norm

    return r > norm.ppf(LEVEL) / math.sqrt(batches)


def _groups(n: int, fewest: int) -> Optional[List[slice]]:
    """n // (n // fewest) batches of whole slots out of n, the earliest slots
    left out when they do not divide evenly (the run's start is its least
    steady part); None when there are fewer slots than `fewest`."""
    size = n // fewest
    if size == 0:
        return None
    batches = n // size
    first = n - batches * size
    return [slice(first + b * size, first + (b + 1) * size) for b in range(batches)]


def _batches(sums: Sequence[float], counts: Sequence[float], fewest: int) -> Optional[List[float]]:
    """The batch means of `_groups`; None when there are too few slots or a batch has no count."""
    groups = _groups(len(sums), fewest)
    if groups is None:
        return None
    means = []
    for part in groups:
        count = math.fsum(counts[part])
        if count <= 0:
            return None
        means.append(math.fsum(sums[part]) / count)
    return means


def batch_means(sums: Sequence[float], counts: Sequence[float], value: Optional[float] = None) -> Interval:
    """The interval by batch means of a ratio (a mean response: response-time
    sums over answers; a rate: answers over seconds) measured in consecutive
    equal slots, `sums[k] / counts[k]` the k-th slot's: the t-interval over
    FEWEST_BATCHES to twice as many batches, its batches' independence tested
    over CHECKED_BATCHES half-length ones (`lag1`, and a `note` when it is
    significant). `value`: the figure the interval is about (default: the
    ratio over every slot)."""
    total = math.fsum(counts)
    if value is None:
        value = math.fsum(sums) / total if total else math.nan
    means = _batches(list(sums), list(counts), FEWEST_BATCHES)
    if means is None:
        return Interval(value, None, note=f"too short for {FEWEST_BATCHES} batches with answers: no interval")
    checked = _batches(list(sums), list(counts), CHECKED_BATCHES) or means
    r = lag1(checked)
    note = ""
    if _correlated(r, len(checked)):
        note = (f"batches correlated (lag-1 {r:.2f} over {len(checked)} half-length ones): the interval is likely "
                "too narrow; a longer run makes the batches longer")
    return Interval(value, half_width(means), len(means), r, note)


#: A batch's percentile is read only where the batch has at least this many
#: answers beyond it: over M/M/1 response times (Lindley's recursion, 300
#: seeds) batches with 20 beyond their p99 covered it 92 % of the time, with
#: 40 97 %; a percentile that few answers reach gets no interval.
BEYOND = 40


def batch_percentile(slots: Sequence[Sequence[Sequence[float]]], percent: float, value: float) -> Interval:
    """The interval of the `percent`-th percentile `value` of a run whose
    slots each hold their samples as [value, count] pairs (a histogram's
    buckets): the spread of the batches' own percentiles (the same batches as
    `batch_means`), laid about the run's (sectioning, which keeps the batch
    percentile's small-sample bias out of the figure)."""
    import numpy as np

    groups = _groups(len(slots), FEWEST_BATCHES)
    if groups is None:
        return Interval(value, None, note=f"too short for {FEWEST_BATCHES} batches: no interval")
    share = percent / 100
    found = []
    for part in groups:
        pairs = np.array([pair for slot in slots[part] for pair in slot], dtype=float).reshape(-1, 2)
        order = np.argsort(pairs[:, 0], kind="stable")
        values, cumulative = pairs[order, 0], np.cumsum(pairs[order, 1])
        total = cumulative[-1] if len(cumulative) else 0.0
        if total * (1 - share) < BEYOND:
            return Interval(value, None, note=f"fewer than {BEYOND} answers beyond p{percent:g} in a batch: no interval")
        found.append(float(values[np.searchsorted(cumulative, share * total)]))
    return Interval(value, half_width(found), len(found))


def half_text(half: float) -> str:
    """A half-width to two significant digits, written plainly: 0.041, 2.1, 270, 1,400."""
    if half <= 0 or not math.isfinite(half):
        return f"{half:g}"
    decimals = 1 - math.floor(math.log10(half))
    return f"{round(half, decimals):,.{max(decimals, 0)}f}"


def ci_text(ci: Optional[Sequence[float]]) -> str:
    """` ± h` for an interval [low, high], '' for none."""
    return "" if ci is None else f" ± {half_text((ci[1] - ci[0]) / 2)}"


def interval_text(value: Optional[float], ci: Optional[Sequence[float]], unit: str = "") -> str:
    """`5.84 ± 0.4 ms`, or the figure alone without an interval."""
    if value is None:
        return "-"
    return number(value) + ci_text(ci) + (f" {unit}" if unit else "")


def verdict(measured: Optional[float], ci: Optional[Sequence[float]], predicted: Optional[float],
            unit: str = "") -> str:
    """Whether `predicted` lies inside the measured interval, in words."""
    if measured is None or predicted is None:
        return "not compared (no figure)"
    shown = f"measured {interval_text(measured, ci, unit)} against {number(predicted)} predicted"
    if ci is None:
        return f"no interval to judge by: {shown}"
    inside = ci[0] <= predicted <= ci[1]
    return f"{'inside' if inside else 'outside'} the {LEVEL_TEXT} interval: {shown}"


def is_inside(ci: Optional[Sequence[float]], predicted: Optional[float]) -> Optional[bool]:
    """True or False when there is an interval and a prediction, else None."""
    if ci is None or predicted is None:
        return None
    return ci[0] <= predicted <= ci[1]


def is_busy(others_share: Optional[float]) -> bool:
    """Whether other processes took so much of the CPUs that a measurement is not trusted."""
    return others_share is not None and others_share > BUSY_MACHINE


def concluded(others_share: Optional[float], conclusion: str) -> str:
    """A measurement's conclusion, opened on a busy machine by why it is not trusted."""
    if not is_busy(others_share):
        return conclusion
    # A short window read in /proc/stat's 10 ms ticks can count more than all of it.
    return (f"Not trusted: other processes took {min(others_share, 1.0):.0%} of the CPUs meanwhile; "
            + conclusion[:1].lower() + conclusion[1:])
