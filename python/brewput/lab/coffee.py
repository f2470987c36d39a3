"""`brewput lab coffee`: measure coffee-shop implementations at several CPU
counts, optionally beside their models, into one experiment record."""
from __future__ import annotations

from dataclasses import asdict, replace
from typing import Callable, List, Optional

from ..errors import OptionError
from ..units import time_in
from . import native
from .options import LIMITS, check_implementation
from .results import HARNESS, SPECTRUM, coffee_results
from .settings import CoffeeSettings
from .work import Measuring, coffee_measuring

# Called with (scenarios done, scenarios in all, what runs next).
Progress = Callable[[int, int, str], None]


def _harness(ms: float) -> float:
    """A time setting (ms) in the harness's unit."""
    return time_in(ms, "ms", HARNESS)


def measure_coffee(implementation: str, cpus: int, par: Optional[int] = None,
                   settings: CoffeeSettings = CoffeeSettings(), *, distribution: bool = False) -> dict:
    """Measures one implementation on `cpus` CPUs with `par` customers (default:
    as many as CPUs, as in the talk); the results schema with `engine: "lab"`.
    With `distribution`, the response time's percentile distribution too
    (`response_time.distribution`, what report/hgrm.py writes)."""
    check_implementation(implementation)
    settings.check()
    par = cpus if par is None else par
    LIMITS["cpus"].check(cpus)
    LIMITS["par"].check(par)
    stall = None if settings.stall_every is None else {"every": settings.stall_every,
                                                        "pause_us": _harness(settings.stall_ms)}
    run = {
        "kitchen": implementation, "runtime": settings.runtime, "cpus": cpus, "par": par,
        "recipe": {"grind_us": _harness(settings.grind_ms), "press_us": _harness(settings.press_ms),
                   "steam_us": _harness(settings.steam_ms), "latte_us": _harness(settings.latte_ms),
                   "jitter_us": _harness(settings.jitter_ms), "stall": stall},
        "duration_ms": settings.duration_ms, "warmup_ms": settings.warmup_ms,
        "repetitions": settings.repetitions, "load": settings.load(), "percentiles": list(SPECTRUM),
        "distribution": distribution, "nice": settings.nice,
    }
    report = native.call("lab_coffee", run)
    if report["cancelled"]:
        raise KeyboardInterrupt
    return coffee_results(implementation, {**asdict(settings), "cpus": cpus, "par": par,
                                           "load": settings.load()}, report)


def run_coffee_lab(implementations: List[str], cpus: List[int], *, par: Optional[List[int]] = None,
                   settings: CoffeeSettings = CoffeeSettings(), predict: bool = False,
                   runtimes: Optional[List[str]] = None, distribution: bool = False,
                   command: Optional[str] = None, progress: Optional[Progress] = None,
                   announce: Optional[Callable[[Measuring], None]] = None) -> dict:
    """Every implementation at every CPU count (and customer count, default as
    many as CPUs; and runtime, default the settings' one), measured and, with
    `predict`, simulated from its model (the same prediction beside every
    runtime: the model knows none): one experiment record. Ctrl-C keeps what
    finished and marks it interrupted. `announce` is told how long the measuring
    will take, once the settings are checked and before it starts."""
    from ..experiment.record import add_scenario, new_record
    from .predict import closed_models_only, coffee_model, predict_coffee, stage_ms

    for implementation in implementations:
        check_implementation(implementation, "implementations")
    every = [replace(settings, runtime=runtime) for runtime in runtimes or [settings.runtime]]
    for each in every:
        each.check()
    if len({each.runtime for each in every}) < len(every):
        raise OptionError("runtime", "each runtime once", value=",".join(runtimes or []))
    for k in cpus:
        LIMITS["cpus"].check(k)
    for p in par or []:
        LIMITS["par"].check(p)
    pars: List[Optional[int]] = list(par) if par else [None]
    models = {}
    if predict:
        stage_ms(settings)
        if settings.rate_per_s is not None:
            raise closed_models_only()
        for implementation in implementations:
            models[implementation] = coffee_model(implementation, pars[0])[1] if len(pars) == 1 \
                else coffee_model(implementation, None)[1]
    sweep = {"cpus": cpus, **({"par": pars} if par and len(pars) > 1 else {}),
             **({"runtime": [each.runtime for each in every]} if len(every) > 1 else {})}
    record = new_record(title="brewput lab: the coffee shop measured on this machine"
                              + (", beside its models" if predict else ""),
                        command=command, models=models, sweep=sweep)
    plan = [(i, k, p) for i in implementations for k in cpus for p in pars]
    total = len(plan) * len(every) * (2 if predict else 1)
    if announce:
        announce(coffee_measuring(len(plan) * len(every), settings))
    try:
        for implementation, k, p in plan:
            label = f"{implementation} on {k} cpu{'s' if k > 1 else ''}"
            predicted = None
            for each in every:
                params = {"cpus": k, **({"par": p} if "par" in sweep else {}),
                          **({"runtime": each.runtime} if "runtime" in sweep else {})}
                if progress:
                    progress(len(record["scenarios"]), total, f"measuring {label}"
                             + (f" ({each.runtime})" if "runtime" in sweep else ""))
                measured = measure_coffee(implementation, k, p, each, distribution=distribution)
                add_scenario(record, implementation, "lab", params, measured)
                if progress:
                    progress(len(record["scenarios"]), total, f"measured {label}")
                if predict:
                    if progress:
                        progress(len(record["scenarios"]), total, f"simulating {label}")
                    predicted = predicted or predict_coffee(implementation, k, p, settings)
                    add_scenario(record, implementation, "simulate", params, predicted)
                    if progress:
                        progress(len(record["scenarios"]), total, f"simulated {label}")
    except KeyboardInterrupt:
        record["interrupted"] = True
    if progress:
        progress(len(record["scenarios"]), total, "done")
    return record

