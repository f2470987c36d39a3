"""Days of work are announced before they start (engine/work.py): the estimate
counts the engine's events from the model, a run over a minute is said on
stderr with its estimate, one over a day is refused in one line unless --yes."""
import signal
import subprocess
import sys
import time

import pytest
import yaml

from brewput import Model
from brewput.engine.simulate import estimate
from brewput.engine.work import EVENTS_PER_SECOND, REFUSE_BEYOND, SAY_BEYOND, check_work, Work
from brewput.errors import BrewputError

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

MM1 = {"brewput": 1, "name": "mm1", "stations": {"s": {"servers": 1}},
       "classes": {"c": {"rate": 0.5, "route": [{"station": "s", "service": "exp(1)"}]}}}
# A route that loops with probability 0.9999999: ten million visits per customer on average.
LOOP = """brewput: 1
name: loop
params: {c: 1, d: 1}
stations:
  s: {servers: '${c}', buffer: '${100 * d}'}
classes:
  c: {rate: 1.0e-7, route: [{id: a, station: s, service: exp(1.0e-9), next: {a: 0.9999999, exit: 1.0e-7}}]}
"""
TWO = """brewput: 1
name: two
params: {c: 2, d: 2}
stations:
  s: {servers: '${c}'}
  t: {servers: '${d}'}
classes:
  k: {rate: 1, route: [{station: s, service: exp(1.5)}, {station: t, service: exp(1)}]}
"""


def test_the_events_of_a_run_are_its_customers_arrivals_and_visits():
    work = estimate(MM1, customers=1_000_000, replications=4, threads=1)
    # 10 % more customers warm up first; each arrives and ends one visit
    assert work.events == pytest.approx(1_100_000 * 4 * 2)
    assert work.seconds == pytest.approx(work.events / EVENTS_PER_SECOND)
    assert estimate(MM1, customers=1_000_000, replications=4, threads=2).seconds == pytest.approx(work.seconds / 2)


def test_a_horizon_counts_the_most_customers_the_model_lets_through():
    work = estimate(MM1, horizon=1000, warmup=0, replications=1, threads=1)
    assert work.events == pytest.approx(0.5 * 1000 * 2)


def test_a_route_that_loops_costs_its_visits(tmp_path):
    (tmp_path / "loop.yaml").write_text(LOOP)
    work = estimate(tmp_path / "loop.yaml", customers=100_000, replications=1, threads=1)
    assert work.events == pytest.approx(110_000 * (1 + 1e7), rel=1e-6)


def test_check_says_beyond_a_minute_and_refuses_beyond_a_day():
    assert check_work(Work(1e6, SAY_BEYOND / 2), "m.yaml", yes=False) is None
    said = check_work(Work(1e9, SAY_BEYOND * 2), "m.yaml", yes=False)
    assert said.startswith("m.yaml needs about 2 minutes (1e+09 engine events)")
    with pytest.raises(BrewputError, match=r"^m.yaml needs about 2 days .* more than a day; .* --yes"):
        check_work(Work(1e12, 2 * REFUSE_BEYOND), "m.yaml", yes=False)
    assert check_work(Work(1e12, 2 * REFUSE_BEYOND), "m.yaml", yes=True).startswith("m.yaml needs about 2 days")


def brewput(*args, cwd):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=60)


