"""The lab as the engine of a factorial experiment: the coffee shop's kitchen
measured on this machine's CPUs at each run's factor values, each observation a
measurement of its own (one repetition), so that their spread is the machine's
noise the effects are judged against."""
from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Sequence

from ..errors import BrewputError, OptionError
from .doe import Factor, Measure, parse_factor_texts

#: A factor's name -> the CoffeeSettings field it sets (times in ms), or a count of the run.
SETTINGS = {"grind": "grind_ms", "press": "press_ms", "steam": "steam_ms", "latte": "latte_ms",
            "jitter": "jitter_ms"}
COUNTS = ("cpus", "par")
NAMES = COUNTS + tuple(SETTINGS)


class Parts:
    """What a lab measurement's figures belong to: the one class, `latte`, and no station."""
    classes = {"latte": None}
    stations: Dict[str, None] = {}


def parse_lab_factors(texts: Sequence[str], implementation: str, settings) -> List[Factor]:
    """`cpus=1,2`, `jitter=0,0.5` (ms): each level checked as the lab checks it."""
    from ..lab.options import LIMITS, machine_cpus

    def check(name: str, level: float, text: str) -> None:
        if name not in NAMES:
            raise BrewputError(f"--factor {text}: the lab's factors are {', '.join(NAMES)} (times in ms)")
        if name == "cpus" and isinstance(level, int) and level > machine_cpus():
            raise BrewputError(f"--factor {text}: this machine has {machine_cpus()} CPUs")
        try:
            _settings(settings, {name: level}).check()
            if name in COUNTS:
                LIMITS[name].check(level)
        except OptionError as e:
            raise BrewputError(f"--factor {name}={level}: {e.problem_worded()}") from None

    return parse_factor_texts(texts, check, example="cpus=1,2")


def _settings(settings, values: Dict[str, float]):
    return replace(settings, **{SETTINGS[n]: float(v) for n, v in values.items() if n in SETTINGS})


def measured(implementation: str, settings, cpus: int) -> Measure:
    """Each observation one measurement (one repetition) of the kitchen at the
    run's values, on `cpus` CPUs unless the CPUs are a factor."""
    from ..lab.coffee import measure_coffee

    once = replace(settings, repetitions=1)

    def measure(values: Dict[str, float], k: int) -> dict:
        cpus_now = int(values.get("cpus", cpus))
        par = int(values["par"]) if "par" in values else None
        return measure_coffee(implementation, cpus_now, par, _settings(once, values))

    return measure
