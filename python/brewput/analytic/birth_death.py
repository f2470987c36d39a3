"""Finite birth-death chains: the number present at a station whose arrival and
departure rates depend only on that number (balking, reneging, finite buffers).

Pure Python (a chain of a few thousand states needs no numpy, and `brewput
solve` of a simple model must not pay numpy's import).
"""
from __future__ import annotations

import math
from typing import List, Sequence


def stationary(birth: Sequence[float], death: Sequence[float]) -> List[float]:
    """The stationary distribution p_0..p_K of the chain on 0..K with rate
    `birth[n]` from n to n+1 and `death[n]` from n+1 to n (K = len(birth) = len(death)).

    Detailed balance (Kleinrock, Queueing Systems vol. 1, eq. 3.11):
    p_{n+1} = p_n birth[n] / death[n]. The products are summed as logarithms and
    scaled by the largest, so no term overflows or underflows to a wrong zero
    at any load or length. A zero birth rate cuts the chain: the states beyond
    it are never reached (probability 0). Every death rate must be positive.
    """
    if len(birth) != len(death):
        raise ValueError(f"birth and death need one rate per step, got {len(birth)} and {len(death)}")
    log_weight = [0.0]
    for up, down in zip(birth, death):
        if not down > 0:
            raise ValueError(f"death rates must be positive, got {down}")
        if up < 0:
            raise ValueError(f"birth rates must not be negative, got {up}")
        if up == 0 or log_weight[-1] == -math.inf:
            log_weight.append(-math.inf)
        else:
            log_weight.append(log_weight[-1] + math.log(up) - math.log(down))
    top = max(log_weight)
    weight = [math.exp(w - top) for w in log_weight]
    total = math.fsum(weight)
    return [w / total for w in weight]
