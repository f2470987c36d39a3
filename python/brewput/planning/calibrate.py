"""A single-station model calibrated from a measured sweep over the arrival rate
(`brewput load --sweep rate=...`, or a `simulate`/`solve` sweep of a `rate`
param): each step's measured throughput X, mean response R and, when the record
has it, the station's utilization U.

- With utilization: the service time by the utilization law, U c = X S, the
  least-squares line through the origin over the steps (its standard error from
  the residuals, n - 1 degrees of freedom).
- Without: the mean response curve fitted by least squares, M/M/c (Erlang C,
  S only) or M/G/1 (Pollaczek-Khinchine: S and the service time's squared
  coefficient of variation), each step offered its measured throughput;
  errors from the Jacobian, n - p degrees of freedom.

The interval adds to the steps' spread around the fit the measurements' own error
(the replications' standard errors, when the record has them) taken as common to
every step: a sweep's scenarios share their random numbers (docs/experiments.md),
so their errors move together and do not average out.

The calibrated model is a model file brewput reads; its predictions per step come
from `solve` on that model, so what is printed is what the file says.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from .. import _native
from ..errors import BrewputError
from .intervals import finite, t_critical
from .points import RATE, class_figures, record_scenarios, scenario_place

KINDS = ("mmc", "mg1")
LEVEL = _native.CONFIDENCE  # the engine's level, the one home of the 95 %


@dataclass(frozen=True)
class Step:
    scenario: int
    throughput: float            # per time unit: the arrival rate offered to the model
    response: float              # mean, in the time unit
    utilization: Optional[float]  # the station's, a share of its servers
    response_se: float = 0.0     # standard errors over replications (0 for a single run)
    utilization_se: float = 0.0


@dataclass(frozen=True)
class Estimate:
    value: float
    std_error: float
    low: float
    high: float

    def interval(self, level: float) -> str:
        """`95 % interval 4.9 .. 5.1`, or why there is none."""
        from ..figures import number

        if math.isnan(self.std_error):
            return "no interval: the steps do not determine its error"
        return f"{level * 100:g} % interval {number(self.low)} .. {number(self.high)}"


@dataclass(frozen=True)
class Calibration:
    source: str
    time_unit: str
    kind: str                    # mmc or mg1
    servers: int
    method: str                  # "utilization law" or "response-time fit"
    service: Estimate            # mean service time
    scv: Optional[Estimate]      # M/G/1: the service time's squared coefficient of variation
    steps: List[Step]
    fitted: List[bool]           # which steps the estimate used
    level: float = LEVEL

    @property
    def service_law(self) -> str:
        """The service time as the model language writes it."""
        mean = f"{self.service.value:.6g}"
        if self.scv is None or abs(self.scv.value - 1) < 1e-9:
            return f"exp({mean})"
        if self.scv.value < 1e-12:
            return mean
        return f"gamma({mean}, {math.sqrt(self.scv.value):.6g})"

    def model_text(self) -> str:
        used = [s.scenario for s, f in zip(self.steps, self.fitted) if f]
        scv = "" if self.scv is None else f", squared cv {self.scv.value:.4g} ({self.scv.interval(self.level)})"
        rate = max(s.throughput for s, f in zip(self.steps, self.fitted) if f)
        name = "M/M/1" if self.kind == "mmc" and self.servers == 1 else (
            f"M/M/{self.servers}" if self.kind == "mmc" else "M/G/1")
        return (
            f"# Calibrated by brewput calibrate from {self.source} by the {self.method} over scenarios "
            f"{', '.join(map(str, used))}:\n"
            f"# {name}, mean service time {self.service.value:.4g} {self.time_unit} "
            f"({self.service.interval(self.level)}){scv}.\n"
            "brewput: 1\n"
            f"name: {name} calibrated\n"
            f"time_unit: {self.time_unit}\n"
            "params:\n"
            f"  rate: {_yaml_float(rate)}                  # arrivals per {self.time_unit}: the largest step fitted\n"
            "stations:\n"
            f"  server: {{servers: {self.servers}}}\n"
            "classes:\n"
            "  request:\n"
            "    rate: ${rate}\n"
            "    route:\n"
            "      - station: server\n"
            f"        service: {self.service_law}\n")

    def model(self):
        """The model file's model, as brewput reads it."""
        import yaml

        from ..model.model import load

        try:
            return load(yaml.safe_load(self.model_text()))
        except BrewputError as e:
            raise BrewputError(f"{self.source}: the calibrated model is not one brewput runs: {e}") from None

    def predictions(self) -> List[dict]:
        """Per step, the calibrated model solved at the step's throughput, beside the measurement."""
        from ..engine.solve import solve

        model = self.model()
        rows = []
        for step, fitted in zip(self.steps, self.fitted):
            row = {"scenario": step.scenario, "fitted": fitted, "throughput": step.throughput,
                   "response": step.response, "predicted_response": None, "response_error": None,
                   "utilization": step.utilization, "predicted_utilization": None}
            try:
                res = solve(model.with_params(rate=step.throughput))
            except BrewputError:   # at or past the model's capacity: no steady state to predict
                rows.append(row)
                continue
            predicted = res["classes"]["request"]["response_time"]["mean"]
            row.update(predicted_response=predicted, response_error=(predicted - step.response) / step.response,
                       predicted_utilization=res["stations"]["server"]["utilization"])
            rows.append(row)
        return rows

    def as_dict(self) -> dict:
        def estimate(e: Optional[Estimate]):
            return None if e is None else {"estimate": e.value, "std_error": finite(e.std_error),
                                           "ci": None if math.isnan(e.std_error) else [e.low, e.high]}
        return {"source": self.source, "time_unit": self.time_unit, "kind": self.kind, "servers": self.servers,
                "method": self.method, "level": self.level, "service_time": estimate(self.service),
                "service_scv": estimate(self.scv), "service": self.service_law, "predictions": self.predictions()}


