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
batch means is tested, and the batches are made longer (and fewer, down to
FEWEST_BATCHES) until it is not significant; a run still correlated there says
so. A percentile gets no interval from one run: the batch quantile of a short
batch is biased for the tail, and a binomial order-statistic interval over the
whole run assumes independent samples, which a queue's are not."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

from . import _native
from .figures import number

LEVEL = _native.CONFIDENCE
LEVEL_TEXT = f"{LEVEL * 100:g} %"
#: The fewest batches tried at each step, most first: each half the one
#: before, so that a correlated run is tried again with batches twice as long.
BATCH_COUNTS = (40, 20, 10)
FEWEST_BATCHES = BATCH_COUNTS[-1]
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


def batch_means(sums: Sequence[float], counts: Sequence[float], value: Optional[float] = None) -> Interval:
    """The interval by batch means of a ratio (a mean response: response-time
    sums over answers; a rate: answers over seconds) measured in consecutive
    equal slots, `sums[k] / counts[k]` the k-th slot's. The slots are grouped
    into batches of n // B slots for each B of BATCH_COUNTS (so B to 2B - 1
    batches), the earliest slots left out when they do not divide evenly (the
    run's start is the least steady part). `value`: the figure the interval
    is about (default: the ratio over every slot)."""
    total = math.fsum(counts)
    if value is None:
        value = math.fsum(sums) / total if total else math.nan
    n = len(sums)
    tried, failed = None, None
    for fewest in BATCH_COUNTS:
        size = n // fewest
        if size == 0:
            continue
        batches = n // size  # from `fewest` to under twice as many, so that fewer than `size` slots go unused
        first = n - batches * size
        means = []
        for b in range(batches):
            part = slice(first + b * size, first + (b + 1) * size)
            count = math.fsum(counts[part])
            if count <= 0:
                break
            means.append(math.fsum(sums[part]) / count)
        else:
            r = lag1(means)
            tried = Interval(value, half_width(means), batches, r)
            # The fewest batches are a weak test of their own (the lag-1 of ten
            # means is spread over ±0.5): batches correlated at twice as many
            # stay suspect there.
            if not _correlated(r, batches) and (failed is None or fewest != FEWEST_BATCHES):
                return tried
            failed = (batches, r) if _correlated(r, batches) or failed is None else failed
    if tried is None:
        return Interval(value, None, note=f"too short for {FEWEST_BATCHES} batches with answers: no interval")
    return Interval(value, tried.half_width, tried.batches, tried.lag1,
                    note=f"batches correlated (lag-1 {failed[1]:.2f} at {failed[0]} batches): the interval is "
                         "likely too narrow; a longer run makes the batches longer")


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
