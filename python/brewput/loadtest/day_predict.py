"""`brewput load --day MODEL --predict MODEL`: the model's day solved and
simulated, interval by interval, beside what each interval measured.

The prediction is the model's own day (usually the same file as --day): its
intervals must be the run's, and its class's rate the one the load followed
(each interval's mean rate, to rounding), else it would predict another day.
`solve` answers the day by its day methods (analytic/timevarying: the exact
transient where it is exact, each interval marked), `simulate` by replications
of the day, each interval's mean with its 95 % interval. Both give the wait of
the customers who arrived in an interval; the measured figure is the response
time from the intended start, so the prediction is the wait plus the mean
service time (exact for the mean: the service drawn is independent of the wait
it follows; an interval about the simulated wait is one about the response,
moved by a constant). A percentile of the response is not the wait's plus a
constant: none is predicted per interval.
"""
from __future__ import annotations

from typing import Dict, List, Mapping

import numpy as np

from ..errors import BrewputError, OptionError
from ..units import SECONDS
from .day import DayLoad
from .predict import FIGURES, add_errors

#: Replications of the simulated day: its intervals' means within a few percent at moderate load.
REPLICATIONS = 30
#: How far the prediction's interval edges and mean rates may be from the run's (relative).
SAME_DAY = 1e-9


def predicted_day(path: str, params: Mapping[str, object], day: DayLoad) -> tuple:
    """The model at `path` checked against the run's `day`: (model, class, its
    mean service time in ms), or an OptionError naming --predict."""
    from ..model import load

    try:
        model = load(path).with_params(**params) if params else load(path)
    except BrewputError as e:
        raise OptionError("predict", str(e), value=path) from None
    if model.day is None:
        raise OptionError(("predict", "day"), "with --day the model must have a day: block too (its intervals "
                                              "are predicted one by one)", value=path)
    if day.speedup != 1:
        from .speedup import compressed

        try:
            model = compressed(model, day.speedup)
        except (BrewputError, ValueError) as e:
            raise OptionError(("predict", "speedup"), f"its day sped up: {e}", value=path) from None
    name = day.job_class if day.job_class in model.classes else None
    if name is None or model.classes[name].population is not None:
        raise OptionError("predict", f"expected an open class {day.job_class!r}, the class --day follows",
                          value=path)
    unit = SECONDS[model.time_unit]
    edges = model.day.timeline.edges * unit
    first = day.spans[:len(day.labels)]  # the first day's intervals (every day's are the same)
    run_edges = np.array([first[0]["start_seconds"]] + [s["end_seconds"] for s in first])
    if edges.size != run_edges.size or not np.allclose(edges, run_edges, rtol=SAME_DAY, atol=0):
        raise OptionError(("predict", "day"), "its day's intervals are not the run's: give the --day model's day",
                          value=path)
    job = model.classes[name]
    from ..model import timeline

    rate = job.day_rate if job.time_varying else timeline.Constant(float(job.rate or 0.0),
                                                                   length=model.day.length, repeat=model.day.repeat)
    means = rate.interval_means(model.day.timeline.edges) / unit
    run_means = np.array([s["target_rate"] for s in first])
    if not np.allclose(means, run_means, rtol=SAME_DAY, atol=0):
        k = int(np.argmax(~np.isclose(means, run_means, rtol=SAME_DAY, atol=0)))
        raise OptionError(("predict", "day"), f"its class {name!r} arrives at {means[k]:g}/s in interval {k + 1}, "
                                              f"the run at {run_means[k]:g}/s: give the --day model's rate",
                          value=path)
    route = job.route
    step = route[0] if len(route) == 1 else None
    if step is None or getattr(step, "service", None) is None:
        raise OptionError("predict", f"through a day, its class {name!r} must visit one station with a service "
                                     "(the service the run measures)", value=path)
    return model, name, step.service.mean * unit * 1e3


def predict_day(path: str, params: Mapping[str, object], day: DayLoad, seed: int) -> dict:
    """{model, class, replications, intervals: a row per interval with `engines`:
    {solve: {mean, waiting_mean, exact, method} or {refused}, simulate: {mean,
    mean_ci, waiting_mean}}}; times in ms, means of the response (wait + mean service)."""
    from .. import simulate, solve

    model, name, service_ms = predicted_day(path, params, day)
    to_ms = SECONDS[model.time_unit] * 1e3
    answers: Dict[str, object] = {}
    for engine, run in (("solve", lambda: solve(model)),
                        ("simulate", lambda: simulate(model, seed=seed, replications=REPLICATIONS))):
        try:
            answers[engine] = run()
        except BrewputError as e:
            answers[engine] = str(e)
    rows: List[dict] = []
    for k, span in enumerate(day.spans[:len(day.labels)]):  # the first day's: every day is the model's
        engines = {}
        for engine, results in answers.items():
            if isinstance(results, str):
                engines[engine] = {"refused": results}
                continue
            figures = results["intervals"][k]["classes"][name]
            wait = figures["waiting_time"]
            shown = {f: None for f in FIGURES}
            shown["waiting_mean"] = None if wait.get("mean") is None else wait["mean"] * to_ms
            shown["mean"] = None if shown["waiting_mean"] is None else shown["waiting_mean"] + service_ms
            if wait.get("mean_ci") is not None:
                shown["mean_ci"] = [x * to_ms + service_ms for x in wait["mean_ci"]]
            for key in ("exact", "method"):
                if key in figures:
                    shown[key] = figures[key]
            engines[engine] = shown
        rows.append({"start_seconds": span["start_seconds"], "end_seconds": span["end_seconds"],
                     "rate": span["target_rate"], "steady": span["steady"], "label": day.labels[k],
                     "engines": engines})
    present = {station: jobs for station, jobs in model.day.at_start.items() if jobs}
    warnings = [f"the model's day starts with {jobs} job(s) at {station} (at_start); the service measured "
                "started empty" for station, jobs in present.items()]
    return {"model": path, "class": name, "service_mean": service_ms, "replications": REPLICATIONS,
            "note": "response = the wait of those arriving in the interval + the mean service time", "intervals": rows,
            "warnings": warnings}


def beside_day(path: str, params: Mapping[str, object], day: DayLoad, seed: int, results: dict) -> dict:
    """`predict_day`, each engine's figures with their relative errors against each
    interval's measured (the results' `intervals`)."""
    predicted = predict_day(path, params, day, seed)
    for row, interval in zip(predicted["intervals"], results["intervals"]):
        add_errors(interval["classes"]["request"]["response_time"], row["engines"])
    return predicted