def read_steps(path, model: Optional[str] = None) -> tuple:
    """The steps of a record swept over `rate`, in increasing throughput, and its time unit."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        raise BrewputError(f"{path}: expected an experiment record (.json) of a sweep over {RATE}, "
                           f"got {path.suffix or 'no suffix'}")
    record, scenarios = record_scenarios(path, model)
    if RATE not in record["sweep"]:
        raise BrewputError(f"{path}: not a sweep over {RATE} (swept: {', '.join(record['sweep']) or 'nothing'}); "
                           f"calibrate needs load --sweep rate=... or a --sweep rate=... of simulate or solve")
    units = {s["results"].get("time_unit") for s in scenarios}
    if len(units) != 1:
        raise BrewputError(f"{path}: the scenarios mix time units ({', '.join(sorted(map(str, units)))})")
    steps = []
    for scenario in scenarios:
        where = scenario_place(path, scenario)
        throughput, response = class_figures(where, scenario["results"], None)
        if response is None or not response > 0:
            raise BrewputError(f"{where}: no positive mean response time, which calibration needs")
        utilization, utilization_ci = _utilization(where, scenario["results"])
        response_ci = _response_ci(scenario["results"])
        replications = _replications(where, scenario["results"])
        steps.append(Step(scenario["id"], throughput, response, utilization,
                          _standard_error(response_ci, replications), _standard_error(utilization_ci, replications)))
    return sorted(steps, key=lambda s: s.throughput), units.pop()


def _response_ci(results: dict) -> Optional[list]:
    """The mean response's interval of a one-class result (several classes: none)."""
    classes = list((results.get("classes") or {}).values())
    if len(classes) != 1:
        return None
    return (classes[0].get("response_time") or {}).get("mean_ci")


def _replications(where: str, results: dict) -> Optional[int]:
    """The replications a simulated step ran (None where the record does not say)."""
    from ..engine.simulate import MAX_REPLICATIONS

    replications = (results.get("settings") or {}).get("replications")
    if replications is None:
        return None
    if isinstance(replications, bool) or not isinstance(replications, int) or not 1 <= replications <= MAX_REPLICATIONS:
        raise BrewputError(f"{where}: settings.replications: expected a whole number from 1 to "
                           f"{MAX_REPLICATIONS:,}, got {repr(replications)[:40]}")
    return replications


def _standard_error(ci: Optional[list], replications: Optional[int]) -> float:
    """A replicated figure's standard error, from its Student-t interval over the
    replications (the engine's CONFIDENCE); 0 without one."""

    if not (isinstance(ci, list) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci)
            and replications is not None and replications >= 2):
        return 0.0
    return abs(ci[1] - ci[0]) / 2 / t_critical(_native.CONFIDENCE, replications - 1)


def _utilization(where: str, results: dict) -> tuple:
    """The one station's utilization and its interval, when the results have exactly
    one station that reports it."""
    stations = [v for v in (results.get("stations") or {}).values() if isinstance(v, dict)]
    if len(stations) != 1 or stations[0].get("utilization") is None:
        return None, None
    value = stations[0]["utilization"]
    if not (isinstance(value, (int, float)) and 0 <= value <= 1):
        raise BrewputError(f"{where}: utilization {value!r}; expected a share from 0 to 1")
    return float(value), stations[0].get("utilization_ci")


