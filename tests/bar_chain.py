"""The Starbucks bar as a continuous-time Markov chain, solved with scipy: the
independent truth the simulated bar is tested against (tests/test_starbucks.py).

Two espresso machines serve espresso drinks only, one drip station drip only,
service exponential; Poisson arrivals, a share of them espresso; at most
`capacity` drinks at the bar (waiting and being made): an arrival that finds it
full is lost. `take` is the bar's rule when a unit frees or a drink arrives:
`head` starts drinks from the front of the line only while the front one has a
free unit (head-of-line blocking: a drink arriving behind a blocked one waits),
`first_fit` starts the first waiting drink some free unit can make. A state is
(the line as a tuple of types, espresso machines busy, drip stations busy).
"""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.linalg import spsolve

UNITS = {"E": 2, "D": 1}
State = Tuple[Tuple[str, ...], int, int]


def _start(line: Tuple[str, ...], busy: Dict[str, int], take: str) -> State:
    line, busy = list(line), dict(busy)
    i = 0
    while i < len(line):
        kind = line[i]
        if busy[kind] < UNITS[kind]:
            busy[kind] += 1
            del line[i]
        elif take == "head":
            break                 # the front drink waits for its unit, and so does everyone behind it
        else:
            i += 1
    return tuple(line), busy["E"], busy["D"]


def bar_throughput(rate: float, share: float, espresso_mean: float, drip_mean: float, capacity: int,
                   take: str) -> Dict[str, float]:
    """Drinks of each type made per time unit in the long run."""
    start: State = ((), 0, 0)
    index: Dict[State, int] = {start: 0}
    rows, cols, vals = [], [], []
    frontier = [start]
    while frontier:
        state = frontier.pop()
        line, e, d = state
        moves = []
        if len(line) + e + d < capacity:
            for kind, p in (("E", share), ("D", 1 - share)):
                moves.append((_start(line + (kind,), {"E": e, "D": d}, take), rate * p))
        if e:
            moves.append((_start(line, {"E": e - 1, "D": d}, take), e / espresso_mean))
        if d:
            moves.append((_start(line, {"E": e, "D": d - 1}, take), d / drip_mean))
        for target, q in moves:
            if target not in index:
                index[target] = len(index)
                frontier.append(target)
            rows.append(index[state])
            cols.append(index[target])
            vals.append(q)
    n = len(index)
    generator = coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    generator = generator - coo_matrix((np.asarray(generator.sum(axis=1)).ravel(), (range(n), range(n))),
                                       shape=(n, n)).tocsr()
    # pi Q = 0 with sum(pi) = 1: replace one balance equation by the normalisation
    a = generator.T.tolil()
    a[0, :] = np.ones(n)
    b = np.zeros(n)
    b[0] = 1.0
    pi = spsolve(a.tocsc(), b)
    made = {"E": 0.0, "D": 0.0}
    for (line, e, d), i in index.items():
        made["E"] += pi[i] * e / espresso_mean
        made["D"] += pi[i] * d / drip_mean
    return made
