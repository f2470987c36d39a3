"""Percentiles by name, and the service levels beside them.

The engines' fixed list of percentiles is crates/measure/src/percentiles.rs
(read through the binding); any other percent a user asks for (`--quantile
80,97.5`, `wait_p80<=20s`) is named by the list's own rule, here: `p`, then the
whole percent in two digits, then its decimals without the point (p50, p999
for 99.9, p975 for 97.5, p05 for 5). A service level is the share of times at
or below a time t, P(wait <= t), kept as `[t, share]` pairs under `within`.
"""
from __future__ import annotations

import math
import re
from typing import List, Optional, Sequence, Tuple

from . import _native
from .errors import OptionError
from .units import SECONDS, TYPED_SECONDS, split_time

#: (name, percent) of the engines' fixed list, in its order.
NAMED: Tuple[Tuple[str, float], ...] = tuple((name, percent) for name, percent in _native.PERCENTILES)
_NAME = re.compile(r"^p(\d\d)(\d*)$")
#: Decimals a percent may have (99.9999 names p999999).
_DECIMALS = 6


def name(percent: float) -> str:
    """The key of the `percent` percentile: 97.5 -> p975."""
    whole, _, decimals = f"{percent:.{_DECIMALS}f}".rstrip("0").rstrip(".").partition(".")
    return f"p{int(whole):02d}{decimals}"


def percent_of(key: str) -> Optional[float]:
    """The percent a key names (p975 -> 97.5), None when it names none."""
    match = _NAME.match(key)
    if not match:
        return None
    whole, decimals = match.groups()
    percent = float(f"{whole}.{decimals or 0}")
    return percent if 0 < percent < 100 and name(percent) == key else None


def parse_percents(texts: Sequence[str], option: str = "quantile") -> List[float]:
    """`80,97.5` or `p80,p975` (repeatable, comma-separated) as percents, each
    once, in the order given; refused unless each is above 0 and below 100."""
    percents: List[float] = []
    for text in texts:
        for part in str(text).split(","):
            word = part.strip()
            percent = percent_of(word) if word.startswith("p") else _number(word)
            if percent is None or not 0 < percent < 100 or round(percent, _DECIMALS) != percent:
                raise OptionError(option, f"expected percents above 0 and below 100 (at most {_DECIMALS} decimals), "
                                          "e.g. 80,97.5 or p80,p975",
                                  value=str(text))
            if percent not in percents:
                percents.append(percent)
    return percents


def parse_times(texts: Sequence[str], time_unit: str, option: str = "within") -> List[float]:
    """`20s,1min` (a unit each) or `20` (the model's time unit), repeatable and
    comma-separated, as times in `time_unit`, each once, in the order given."""
    times: List[float] = []
    for text in texts:
        for part in str(text).split(","):
            time = time_in_model(part.strip(), time_unit)
            if time is None:
                raise OptionError(option, f"expected times of at least 0, with a unit (20s, 1.5min) or in the "
                                          f"model's unit ({time_unit})", value=str(text))
            if time not in times:
                times.append(time)
    return times


def time_in_model(text: str, time_unit: str) -> Optional[float]:
    """`20s` (or a bare number, in the model's unit) in `time_unit`; None when it is no time of at least 0."""
    typed = split_time(text)
    if typed is not None and typed[1] in TYPED_SECONDS:
        time = typed[0] * TYPED_SECONDS[typed[1]] / SECONDS[time_unit]
    else:
        time = _number(text)
    return time if time is not None and math.isfinite(time) and time >= 0 else None


def asked(quantiles: Sequence[float] = (), within: Sequence[float] = ()) -> dict:
    """What an engine is asked beyond the fixed list: percents above 0 and below
    100, and times of at least 0 in the model's unit, each once; refused otherwise."""
    percents, times = [float(p) for p in quantiles], [float(t) for t in within]
    if not all(0 < p < 100 for p in percents):
        raise OptionError("quantile", "expected percents above 0 and below 100", value=str(list(quantiles)))
    if not all(math.isfinite(t) and t >= 0 for t in times):
        raise OptionError("within", "expected times of at least 0", value=str(list(within)))
    return {"quantiles": list(dict.fromkeys(percents)), "within": list(dict.fromkeys(times))}


def union(lists) -> list:
    """The items of `lists`, each once, in the order first met (what several objectives ask of an engine)."""
    return list(dict.fromkeys(item for items in lists for item in items))


def share_at(block: dict, t: float) -> Tuple[Optional[float], Optional[list]]:
    """The service level P(time <= t) of a results time block and its interval, where it was asked for."""
    for k, (at, share) in enumerate(block.get("within") or ()):
        if math.isclose(at, t, rel_tol=1e-12, abs_tol=0.0) or at == t:
            cis = block.get("within_ci")
            return share, cis[k] if cis else None
    return None, None


def _number(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:
        return None
