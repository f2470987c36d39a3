"""A time with its unit in a distribution (`exp(4ms)`) means the same in a model
file, converted to the model's time_unit, as in `brewput serve --service`
(seconds); a bare number stays in the model's unit. Checked against M/M/1's
closed form, R = S / (1 - rho), computed here, in a model counting in ms and one
counting in s."""
import subprocess
import sys

import pytest

import brewput
from brewput.loadtest.options import service_distribution


def mm1(time_unit: str, rate: float, service: str) -> brewput.Model:
    return brewput.Model(brewput=1, time_unit=time_unit, stations={"web": {"servers": 1}},
                         classes={"req": {"rate": rate, "route": [{"station": "web", "service": service}]}})


def service_of(model: brewput.Model) -> dict:
    return model.compile()["classes"][0]["steps"][0]["service"]


@pytest.mark.parametrize("time_unit, rate, seconds", [("ms", 0.1, 1e-3), ("s", 100.0, 1.0)])
def test_exp_4ms_is_4_milliseconds_in_a_model_in_ms_and_in_s(time_unit, rate, seconds):
    """100 requests a second at 4 ms each: rho = 0.4, R = 4 / 0.6 = 6.667 ms, in either unit."""
    model = mm1(time_unit, rate, "exp(4ms)")
    assert service_of(model) == {"kind": "exp", "mean": pytest.approx(0.004 / seconds, rel=1e-15)}
    response = brewput.solve(model)["classes"]["req"]["response_time"]["mean"]
    closed_form = 0.004 / (1 - 100 * 0.004)  # seconds
    assert response * seconds == pytest.approx(closed_form, rel=1e-12)


def test_a_bare_number_stays_in_the_models_unit():
    assert service_of(mm1("ms", 0.1, "exp(4)")) == service_of(mm1("ms", 0.1, "exp(4ms)"))
    assert service_of(mm1("s", 100, "exp(0.004)")) == service_of(mm1("s", 100, "exp(4ms)"))
    assert service_of(mm1("min", 1, "exp(30s)")) == {"kind": "exp", "mean": 0.5}


def test_serve_and_a_model_in_seconds_read_the_same_words_alike():
    for text in ("exp(5ms)", "lognormal(5ms, 0.5)", "erlang(3, 2ms)", "uniform(1ms, 3ms)", "exp(0.005)",
                 "gamma(250us, 2)", "jitter(2ms, 1ms)", "5ms"):
        assert service_distribution(text) == service_of(mm1("s", 1, text)), text


def test_every_form_takes_a_unit_on_its_times():
    model = mm1("s", 0.001, "gamma(2min, 0.5)")
    assert service_of(model) == service_of(mm1("s", 0.001, "gamma(120, 0.5)"))
    mapping = brewput.Model(brewput=1, stations={"web": {}}, classes={"req": {"rate": 0.001, "route": [
        {"station": "web", "service": {"dist": "gamma", "mean": "2min", "cv": 0.5}}]}})
    assert service_of(mapping) == service_of(model)
    empirical = mm1("ms", 0.1, "empirical([1ms, 0.002s, 3000µs])")
    assert service_of(empirical) == {"kind": "empirical", "values": [pytest.approx(v) for v in (1.0, 2.0, 3.0)]}
    assert service_of(mm1("min", 1, "90s")) == {"kind": "const", "value": 1.5}
    with_param = brewput.Model(brewput=1, params={"m": 4}, stations={"web": {}}, classes={"req": {
        "rate": 100, "route": [{"station": "web", "service": "exp(${m}ms)"}]}})
    assert service_of(with_param) == {"kind": "exp", "mean": pytest.approx(0.004)}
    assert service_of(with_param.with_params(m=2)) == {"kind": "exp", "mean": pytest.approx(0.002)}


@pytest.mark.parametrize("service, problem", [
    ("gamma(4ms, 0.5ms)", "gamma(4ms, 0.5ms): cv is a ratio and takes no unit, got '0.5ms'"),
    ("erlang(2ms, 4ms)", "erlang(2ms, 4ms): k is a count and takes no unit, got '2ms'"),
    ("exp(4msec)", "exp(4msec): '4msec' has no unit of time: write one of ns, us, ms, s, min, h, µs, e.g. 4ms"),
])
def test_a_unit_where_none_belongs_is_one_line_saying_what_to_write(tmp_path, service, problem):
    path = tmp_path / "m.yaml"
    path.write_text("brewput: 1\ntime_unit: ms\nstations:\n  web: {servers: 1}\nclasses:\n  req:\n    rate: 0.1\n"
                    f"    route:\n      - station: web\n        service: {service}\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "brewput", "solve", str(path)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"error: {path}:10 classes.req.route[0].service: {problem}"]


def test_the_json_schema_takes_a_time_with_its_unit_and_no_unit_on_a_ratio():
    import json

    jsonschema = pytest.importorskip("jsonschema")

    done = subprocess.run([sys.executable, "-m", "brewput", "schema", "model"], capture_output=True, text=True,
                          timeout=60)
    schema = json.loads(done.stdout)
    route = [{"station": "web", "service": "exp(4ms)"}, {"station": "web", "service": "250us"},
             {"station": "web", "service": {"dist": "gamma", "mean": "2min", "cv": 0.5}},
             {"station": "web", "service": {"dist": "empirical", "values": ["1ms", 0.002]}}]
    model = {"brewput": 1, "time_unit": "ms", "stations": {"web": {}}, "classes": {"req": {"rate": 0.1,
                                                                                           "route": route}}}
    jsonschema.validate(model, schema)
    brewput.Model(**model)  # and brewput reads what the schema takes
    route[2]["service"]["cv"] = "0.5ms"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(model, schema)
