"""How a figure is written, everywhere people read one (tables, the report, the
lab's lines, a message): four significant digits, counts as whole numbers, and a
confidence interval only when it is wider than the figure's own rounding. A leaf
of the package, like units.py, so that every layer writes numbers the same way."""
from __future__ import annotations

import math
from numbers import Integral
from typing import Optional, Sequence

DIGITS = 4
# From here up a figure reads better whole, with thousands separated (12,346
# rather than 1.235e+04); above the top, in powers of ten again.
WHOLE_FROM, WHOLE_TO = 1e4, 1e12


def number(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, Integral) and not isinstance(x, bool):
        return f"{int(x):,}"
    x = float(x)
    if math.isnan(x):
        return "-"
    if WHOLE_FROM <= abs(x) < WHOLE_TO:
        return f"{x:,.0f}"
    return f"{x:.{DIGITS}g}"


def count(x) -> str:
    """A figure that counts things (customers lost, orders dropped): whole, even when it came as a float."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return number(int(round(float(x)))) if float(x).is_integer() else number(x)


def _last_digit(x: float) -> float:
    """The size of the last digit `number` writes of x."""
    if x == 0 or WHOLE_FROM <= abs(x) < WHOLE_TO:
        return 1.0 if x else 0.0
    return 10.0 ** (math.floor(math.log10(abs(x))) - (DIGITS - 1))


def with_ci(x, ci: Optional[Sequence[Optional[float]]]) -> str:
    """`x ± half-width` when there is an interval worth showing: one narrower than
    half the last digit written (a deterministic figure's 1e-16) says nothing."""
    text = number(x)
    if x is None or ci is None or None in ci or math.isnan(float(x)):
        return text
    half = (ci[1] - ci[0]) / 2
    if half > _last_digit(float(x)) / 2:
        text += f" ± {half:.2g}"
    return text


def percent(x: Optional[float]) -> str:
    """A share (a utilization): 87%."""
    return "-" if x is None or math.isnan(x) else f"{x:.0%}"


def signed_percent(x: Optional[float]) -> str:
    """A relative difference in percent, two significant digits: +0.14%, -4.2%, +30%."""
    if x is None or math.isnan(x):
        return "-"
    percent = 100 * x
    return f"{percent:+.0f}%" if abs(percent) >= 10 else f"{percent:+.2g}%"
