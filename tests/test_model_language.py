"""The model language: good models load and compile to exactly the engine input
of docs/compiled-model.md; params, overrides and `${...}` arithmetic; every
distribution form, with the conversion formulas checked by sampling."""
import math
import textwrap

import numpy as np
import pytest

import brewput
from brewput.model.distributions import (Const, Empirical, Erlang, Exp, Gamma, Hyperexp, Jitter,
                                         Lognormal, Normal, Uniform, parse_distribution)
from brewput.model.params import evaluate

COFFEE = """\
brewput: 1
name: Coffee shop, fine-grained locks
time_unit: ms
params:
  cpus: 4
resources:
  cpu: ${cpus}
stations:
  grinder:  {servers: 1}
  espresso: {servers: 1}
  steamer:  {servers: 1}
  counter:  {servers: inf}
classes:
  latte:
    population: ${cpus}
    think: 0
    route:
      - {station: grinder,  service: 1, uses: [cpu]}
      - {station: espresso, service: 1, uses: [cpu]}
      - {station: steamer,  service: 1, uses: [cpu]}
      - {station: counter,  service: 1, uses: [cpu]}
"""


def write(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def const(v):
    return {"kind": "const", "value": float(v)}


def test_design_note_example_compiles_exactly(tmp_path):
    model = brewput.load(write(tmp_path, COFFEE))
    step = lambda station, nxt: {"station": station, "service": const(1), "uses": [0], "next": [[nxt, 1.0]]}
    assert model.compile() == {
        "stations": [
            {"name": "grinder", "servers": 1, "capacity": None, "discipline": "fifo"},
            {"name": "espresso", "servers": 1, "capacity": None, "discipline": "fifo"},
            {"name": "steamer", "servers": 1, "capacity": None, "discipline": "fifo"},
            {"name": "counter", "servers": None, "capacity": None, "discipline": "fifo"},
        ],
        "resources": [{"name": "cpu", "tokens": 4}],
        "classes": [{
            "name": "latte", "priority": 0,
            "source": {"kind": "closed", "population": 4, "think": const(0)},
            "steps": [step(0, 1), step(1, 2), step(2, 3), step(3, None)],
        }],
    }
    assert model.name == "Coffee shop, fine-grained locks"
    assert model.time_unit == "ms"
    assert model.params == {"cpus": 4}
    assert model.resources == {"cpu": 4}
    assert model.stations["counter"].servers == math.inf
    assert not model.classes["latte"].is_open


def test_open_routing_buffers_priorities_and_disciplines(tmp_path):
    model = brewput.load(write(tmp_path, """\
        brewput: 1
        stations:
          cpu:   {servers: 2, buffer: 3, discipline: priority}
          disk:  {buffer: 0, discipline: ps}
          other: {servers: inf, buffer: 5, discipline: sjf}
        classes:
          web:
            rate: 4
            priority: 2
            route:
              - {id: c, station: cpu, service: exp(0.1), next: {d: 0.25, o: 0.25, exit: 0.5}}
              - {id: d, station: disk, service: const(0.2), next: c}
              - {id: o, station: other, service: 0.3, next: exit}
          batch:
            arrivals: uniform(1, 3)
            route:
              - station: cpu
                service: 2
        """))
    compiled = model.compile()
    assert compiled["stations"] == [
        {"name": "cpu", "servers": 2, "capacity": 5, "discipline": "priority"},
        {"name": "disk", "servers": 1, "capacity": 1, "discipline": "ps"},
        {"name": "other", "servers": None, "capacity": None, "discipline": "sjf"},
    ]
    assert compiled["resources"] == []
    web, batch = compiled["classes"]
    assert web == {
        "name": "web", "priority": 2,
        "source": {"kind": "open", "interarrival": {"kind": "exp", "mean": 0.25}},
        "steps": [
            {"station": 0, "service": {"kind": "exp", "mean": 0.1}, "uses": [],
             "next": [[1, 0.25], [2, 0.25], [None, 0.5]]},
            {"station": 1, "service": const(0.2), "uses": [], "next": [[0, 1.0]]},
            {"station": 2, "service": const(0.3), "uses": [], "next": [[None, 1.0]]},
        ],
    }
    assert batch == {
        "name": "batch", "priority": 0,
        "source": {"kind": "open", "interarrival": {"kind": "uniform", "low": 1.0, "high": 3.0}},
        "steps": [{"station": 0, "service": const(2), "uses": [], "next": [[None, 1.0]]}],
    }


def test_defaults():
    model = brewput.Model(brewput=1, stations={"s": None}, classes={"c": {"population": 1, "route": [
        {"station": "s", "service": 0}]}})
    assert model.name == "model" and model.time_unit == "s" and model.params == {}
    station = model.stations["s"]
    assert (station.servers, station.buffer, station.discipline) == (1, math.inf, "fifo")
    job = model.classes["c"]
    assert job.think == Const(0) and job.priority == 0 and job.route[0].uses == []


def test_name_defaults_to_file_stem(tmp_path):
    model = brewput.load(write(tmp_path, COFFEE.replace("name: Coffee shop, fine-grained locks\n", ""),
                               "shop.yaml"))
    assert model.name == "shop"


def test_python_api_matches_yaml(tmp_path):
    from_file = brewput.load(write(tmp_path, COFFEE))
    in_code = brewput.Model(
        brewput=1, name="Coffee shop, fine-grained locks", time_unit="ms", params={"cpus": 4},
        resources={"cpu": "${cpus}"},
        stations={"grinder": {"servers": 1}, "espresso": {}, "steamer": {}, "counter": {"servers": "inf"}},
        classes={"latte": {"population": "${cpus}", "think": 0, "route": [
            {"station": s, "service": 1, "uses": ["cpu"]} for s in ("grinder", "espresso", "steamer", "counter")
        ]}})
    assert in_code.compile() == from_file.compile()
    assert in_code.file is None
    from_dict = brewput.Model.from_dict({**in_code._raw}, params={"cpus": 2})
    assert from_dict.params == {"cpus": 2} and from_dict.compile()["resources"][0]["tokens"] == 2


def test_model_keeps_its_own_copy_of_the_document():
    doc = {"brewput": 1, "params": {"n": 1}, "stations": {"s": {}},
           "classes": {"c": {"population": "${n}", "route": [{"station": "s", "service": 1}]}}}
    model = brewput.Model.from_dict(doc)
    doc["params"]["n"] = 5
    assert model.with_params().classes["c"].population == 1


def test_models_survive_pickling(tmp_path):
    """Experiment runners ship models to worker processes."""
    import pickle

    model = brewput.load(write(tmp_path, PARAMS))
    copy = pickle.loads(pickle.dumps(model))
    assert copy.compile() == model.compile()
    assert copy.with_params(cpus=2).params == model.with_params(cpus=2).params


def test_distribution_objects_are_accepted_in_code():
    model = brewput.Model(brewput=1, stations={"s": {}}, classes={"c": {"rate": 1, "route": [
        {"station": "s", "service": Gamma(2, 0.5)}]}})
    assert model.classes["c"].route[0].service == Gamma(2, 0.5)


# --- params, overrides, expressions ----------------------------------------------------

PARAMS = """\
brewput: 1
params:
  cpus: 4
  half: ${cpus/2}
  workers: ${max(1, cpus-1)}
  mean: 0.5
stations:
  pool: {servers: '${2*cpus}', buffer: '${half}'}
classes:
  job:
    population: ${workers}
    think: exp(${mean * 10})
    route:
      - {station: pool, service: 'erlang(${cpus // 2}, ${mean})'}
"""


def test_params_and_arithmetic(tmp_path):
    model = brewput.load(write(tmp_path, PARAMS))
    assert model.params == {"cpus": 4, "half": 2.0, "workers": 3, "mean": 0.5}
    compiled = model.compile()
    assert compiled["stations"][0]["servers"] == 8 and compiled["stations"][0]["capacity"] == 10
    source = compiled["classes"][0]["source"]
    assert source == {"kind": "closed", "population": 3, "think": {"kind": "exp", "mean": 5.0}}
    assert compiled["classes"][0]["steps"][0]["service"] == {"kind": "erlang", "k": 2, "mean": 0.5}


def test_overrides_replace_params_before_resolution(tmp_path):
    path = write(tmp_path, PARAMS)
    model = brewput.load(path, params={"cpus": 8})
    assert model.params == {"cpus": 8, "half": 4.0, "workers": 7, "mean": 0.5}
    # --set values arrive as strings: a number or an expression over the params
    assert brewput.load(path, params={"cpus": "6"}).params["cpus"] == 6
    assert brewput.load(path, params={"mean": "${1/4}"}).params["mean"] == 0.25
    assert brewput.load(path, params={"workers": "cpus+1"}).params["workers"] == 5


def test_with_params_resolves_again_from_the_source(tmp_path):
    model = brewput.load(write(tmp_path, PARAMS))
    bigger = model.with_params(cpus=6)
    assert bigger.params["workers"] == 5 and bigger.stations["pool"].servers == 12
    assert bigger.with_params(mean=1).params == {"cpus": 6, "half": 3.0, "workers": 5, "mean": 1}
    assert model.params["cpus"] == 4  # the original is untouched


@pytest.mark.parametrize("expr, value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("7 / 2", 3.5), ("7 // 2", 3), ("7 % 4", 3),
    ("2 ** 10", 1024), ("-n", -3), ("+n", 3), ("min(n, 2, 5)", 2), ("max(1, n - 1)", 2),
    ("round(2.6)", 3), ("round(n / 7, 2)", 0.43), ("floor(n / 2)", 1), ("ceil(n / 2)", 2), ("1e-3 * n", 0.003),
])
def test_expressions(expr, value):
    assert evaluate(expr, {"n": 3}) == pytest.approx(value)


