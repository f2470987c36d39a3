"""`brewput lab pool`: seed 003's thread-pool sizing. `tasks` CPU-bound tasks
of `work` each, all submitted at once, on a fixed pool of k threads or on a
thread per task, measured and beside the model: a station of `cpus`
processor-sharing servers (the OS time-slices runnable threads over the
CPUs) that a task enters only with one of k `threads` tokens. The run is one
batch, so makespan is the last task's completion and throughput is
tasks / makespan, measured and predicted alike."""
from __future__ import annotations

from typing import Callable, List, Optional

import yaml

from ..engine.simulate import simulate
from ..errors import BrewputError
from ..model import Model
from ..units import rate_in, time_in
from . import native
from .options import LIMITS
from .results import HARNESS, SHOWN, SPECTRUM, busy_machine_warning, interval, others_share, times, with_intervals
from .work import Measuring, pool_measuring

PER_TASK = "thread-per-task"
POOL = "pool"


def _check(tasks: int, work_ms: float, threads: Optional[int], cpus: int, repetitions: int = 1,
           nice: Optional[int] = None) -> None:
    """Every setting within its field's bounds (lab/options.py)."""
    for field, value in (("tasks", tasks), ("work_ms", work_ms), ("cpus", cpus), ("repetitions", repetitions),
                         ("threads", threads), ("nice", nice)):
        if value is not None:
            LIMITS[field].check(value)


def _label(threads: Optional[int]) -> str:
    return PER_TASK if threads is None else POOL


def measure_pool(tasks: int, work_ms: float, threads: Optional[int], cpus: int, repetitions: int = 3,
                 nice: Optional[int] = None, *, distribution: bool = False) -> dict:
    """Measures one shape (`threads=None`: a thread per task); results schema, class `task`."""
    _check(tasks, work_ms, threads, cpus, repetitions, nice)
    run = {"tasks": tasks, "work_us": time_in(work_ms, "ms", HARNESS), "threads": threads, "cpus": cpus,
           "repetitions": repetitions, "percentiles": list(SPECTRUM),
           "distribution": distribution, "nice": nice}
    report = native.call("lab_pool", run)
    if report["cancelled"]:
        raise KeyboardInterrupt
    reps = report["repetitions"]
    makespan, makespan_ci = interval([time_in(r["makespan_s"], "s", SHOWN) for r in reps])
    throughput, throughput_ci = interval([rate_in(r["throughput_per_s"], "s", SHOWN) for r in reps])
    utilization, utilization_ci = interval([r["utilization"] for r in reps])
    task = {"throughput": throughput, "throughput_ci": throughput_ci, "makespan": makespan,
            "makespan_ci": makespan_ci,
            "response_time": with_intervals(times(report["latency"]), [r["latency"] for r in reps]),
            "completed": report["latency"]["count"], "lost": 0}
    return {"model": _label(threads), "engine": "lab", "method": "measured", "time_unit": SHOWN,
            "params": {"threads": tasks if threads is None else threads, "cpus": report["cpus"]},
            "settings": {"tasks": tasks, "work_ms": work_ms, "repetitions": repetitions,
                         "repetitions_done": len(reps)},
            "classes": {"task": task}, "stations": {},
            "repetitions": [{"makespan": time_in(r["makespan_s"], "s", SHOWN), "utilization": r["utilization"],
                             "others_utilization": others_share(r, report["cpus"])} for r in reps],
            "resources": {"cpu": {"utilization": utilization, "utilization_ci": utilization_ci}},
            "warnings": list(report["warnings"]) + busy_machine_warning(reps, report["cpus"])}


def pool_model(tasks: int, work_ms: float, threads: Optional[int], cpus: int) -> dict:
    """The model document: one batch of `tasks` tasks arriving together (every
    customer thinks once, for a long time, then runs its task)."""
    batch_at = 10.0 * tasks * work_ms
    return {
        "brewput": 1,
        "name": f"{tasks} CPU-bound tasks on " + (f"a pool of {threads} threads" if threads else "a thread each"),
        "time_unit": "ms",
        "resources": {"threads": tasks if threads is None else threads},
        "stations": {"cpus": {"servers": cpus, "discipline": "ps"}},
        "classes": {"task": {"population": tasks, "think": batch_at,
                             "route": [{"station": "cpus", "service": work_ms, "uses": ["threads"]}]}},
    }


def predict_pool(tasks: int, work_ms: float, threads: Optional[int], cpus: int) -> dict:
    """The model's batch, simulated: makespan is the largest response time."""
    _check(tasks, work_ms, threads, cpus)
    doc = pool_model(tasks, work_ms, threads, cpus)
    batch_at = doc["classes"]["task"]["think"]
    # Stop before anyone thinks again: every task of the one batch is done by then.
    res = simulate(Model.from_dict(doc), horizon=batch_at + 2 * tasks * work_ms, warmup=0, replications=1)
    task = res["classes"]["task"]
    if task["completed"] != tasks:
        raise BrewputError(f"pool model: {task['completed']} of {tasks} tasks finished (engine bug?)")
    makespan = task["response_time"]["max"]
    task.update(throughput=tasks / makespan, throughput_ci=None, makespan=makespan, makespan_ci=None)
    # The engine averages stations and resources over its whole horizon, mostly
    # the wait before the batch: over the batch itself the CPUs did all the work
    # in the makespan.
    res["stations"] = {}
    res["resources"] = {"cpu": {"utilization": tasks * work_ms / (makespan * cpus), "utilization_ci": None}}
    res["model"] = _label(threads)
    res["params"] = {"threads": tasks if threads is None else threads, "cpus": cpus}
    return res


def run_pool_lab(tasks: int, work_ms: float, threads: List[int], cpus: int, *, repetitions: int = 3,
                 nice: Optional[int] = None, distribution: bool = False,
                 command: Optional[str] = None,
                 progress: Optional[Callable[[int, int, str], None]] = None,
                 announce: Optional[Callable[[Measuring], None]] = None) -> dict:
    """Each pool size and a thread per task, measured and predicted: one record.
    `announce` is told how long the measuring will take, once the settings are
    checked and before it starts."""
    from ..experiment.record import add_scenario, new_record

    for k in threads:
        _check(tasks, work_ms, k, cpus, repetitions, nice)
    if announce:
        announce(pool_measuring(tasks, work_ms, threads, cpus, repetitions))
    shapes: List[Optional[int]] = list(threads) + [None]
    models = {label: {"file": None, "text": yaml.safe_dump(pool_model(tasks, work_ms, k, cpus), sort_keys=False)}
              for label, k in ((POOL, threads[0]), (PER_TASK, None))}
    record = new_record(title=f"Thread-pool sizing: {tasks} tasks of {work_ms:g} ms on {cpus} CPUs",
                        command=command, models=models, sweep={"threads": list(threads) + [tasks]})
    total = 2 * len(shapes)
    try:
        for k in shapes:
            what = f"a pool of {k}" if k else "a thread per task"
            params = {"threads": tasks if k is None else k}
            if progress:
                progress(len(record["scenarios"]), total, f"measuring {what}")
            add_scenario(record, _label(k), "lab", params, measure_pool(tasks, work_ms, k, cpus, repetitions, nice,
                                                                       distribution=distribution))
            add_scenario(record, _label(k), "simulate", params, predict_pool(tasks, work_ms, k, cpus))
            if progress:
                progress(len(record["scenarios"]), total, f"measured and modelled {what}")
    except KeyboardInterrupt:
        record["interrupted"] = True
    return record

