"""A rota of shifts: servers come on for a fixed number of intervals at a time. Given the
servers each interval needs (planning/rota.py), the fewest server-intervals of shifts
that cover every interval's need, by an integer program (scipy's milp, HiGHS):

    minimize   sum_j x_j            (x_j shifts starting at interval j; each lasts k)
    such that  sum_{j: j <= i < j + k} x_j >= need_i    for every interval i,
               x_j >= 0 integer.

A shift may start in any interval and, on a day that does not repeat, is cut at the
day's end; on a repeating day it wraps round. What shifts cost is the over-staffing,
sum_i (covered_i - need_i).

A covering rota need not meet every objective the needs met: more servers before a fall
of the rota can leave the interval after it worse off (with `off_shift: finish` no job
starts until the busy servers are down to the new count; the call centre's 17:30 in
docs/rush-hour.md). Shifts for an exact rota are therefore judged by the transient, and
where one breaks an objective its need is raised past what the shifts gave and the
shifts chosen again (`shifts_that_hold`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np

from ..errors import BrewputError


@dataclass
class Shifts:
    starts: List[int]     # shifts starting in each interval
    covered: List[int]    # servers on in each interval
    over: int             # server-intervals beyond the needs
    held: Optional[List[bool]] = field(default=None)  # each interval with the servers shifts give, when judged

    def as_dict(self) -> dict:
        return {"starts": self.starts, "covered": self.covered, "over_staffing": self.over, "held": self.held}

    @classmethod
    def from_dict(cls, saved: dict) -> "Shifts":
        return cls(starts=saved["starts"], covered=saved["covered"], over=saved["over_staffing"], held=saved["held"])


def cover_with_shifts(needs: Sequence[int], length: int, repeat: bool = False) -> Shifts:
    """The fewest shifts of `length` intervals covering `needs` (one count per interval)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    needs = np.asarray(needs, dtype=float)
    n = needs.size
    if not 1 <= length <= n:
        raise BrewputError(f"--shift: a shift lasts from 1 to {n} intervals (the day), got {length}")
    cover = np.zeros((n, n))
    for j in range(n):
        for i in range(j, j + length):
            if i < n or repeat:
                cover[i % n, j] = 1.0
    # the cost of a shift is the server-intervals it works (a shift cut at the day's end works fewer)
    cost = cover.sum(axis=0)
    solved = milp(cost, constraints=LinearConstraint(cover, lb=needs, ub=np.inf),
                  integrality=np.ones(n), bounds=Bounds(0, np.inf))
    if not solved.success:
        raise BrewputError(f"--shift: the integer program found no cover ({solved.message})")
    starts = np.round(solved.x).astype(int)
    covered = (cover @ starts).astype(int)
    return Shifts(starts=starts.tolist(), covered=covered.tolist(), over=int(covered.sum() - needs.sum()))


def shift_length(model, text: str) -> int:
    """`--shift TIME` (4h) as a number of `model`'s day's intervals, checked before any
    rota is planned: a time with its unit, a whole number of intervals, at most the day."""
    import math

    from ..model.distributions import typed_time

    day = model.day.timeline
    length = typed_time(text, model.time_unit)
    if length is None or not math.isfinite(length):
        raise BrewputError(f"--shift {text}: expected a time with its unit, e.g. 4h")
    intervals = length / day.interval
    if abs(intervals - round(intervals)) > 1e-9 * intervals or round(intervals) < 1:
        raise BrewputError(f"--shift {text}: expected a whole number of the day's intervals ({day.interval:g} "
                           f"{model.time_unit})")
    if round(intervals) > day.intervals:
        raise BrewputError(f"--shift {text}: a shift lasts at most the day: {day.intervals} interval"
                           f"{'s' if day.intervals != 1 else ''} of {day.interval:g} {model.time_unit}")
    return int(round(intervals))


def shifts_of(model, needs: Sequence[int], text: str) -> Shifts:
    """`--shift TIME` (4h): the fewest shifts of that length covering `needs` on `model`'s day."""
    return cover_with_shifts(needs, shift_length(model, text), model.day.timeline.repeat)


#: Rounds of raising the needs where the shifts' servers break an objective.
MOST_ROUNDS = 20


def shifts_that_hold(model, station: str, objectives, needs: Sequence[int], text: str) -> Shifts:
    """`shifts_of` the needs, judged interval by interval by the transient; where the
    shifts' servers break an objective, the need there is raised past what they gave and
    the shifts chosen again, until every interval holds (or MOST_ROUNDS, the last
    shifts then shown broken where they are). Over-staffing is counted against `needs`."""
    from .rota import judge

    raised = list(needs)
    for _ in range(MOST_ROUNDS):
        shifts = shifts_of(model, raised, text)
        shifts.held = [held for held, _ in judge(model, station, objectives, shifts.covered)]
        broken = [i for i, held in enumerate(shifts.held) if not held]
        if not broken:
            break
        for i in broken:
            raised[i] = shifts.covered[i] + 1
    shifts.over = int(sum(shifts.covered) - sum(needs))
    return shifts
