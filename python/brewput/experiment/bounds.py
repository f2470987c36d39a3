"""A simulated scenario's asymptotic bounds: what the analytic layer says of the
model without solving it (analytic/bounds.py), kept in the scenario's results
under `bounds` as `solve` keeps them, so that a report of a simulate-only
experiment draws the limits its simulated throughput runs into."""
from __future__ import annotations

from typing import Optional

from ..analytic.bounds import network_bounds
from ..analytic.feasibility import check_cycles_take_time
from ..analytic.network import network_of
from ..errors import BrewputError
from ..model import Model


def model_bounds(model: Model) -> Optional[dict]:
    """Each class's bounds, or None where the analytic layer refuses the model
    (a feature no analytic method covers, or a network too large to size): the
    simulation stands without them."""
    try:
        check_cycles_take_time(model)
        return network_bounds(network_of(model)) or None
    except BrewputError:
        return None
