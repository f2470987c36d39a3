"""`brewput lab coffee`: measure coffee-shop implementations at several CPU
counts, optionally beside their models, into one experiment record."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, List, Optional

from ..errors import BrewputError
from . import native
from .options import check_implementation
from .results import SPECTRUM, coffee_results

# Called with (scenarios done, scenarios in all, what runs next).
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class CoffeeSettings:
    """Everything about a measurement but the implementation, CPUs and customers."""
    grind_ms: float = 1.0
    press_ms: float = 1.0
    steam_ms: float = 1.0
    latte_ms: float = 1.0
    jitter_ms: float = 0.0
    duration_ms: float = 1000.0
    warmup_ms: float = 250.0
    repetitions: int = 3
    rate_per_s: Optional[float] = None      # None: closed loop
    arrivals: str = "poisson"               # open loop: poisson | constant
    queue: int = 10_000                     # open loop: the request queue's capacity
    seed: int = 1                           # open loop: Poisson arrivals' random stream
    stall_every: Optional[int] = None       # every n-th order's grinding stalls ...
    stall_ms: float = 0.0                   # ... for this long (a deliberate hiccup)
    nice: Optional[int] = None              # run at this nice value (below 0 needs privilege)

    def check(self) -> None:
        for name in ("grind_ms", "press_ms", "steam_ms", "latte_ms"):
            if not getattr(self, name) >= 0:
                raise BrewputError(f"--{name[:-3]}: expected a non-negative time")
        if self.jitter_ms > 2 * min(self.grind_ms, self.press_ms, self.steam_ms, self.latte_ms):
            raise BrewputError(f"--jitter {self.jitter_ms:g}ms: at most twice the shortest stage "
                               "(a stage lasts its time ± jitter/2)")
        if not 1 <= self.repetitions <= 1000:
            raise BrewputError(f"--repetitions {self.repetitions}: expected 1 to 1000")
        if self.rate_per_s is not None and not self.rate_per_s > 0:
            raise BrewputError(f"--rate {self.rate_per_s:g}: expected a positive rate (lattes per second)")
        if self.arrivals not in ("poisson", "constant"):
            raise BrewputError(f"--arrivals {self.arrivals}: expected poisson or constant")
        if not 0 <= self.queue <= 10_000_000:
            raise BrewputError(f"--queue {self.queue}: expected 0 to 10,000,000")
        if self.nice is not None and not -20 <= self.nice <= 19:
            raise BrewputError(f"--nice {self.nice}: expected -20 (highest priority) to 19")
        if self.stall_every is not None and self.stall_every < 1:
            raise BrewputError(f"--stall-every {self.stall_every}: expected a whole number of orders >= 1")

    def load(self) -> dict:
        if self.rate_per_s is None:
            return {"kind": "closed"}
        return {"kind": "open", "rate_per_s": self.rate_per_s, "arrivals": self.arrivals,
                "queue": self.queue, "seed": self.seed}


def measure_coffee(implementation: str, cpus: int, par: Optional[int] = None,
                   settings: CoffeeSettings = CoffeeSettings()) -> dict:
    """Measures one implementation on `cpus` CPUs with `par` customers (default:
    as many as CPUs, as in the talk); the results schema with `engine: "lab"`."""
    check_implementation(implementation)
    settings.check()
    par = cpus if par is None else par
    stall = None if settings.stall_every is None else {"every": settings.stall_every,
                                                        "pause_us": settings.stall_ms * 1e3}
    run = {
        "kitchen": implementation, "cpus": cpus, "par": par,
        "recipe": {"grind_us": settings.grind_ms * 1e3, "press_us": settings.press_ms * 1e3,
                   "steam_us": settings.steam_ms * 1e3, "latte_us": settings.latte_ms * 1e3,
                   "jitter_us": settings.jitter_ms * 1e3, "stall": stall},
        "duration_ms": settings.duration_ms, "warmup_ms": settings.warmup_ms,
        "repetitions": settings.repetitions, "load": settings.load(), "percentiles": list(SPECTRUM),
        "nice": settings.nice,
    }
    report = native.call("lab_coffee", run)
    if report["cancelled"]:
        raise KeyboardInterrupt
    return coffee_results(implementation, {**asdict(settings), "cpus": cpus, "par": par,
                                           "load": settings.load()}, report)


def run_coffee_lab(implementations: List[str], cpus: List[int], *, par: Optional[List[int]] = None,
                   settings: CoffeeSettings = CoffeeSettings(), predict: bool = False,
                   command: Optional[str] = None, progress: Optional[Progress] = None) -> dict:
    """Every implementation at every CPU count (and customer count, default as
    many as CPUs), measured and, with `predict`, simulated from its model: one
    experiment record. Ctrl-C keeps what finished and marks it interrupted."""
    from ..experiment.record import new_record
    from .predict import coffee_model, predict_coffee, stage_ms

    for implementation in implementations:
        check_implementation(implementation)
    settings.check()
    pars: List[Optional[int]] = list(par) if par else [None]
    models = {}
    if predict:
        stage_ms(settings)
        if settings.rate_per_s is not None:
            raise BrewputError("--predict: the coffee models are closed (customers ordering back to back); "
                               "drop --rate to compare")
        for implementation in implementations:
            models[implementation] = coffee_model(implementation, pars[0])[1] if len(pars) == 1 \
                else coffee_model(implementation, None)[1]
    sweep = {"cpus": cpus, **({"par": pars} if par and len(pars) > 1 else {})}
    record = new_record(title="brewput lab: the coffee shop measured on this machine"
                              + (", beside its models" if predict else ""),
                        command=command, models=models, sweep=sweep)
    plan = [(i, k, p) for i in implementations for k in cpus for p in pars]
    total = len(plan) * (2 if predict else 1)
    try:
        for implementation, k, p in plan:
            params = {"cpus": k, **({"par": p} if "par" in sweep else {})}
            label = f"{implementation} on {k} cpu{'s' if k > 1 else ''}"
            if progress:
                progress(len(record["scenarios"]), total, f"measuring {label}")
            measured = measure_coffee(implementation, k, p, settings)
            _add(record, implementation, "lab", params, measured)
            if predict:
                if progress:
                    progress(len(record["scenarios"]), total, f"simulating {label}")
                _add(record, implementation, "simulate", params, predict_coffee(implementation, k, p, settings))
    except KeyboardInterrupt:
        record["interrupted"] = True
    if progress:
        progress(len(record["scenarios"]), total, "done")
    return record


def _add(record: dict, model: str, engine: str, params: dict, results: dict) -> None:
    record["scenarios"].append({"id": len(record["scenarios"]), "model": model, "engine": engine,
                                "params": dict(params), "results": results})
