"""Money over years: the net present value of a cash flow, as seed 004 writes
it, NPV(i, N) = sum over t = 0..N of R_t / (1 + i)^t, with t in years and
payments at the start of each year (the first undiscounted)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Sequence


#: The most one unit may cost (bought, or run for a year): any count of units a plan
#: varies, over its years, then sums to a finite present value.
MAX_PRICE = 1e15


def npv(rate: float, flows: Sequence[float]) -> float:
    """The present value of `flows[t]` paid at the start of year t, discounted at `rate` a year."""
    return sum(flow / (1 + rate) ** t for t, flow in enumerate(flows))


@dataclass(frozen=True)
class Cost:
    """What one unit of a planned resource costs: paid once now, and each year it runs."""
    purchase: float
    running: float = 0.0

    def over(self, units: float, years: int, rate: float) -> float:
        """The present value of `units` bought now and run for `years` (running
        costs paid at the start of each year)."""
        return units * (self.purchase + npv(rate, [self.running] * years))


def parse_share(option: str, text: str, *, below_one: bool = False) -> float:
    """`10%` or `0.1` -> 0.1: a share from 0 to 100 % (below 100 % when `below_one`)."""
    from ..errors import OptionError

    text = str(text).strip()
    percent = text.endswith("%")
    try:
        value = float(text[:-1] if percent else text) / (100 if percent else 1)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value and (value < 1 if below_one else value <= 1)):
        top = "below 100 %" if below_one else "to 100 %"
        raise OptionError(option, f"expected a share from 0 {top}, e.g. 10% or 0.1", value=text)
    return value


def parse_discount(text: str) -> float:
    """`10%` or `0.1` -> 0.1: a yearly discount rate from 0 to 100 %."""
    return parse_share("discount", text)


def parse_costs(options: Sequence[str], varied: Mapping[str, object]) -> Dict[str, Cost]:
    """`--cost servers=5000,1200` -> {"servers": Cost(5000, 1200)}: per unit of a
    varied name, bought now and (optionally) run for a year."""
    from ..errors import OptionError

    costs: Dict[str, Cost] = {}
    for option in options:
        name, sep, prices = str(option).partition("=")
        name = name.strip()
        if not (sep and name):
            raise OptionError("cost", "expected NAME=PRICE[,RUNNING], e.g. servers=5000,1200", value=option)
        if name not in varied:
            raise OptionError("cost", f"{name} is not varied: a cost is per unit of a varied name "
                                      f"({', '.join(map(str, varied))})", value=option)
        if name in costs:
            raise OptionError("cost", f"{name} is priced twice", value=option)
        parts = prices.split(",")
        try:
            amounts = [float(p) for p in parts]
        except ValueError:
            amounts = []
        if not (1 <= len(amounts) <= 2 and all(0 <= a <= MAX_PRICE for a in amounts)):
            raise OptionError("cost", "expected a price and an optional running cost a year, numbers from 0 "
                                      f"to {MAX_PRICE:g}, e.g. servers=5000,1200", value=option)
        costs[name] = Cost(*amounts)
    return costs