def test_params_inside_longer_strings_are_substituted(tmp_path):
    model = brewput.load(write(tmp_path, """\
        brewput: 1
        name: pool of ${n}
        params: {n: 3, m: 0.25}
        stations: {s: {}}
        classes:
          c:
            rate: ${1/m}
            route:
              - station: s
                service: gamma(${m * 4}, ${m})
        """))
    assert model.name == "pool of 3"
    assert model.classes["c"].route[0].service == Gamma(1.0, 0.25)
    assert model.classes["c"].interarrival == Exp(0.25)


def test_yaml_conveniences(tmp_path):
    model = brewput.load(write(tmp_path, """\
        brewput: 1
        stations:
          a: &fast {servers: 4, discipline: lifo}
          b: {<<: *fast, servers: 2}
          c:
        classes:
          x:
            rate: 1e3
            route: [{station: a, service: 1e-4}]
        """))
    assert model.stations["b"].servers == 2 and model.stations["b"].discipline == "lifo"
    assert model.stations["c"].servers == 1
    assert model.classes["x"].rate == 1000.0
    assert model.classes["x"].route[0].service == Const(1e-4)


# --- distributions ----------------------------------------------------------------------

@pytest.mark.parametrize("text, dist, compiled", [
    (2.5, Const(2.5), {"kind": "const", "value": 2.5}),
    ("const(3)", Const(3), {"kind": "const", "value": 3.0}),
    ("exp(2)", Exp(2), {"kind": "exp", "mean": 2.0}),
    ("erlang(3, 1.5)", Erlang(3, 1.5), {"kind": "erlang", "k": 3, "mean": 1.5}),
    ("gamma(2, 0.5)", Gamma(2, 0.5), {"kind": "gamma", "shape": 4.0, "scale": 0.5}),
    ("lognormal(1, 0)", Lognormal(1, 0), {"kind": "lognormal", "mu": 0.0, "sigma": 0.0}),
    ("uniform(1, 3)", Uniform(1, 3), {"kind": "uniform", "low": 1.0, "high": 3.0}),
    ("normal(5, 1)", Normal(5, 1), {"kind": "normal", "mean": 5.0, "sd": 1.0}),
    ("hyperexp(2, 1)", Hyperexp(2, 1), {"kind": "hyperexp", "p": 0.5, "mean1": 2.0, "mean2": 2.0}),
    ("jitter(2, 1)", Jitter(2, 1), {"kind": "uniform", "low": 1.5, "high": 2.5}),
    ("empirical([1, 2, 4])", Empirical((1, 2, 4)), {"kind": "empirical", "values": [1.0, 2.0, 4.0]}),
    ({"dist": "lognormal", "mean": 2, "cv": 0.5}, Lognormal(2, 0.5), None),
    ({"dist": "gamma", "cv": 0.5, "mean": 2}, Gamma(2, 0.5), None),  # any order
    ({"dist": "normal", "mean": 5, "sd": 1}, Normal(5, 1), None),
    ({"dist": "erlang", "k": 2, "mean": 1}, Erlang(2, 1), None),
    ({"dist": "empirical", "values": [1, 2]}, Empirical((1, 2)), None),
    ({"dist": "const", "value": 0}, Const(0), None),
    (" exp( 2 ) ", Exp(2), None),
])
def test_distribution_forms(text, dist, compiled):
    parsed = parse_distribution(text)
    assert parsed == dist
    if compiled is not None:
        assert parsed.compile() == compiled


