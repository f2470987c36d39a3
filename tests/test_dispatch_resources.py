"""A `shared` dispatch whose branches' steps hold resource tokens (`uses:`).

With tokens a job may wait at a station beside a free server (for its tokens,
or until the event is settled): that server is as good as taken, so the shared
queue must not send a second job there. It used to, and every job went to the
first branch: two single servers from one queue, 100 customers, gave a
throughput of 1 where 2 is the truth, and 99 customers were parked for good
before the first station (a mean response of 1 where Little's law says 50).

Truths: with exact service times, closed forms (a shared FIFO queue in front of
equal pipelines: every customer waits the same, N / throughput); with
exponential ones, the birth-death chain of a small closed population (the
machine-repairman model), solved here; and for examples/coffee/multipipe-2 the
CPUs' limit of 4 ms of CPU a latte and Little's law. Tolerances: conftest.py's
rule, with a floor of 0.1 % where everything is exact."""
import pytest

import markov
from conftest import EXAMPLES, check, simulated, widened

EXACT = 1e-3


def pipelines(tmp_path, branches, steps, buffer, service="1", population=100, think="0"):
    """`branches` pipelines of `steps` one-server stations behind one shared
    queue, each step holding one of ${cpus} CPUs."""
    names = [[f"s{b}_{k}" for k in range(steps)] for b in range(branches)]
    stations = "".join(f"  {name}: {{servers: 1, buffer: {buffer}}}\n" for line in names for name in line)
    branch = "".join(
        f"          b{b}: [{', '.join(f'{{station: {name}, service: {service}, uses: [cpu]}}' for name in line)}]\n"
        for b, line in enumerate(names))
    path = tmp_path / f"pipelines-{branches}x{steps}-{buffer}-{population}.yaml"
    path.write_text(f"""brewput: 1
name: shared dispatch, steps holding cpus
params:
  cpus: 100
resources:
  cpu: ${{cpus}}
stations:
{stations}classes:
  c:
    population: {population}
    think: {think}
    route:
      - dispatch:
{branch}        policy: shared
""")
    return path


def run(path, cpus, replications=5, customers=20_000):
    return simulated(path, (("cpus", cpus),), seed=11, replications=replications, customers=customers)


@pytest.mark.parametrize("branches, steps, buffer, population, cpus, throughput", [
    (2, 1, 0, 100, 100, 2.0),     # the report's case: two single servers, CPUs to spare
    (2, 1, 0, 100, 1, 1.0),       # one CPU: it is the one server
    (3, 2, 5, 60, 100, 3.0),      # three pipelines of two steps, buffers the shared queue leaves empty
    (3, 2, 5, 60, 2, 1.0),        # two CPUs for 2 time units of CPU a customer
    (4, 3, 0, 40, 100, 4.0),
])
def test_exact_services_from_one_shared_queue(tmp_path, branches, steps, buffer, population, cpus, throughput):
    res = run(pipelines(tmp_path, branches, steps, buffer, population=population), cpus)
    c = ("classes", "c")
    check(res, (*c, "throughput"), throughput, floor=EXACT)
    # Little's law with no think time: N = throughput x response.
    check(res, (*c, "response_time", "mean"), population / throughput, floor=EXACT)
    if cpus >= branches * steps:
        # first come, first served at one pace: every customer waits as long
        check(res, (*c, "response_time", "p99"), population / throughput, floor=EXACT)
        for station in res["stations"].values():
            assert station["utilization"] == pytest.approx(1.0, rel=EXACT)


def test_typed_servers_at_the_head_of_the_branches(tmp_path):
    # Four servers of three types in two stations, every step holding a CPU:
    # 4 a time unit, each of 100 customers waiting for the 99 ahead (Little).
    path = pipelines(tmp_path, 2, 1, 0)
    text = path.read_text().replace("s0_0: {servers: 1,", "s0_0: {servers: {m: 1, n: 1},")
    path.write_text(text.replace("s1_0: {servers: 1,", "s1_0: {servers: {m: 2},"))
    assert path.read_text().count("{m:") == 2
    res = run(path, 100)
    c = ("classes", "c")
    check(res, (*c, "throughput"), 4.0, floor=EXACT)
    check(res, (*c, "response_time", "p99"), 100 / 4.0, floor=EXACT)


def machine_repairman(population, servers, think_rate, service_rate):
    """Throughput, mean response (arrival to completion) and mean busy servers
    of a closed population thinking at `think_rate` each, served by `servers`
    exponential servers of `service_rate`: the chain of customers not thinking."""
    states = range(population + 1)
    rows, cols, rates = [], [], []
    for n in states:
        if n < population:
            rows.append(n), cols.append(n + 1), rates.append((population - n) * think_rate)
        if n:
            rows.append(n), cols.append(n - 1), rates.append(min(n, servers) * service_rate)
    pi = markov.stationary(rows, cols, rates, population + 1)
    busy = sum(p * min(n, servers) for n, p in zip(states, pi))
    throughput = busy * service_rate
    present = sum(p * n for n, p in zip(states, pi))
    return throughput, present / throughput, busy


@pytest.mark.parametrize("think", [0.0, 2.0])
@pytest.mark.parametrize("cpus", [1, 2])
def test_exponential_servers_behind_a_shared_queue_match_their_markov_chain(tmp_path, cpus, think):
    # Two exp(1) servers: with one CPU token they are one server, with two an
    # M/M/2 (closed). With no think time all 3 customers always want service.
    servers = min(cpus, 2)
    if think:
        throughput, response, busy = machine_repairman(3, servers, 1 / think, 1.0)
    else:
        throughput, response, busy = servers, 3 / servers, servers
    path = pipelines(tmp_path, 2, 1, "inf", service="exp(1)", population=3, think=f"exp({think})" if think else "0")
    res = run(path, cpus, replications=10, customers=100_000)
    c = ("classes", "c")
    check(res, (*c, "throughput"), throughput, max_rel_width=0.02)
    check(res, (*c, "response_time", "mean"), response, max_rel_width=0.02)
    check(res, ("resources", "cpu", "in_use"), busy, floor=0.0 if think else EXACT)


def test_multipipe_2_with_100_customers_runs_at_the_cpus_limit(tmp_path):
    # 4 ms of CPU a latte on 6 CPUs: at most 1.5 lattes/ms. A CPU may idle
    # while a pipeline is blocked (its grinder holding an order the full
    # espresso channel will not take), so a little below, but not by 1 %.
    text = (EXAMPLES / "coffee" / "multipipe-2.yaml").read_text()
    path = tmp_path / "multipipe-2-100.yaml"
    path.write_text(text.replace("population: ${cpus}", "population: 100"))
    assert "population: 100" in path.read_text()
    res = run(path, 6, customers=40_000)
    latte = ("classes", "latte")
    x, dx = widened(res, (*latte, "throughput"))
    assert x - dx <= 1.5, "above the CPUs' limit"
    assert x >= 0.99 * 1.5, f"{x} lattes/ms: CPUs left idle"
    # The stages are exact: every replication runs alike (an interval of width 0).
    check(res, ("resources", "cpu", "in_use"), 4 * x, resolution=4 * dx, floor=EXACT)
    # Little's law (no think time): 100 customers = throughput x response.
    check(res, (*latte, "response_time", "mean"), 100 / x, resolution=100 / x ** 2 * dx, floor=EXACT)
    # one shared FIFO queue: the median is about the mean (histograms: 3 digits)
    check(res, (*latte, "response_time", "p50"), 100 / 1.5, floor=0.01)