def calibrate(path, *, kind: str = "mmc", servers: int = 1, upto: Optional[float] = None,
              model: Optional[str] = None, use_utilization: bool = True, level: float = LEVEL) -> Calibration:
    """The single-station model of the record at `path`, estimated from its steps with
    throughput up to `upto` (all when None)."""
    if kind not in KINDS:
        raise BrewputError(f"--kind {kind}: expected one of {', '.join(KINDS)}")
    if not 1 <= servers <= 10_000:
        raise BrewputError(f"--servers {servers}: expected a whole number from 1 to 10,000")
    if kind == "mg1" and servers != 1:
        raise BrewputError(f"--servers {servers}: M/G/1 has one server; use --kind mmc for several")
    if upto is not None and not upto > 0:
        raise BrewputError(f"--upto {upto:g}: expected a positive throughput")
    steps, time_unit = read_steps(path, model)
    fitted = [upto is None or s.throughput <= upto for s in steps]
    used = [s for s, f in zip(steps, fitted) if f]
    params = 2 if kind == "mg1" else 1
    by_utilization = use_utilization and kind == "mmc" and all(s.utilization is not None for s in used)
    needed = 2 if by_utilization else params + 1
    if len(used) < needed:
        upto_text = f" with throughput up to {upto:g} (--upto)" if upto is not None else ""
        raise BrewputError(f"{path}: {len(used)} steps{upto_text}; the estimate and its interval need at least {needed}")
    x = np.array([s.throughput for s in used])
    r = np.array([s.response for s in used])
    t = t_critical(level, len(used) - (1 if by_utilization else params))
    scv = None
    if by_utilization:
        u = np.array([s.utilization for s in used]) * servers
        service = float(x @ u / (x @ x))
        residual = u - x * service
        spread = float(residual @ residual) / (len(used) - 1) / float(x @ x)
        common = float(x @ (np.array([s.utilization_se for s in used]) * servers)) / float(x @ x)
        se = math.sqrt(spread + common ** 2)
        method = "utilization law"
    else:
        estimates, errors = _response_fit(kind, servers, x, r, np.array([s.response_se for s in used]))
        service, se = estimates[0], errors[0]
        if kind == "mg1":
            scv = Estimate(estimates[1], errors[1], estimates[1] - t * errors[1], estimates[1] + t * errors[1])
        method = "response-time fit"
    calibration = Calibration(str(path), time_unit, kind, servers, method,
                              Estimate(service, se, service - t * se, service + t * se), scv, steps, fitted, level)
    calibration.model()   # a model brewput can run, or one line saying why not
    return calibration


def _response_fit(kind: str, servers: int, x: np.ndarray, r: np.ndarray, r_se: np.ndarray) -> tuple:
    from scipy.optimize import least_squares

    from ..analytic.queues import mmc, pollaczek_khinchine

    # every step must stay stable: S below servers / X at the largest throughput
    top = servers / float(np.max(x)) * (1 - 1e-9)

    def responses(p: Sequence[float]) -> np.ndarray:
        if kind == "mg1":
            return np.array([pollaczek_khinchine(lam, p[0], p[1]).response for lam in x])
        return np.array([mmc(lam, p[0], servers).response for lam in x])

    lower = [top * 1e-9] + ([0.0] if kind == "mg1" else [])
    upper = [top] + ([1e6] if kind == "mg1" else [])
    start = [float(np.clip(np.min(r), 10 * lower[0], top / 2))] + ([1.0] if kind == "mg1" else [])
    with np.errstate(all="ignore"):
        found = least_squares(lambda p: responses(p) - r, start, bounds=(lower, upper), x_scale="jac",
                              ftol=1e-14, xtol=1e-14, gtol=1e-14, max_nfev=5_000)
        estimates = [float(v) for v in found.x]
        variance = float(found.fun @ found.fun) / (len(r) - len(start))
        try:
            inverse = np.linalg.inv(found.jac.T @ found.jac)
            common = inverse @ found.jac.T @ r_se
            variances = np.diag(inverse) * variance + common ** 2
        except np.linalg.LinAlgError:
            variances = np.full(len(start), math.nan)
    if not all(math.isfinite(v) for v in estimates):
        raise BrewputError("the response-time fit found no finite service time for these steps")
    return estimates, [math.sqrt(v) if math.isfinite(v) and v >= 0 else math.nan for v in variances]


def _yaml_float(value: float) -> str:
    """A number YAML reads back as a number: 8e+300 would be text to YAML 1.1, 8.0e+300 is not."""
    text = f"{value:.6g}"
    return text.replace("e", ".0e", 1) if "e" in text and "." not in text else text
