"""The load engine in a study: the service the models describe, measured by
`brewput load` at each swept rate, beside the models' scenarios.

It runs here, after the models' scenarios and one rate at a time, never on an
executor: a measurement that shared the CPUs with simulations would measure
them. Rates rise, and the first rate at which a threshold breaks ends the
measuring (the record's `saturation`, as `brewput load --sweep` says it). Each
scenario's rate is its swept param in its model's time unit; scenarios of
several models at the same rate per second share one measurement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from ..errors import BrewputError
from ..units import SECONDS
from .runner import Scenario, params_text


CONNECT_TIMEOUT = 3.0  # seconds


@dataclass(frozen=True)
class Outcome:
    saturation: Optional[dict]  # {"rate": per second, "broken": [thresholds]}, or None
    interrupted: bool


def measure_rates(scenarios: List[Scenario], done: Dict[int, dict], failed: Dict[int, str],
                  tell: Callable[[Scenario], None]) -> Outcome:
    """Measures the load scenarios into `done` (results) and `failed` (why not),
    calling `tell` as each finishes."""
    options = scenarios[0].options  # one load section per study: the same for all
    by_rate: Dict[float, List[Scenario]] = {}
    for scenario in scenarios:
        per_second = scenario.params[options["rate"]] / SECONDS[scenario.base.time_unit]
        by_rate.setdefault(per_second, []).append(scenario)
    for rate in sorted(by_rate):
        at_rate = by_rate[rate]
        try:
            results = _measure(options, rate)
        except KeyboardInterrupt:
            return Outcome(saturation=None, interrupted=True)
        except BrewputError as e:
            for scenario in at_rate:
                failed[scenario.id] = f"{scenario.model} at {params_text(scenario.params)}: {e}"
            tell(at_rate[0])
            continue
        for scenario in at_rate:
            done[scenario.id] = results
        tell(at_rate[0])
        if results["load"]["interrupted"]:
            return Outcome(saturation=None, interrupted=True)
        broken = [t["threshold"] for t in results["load"]["thresholds"] if not t["held"]]
        if broken:
            return Outcome(saturation={"rate": rate, "broken": broken}, interrupted=False)
    return Outcome(saturation=None, interrupted=False)


def check_reachable(options: dict) -> None:
    """A URL target that cannot be connected to is refused before any scenario
    runs (as `brewput load` does before it sends), not found after the
    simulations; a command target is tried by its first request. (A TLS
    certificate the generator would refuse is found at the first rate.)"""
    import socket

    from ..loadtest import options as load_options

    if options["target"] is None:
        return
    target = load_options.http_target(options["target"])
    try:
        socket.create_connection((target.host, target.port), timeout=CONNECT_TIMEOUT).close()
    except OSError as e:
        raise BrewputError(f"load.target {target.url}: cannot connect to {target.host}:{target.port}: "
                           f"{e.strerror or e} (is the server running?)") from None


def _measure(options: dict, rate: float) -> dict:
    """One run at `rate` requests per second, in the results schema with its
    thresholds judged."""
    from ..loadtest import judge, measure, parse_threshold
    from ..loadtest.run import run_settings
    from ..loadtest import options as load_options
    from ..loadtest.results import to_results

    schedule = load_options.schedule(rate_text=repr(rate), arrivals=options["arrivals"], ramp_text=None,
                                     step_text=None, duration_text=f"{options['duration']!r}s", requests_text=None,
                                     warmup_text=f"{options['warmup']!r}s", seed=options["seed"])
    if options["target"] is not None:
        target = load_options.http_target(options["target"])
        method, request, _ = load_options.request(target, options["method"], options["headers"], options["body"],
                                                  options["cacert"], options["insecure"])
        name, kind, where = target.url, "http", target.settings(method, request)
    else:
        name, kind, where = options["exec"], "exec", load_options.exec_target(options["exec"])
    thresholds = [parse_threshold(text) for text in options["thresholds"]]
    settings = run_settings(where, schedule, connections=options["connections"],
                            max_in_flight=options["max_in_flight"], timeout_seconds=options["timeout"],
                            tick_seconds=options["tick"], thresholds=thresholds)
    results = to_results(measure(settings), target=name, method=kind, settings=settings)
    judge(thresholds, results)
    return results
