"""The model language for time (docs/model-language.md, "Time"): the day, rates
through the day, rotas and off_shift, parsed, refused with file:line, compiled
for the engine, and in the JSON Schema."""

import jsonschema
import numpy as np
import pytest
import yaml

import brewput
from brewput.errors import ModelError
from brewput.model.curve import Curve
from brewput.model.schema import json_schema

BASE = """\
brewput: 1
time_unit: min
day: DAY
stations:
  bar: STATION
classes:
  c:
    rate: RATE
    route: [{station: bar, service: exp(1)}]
"""
HOUR = "{length: 1h, interval: 15min}"


def text(day=HOUR, station="{servers: 2}", rate="1"):
    return BASE.replace("DAY", day).replace("STATION", station).replace("RATE", rate)


def load(tmp_path, **parts):
    path = tmp_path / "m.yaml"
    path.write_text(text(**parts))
    return brewput.load(path)


def refusal(tmp_path, **parts):
    with pytest.raises(ModelError) as caught:
        load(tmp_path, **parts)
    return str(caught.value).replace(str(tmp_path / "m.yaml"), "m.yaml")


@pytest.mark.parametrize("parts, told", [
    (dict(rate="[1, 2, 3]"), "m.yaml:8 classes.c.rate: a rate must give one value per interval: 4 (the day's "
                             "60 / 15), got 3"),
    (dict(day="{length: 1h, interval: 25min}"), "m.yaml:3 day.length: the length (60) must be a whole number of "
                                                "intervals (25); it is 2.4"),
    (dict(day="{interval: 15min}"), "m.yaml:3 day.length: missing required field"),
    (dict(day="{length: 1h, interval: 0}"), "m.yaml:3 day.interval: expected a positive time, got 0"),
    (dict(day="{length: 1 day, interval: 15min}"), "m.yaml:3 day.length: expected a time (a number in min, or "
                                                   "with a unit like 15min), got '1 day'"),
    (dict(station="{servers: [1, 2, -1, 1]}"), "m.yaml:5 stations.bar.servers[2]: expected a non-negative "
                                               "integer, got -1"),
    (dict(station="{servers: [1, 2]}"), "m.yaml:5 stations.bar.servers: a rota (servers) must give one value per "
                                        "interval: 4 (the day's 60 / 15), got 2"),
    (dict(station="{servers: [0, 0, 0, 0]}"), "m.yaml:5 stations.bar.servers: 0 servers in every interval: "
                                              "nobody would ever be served"),
    (dict(station="{servers: [1, 2, 1, 0]}"), "m.yaml:5 stations.bar.servers[3]: 0 servers in the last interval: "
                                              "customers still there at the day's end would never be served"),
    (dict(day="~", rate="[1, 2]"), "m.yaml:8 classes.c.rate: a rate that changes through the day needs a day: "
                                   "block (its length and interval)"),
    (dict(day="~", station="{servers: [1, 2]}"), "m.yaml:5 stations.bar.servers: a rota (servers) that changes "
                                                 "through the day needs a day: block (its length and interval)"),
    (dict(rate="{curve: 'sin(t) - 2'}"), "m.yaml:8 classes.c.rate.curve: curve 'sin(t) - 2' is negative at t = "),
    (dict(rate="{curve: 'exp(exp(t))'}"), "m.yaml:8 classes.c.rate.curve: curve is not a finite number at t = "),
    (dict(rate="{curve: 'open(t)'}"), "m.yaml:8 classes.c.rate.curve: 'open(t)' is not allowed in a curve (only "
                                      "numbers, t, pi, + - * / **, sin, cos, exp, min, max)"),
    (dict(rate="{linear: [[0, 1], [0, 2]]}"), "m.yaml:8 classes.c.rate.linear[1]: times must increase: 0 comes "
                                              "after 0"),
    (dict(rate="{linear: [[0, 1], [2h, 2]]}"), "m.yaml:8 classes.c.rate.linear[1]: a point at 120, after the "
                                               "day's end (60)"),
    (dict(rate="{curve: '1', linear: [[0, 1]]}"), "m.yaml:8 classes.c.rate: expected one of counts:, curve:, "
                                                  "linear: (a rate through the day)"),
    (dict(station="{servers: 2, off_shift: resume}"), "m.yaml:5 stations.bar.off_shift: off_shift: says what a "
                                                      "server going off shift does; this station has no rota"),
    (dict(station="{servers: [1, 1, 1, 1], off_shift: leave}"), "m.yaml:5 stations.bar.off_shift: expected one "
                                                                "of finish, resume, restart, got 'leave'"),
    (dict(station="{servers: [1, 1, 1, 1], buffer: 3}"), "m.yaml:5 stations.bar.buffer: a rota with a finite "
                                                         "buffer is not simulated yet"),
    (dict(day="{length: 1h, interval: 15min, at_start: {till: 2}}"), "m.yaml:3 day.at_start.till: unknown "
                                                                     "station 'till' (stations: bar)"),
    (dict(rate="[0, 0, 0, 0]"), "m.yaml:8 classes.c.rate: the rate is 0 all day: this class never arrives"),
    (dict(day="{length: 1h, interval: 15min, start: '25:00'}"), "m.yaml:3 day.start: expected a clock time like "
                                                                "\"06:00\" (quoted), got '25:00'"),
])
def test_each_field_is_refused_in_one_line_naming_file_line_and_field(tmp_path, parts, told):
    message = refusal(tmp_path, **parts)
    assert message.startswith(told), message
    assert "\n" not in message and "${" not in message  # the user's text, not the expression's inner form


