"""The lab's settings in one place (lab/options.py), for the command line and the
Python API alike; its interval (the engine's Student-t) against scipy; its
.hgrm files against its own percentiles; the Linux gate; and outputs that fail
after measuring losing nothing."""
import inspect
import math
import re
import types

import pytest

from brewput.cli.common import user_message
from brewput.errors import BrewputError, OptionError
from brewput.lab import CoffeeSettings, measure_coffee, measure_pool, run_coffee_lab
from brewput.lab import native, options
from brewput.lab.results import interval

TINY = CoffeeSettings(duration_ms=30, warmup_ms=5, repetitions=1)


@pytest.mark.parametrize("parse, field, text, value", [
    (options.time_ms, "duration_ms", "2s", 2000.0),
    (options.time_ms, "duration_ms", "1h", 3600e3),
    (options.time_ms, "grind_ms", "250us", 0.25),
    (options.time_ms, "grind_ms", "0ms", 0.0),
    (options.time_ms, "warmup_ms", "1.5e2 ms", 150.0),
    (options.rate_per_s, "rate_per_s", "150", 150.0),
    (options.whole_number, "nice", "-20", -20),
    (options.whole_number, "queue", "0", 0),
    (options.whole_numbers, "cpus", "1..3,5,2", [1, 2, 3, 5]),
])
def test_good_values_parse_to_what_they_say(parse, field, text, value):
    assert parse(field, text) == value


@pytest.mark.parametrize("parse, field, text, message", [
    (options.time_ms, "grind_ms", "1e30ms", "--grind 1e30ms: expected 0 or a time from 1us to 10s"),
    (options.time_ms, "duration_ms", "1e400s", "--dur 1e400s: expected a time from 1ms to 1h"),
    (options.time_ms, "duration_ms", "1e-30s", "--dur 1e-30s: expected a time from 1ms to 1h"),
    (options.time_ms, "work_ms", "-1ms", "--work -1ms: expected a time from 1us to 10s"),
    (options.time_ms, "stall_ms", "nan", "--stall nan: expected a time with a unit"),
    (options.rate_per_s, "rate_per_s", "1e-300", "--rate 1e-300: expected a rate from 0.001 to 10,000,000 per second"),
    (options.rate_per_s, "rate_per_s", "inf", "--rate inf: expected a rate"),
    (options.rate_per_s, "rate_per_s", "nan", "--rate nan: expected a rate"),
    (options.whole_number, "repetitions", "2.5", "--repetitions 2.5: expected a whole number from 1 to 1,000"),
    (options.whole_number, "queue", "1000001", "--queue 1000001: expected a whole number from 0 to 1,000,000"),
    (options.whole_numbers, "par", "1..10000000000000", "--par 1..10000000000000: expected whole numbers from 1"),
    (options.whole_numbers, "threads", "", "--threads : expected whole numbers like 2"),
])
def test_bad_values_are_one_error_naming_the_field_and_the_text(parse, field, text, message):
    """`message` is the command line's wording; the API names the field instead."""
    with pytest.raises(OptionError) as e:
        parse(field, text)
    assert e.value.fields == (field,)
    assert user_message(e.value).startswith(message)
    assert str(e.value).startswith(f"{field} {text}: " + message.split(": ", 1)[1])


def test_every_bound_is_stated_in_its_message_and_holds_at_its_ends():
    for limit in options.LIMITS.values():
        assert limit.check(limit.low) == limit.low and limit.check(limit.high) == limit.high
        for outside in ([limit.low - 1, limit.high + 1] if limit.kind == "count"
                        else [limit.low / 2 if limit.low > 0 else -1, limit.high * 2, math.nan, math.inf]):
            if limit.off and outside == 0:
                continue
            refused = "^" + re.escape(f"{limit.field} ") + ".*" + re.escape(limit.expected())
            with pytest.raises(OptionError, match=refused):
                limit.check(outside)


