"""What every time-varying method answers: a station's figures per interval of the day."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

import numpy as np


@dataclass
class IntervalFigures:
    """One value per interval (arrays); nan where a figure has no value (nobody arrives,
    no server is on) or the method has none (a stationary formula at an overloaded instant).

    Of the interval's time: mean_in_system, mean_in_queue, utilization (busy / servers on).
    Of the customers who arrive in it: mean_wait (until service or giving up), abandoned
    (the fraction who give up), service_level[x] = P(wait <= x)."""

    method: str
    exact: bool
    edges: np.ndarray
    servers: np.ndarray
    arrivals: np.ndarray            # expected arrivals in the interval
    mean_in_system: np.ndarray
    mean_in_queue: np.ndarray
    utilization: np.ndarray
    mean_wait: np.ndarray
    abandoned: np.ndarray
    service_level: Dict[float, np.ndarray] = field(default_factory=dict)
    # Per interval, whether the customers' figures (waits, service levels, giving up) are
    # exact where the station's are: None, as `exact` says.
    customers_exact: Optional[np.ndarray] = None
    details: Dict[str, Any] = field(default_factory=dict)  # how it was reached (states kept, bounds, ...)
