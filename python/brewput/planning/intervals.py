"""What every planning estimate shares: its Student-t quantile (the engine's own,
one implementation for all of brewput) and its figures in plain JSON types."""
from __future__ import annotations

import math
from typing import Optional


def t_critical(level: float, df: int) -> float:
    """The two-sided Student-t quantile for a `level` interval on `df` degrees of freedom."""
    from .. import _native

    return _native.t_critical(level, float(df))


def finite(value: float) -> Optional[float]:
    """`value`, or None where JSON has no number for it (nan, inf)."""
    return value if math.isfinite(value) else None