@pytest.mark.parametrize("settings, message", [
    (CoffeeSettings(duration_ms=1e33), "duration_ms 1e+33ms: expected a time from 1ms to 1h"),
    (CoffeeSettings(grind_ms=math.inf), "grind_ms infms"),
    (CoffeeSettings(rate_per_s=1e-300), "rate_per_s 1e-300: expected a rate"),
    (CoffeeSettings(rate_per_s=math.nan), "rate_per_s nan: expected a rate"),
    (CoffeeSettings(repetitions=0), "repetitions 0: expected a whole number from 1 to 1,000"),
    (CoffeeSettings(repetitions=2.0), "repetitions 2.0: expected a whole number"),
    (CoffeeSettings(queue=-1), "queue -1"),
    (CoffeeSettings(nice=20), "nice 20"),
    (CoffeeSettings(stall_ms=1e12, stall_every=3), "stall_ms 1e+12ms"),
    (CoffeeSettings(stall_ms=5), "stall_ms 5ms: needs stall_every N"),
    (CoffeeSettings(stall_every=0), "stall_every 0"),
    (CoffeeSettings(seed=-1), "seed -1: expected a whole number from 0"),
    (CoffeeSettings(arrivals="bursty"), "arrivals bursty"),
])
def test_the_python_api_is_held_to_the_same_bounds_before_measuring(settings, message):
    with pytest.raises(OptionError, match="^" + re.escape(message)):
        measure_coffee("ideal", 1, settings=settings)


def test_the_api_checks_cpus_customers_and_the_pool_too():
    with pytest.raises(OptionError, match="^cpus 0: "):
        measure_coffee("ideal", 0, settings=TINY)
    with pytest.raises(OptionError, match="^par 5000: "):
        run_coffee_lab(["ideal"], [1], par=[5000], settings=TINY)
    with pytest.raises(OptionError, match="^implementations latte-9: unknown implementation"):
        run_coffee_lab(["latte-9"], [1], settings=TINY)
    with pytest.raises(OptionError, match="^implementation multi-0: expected multi-N"):
        measure_coffee("multi-0", 1, settings=TINY)
    with pytest.raises(OptionError, match=re.escape("work_ms 1e+30ms: expected a time from 1us to 10s")):
        measure_pool(10, 1e30, 1, 1)
    with pytest.raises(OptionError, match="^repetitions 0: "):
        measure_pool(10, 1.0, 1, 1, repetitions=0)


@pytest.mark.parametrize("settings, field, message", [
    (CoffeeSettings(grind_ms=1e30), "grind_ms", "--grind 1e+30ms: expected 0 or a time from 1us to 10s"),
    (CoffeeSettings(duration_ms=0.5), "duration_ms", "--dur 0.5ms: expected a time from 1ms to 1h"),
    (CoffeeSettings(rate_per_s=0), "rate_per_s", "--rate 0: expected a rate"),
    (CoffeeSettings(stall_ms=5), "stall_ms", "--stall 5ms: needs --stall-every N (which orders stall)"),
    (CoffeeSettings(stall_every=0), "stall_every", "--stall-every 0: expected a whole number from 1"),
    (CoffeeSettings(grind_ms=1, jitter_ms=3), "jitter_ms", "--jitter 3ms: at most twice the shortest stage"),
])
def test_the_command_line_words_the_apis_fields_as_its_options(settings, field, message):
    with pytest.raises(OptionError) as e:
        settings.check()
    assert e.value.fields == (field,) and "--" not in str(e.value)
    assert user_message(e.value).startswith(message)


@pytest.mark.parametrize("values", [[1.0, 2.0], [3.0, 3.5, 2.5, 4.0], [10.0 + i % 7 for i in range(30)]])
def test_the_interval_is_students_t_at_the_engines_level(values):
    from scipy import stats

    mean, (low, high) = interval(values)
    n = len(values)
    half = stats.t.ppf(0.975, n - 1) * stats.tstd(values) / math.sqrt(n)
    assert mean == pytest.approx(sum(values) / n)
    assert (low, high) == pytest.approx((mean - half, mean + half), rel=1e-12)
    assert interval([5.0]) == (5.0, None) and interval([]) == (None, None)