def test_a_csv_of_counts_is_read_per_interval_and_its_errors_name_the_line(tmp_path):
    (tmp_path / "f.csv").write_text("slot,calls\n1,30\n2,60\n3,15\n4,0\n")
    model = load(tmp_path, rate="{counts: f.csv, column: calls}")
    assert model.classes["c"].rate.rates == (2.0, 4.0, 1.0, 0.0)  # counts / 15 min
    (tmp_path / "f.csv").write_text("slot,calls\n1,30\n2,x\n3,15\n4,0\n")
    assert refusal(tmp_path, rate="{counts: f.csv, column: calls}") == (
        "m.yaml:8 classes.c.rate.counts: f.csv line 3: expected a count >= 0 in column calls, got 'x'")
    assert refusal(tmp_path, rate="{counts: f.csv}").startswith(
        "m.yaml:8 classes.c.rate.counts: f.csv has 2 columns (slot, calls); say which with column:")


def test_a_day_compiles_its_rates_rotas_and_jobs_at_the_start(tmp_path):
    model = load(tmp_path, day="{start: '06:00', length: 1h, interval: 15min, at_start: {bar: 3}}",
                 station="{servers: [1, 3, 2, 1], off_shift: restart}",
                 rate="{linear: [[0, 1], [30min, 3]]}")
    compiled = model.compile()
    assert compiled["day"] == {"length": 60.0, "intervals": 4, "repeat": False,
                               "at_start": [{"class": 0, "step": 0, "jobs": 3}]}
    assert compiled["stations"][0]["rota"] == [1, 3, 2, 1] and compiled["stations"][0]["servers"] == 3
    assert compiled["stations"][0]["off_shift"] == "restart"
    source = compiled["classes"][0]["source"]
    assert source["kind"] == "varying" and source["linear"] == {"times": [0.0, 30.0], "rates": [1.0, 3.0]}
    assert source["bounds"] == [2.0, 3.0, 3.0, 3.0]  # the largest value on each interval, held after the end
    assert model.day.timeline.labels == ["06:00", "06:15", "06:30", "06:45"]
    assert model.classes["c"].interarrival.mean == pytest.approx(1 / 2.5)  # (1+3)/2 for 30 min, then 3
    assert {"day", "initial-jobs", "rota", "time-varying-rate", "off-shift-restart"} <= model.features()


def test_a_model_without_a_day_compiles_as_it_always_has(tmp_path):
    model = load(tmp_path, day="~")
    assert "day" not in model.compile() and "rota" not in model.compile()["stations"][0]
    assert model.features() == {"open-class", "fifo", "multi-server"}


def test_typed_servers_take_a_rota_per_type(tmp_path):
    model = load(tmp_path, station="{servers: {barista: [1, 2, 2, 1], cashier: 1}}")
    station = model.compile()["stations"][0]
    assert station["servers"] == 3
    assert station["server_types"] == [{"name": "barista", "count": 2, "rota": [1, 2, 2, 1]},
                                       {"name": "cashier", "count": 1}]


