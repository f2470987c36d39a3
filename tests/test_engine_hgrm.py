"""`.hgrm` files: each class's response-time percentile distribution, as
HdrHistogram's outputPercentileDistribution prints it (what wrk2 prints and
HdrHistogram's plotter reads), from `simulate(..., distribution=True)`."""
import math

import pytest

import brewput
from brewput import _native
from brewput.errors import BrewputError
from brewput.experiment.record import add_scenario, new_record
from brewput.report.hgrm import in_unit, write_hgrm
from conftest import EXAMPLES

SEED = 11
CUSTOMERS = 50_000


def parse(path):
    """(rows as (value, percentile, count, inverse or None), footer dict) of an .hgrm file."""
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"]
    assert lines[1] == ""
    rows, footer = [], {}
    for line in lines[2:]:
        if line.startswith("#["):
            for item in line.strip("#[]").split(","):
                key, value = item.split("=")
                footer[key.strip()] = float(value)
            continue
        fields = line.split()
        inverse = float(fields[3]) if len(fields) == 4 else None
        rows.append((float(fields[0]), float(fields[1]), int(fields[2]), inverse))
    return rows, footer


def hdr_levels():
    """HdrHistogram's reporting levels (percent) with 5 ticks per half distance."""
    level = 0.0
    while True:
        yield level
        halvings = int(math.log(100.0 / (100.0 - level)) / math.log(2))
        level += 100.0 / (5 * 2 ** (halvings + 1))


@pytest.fixture(scope="module")
def mm1():
    return brewput.simulate(str(EXAMPLES / "mmc.yaml"), params={"c": 1, "rate": 0.8}, seed=SEED,
                            replications=1, customers=CUSTOMERS, distribution=True)


@pytest.fixture(scope="module")
def mm1_file(mm1, tmp_path_factory):
    paths = write_hgrm(mm1, tmp_path_factory.mktemp("hgrm"))
    assert len(paths) == 1
    return paths[0]


def test_the_file_is_named_from_model_params_and_class(mm1, mm1_file):
    assert mm1_file.suffix == ".hgrm"
    assert "c=1" in mm1_file.name and "rate=0.8" in mm1_file.name and mm1_file.stem.endswith("customer")


def test_rows_are_monotone_and_end_at_100_percent(mm1, mm1_file):
    rows, _ = parse(mm1_file)
    assert len(rows) > 50
    for before, after in zip(rows, rows[1:]):
        assert before[0] <= after[0] and before[1] < after[1] and before[2] <= after[2]
    completed = mm1["classes"]["customer"]["completed"]
    assert rows[-1][1:3] == (1.0, completed) and rows[-1][3] is None
    assert all(inverse == pytest.approx(1 / (1 - p), abs=0.006) for _, p, _, inverse in rows[:-1])


def test_the_percentile_column_follows_the_histogram(mm1, mm1_file):
    """Every row's level is HdrHistogram's next reporting level, and its count is
    the first count to reach it (so the value is the level's percentile)."""
    rows, _ = parse(mm1_file)
    total = mm1["classes"]["customer"]["completed"]
    for (value, percentile, count, _), level in zip(rows[:-1], hdr_levels()):
        assert percentile == pytest.approx(level / 100, abs=1e-12)
        assert count >= percentile * total
    # a row from a new bucket means the buckets before it had not reached its level
    for (value, percentile, _, _), prev in zip(rows[1:-1], rows[:-2]):
        if value > prev[0]:
            assert prev[2] < percentile * total


