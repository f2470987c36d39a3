"""planning/rota_shifts.py: the fewest shifts covering each interval's need, against
every choice of starts enumerated by hand on a small day."""
import itertools

import pytest

from brewput.errors import BrewputError
from brewput.planning.rota_shifts import cover_with_shifts


def brute_force(needs, length, repeat):
    n, best = len(needs), None
    for starts in itertools.product(range(max(needs) + 1), repeat=n):
        covered = [sum(starts[j] for j in range(n) if (i - j) % n < length and (repeat or j <= i))
                   for i in range(n)]
        if all(c >= need for c, need in zip(covered, needs)):
            worked = sum(starts[j] * (length if repeat else min(length, n - j)) for j in range(n))
            best = worked if best is None else min(best, worked)
    return best


@pytest.mark.parametrize("needs, length, repeat", [([1, 3, 2, 1, 2], 2, False), ([2, 0, 3, 1, 1], 3, False),
                                                    ([1, 2, 2, 1, 3], 2, True)])
def test_the_cover_is_as_cheap_as_any(needs, length, repeat):
    shifts = cover_with_shifts(needs, length, repeat)
    assert all(c >= need for c, need in zip(shifts.covered, needs))
    assert sum(shifts.covered) == brute_force(needs, length, repeat)
    assert shifts.over == sum(shifts.covered) - sum(needs)


def test_shifts_as_long_as_an_interval_are_the_needs_themselves():
    assert cover_with_shifts([4, 11, 9, 5], 1).covered == [4, 11, 9, 5]
    with pytest.raises(BrewputError, match="a shift lasts from 1 to 4 intervals"):
        cover_with_shifts([4, 11, 9, 5], 5)


def test_a_shift_is_a_whole_number_of_the_days_intervals():
    import brewput
    from brewput.planning.rota_shifts import shifts_of
    from test_rota_plan import RUSH

    model = brewput.Model.from_dict(RUSH)
    # half-hour shifts: 4 + 7 from 08:00 and 08:15, 2 from 08:30, 3 cut at the day's end: no more than needed
    shifts = shifts_of(model, [4, 11, 9, 5], "30min")
    assert shifts.covered == [4, 11, 9, 5] and shifts.over == 0
    with pytest.raises(BrewputError, match=r"--shift 20min: expected a whole number of the day's intervals \(15 min\)"):
        shifts_of(model, [4, 11, 9, 5], "20min")
    with pytest.raises(BrewputError, match="expected a time with its unit"):
        shifts_of(model, [4, 11, 9, 5], "long")
