"""The Python API for notebooks: brewput.sweep returns an experiment record,
brewput.table makes a record or one results dict a pandas table (tidy or flat),
each checked against the engines' own numbers and a closed form."""
import math

import pandas
import pytest

import brewput
from brewput.bundled import EXAMPLES
from brewput.experiment.record import save

MMC = EXAMPLES / "mmc.yaml"  # M/M/3, arrivals 2.7/s, service exp(1): Erlang C


def erlang_c_response(c: int, rate: float, mean_service: float) -> float:
    """Mean response time of an M/M/c queue, from the Erlang C formula."""
    load = rate * mean_service
    rho = load / c
    tail = load ** c / math.factorial(c) / (1 - rho)
    waiting_probability = tail / (sum(load ** k / math.factorial(k) for k in range(c)) + tail)
    return mean_service + waiting_probability * mean_service / (c * (1 - rho))


def leaves(figures, prefix=""):
    """Every number of a results dict's figures, by the tidy table's names."""
    for key, value in figures.items():
        if isinstance(value, dict):
            yield from leaves(value, prefix + key + "_")
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and not key.endswith("_ci"):
            yield prefix + key, value, figures.get(key + "_ci")


def test_the_tidy_table_of_one_result_holds_every_figure_with_its_interval_and_unit():
    res = brewput.simulate(MMC, customers=5000, replications=3)
    tidy = brewput.table(res)
    assert list(tidy.columns) == ["scenario", "model", "engine", "kind", "name", "figure", "value", "ci_low",
                                  "ci_high", "unit"]
    expected = [(kind, name, figure, value, ci)
                for key, kind in (("classes", "class"), ("stations", "station"), ("resources", "resource"))
                for name, figures in res[key].items()
                # a station's classes block: with one class it is the station's own figures, not repeated
                for figure, value, ci in leaves({k: v for k, v in figures.items() if k != "classes"})]
    assert len(tidy) == len(expected)
    for row, (kind, name, figure, value, ci) in zip(tidy.itertuples(), expected):
        assert (row.kind, row.name, row.figure, row.value) == (kind, name, figure, value)
        if ci is None:
            assert math.isnan(row.ci_low) and math.isnan(row.ci_high)
        else:
            assert [row.ci_low, row.ci_high] == ci
    unit = dict(zip(tidy.name + " " + tidy.figure, tidy.unit))
    assert unit["customer throughput"] == "/s" and unit["desk throughput"] == "/s"
    assert unit["customer response_time_p95"] == "s" and unit["desk response_time"] == "s"
    for counted in ("customer completed", "customer lost", "desk utilization", "desk queue_length"):
        assert pandas.isna(unit[counted]), counted


def test_units_follow_the_model_s_time_unit():
    res = brewput.simulate(EXAMPLES / "coffee" / "finelocking.yaml", params={"cpus": 2}, customers=2000,
                           replications=2)
    tidy = brewput.table(res)
    latte = tidy[tidy.name == "latte"].set_index("figure")
    assert latte.unit["throughput"] == "/ms" and latte.unit["response_time_mean"] == "ms"
    assert latte.value["throughput"] == res["classes"]["latte"]["throughput"]
    assert set(tidy[tidy.kind == "resource"].unit.isna()) == {True}


def test_the_flat_table_of_one_result_has_its_time_unit_and_whole_counts(tmp_path):
    res = brewput.simulate(MMC, customers=5000, replications=2)
    flat = brewput.table(res, tidy=False)
    assert list(flat.kind) == ["class", "station"] and set(flat.time_unit) == {"s"}
    customer = flat.iloc[0]
    assert customer.completed == res["classes"]["customer"]["completed"]
    assert str(flat.completed.dtype) == "Int64" and str(flat.lost.dtype) == "Int64"
    assert customer.throughput == res["classes"]["customer"]["throughput"]
    csv = save(brewput.sweep(MMC, {"c": [3, 4]}, customers=5000, replications=2, workers=1), tmp_path / "r.csv")
    header, first = csv.read_text().splitlines()[:2]
    cells = dict(zip(header.split(","), first.split(",")))
    assert cells["time_unit"] == "s" and cells["completed"].isdigit()  # 10000, not 10000.0


def test_a_solve_sweep_is_the_engine_s_numbers_at_each_value_and_erlang_c():
    record = brewput.sweep(MMC, {"c": range(3, 6)}, engine="solve")
    assert record["brewput"] == "experiment" and record["sweep"] == {"c": [3, 4, 5]}
    tidy = brewput.table(record)
    assert list(tidy.columns[:4]) == ["scenario", "model", "engine", "c"]
    for scenario, c in zip(record["scenarios"], (3, 4, 5)):
        alone = brewput.solve(MMC, params={"c": c})
        assert scenario["params"] == {"c": c} and scenario["results"] == alone
        mean = tidy[(tidy.c == c) & (tidy.name == "customer") & (tidy.figure == "response_time_mean")].value
        assert mean.item() == pytest.approx(erlang_c_response(c, 2.7, 1.0), rel=1e-9)


def test_a_simulated_sweep_equals_each_scenario_simulated_alone():
    record = brewput.sweep(MMC, {"c": "3..4", "rate": [1.5, 2.7]}, customers=4000, replications=2, seed=5,
                           workers=2)
    assert [s["params"] for s in record["scenarios"]] == [
        {"c": 3, "rate": 1.5}, {"c": 3, "rate": 2.7}, {"c": 4, "rate": 1.5}, {"c": 4, "rate": 2.7}]
    for scenario in record["scenarios"]:
        alone = brewput.simulate(MMC, params=scenario["params"], customers=4000, replications=2, seed=5)
        assert scenario["results"]["classes"] == alone["classes"]
    flat = brewput.table(record, tidy=False)
    assert len(flat) == 8 and list(flat.rate[flat.kind == "class"]) == [1.5, 2.7, 1.5, 2.7]


@pytest.mark.parametrize("call, message", [
    (lambda: brewput.sweep(MMC, {"c": [3]}, engine="magic"), "engine: expected one of simulate, solve"),
    (lambda: brewput.sweep(MMC, {"c": []}, engine="solve"), "sweep c:"),
    (lambda: brewput.sweep(MMC, {"c": "3..x"}, engine="solve"), "sweep c:"),
    (lambda: brewput.sweep(MMC, {"nosuch": [1]}, engine="solve"), "nosuch"),
    (lambda: brewput.table({"what": 1}), "expected an experiment record or a results dict"),
    (lambda: brewput.table(42), "expected an experiment record or a results dict .*, got int"),
    (lambda: brewput.table(42, tidy=False), "expected an experiment record or a results dict .*, got int"),
    (lambda: brewput.sweep(MMC, "c", engine="solve"), r"values: expected a mapping of params .*, got str"),
    (lambda: brewput.sweep(MMC, [("c", [3])], engine="solve"), r"values: expected a mapping .*, got list"),
])
def test_bad_calls_raise_one_brewput_error(call, message):
    with pytest.raises(brewput.BrewputError, match=message):
        call()