def test_p50_and_p99_rows_match_the_results(mm1, mm1_file):
    rows, footer = parse(mm1_file)
    times = mm1["classes"]["customer"]["response_time"]
    decimals = 1e-3  # the file's three decimals
    half = next(r for r in rows if r[1] == 0.5)
    assert half[0] == pytest.approx(times["p50"], abs=decimals)
    # 0.99 is not a reporting level: p99 lies between the rows around it
    above = next(i for i, r in enumerate(rows) if r[1] >= 0.99)
    assert rows[above - 1][0] - decimals <= times["p99"] <= rows[above][0] + decimals
    assert footer["Max"] == pytest.approx(times["max"], abs=decimals)
    assert footer["Total count"] == mm1["classes"]["customer"]["completed"]
    assert footer["Mean"] == pytest.approx(times["mean"], rel=_native.RELATIVE_RESOLUTION)
    assert footer["SubBuckets"] == 1024 and footer["Buckets"] >= 1


def test_tiny_times_keep_three_significant_digits(tmp_path):
    model = tmp_path / "tiny.yaml"
    model.write_text("brewput: 1\nstations:\n  d: {servers: inf}\nclasses:\n  c:\n    rate: 1\n"
                     "    route:\n      - {station: d, service: 'gamma(1e-9, 2)'}\n")
    res = brewput.simulate(str(model), replications=1, customers=20_000, distribution=True)
    rows, _ = parse(write_hgrm(res, tmp_path / "out")[0])
    half = next(r for r in rows if r[1] == 0.5)
    assert half[0] == pytest.approx(res["classes"]["c"]["response_time"]["p50"], rel=2e-3)
    assert half[0] > 0


def test_a_record_gives_a_file_per_scenario_and_class(mm1, tmp_path):
    record = new_record(title="t")
    add_scenario(record, "mm1", "simulate", {"rate": 0.8}, mm1)
    add_scenario(record, "mm1", "simulate", {"rate": 0.5}, mm1)
    add_scenario(record, "mm1", "solve", {"rate": 0.5}, {"classes": {"customer": {"response_time": {"mean": 1}}}})
    names = sorted(p.name for p in write_hgrm(record, tmp_path))
    assert names == ["mm1-rate=0.5-customer.hgrm", "mm1-rate=0.8-customer.hgrm"]


def test_results_without_a_distribution_are_refused(tmp_path):
    res = brewput.simulate(str(EXAMPLES / "mmc.yaml"), replications=1, customers=1000)
    assert "distribution" not in res["classes"]["customer"]["response_time"]
    with pytest.raises(BrewputError, match="distribution"):
        write_hgrm(res, tmp_path)


def test_the_distribution_does_not_depend_on_the_threads():
    """Replications' histograms are added as they finish, in any order: counts
    add exactly, so the rows are the same bit for bit at any thread count."""
    runs = [brewput.simulate(str(EXAMPLES / "mmc.yaml"), seed=SEED, replications=6, customers=5000,
                             threads=threads, distribution=True) for threads in (1, 2, 6)]
    distributions = [r["classes"]["customer"]["response_time"]["distribution"] for r in runs]
    assert distributions[0] == distributions[1] == distributions[2]
    assert distributions[0]["total_count"] == runs[0]["classes"]["customer"]["completed"]


def test_a_folder_that_is_a_file_is_one_clear_error(mm1, tmp_path):
    (tmp_path / "taken").write_text("")
    with pytest.raises(BrewputError, match="cannot write the .hgrm file"):
        write_hgrm(mm1, tmp_path / "taken")


def test_a_measured_distribution_moves_to_the_shown_unit_values_only():
    # The lab's rows come in microseconds, the load's in seconds; both are shown in ms.
    lab = {"rows": [[1500.0, 0.0, 1], [2600.0, 1.0, 2]], "mean": 2050.0, "std_deviation": 550.0, "max": 2600.0,
           "total_count": 2, "buckets": 12, "sub_buckets": 2048}
    shown = in_unit(lab, "us", "ms")
    assert shown == {**lab, "rows": [[1.5, 0.0, 1], [2.6, 1.0, 2]], "mean": 2.05, "std_deviation": 0.55, "max": 2.6}
    assert list(shown) == list(lab), "the keys keep their order"
    assert in_unit({**lab, "rows": [[0.0015, 0.5, 1]], "max": 0.0015}, "s", "ms")["rows"] == [[1.5, 0.5, 1]]