def test_lognormal_parameters():
    compiled = Lognormal(2, 0.5).compile()
    sigma2 = math.log(1 + 0.25)
    assert compiled == {"kind": "lognormal", "mu": pytest.approx(math.log(2) - sigma2 / 2),
                        "sigma": pytest.approx(math.sqrt(sigma2))}


def test_empirical_file_is_read_relative_to_the_model(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "times.csv").write_text("seconds,who\n0.5,a\n1.5,b\n\n2.5,c\n")
    (tmp_path / "plain.txt").write_text("1\n3\n")
    model = brewput.load(write(tmp_path, """\
        brewput: 1
        stations: {s: {}}
        classes:
          c:
            arrivals: {dist: empirical, file: plain.txt}
            route: [{station: s, service: empirical(data/times.csv)}]
        """))
    assert model.classes["c"].route[0].service == Empirical((0.5, 1.5, 2.5))
    assert model.classes["c"].interarrival.mean == 2.0


def sample(compiled, n, rng):
    """Draw from a compiled distribution as the engine does (docs/compiled-model.md)."""
    kind = compiled["kind"]
    if kind == "const":
        return np.full(n, compiled["value"])
    if kind == "exp":
        return rng.exponential(compiled["mean"], n)
    if kind == "erlang":
        return rng.gamma(compiled["k"], compiled["mean"] / compiled["k"], n)
    if kind == "gamma":
        return rng.gamma(compiled["shape"], compiled["scale"], n)
    if kind == "lognormal":
        return rng.lognormal(compiled["mu"], compiled["sigma"], n)
    if kind == "uniform":
        return rng.uniform(compiled["low"], compiled["high"], n)
    if kind == "normal":
        draws = rng.normal(compiled["mean"], compiled["sd"], 3 * n)
        return draws[draws >= 0][:n]  # redrawn while negative
    if kind == "hyperexp":
        first = rng.random(n) < compiled["p"]
        return rng.exponential(np.where(first, compiled["mean1"], compiled["mean2"]))
    if kind == "empirical":
        return rng.choice(compiled["values"], n)
    raise AssertionError(kind)


