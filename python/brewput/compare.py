"""`brewput compare`: the analytic solution beside the simulation, figure by
figure, with the relative difference and whether the analytic figure lies
inside the simulation's confidence interval."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterator, List, Optional, Tuple

from . import _native
from .errors import BrewputError, EngineInputError
from .percentiles import name as percentile_name, share_at
from .results import CLASS_AT_STATION_FIGURES, TIME_FIGURES

CLASS_FIGURES = ("throughput", "loss_probability")
STATION_FIGURES = ("utilization", "busy_servers", "queue_length", "response_time", "throughput")


@dataclass(frozen=True)
class Row:
    figure: str
    analytic: float
    exact: bool
    method: str
    simulated: float
    #: The simulation's interval at the chosen confidence level (None with one replication).
    ci: Optional[Tuple[float, float]]

    @property
    def relative_difference(self) -> Optional[float]:
        return (self.analytic - self.simulated) / self.simulated if self.simulated else None

    @property
    def inside(self) -> Optional[bool]:
        return None if self.ci is None else self.ci[0] <= self.analytic <= self.ci[1]

    def as_dict(self) -> dict:
        return {**asdict(self), "relative_difference": self.relative_difference, "inside": self.inside}


def _pairs(analytic: dict, simulated: dict) -> Iterator[Tuple[str, dict, dict, str, dict]]:
    """(figure name, analytic holder, simulated holder, key, the class or station
    whose `exact` and `method` apply) for every figure both engines give."""
    for name, a in analytic["classes"].items():
        s = simulated["classes"][name]
        for key in CLASS_FIGURES:
            yield f"{name} {key.replace('_', ' ')}", a, s, key, a
        by, by_ci = s.get("loss_probability_by") or {}, s.get("loss_probability_by_ci") or {}
        for reason in a.get("loss_probability_by") or {}:  # the simulation's intervals sit beside, per reason
            holder = {"value": by.get(reason), "value_ci": by_ci.get(reason)}
            yield f"{name} loss probability {reason}", {"value": a["loss_probability_by"][reason]}, holder, "value", a
        timed = [(times.replace("_", " "), a[times], s[times]) for times in ("response_time", "waiting_time")]
        timed += [(f"measure {m}", times, (s.get("measures") or {}).get(m) or {})
                  for m, times in (a.get("measures") or {}).items()]
        law = a.get("law") or a  # the percentiles and service levels are as exact as the class's law
        for label, a_times, s_times in timed:
            for key in TIME_FIGURES:
                yield f"{name} {label} {key}", a_times, s_times, key, a if key == "mean" else law
            for key in asked_keys(analytic):
                yield f"{name} {label} {key}", a_times, s_times, key, law
            for k, (t, share) in enumerate(a_times.get("within") or ()):  # the service levels asked
                simulated_share, ci = share_at(s_times, t)
                yield (f"{name} {label} P(<= {t:g})", {"value": share},
                       {"value": simulated_share, "value_ci": ci}, "value", law)
    for name, a in analytic["stations"].items():
        s = simulated["stations"][name]
        for key in STATION_FIGURES:
            yield f"{name} {key.replace('_', ' ')}", a, s, key, a
        for kind, figures in (a.get("server_types") or {}).items():
            simulated_kind = (s.get("server_types") or {}).get(kind) or {}
            yield f"{name} {kind} utilization", figures, simulated_kind, "utilization", a
            served, served_ci = simulated_kind.get("served") or {}, simulated_kind.get("served_ci") or {}
            for label, value in figures["served"].items():  # completions of each class by this type
                holder = {"value": served.get(label), "value_ci": served_ci.get(label)}
                yield f"{name} {kind} served {label}", {"value": value}, holder, "value", a
        if len(analytic["classes"]) > 1:  # each class at the station (with one, the station's own figures)
            for label, figures in (a.get("classes") or {}).items():
                simulated_class = (s.get("classes") or {}).get(label) or {}
                for key in CLASS_AT_STATION_FIGURES:
                    yield f"{name} {label} {key.replace('_', ' ')}", figures, simulated_class, key, a


def asked_keys(results: dict) -> List[str]:
    """The keys of the quantiles a run asked for beyond the fixed list."""
    named = set(TIME_FIGURES)
    return [key for key in map(percentile_name, (results.get("asked") or {}).get("quantiles", ())) if key not in named]


def compare_results(analytic: dict, simulated: dict, level: float = _native.CONFIDENCE) -> List[Row]:
    widen = _widening(level, simulated["settings"]["replications"])
    rows = []
    for figure, a, s, key, owner in _pairs(analytic, simulated):
        if a.get(key) is None or s.get(key) is None:
            continue
        ci = s.get(f"{key}_ci")
        if ci is not None:
            mid, half = (ci[0] + ci[1]) / 2, (ci[1] - ci[0]) / 2 * widen
            ci = (mid - half, mid + half)
        rows.append(Row(figure, a[key], owner["exact"], owner["method"], s[key], ci))
    return rows


def _widening(level: float, replications: int) -> float:
    """Turns the simulation's half-widths (at the engine's confidence level) into
    `level` half-widths, with the engine's Student-t quantile."""
    if replications < 2 or level == _native.CONFIDENCE:
        return 1.0
    df = replications - 1
    try:
        return _native.t_critical(level, df) / _native.t_critical(_native.CONFIDENCE, df)
    except EngineInputError as e:
        raise BrewputError(f"level: {e}") from None
