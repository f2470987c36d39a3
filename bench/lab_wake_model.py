"""Would one hand-off parameter predict the thread runtime? A wake delay added
to a discrete-event model of the coffee kitchens, beside the lab's measurements.

The thread runtime falls 16 to 25 % short of the coffee models at 2 CPUs, and
bench/lab_handoffs.py finds a kernel wake-up behind every hand-off (docs/lab.md,
"The thread runtime"). Before adding a wake delay `w` to the model language,
this tests whether one would predict the measurements. A SimPy model of five
kitchens (stations, buffers blocking after service, a CPU pool, a closed
population of one customer per CPU: the structure of examples/coffee/*.yaml) in
which a woken thread (a barista finding an order or freed from a send, a
customer handed its latte or the lock) holds its role for `w` without a CPU,
then queues for one. Which wake-ups pay `w`:

  every        every wake-up;
  waker_runs   only one whose waker keeps running (the woken thread needs the
               other CPU; a waker that sleeps hands its own CPU over at once);
  cpu_idle     only one made while a CPU besides the waker's is idle (the
               woken thread needs that CPU to take it).

Inputs, all from committed records: the measured lattes/s and median latency
from bench/lab_curves-threads.json (the lab's scenarios); `w` = the mean
scheduling delay per wake-up of linearpipe-0 in the thread runtime
(`delay_mean_ms`, averaged over the runs of bench/lab_handoffs.json); and, for
the per-kitchen variant, each kitchen's own mean from the same record (it holds
no delay samples, so only the mean; locking is not in it).

Checks: with no wake cost, the model against `brewput simulate` on
examples/coffee/*.yaml at noise 0, 0.5 and 1 ms; at 1 CPU, where the thread
runtime is within 1.1 % of today's models.

Each point simulates 20,000 ms, the first 2,000 dropped. A point with nothing
random (constant `w`, no noise) is one run; the others are seeds 1 to 5, whose
mean is recorded with its 95 % confidence half-width (Student t).

    nice -n 10 .venv/bin/python bench/lab_wake_model.py     # about 5 minutes on one core

Prints Markdown for docs/lab.md and writes bench/lab_wake_model.json.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import brewput
import simpy
from brewput.lab.table import median_ms, relative_error, throughput_per_s
from scipy import stats

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KITCHENS = ("linearpipe-0", "linearpipe-10", "splitpipe-1", "multipipe-2", "locking")
RULES = ("every", "waker_runs", "cpu_idle")
SHAPES = ("constant", "exponential")  # of the wake delay, with mean w
SWEEP_W_MS = (0.05, 0.1, 0.2, 0.3, 0.6, 1.0)
NOISES_MS = (0.0, 0.5, 1.0)
HORIZON_MS, WARMUP_MS = 20_000.0, 2_000.0
SEEDS = range(1, 6)
CROSSCHECK_CUSTOMERS = 200_000


class Station:
    """servers None: unlimited (the customer's own thread); buffer None: unlimited."""

    def __init__(self, env, name, servers, buffer, kind):
        self.name, self.kind = name, kind
        self.server = simpy.Resource(env, servers) if servers else None
        capacity = servers + buffer if servers and buffer is not None else None
        self.slots = simpy.Resource(env, capacity) if capacity else None
        # How the last job left its server: whoever waits for it next is woken by that.
        self.left_blocked = False
        self.left_waker_runs = False

    def idle(self) -> bool:
        return self.server.count < self.server.capacity and not self.server.queue


class Kitchen:
    def __init__(self, cpus, rule, w, shape, noise, seed):
        self.env = simpy.Environment()
        self.cpus = cpus
        self.cpu = simpy.Resource(self.env, cpus)
        self.rule, self.w, self.shape, self.noise = rule, w, shape, noise
        self.rng = random.Random(seed)
        self.done = []  # (finished at, response time)
        self.wakes = 0

    def station(self, name, servers, buffer, kind):
        return Station(self.env, name, servers, buffer, kind)

    def wake(self, waker_runs):
        """The delay a woken thread waits before it queues for a CPU."""
        self.wakes += 1
        if self.rule == "none":
            return 0.0
        if self.rule == "waker_runs" and not waker_runs:
            return 0.0
        # The waker has already given its CPU back: another is idle if fewer than cpus - 1 are taken.
        if self.rule == "cpu_idle" and self.cpu.count + len(self.cpu.queue) >= self.cpus - 1:
            return 0.0
        return self.w if self.shape == "constant" else self.rng.expovariate(1 / self.w)

    def burn(self, service, jittered=True):
        if jittered and self.noise:
            service += self.noise * (self.rng.random() - 0.5)
        with self.cpu.request() as request:
            yield request
            yield self.env.timeout(service)

    def pause(self, delay):
        if delay:
            yield self.env.timeout(delay)


def enter(kitchen, station):
    """A place at the station; the job still holds its previous server meanwhile (blocking after service)."""
    if station.slots is None:
        return None
    request = station.slots.request()
    yield request
    return request


def take_server(kitchen, station, waker_runs):
    """The station's server, and the wake delay the job then waits."""
    if station.server is None:  # the customer's own thread: woken if handed the latte by a barista
        return None, kitchen.wake(waker_runs) if station.kind == "counter" else 0.0
    was_idle = station.idle()
    request = station.server.request()
    yield request
    delay = 0.0
    if station.kind == "barista":
        if was_idle:  # the barista slept waiting for an order
            delay = kitchen.wake(waker_runs)
        elif station.left_blocked:  # the barista slept in a send, woken by its receiver
            delay = kitchen.wake(station.left_waker_runs)
    elif station.kind == "lock" and not was_idle:  # the customer slept in the lock's queue
        delay = kitchen.wake(station.left_waker_runs)
    return request, delay


def leave(station, server, slot, blocked, waker_runs):
    station.left_blocked, station.left_waker_runs = blocked, waker_runs
    if server is not None:
        station.server.release(server)
    if slot is not None:
        station.slots.release(slot)


def route(kitchen, steps):
    """Steps of (station, service, jittered) in turn; returns the last one still held:
    (station, server, slot)."""
    held, finished, waker_runs = None, None, False  # the customer hands its order on and sleeps
    for station, service, jittered in steps:
        slot = yield from enter(kitchen, station)
        if held:
            previous = held[0]
            if previous.kind == "barista":  # the barista handing on goes on if an order waits for it
                waker_runs = bool(previous.server.queue)
            elif previous.kind == "lock":  # the customer releasing goes on unless it must wait here
                waker_runs = station.server is None or station.idle()
            else:
                waker_runs = True
            leave(*held, kitchen.env.now > finished, waker_runs)
        server, delay = yield from take_server(kitchen, station, waker_runs)
        yield from kitchen.pause(delay)
        yield from kitchen.burn(service, jittered)
        held, finished = (station, server, slot), kitchen.env.now
    return held


def linear_pipeline(kitchen, buffer):
    grinder, espresso, steamer = (kitchen.station(name, 1, buffer, "barista") for name in ("grind", "press", "steam"))
    counter = kitchen.station("counter", None, None, "counter")

    def latte():
        held = yield from route(kitchen, [(grinder, 1, True), (espresso, 1, True), (steamer, 1, True),
                                          (counter, 1, False)])
        leave(*held, False, True)
    return latte


def split_pipeline(kitchen):
    grinder, espresso, steamer = (kitchen.station(name, 1, 1, "barista") for name in ("grind", "press", "steam"))

    def part(steps, arrived):
        held = yield from route(kitchen, steps)
        leave(*held, False, True)
        arrived.append((kitchen.env.now, held[0]))

    def latte():
        arrived = []
        yield (kitchen.env.process(part([(grinder, 1, True), (espresso, 1, True)], arrived))
               & kitchen.env.process(part([(steamer, 1, True)], arrived)))
        # the customer wakes with the last part; its barista goes on if an order waits for it
        last = max(arrived, key=lambda a: a[0])[1]
        yield from kitchen.pause(kitchen.wake(bool(last.server.queue)))
        yield from kitchen.burn(1, jittered=False)
    return latte


def two_pipelines(kitchen):
    """multipipe-2: two linear pipelines (buffers 0, 10, 10) whose grinders share one unbuffered order channel."""
    lines = [[kitchen.station(f"{name}_{x}", 1, 0 if name == "grind" else 10, "barista")
              for name in ("grind", "press", "steam")] for x in "ab"]
    free_grinders = simpy.Store(kitchen.env)
    left = {id(line): {"blocked": False, "waker_runs": False} for line in lines}
    for line in lines:
        free_grinders.put(line)

    def latte():
        a_grinder_waits = len(free_grinders.items) > 0
        line = yield free_grinders.get()
        grinder, espresso, steamer = line
        how = left[id(line)]
        if a_grinder_waits:  # the grinder slept waiting for an order
            delay = kitchen.wake(False)
        elif how["blocked"]:  # it slept in a send
            delay = kitchen.wake(how["waker_runs"])
        else:
            delay = 0.0
        yield from kitchen.pause(delay)
        yield from kitchen.burn(1)
        finished = kitchen.env.now
        slot = yield from enter(kitchen, espresso)
        how["blocked"] = kitchen.env.now > finished
        how["waker_runs"] = len(free_grinders.get_queue) > 0
        # free grinders are taken first come, first served; ties go to line a
        free_grinders.items.sort(key=lambda free: free[0].name)
        free_grinders.put(line)
        held = None
        for station in (espresso, steamer):
            if held:
                slot = yield from enter(kitchen, station)
                waker_runs = bool(held[0].server.queue)
                leave(*held, kitchen.env.now > finished, waker_runs)
            else:
                waker_runs = how["waker_runs"]
            server, delay = yield from take_server(kitchen, station, waker_runs)
            yield from kitchen.pause(delay)
            yield from kitchen.burn(1)
            held, finished = (station, server, slot), kitchen.env.now
        waker_runs = bool(steamer.server.queue)
        leave(*held, False, waker_runs)
        yield from kitchen.pause(kitchen.wake(waker_runs))  # the customer, handed its latte
        yield from kitchen.burn(1, jittered=False)
    return latte


def whole_kitchen_lock(kitchen):
    lock = kitchen.station("kitchen", 1, None, "lock")

    def latte():
        held = yield from route(kitchen, [(lock, 4, True)])
        # the customer comes straight back for the lock: it keeps running only if no one waits for it
        leave(*held, False, not lock.server.queue)
    return latte


def build(name, kitchen):
    if name.startswith("linearpipe-"):
        return linear_pipeline(kitchen, int(name.split("-")[1]))
    return {"splitpipe-1": split_pipeline, "multipipe-2": two_pipelines, "locking": whole_kitchen_lock}[name](kitchen)


def run_once(name, cpus, rule, w, shape, noise, seed):
    if name == "locking":  # one draw for four jittered stages, with their variance (as examples/coffee/locking.yaml)
        noise *= 3 ** 0.5
    kitchen = Kitchen(cpus, rule, w, shape, noise, seed)
    latte = build(name, kitchen)

    def customer():
        while True:
            ordered = kitchen.env.now
            yield kitchen.env.process(latte())
            kitchen.done.append((kitchen.env.now, kitchen.env.now - ordered))

    for _ in range(cpus):
        kitchen.env.process(customer())
    kitchen.env.run(until=HORIZON_MS)
    responses = [r for at, r in kitchen.done if at > WARMUP_MS]
    return {"lattes_per_s": 1e3 * len(responses) / (HORIZON_MS - WARMUP_MS),
            "median_ms": statistics.median(responses), "wakes_per_latte": kitchen.wakes / len(kitchen.done)}


def predict(name, cpus, rule, w=0.0, shape="constant", noise=0.0):
    """Mean over the seeds (one run when nothing is random), with 95 % half-widths."""
    random_run = noise > 0 or (rule != "none" and shape == "exponential")
    runs = [run_once(name, cpus, rule, w, shape, noise, seed) for seed in (SEEDS if random_run else [1])]
    point = {"kitchen": name, "cpus": cpus, "rule": rule, "w_ms": w, "shape": shape, "noise_ms": noise,
             "runs": len(runs)}
    for figure in runs[0]:
        values = [r[figure] for r in runs]
        point[figure] = statistics.fmean(values)
        point[figure + "_ci95"] = (stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
                                   if len(values) > 1 else 0.0)
    return point


def compared(point, measured):
    m = measured[(point["kitchen"], point["cpus"])]
    return {**point, "measured_lattes_per_s": m["lattes_per_s"], "measured_median_ms": m["median_ms"],
            "lattes_error": relative_error(m["lattes_per_s"], point["lattes_per_s"]),
            "median_error": relative_error(m["median_ms"], point["median_ms"])}


def measured_curves():
    record = json.loads((HERE / "lab_curves-threads.json").read_text())
    return {(s["model"], s["params"]["cpus"]): {"lattes_per_s": throughput_per_s(s["results"]),
                                                 "median_ms": median_ms(s["results"])}
            for s in record["scenarios"] if s["engine"] == "lab"}, record["command"]


def measured_delays():
    """Each kitchen's mean delay per wake-up in the thread runtime, per run and averaged."""
    rows = [r for r in json.loads((HERE / "lab_handoffs.json").read_text()) if r["runtime"] == "threads"]
    by_kitchen = {}
    for r in rows:
        by_kitchen.setdefault(r["implementation"], []).append(r["delay_mean_ms"])
    return {k: {"runs_ms": v, "mean_ms": statistics.fmean(v)} for k, v in by_kitchen.items()}


def crosscheck(name, noise):
    """The model without wake cost beside `brewput simulate` on the same kitchen's model file."""
    mine = predict(name, 2, "none", noise=noise)
    res = brewput.simulate(ROOT / "examples" / "coffee" / f"{name}.yaml", params={"cpus": 2, "noise": noise},
                           customers=CROSSCHECK_CUSTOMERS, seed=1)
    latte = res["classes"]["latte"]
    engine_lattes = throughput_per_s(res)
    return {**mine, "simulate_lattes_per_s": engine_lattes,
            "simulate_lattes_per_s_ci95": half_width(latte["throughput_ci"]) * engine_lattes / latte["throughput"],
            "simulate_median_ms": median_ms(res), "simulate_median_ms_ci95": half_width(latte["response_time"]["p50_ci"]),
            "lattes_difference": relative_error(mine["lattes_per_s"], engine_lattes),
            "median_difference": relative_error(mine["median_ms"], median_ms(res))}



def half_width(interval):
    return (interval[1] - interval[0]) / 2


def worst(points):
    return max(max(abs(p["lattes_error"]), abs(p["median_error"])) for p in points)


def best_w(sweep):
    """Per rule and shape, the swept w whose worst error over the kitchens (lattes/s or median) is least."""
    best = []
    for shape in SHAPES:
        for rule in RULES:
            by_w = {sw: worst([p for p in sweep if p["shape"] == shape and p["rule"] == rule and p["w_ms"] == sw])
                    for sw in SWEEP_W_MS}
            w = min(by_w, key=by_w.get)
            best.append({"shape": shape, "rule": rule, "w_ms": w, "worst_error": by_w[w]})
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    started = time.monotonic()
    measured, measured_command = measured_curves()
    delays = measured_delays()
    w = delays["linearpipe-0"]["mean_ms"]
    table = [compared(predict(k, cpus, rule, w, shape), measured)
             for shape in SHAPES for cpus in (2, 1) for k in KITCHENS for rule in RULES]
    sweep = [compared(predict(k, 2, rule, sw, shape), measured)
             for shape in SHAPES for rule in RULES for sw in SWEEP_W_MS for k in KITCHENS]
    own = [compared(predict(k, 2, "every", delays[k]["mean_ms"], shape), measured)
           for shape in SHAPES for k in KITCHENS if k in delays]
    checks = [crosscheck(k, noise) for noise in NOISES_MS for k in KITCHENS]
    record = {
        "what": "a wake delay w in a SimPy model of the coffee kitchens, beside the thread runtime's measurements",
        "command": "nice -n 10 .venv/bin/python bench/lab_wake_model.py",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "inputs": {"measured": "bench/lab_curves-threads.json, lab scenarios (" + measured_command + ")",
                   "w": "bench/lab_handoffs.json, linearpipe-0, threads, delay_mean_ms averaged over its runs",
                   "w_ms": w, "delay_mean_ms_by_kitchen": delays},
        "simulation": {"horizon_ms": HORIZON_MS, "warmup_ms": WARMUP_MS, "seeds": list(SEEDS),
                       "seeds_note": "one run where nothing is random (constant w, no noise); else the seeds' "
                                     "mean, with a 95 % Student-t half-width",
                       "crosscheck_customers": CROSSCHECK_CUSTOMERS},
        "errors": "(measured - predicted) / predicted; crosscheck differences (model - simulate) / simulate",
        "table": table, "sweep": sweep, "best_w": best_w(sweep), "own_mean_delay": own, "crosscheck": checks,
        "seconds": round(time.monotonic() - started),
    }
    (HERE / "lab_wake_model.json").write_text(json.dumps(record, indent=1) + "\n")
    report(record)


def report(record):
    w = record["inputs"]["w_ms"]
    print(f"`{record['command']}`, w = {w:.3f} ms, lattes/s predicted (measured's error), median ms after /:\n")
    for shape in SHAPES:
        for cpus in (2, 1):
            print(f"{shape} w, {cpus} CPU(s):\n")
            print("| implementation | measured | every wake-up pays w | only if the waker keeps running | "
                  "only if another CPU is idle |")
            print("|---|---:|---:|---:|---:|")
            for k in KITCHENS:
                cells = [p for p in record["table"] if p["kitchen"] == k and p["cpus"] == cpus and p["shape"] == shape]
                print(f"| {k} | {cells[0]['measured_lattes_per_s']:.0f} / {cells[0]['measured_median_ms']:.2f} | "
                      + " | ".join(f"{p['lattes_per_s']:.0f} ({100 * p['lattes_error']:+.1f} %) / "
                                   f"{p['median_ms']:.2f} ({100 * p['median_error']:+.1f} %)" for p in cells) + " |")
            print()
    print("Sweep, 2 CPUs: lattes/s per kitchen (" + ", ".join(KITCHENS) + "), worst |error|\n")
    for shape in SHAPES:
        for rule in RULES:
            cells = []
            for sw in SWEEP_W_MS:
                points = [p for p in record["sweep"] if p["shape"] == shape and p["rule"] == rule and p["w_ms"] == sw]
                cells.append(f"{sw}: " + " ".join(f"{p['lattes_per_s']:.0f}" for p in points)
                             + f" ({100 * worst(points):.0f} %)")
            print(f"- {shape} {rule}: " + "; ".join(cells))
    for b in record["best_w"]:
        print(f"- best {b['shape']} {b['rule']}: w {b['w_ms']} worst {100 * b['worst_error']:.1f} %")
    print("\nEach kitchen's own mean delay, every wake-up:\n")
    for p in record["own_mean_delay"]:
        print(f"- {p['shape']} {p['kitchen']} w {p['w_ms']:.3f}: {p['lattes_per_s']:.1f} "
              f"± {p['lattes_per_s_ci95']:.1f} ({100 * p['lattes_error']:+.1f} %), median {p['median_ms']:.3f} "
              f"± {p['median_ms_ci95']:.3f} ({100 * p['median_error']:+.1f} %)")
    print("\nNo wake cost, the model against `brewput simulate` (2 CPUs):\n")
    for p in record["crosscheck"]:
        print(f"- {p['kitchen']} noise {p['noise_ms']}: {p['lattes_per_s']:.2f} ± {p['lattes_per_s_ci95']:.2f} "
              f"vs {p['simulate_lattes_per_s']:.2f} ± {p['simulate_lattes_per_s_ci95']:.2f} ({100 * p['lattes_difference']:+.2f} %), median "
              f"{p['median_ms']:.3f} vs {p['simulate_median_ms']:.3f} ({100 * p['median_difference']:+.2f} %)")
    print(f"\n{record['seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