@pytest.mark.parametrize("argv", [
    ["simulate", "two.yaml", "--customers", "4000000000", "--replications", "1000"],
    ["simulate", "loop.yaml", "--customers", "100000"],
    ["simulate", "two.yaml", "--sweep", "c=2..1001", "--sweep", "d=2..1001", "--customers", "1000000"],
    ["doe", "loop.yaml", "--factor", "c=1,2", "--factor", "d=1,2", "--customers", "100000", "--replications", "2"],
    ["compare", "two.yaml", "--customers", "4000000000", "--replications", "1000"],
    ["demo", "--customers", "4000000000", "--replications", "1000", "--workers", "1"],
], ids=["customers-and-replications", "looping-route", "a-million-scenarios", "doe", "compare", "demo"])
def test_days_of_work_are_refused_in_one_line_before_anything_runs(tmp_path, argv):
    (tmp_path / "two.yaml").write_text(TWO)
    (tmp_path / "loop.yaml").write_text(LOOP)
    started = time.monotonic()
    run = brewput(*argv, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert time.monotonic() - started < 30
    (line,) = run.stderr.splitlines()
    # the coffee study loses customers at once: paced by a pilot run, not counted in events
    basis = "pilot run" if argv[0] == "demo" else "engine events"
    assert "more than a day" in line and "--yes" in line and basis in line
    assert run.stdout == ""


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_a_long_run_says_its_estimate_first_and_yes_starts_a_refused_one(tmp_path, command):
    (tmp_path / "two.yaml").write_text(TWO)
    for argv, estimate_words in ((["--customers", "400000000"], "minutes"),
                                 (["--customers", "4000000000", "--replications", "1000", "--yes"], "days")):
        run = subprocess.Popen([sys.executable, "-m", "brewput", command, "two.yaml", *argv], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = run.stderr.readline()
        run.send_signal(signal.SIGINT)
        _, rest = run.communicate(timeout=30)
        assert first.startswith("warning: two.yaml needs about ") and estimate_words in first, first + rest
        assert run.returncode == 130, rest


@pytest.mark.parametrize("argv, advice", [
    (["lab", "pool", "--tasks", "10000", "--work", "10s", "--repetitions", "1000"], "fewer tasks"),
    (["lab", "coffee", "--dur", "1000s", "--repetitions", "100", "--cpus", "1"], "shorter --dur"),
], ids=["pool", "coffee"])
def test_days_of_measuring_are_refused_in_one_line_before_anything_runs(tmp_path, argv, advice):
    run = brewput(*argv, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith("error: the lab needs about ") and "of measuring, more than a day" in line
    assert advice in line and "--yes" in line and run.stdout == ""


def test_the_pool_lab_measures_what_its_estimate_says():
    # a pool of 1 and a thread per task, 20 tasks of 50 ms on one CPU: 1 s each, 2 s in all.
    # On an idle CPU that is the makespans; on a busy one they grow, so the CPU time the
    # tasks burnt (utilization x makespan on 1 CPU) is what is compared
    from brewput.lab import run_pool_lab
    from brewput.lab.work import pool_measuring

    said = pool_measuring(20, 50.0, [1], cpus=1, repetitions=1)
    assert said.seconds == pytest.approx(2.0)
    record = run_pool_lab(20, 50.0, [1], 1, repetitions=1)
    measured = [s["results"] for s in record["scenarios"] if s["engine"] == "lab"]
    assert len(measured) == 2 and {r["time_unit"] for r in measured} == {"ms"}
    burnt = sum(r["repetitions"][0]["makespan"] * r["repetitions"][0]["utilization"] for r in measured) / 1000
    assert burnt == pytest.approx(said.seconds, rel=0.1)


def test_the_coffee_lab_estimate_is_its_windows():
    from brewput.lab.settings import CoffeeSettings
    from brewput.lab.work import coffee_measuring

    settings = CoffeeSettings(duration_ms=2000, warmup_ms=500, repetitions=3)
    assert coffee_measuring(4, settings).seconds == pytest.approx(4 * 3 * 2.5)
    assert check_work(coffee_measuring(40, settings), "the lab", yes=False) == \
        "the lab needs about 5 minutes of measuring (Ctrl-C stops it)"


def test_a_plan_counts_the_options_it_simulates_and_the_confirmations():
    from brewput import load
    from brewput.planning.plan import plan_work
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples"
    # Erlang C answers every option (no simulation); confirming the chosen option and the
    # one below it simulates 10 replications of 110,000 customers (warm-up included), twice
    solved = plan_work(load(examples / "planning" / "call-centre.yaml"), {"agents": list(range(10, 21))}, {},
                       confirm=True)
    assert solved.events == pytest.approx(2 * 10 * 110_000 * 2)
    assert plan_work(load(examples / "planning" / "call-centre.yaml"), {"agents": [14]}, {"calls": [100, 200]},
                     confirm=False).events == 0
    # join the shortest of three queues: solve refuses, so each option is simulated (3 x 22,000 customers)
    jsq = Model.from_dict(yaml.safe_load(JSQ))
    options = plan_work(jsq, {"rate": [1.0, 1.5, 2.0, 2.5]}, {}, confirm=False)
    each = [estimate(jsq.with_params(rate=r), customers=20_000, replications=3, threads=1).events
            for r in (1.0, 1.5, 2.0, 2.5)]
    assert options.events == pytest.approx(sum(each))


JSQ = """brewput: 1
name: join the shortest of three
params: {rate: 2}
stations: {a: {}, b: {}, c: {}}
classes:
  job:
    rate: '${rate}'
    route:
      - dispatch: {a: [{station: a, service: exp(1)}], b: [{station: b, service: exp(1)}],
                   c: [{station: c, service: exp(1)}]}
        policy: shortest_queue
"""


def test_a_long_plan_says_its_estimate_first(tmp_path):
    # 9,500 options, each simulated (solve does not answer join the shortest queue)
    (tmp_path / "jsq.yaml").write_text(JSQ)
    run = subprocess.Popen([sys.executable, "-m", "brewput", "plan", "jsq.yaml", "--decide", "rate=1:2.9:0.0002",
                            "--slo", "throughput>=0.9"], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = run.stderr.readline()
    run.send_signal(signal.SIGINT)
    _, rest = run.communicate(timeout=30)
    assert first.startswith("warning: the plan needs about ") and "minutes" in first, first + rest
    assert run.returncode == 130, rest


RENEGING = """brewput: 1
name: reneging at once
stations: {s: {}}
classes:
  c: {population: 50, think: 1.0e-12, route: [{station: s, service: exp(1), patience: 1.0e-12}]}
"""


def test_customers_lost_at_once_are_paced_by_a_pilot(tmp_path):
    # 50 closed customers who think for 1e-12 and give up after 1e-12: each completion costs
    # some 1e13 lost cycles, which no count of visits foresees; the pilot completes almost none
    from brewput.engine.pilot import Paced

    (tmp_path / "r.yaml").write_text(RENEGING)
    work = estimate(str(tmp_path / "r.yaml"), customers=1000, replications=1, threads=1)
    assert isinstance(work, Paced) and work.completed < 10 and work.seconds > 1000 * 0.1 / 10
    run = brewput("simulate", "r.yaml", cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.splitlines()
    assert "pilot run" in line and "more than a day" in line and "--yes" in line


def test_a_model_that_loses_some_keeps_its_count_when_the_pilot_ends_in_time():
    # M/M/1/3: the pilot of 2,000 customers ends well within its 0.1 s, so the count stands
    lossy = {**MM1, "stations": {"s": {"servers": 1, "buffer": 2}}}
    assert isinstance(estimate(lossy, customers=2_000, replications=1, threads=1), Work)


def test_a_sweep_of_models_that_lose_customers_is_paced_too(tmp_path):
    # a sweep samples each scenario's estimate; a paced one makes the sweep's line a pace
    (tmp_path / "r.yaml").write_text(RENEGING.replace("population: 50", "population: '${n}'").replace(
        "name: reneging at once", "name: reneging at once\nparams: {n: 50}"))
    run = brewput("simulate", "r.yaml", "--sweep", "n=40,50", cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith("error: 2 scenarios needs ") and "pilot run" in line and "more than a day" in line