@pytest.mark.parametrize("dist, mean, scv", [
    (Const(2), 2, 0),
    (Exp(2), 2, 1),
    (Erlang(4, 2), 2, 1 / 4),
    (Gamma(2, 0.5), 2, 0.25),
    (Gamma(3, 2), 3, 4),
    (Lognormal(2, 0.5), 2, 0.25),
    (Lognormal(1, 1.5), 1, 2.25),
    (Uniform(1, 3), 2, (2**2 / 12) / 4),
    (Normal(10, 1), 10, 0.01),  # truncation at 0 is negligible 10 sd away
    (Hyperexp(2, 1), 2, 1),
    (Hyperexp(2, 2), 2, 4),
    (Hyperexp(1, 3), 1, 9),
    (Jitter(2, 1), 2, (1 / 12) / 4),
    (Empirical((1, 2, 6)), 3, (14 / 3) / 9),
])
def test_compiled_parameters_give_the_requested_moments(dist, mean, scv):
    assert dist.mean == pytest.approx(mean) and dist.scv == pytest.approx(scv)
    xs = sample(dist.compile(), 1_000_000, np.random.default_rng(7))
    # 1e6 draws: the mean within 1 %, the scv within 5 % (heavy tails converge slowly)
    assert xs.mean() == pytest.approx(mean, rel=0.01)
    assert xs.var() / xs.mean() ** 2 == pytest.approx(scv, rel=0.05, abs=1e-9)


def test_hyperexp_phases_are_balanced():
    c = Hyperexp(2, 3).compile()
    assert c["p"] * c["mean1"] == pytest.approx((1 - c["p"]) * c["mean2"])
    assert c["p"] == pytest.approx((1 + math.sqrt(8 / 10)) / 2)


def test_truncated_normal_reports_the_truncated_moments():
    dist = Normal(1, 2)  # half the raw draws are negative: the kept mean is higher
    xs = sample(dist.compile(), 1_000_000, np.random.default_rng(3))
    assert dist.mean > 1
    assert xs.mean() == pytest.approx(dist.mean, rel=0.01)
    assert xs.var() / xs.mean() ** 2 == pytest.approx(dist.scv, rel=0.02)
