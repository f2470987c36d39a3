"""What an analytic method returns: per-class and per-station figures, each
marked exact or approximate, with the method that produced it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

from .laws import Laws


@dataclass
class Solution:
    #: The method as a whole, e.g. "mva-exact", "jackson", "bard-schweitzer".
    method: str
    #: (R,) completed customers per time unit per class.
    throughput: np.ndarray
    #: (R,) mean response time per class: arrival (or end of think) to exit, think excluded.
    response_time: np.ndarray
    #: (R, M) per-class share of each station's utilization (busy servers / servers;
    #: for a delay station, the mean number of that class in service).
    utilization: np.ndarray
    #: (R, M) mean number of each class present at each station (waiting and in service).
    queue_length: np.ndarray
    #: (R, M) mean time per customer at each station over all its visits (visits x response per visit).
    residence_time: np.ndarray
    #: (R,) whether each class's figures are exact for the model as written.
    exact_class: np.ndarray
    #: (M,) whether each station's figures are exact.
    exact_station: np.ndarray
    #: (M,) the formula or algorithm used at each station, e.g. "erlang-c", "pollaczek-khinchine".
    station_method: List[str]
    #: Per class: its waiting- and response-time laws where known (laws/), from
    #: which its percentiles and service levels are read.
    laws: Dict[int, Laws] = field(default_factory=dict)
    #: (R,) probability an arrival is lost (finite buffers), open classes; None when no losses are possible.
    loss_probability: Optional[np.ndarray] = None
    #: Per reason a customer is lost (results.LOSS_REASONS: a full station, balking,
    #: reneging), the (R,) probability an arrival is lost for it; None when only
    #: full stations lose customers (all of loss_probability is then `full`).
    loss_by: Optional[Dict[str, np.ndarray]] = None
    #: (R, M) jobs of each class served at each station per time unit, where customers give
    #: up inside a network (then not throughput x visits); None elsewhere.
    served: Optional[np.ndarray] = None
    #: (M,) mean time at each station of the jobs it serves, where some leave it
    #: unserved (reneging), so that jobs present / throughput is not that time; None elsewhere.
    station_response_time: List[Optional[float]] = field(default_factory=list)
    #: (R,) mean time each class waits in queues, where it is not its residence less its
    #: service summed over the stations: queues inside a fork's branches overlap the
    #: customer's own time and are not counted (docs/simulation.md); None elsewhere.
    waiting_time: Optional[np.ndarray] = None
    #: (R, M) mean jobs of each class waiting for a server at each station, where some jobs
    #: present are neither waiting nor served (blocked after service); None elsewhere (present - busy).
    waiting_number: Optional[np.ndarray] = None
    #: Per station index with typed servers, per server type: {"utilization",
    #: "served": {class: completions per time unit}} (results.md's server_types).
    server_types: Dict[int, Dict[str, dict]] = field(default_factory=dict)
    #: Per resource name, {"utilization", "in_use"} (tokens held), where a method follows
    #: the tokens (the chain); empty elsewhere.
    resources: Dict[str, dict] = field(default_factory=dict)
    #: One line each: what was approximated and why, or what was chosen automatically.
    notes: List[str] = field(default_factory=list)
