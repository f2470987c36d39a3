"""A service level's windows: for each arrival time t, P(served within x) is solved
backward over [t, t + x], whose pieces of constant servers depend on where t falls
against the rota's edges. A day asks for thousands of them (one per quadrature node
near an edge), each too short for its solve's call to pay for itself, so windows
alike in their counts of servers are solved together: the last piece once from the
common end with every window's duration asked for, each piece before on all their
columns at once (linear_ode.solve_columns).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from .linear_ode import LinearSystem, solve_at, solve_columns

#: [(duration, servers), ...] in time order, durations summing to the window's length.
Window = Tuple[Tuple[float, int], ...]


def solve_windows(end: np.ndarray, windows: Sequence[Window], system_of: Callable[[int], LinearSystem],
                  entering: Callable[[int, Optional[int], np.ndarray], np.ndarray]) -> np.ndarray:
    """y at each window's start, solved backward from `end` at its end (a row per state,
    a column per window). `system_of(servers)` is the backward system of a piece;
    `entering(servers, later, values)` what a piece's end does to y (columns), going back
    into a piece of `servers` from one of `later` (None at the window's end)."""
    out = np.empty((end.size, len(windows)))
    alike = defaultdict(list)
    for j, window in enumerate(windows):
        alike[tuple(servers for _, servers in window)].append(j)
    for counts, members in alike.items():
        durations = np.array([[duration for duration, _ in windows[j]] for j in members])
        start = entering(counts[-1], None, end.astype(float)[:, None])[:, 0]
        last = durations[:, -1]
        values, _ = solve_at(start, [(0.0, float(last.max()), system_of(counts[-1]))], last)
        for i in reversed(range(len(counts) - 1)):
            values = entering(counts[i], counts[i + 1], values)
            values = solve_columns(values, system_of(counts[i]), durations[:, i])
        out[:, members] = values
    return out