def test_without_the_native_lab_the_command_says_it_needs_linux(monkeypatch):
    monkeypatch.setattr(native, "_native", types.SimpleNamespace())
    with pytest.raises(BrewputError, match="brewput lab: needs Linux"):
        native.require_lab()
    with pytest.raises(BrewputError, match="needs Linux"):
        measure_coffee("ideal", 1, settings=TINY)


def _hgrm(path):
    """The rows (value, percentile, total count) and footer of an .hgrm file."""
    rows, footer = [], {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if line.startswith("#["):
            footer.update(re.findall(r"(\w[\w ]*?)\s*=\s*([-\d.e+]+)", line))
        elif len(fields) in (3, 4) and fields[0] != "Value":
            rows.append((float(fields[0]), float(fields[1]), int(fields[2])))
    return rows, footer


def test_hgrm_files_hold_the_measured_distribution(tmp_path):
    from brewput.report.hgrm import write_hgrm

    record = run_coffee_lab(["locking"], [1], par=[3], distribution=True,
                            settings=CoffeeSettings(duration_ms=200, warmup_ms=20, repetitions=2, jitter_ms=1))
    (path,) = write_hgrm(record, tmp_path)
    rows, footer = _hgrm(path)
    latency = record["scenarios"][0]["results"]["classes"]["latte"]["response_time"]
    assert int(footer["Total count"]) == latency["count"] > 10
    assert all(a[0] <= b[0] and a[1] < b[1] and a[2] <= b[2] for a, b in zip(rows, rows[1:]))
    assert rows[0][1] == 0 and rows[-1][1] == 1 and rows[-1][2] == latency["count"]
    # p50 is a reporting level of the file; p99 lies between the two levels
    # around it. Values print to three significant digits, the histogram's own.
    (p50_row,) = [value for value, p, _ in rows if p == 0.5]
    assert p50_row == pytest.approx(latency["p50"], rel=1e-3)
    above = next(i for i, (_, p, _) in enumerate(rows) if p >= 0.99)
    assert rows[above - 1][0] * (1 - 1e-3) <= latency["p99"] <= rows[above][0] * (1 + 1e-3)
    assert float(footer["Max"]) == pytest.approx(latency["max"], rel=1e-3)
    assert float(footer["Mean"]) == pytest.approx(latency["mean"], rel=1e-3)


def test_an_output_that_fails_after_measuring_loses_no_measurement(tmp_path, monkeypatch, capsys):
    import click
    import typer

    from brewput.cli.lab import finish_lab
    from brewput.experiment import record as record_module
    from brewput.lab.show import print_coffee

    record = run_coffee_lab(["ideal"], [1], settings=TINY)

    def refuse(record, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(record_module, "save", refuse)
    target = tmp_path / "lab.json"
    with pytest.raises((typer.Exit, click.exceptions.Exit)) as stopped:
        finish_lab(record, target, None, None, False, print_coffee)
    assert stopped.value.exit_code == 2
    shown = capsys.readouterr()
    assert "Throughput (lattes per second)" in shown.out and "ideal" in shown.out
    assert str(target) in shown.err and "No space left on device" in shown.err


@pytest.mark.parametrize("command", ["coffee", "pool"])
def test_the_lab_commands_say_in_one_line_that_they_need_linux(monkeypatch, capsys, command):
    import click
    import typer

    from brewput.cli import lab as lab_cli

    monkeypatch.setattr(native, "_native", types.SimpleNamespace())
    run = lab_cli.lab_coffee if command == "coffee" else lab_cli.lab_pool
    # Every option at its default: the gate comes before anything is parsed or measured.
    defaults = {name: param.default.default for name, param in inspect.signature(run).parameters.items()}
    with pytest.raises((typer.Exit, click.exceptions.Exit)) as stopped:
        run(**defaults)
    assert stopped.value.exit_code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "brewput lab: needs Linux" in lines[0]