def postfix_value(tokens, t):
    """The postfix form evaluated by hand, as the engine reads it (docs/compiled-model.md)."""
    binary = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "**": np.power, "min": np.minimum,
              "max": np.maximum}
    stack = []
    for token in tokens:
        if token == "t":
            stack.append(t)
        elif isinstance(token, float):
            stack.append(np.full_like(t, token))
        elif token in ("neg", "sin", "cos", "exp"):
            stack.append({"neg": np.negative, "sin": np.sin, "cos": np.cos, "exp": np.exp}[token](stack.pop()))
        else:
            right = stack.pop()
            stack.append(binary[token](stack.pop(), right))
    (value,) = stack
    return value


@pytest.mark.parametrize("curve", ["100 + 60*sin(2*pi*t/1440)", "max(-t, 2, t/100) ** 2 - min(1, exp(0))",
                                   "-cos(t) + +3 / (1 + t**2)"])
def test_the_engines_postfix_form_of_a_curve_is_the_curve(curve):
    t = np.linspace(0, 1440, 97)
    assert postfix_value(Curve(curve).postfix(), t) == pytest.approx(Curve(curve).values(t), rel=1e-12)


def test_a_curve_takes_times_with_their_units_in_the_models_unit(tmp_path):
    model = load(tmp_path, rate="{curve: '2 + sin(2*pi*t/1h)'}")
    assert model.classes["c"].rate.text == "2 + sin(2*pi*t/60.0)"


def test_the_curve_bound_is_above_the_curve_everywhere(tmp_path):
    model = load(tmp_path, day="{length: 1h, interval: 15min}", rate="{curve: '2 + sin(2*pi*t/45min)'}")
    bounds = model.compile()["classes"][0]["source"]["bounds"]
    t = np.linspace(0, 60, 60001)
    values = 2 + np.sin(2 * np.pi * t / 45)
    for i, bound in enumerate(bounds):
        assert values[(t >= 15 * i) & (t <= 15 * (i + 1))].max() <= bound


def test_solve_answers_a_day_per_interval(tmp_path):
    model = load(tmp_path, station="{servers: [1, 2, 2, 1]}")
    res = brewput.solve(model)  # tests/test_timevarying_solve.py checks its figures
    assert len(res["intervals"]) == 4 and res["method"] == "transient"


@pytest.mark.parametrize("parts", [
    dict(),
    dict(day="{start: '08:00', length: 1h, interval: 15min, repeat: true, at_start: {bar: 2}}",
         station="{servers: [1, 2, 2, 1], off_shift: resume}", rate="[1, 2, 3, 0.5]"),
    dict(rate="{curve: '1 + sin(t/10min)'}"),
    dict(rate="{linear: [[0, 1], [1h, 2.5]]}"),
    dict(rate="{counts: f.csv, column: calls}"),
    dict(station="{servers: {a: [1, 2, 2, 1], b: 1}}"),
])
def test_the_json_schema_takes_what_the_loader_takes(tmp_path, parts):
    (tmp_path / "f.csv").write_text("calls\n1\n2\n3\n4\n")
    load(tmp_path, **parts)
    jsonschema.validate(yaml.safe_load(text(**parts)), json_schema(), cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("parts", [
    dict(day="{length: 1h}"),
    dict(day="{length: 1h, interval: 15min, colour: red}"),
    dict(station="{servers: [1, -2, 2, 1]}"),
    dict(station="{servers: [1, 1, 1, 1], off_shift: leave}"),
    dict(rate="[1, -2, 3, 0.5]"),
    dict(rate="{curve: 1}"),
    dict(rate="{linear: [[0, 1, 2], [1h, 2.5]]}"),
    dict(rate="{counts: f.csv, sheet: 2}"),
])
def test_the_json_schema_refuses_what_the_loader_refuses(tmp_path, parts):
    with pytest.raises(ModelError):
        load(tmp_path, **parts)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text(**parts)), json_schema(), cls=jsonschema.Draft202012Validator)


def test_the_call_centres_rates_are_its_forecasts_counts_per_half_hour(tmp_path):
    from conftest import EXAMPLES

    inline = brewput.load(EXAMPLES / "rush/call-centre-day.yaml")
    (tmp_path / "f.csv").write_text((EXAMPLES / "rush/call-centre-forecast.csv").read_text())
    text = (EXAMPLES / "rush/call-centre-day.yaml").read_text()
    rates = next(line for line in text.splitlines() if line.startswith("    rate: ["))
    (tmp_path / "m.yaml").write_text(text.replace(rates, "    rate: {counts: f.csv, column: calls}"))
    counted = brewput.load(tmp_path / "m.yaml")
    assert counted.classes["call"].rate.rates == pytest.approx(inline.classes["call"].rate.rates, abs=1e-4)
