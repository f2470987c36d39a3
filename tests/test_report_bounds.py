"""A simulate-only sweep keeps each scenario's asymptotic bounds where the
analytic layer answers the model, and the report draws them: checked against
the closed form worked out by hand from the model's demands, against the
simulated throughput, and absent where solve refuses the model."""
from functools import lru_cache
from pathlib import Path

import pytest

import brewput
from brewput.experiment.record_schema import check_record
from brewput.report.charts import charts
from brewput.report.interactive import figure

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
USERS = [1, 4, 8, 16]


@lru_cache(maxsize=None)
def simulated_sweep(model: str, swept: tuple) -> dict:
    """`brewput simulate MODEL --sweep ...` without solve, the way the CLI runs it."""
    name, values = swept
    return brewput.sweep(str(EXAMPLES / model), {name: list(values)}, "simulate",
                         customers=4000, replications=3, seed=5, workers=1)


def throughput_chart(record):
    return next(chart for chart in charts(record) if chart.name == "throughput")


def test_a_simulated_sweep_of_the_central_server_carries_the_closed_form_bounds():
    # Demands per job: cpu 10 visits x 2 ms, disk1 6 x 3 ms, disk2 3 x 5 ms; think 100 ms.
    # D = 53 ms, D_max = 20 ms (cpu), Z = 100 ms: X(N) <= min(N / (D + Z), 1 / D_max),
    # and X(N) >= N / (N D + Z).
    record = simulated_sweep("central-server.yaml", ("users", tuple(USERS)))
    check_record(record, "the sweep's record")  # the record's schema takes bounds on simulate results
    assert [s["engine"] for s in record["scenarios"]] == ["simulate"] * len(USERS)
    for s, n in zip(record["scenarios"], USERS):
        bound = s["results"]["bounds"]["job"]
        assert bound["bottleneck"] == "cpu" and bound["max_demand"] == pytest.approx(20.0)
        assert bound["demand"] == pytest.approx(53.0) and bound["delay"] == pytest.approx(100.0)
        assert bound["throughput"] == pytest.approx([n / (n * 53 + 100), min(n / 153, 1 / 20)])
        low, high = s["results"]["classes"]["job"]["throughput_ci"]
        if n == 1:  # one customer never waits: the bound is the truth, within the interval
            assert low <= bound["throughput"][1] <= high
        else:  # others ahead make it wait: the whole interval lies below the bound
            assert high < bound["throughput"][1]


def test_the_throughput_chart_of_a_simulated_sweep_draws_the_bounds():
    record = simulated_sweep("central-server.yaml", ("users", tuple(USERS)))
    chart = throughput_chart(record)
    bound = next(line for line in chart.panels[0].items if line.label == "central-server bound")
    assert bound.dash == "dot" and bound.x == USERS
    assert bound.y == pytest.approx([min(n / 153, 1 / 20) * 1000 for n in USERS])  # jobs per second
    simulated = next(line for line in chart.panels[0].items if line.label == "central-server")
    assert all(y <= b * 1.001 for y, b in zip(simulated.y, bound.y))
    traces = [t for t in figure(chart).data if t.name == "central-server bound"]
    assert len(traces) == 1 and traces[0].line.dash == "dot"
    assert list(traces[0].y) == pytest.approx(bound.y)


def test_an_open_model_is_bounded_by_its_servers():
    # M/M/c with mean service 1 s: the desk passes at most c customers per second.
    record = simulated_sweep("mmc.yaml", ("c", (3, 4)))
    for s, c in zip(record["scenarios"], (3, 4)):
        bound = s["results"]["bounds"]["customer"]
        assert bound["max_throughput"] == pytest.approx(c) and bound["throughput"] is None
    line = next(line for line in throughput_chart(record).panels[0].items if line.label == "mmc bound")
    assert line.y == pytest.approx([3.0, 4.0])


def test_no_bounds_where_solve_refuses_the_model():
    # A coffee shop that forks while its steps hold a server and CPU tokens: no analytic method covers it.
    with pytest.raises(brewput.BrewputError):
        brewput.solve(str(EXAMPLES / "coffee" / "parsteam.yaml"))
    record = simulated_sweep("coffee/parsteam.yaml", ("cpus", (1, 2)))
    assert len(record["scenarios"]) == 2 and not record["failed"]
    assert all("bounds" not in s["results"] for s in record["scenarios"])
    assert not any(line.label.endswith("bound") for line in throughput_chart(record).panels[0].items)
