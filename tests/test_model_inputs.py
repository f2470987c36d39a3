"""Inputs at the edges: the one file reader (regular files, size, encoding, control
characters), the bounded YAML composer, split distribution calls rejoined, a model
or study given where the other is expected, models as plain dicts, to_yaml, the
JSON Schema, distribution parameters at the ends of their ranges, bounded
`${...}` expressions and the model's totals."""
import math
import os
import re

import jsonschema
import pytest
import scipy.stats
import yaml

import brewput
from brewput.errors import ModelError
from brewput.experiment.study import json_schema as study_schema
from brewput.experiment.study import load_study
from brewput.model import Model
from brewput.model.distributions import Empirical, Gamma, Hyperexp, Lognormal, Normal, Uniform, parse_distribution
from conftest import error_of
from brewput.model.limits import (MAX_CV, MAX_DEPTH, MAX_EMPIRICAL, MAX_ENTRIES, MAX_EXPRESSION_DEPTH,
                                  MAX_FILE_BYTES, MAX_TIME, MAX_TOTAL_POPULATION, MIN_CV, MIN_TIME)
from brewput.model.params import evaluate, ExpressionError
from brewput.model.schema import json_schema as model_schema
from conftest import EXAMPLES

MODEL = """\
brewput: 1
stations:
  disk: {servers: 1}
classes:
  c:
    rate: 1
    route:
      - {station: disk, service: SERVICE}
"""




# The reader ---------------------------------------------------------------------------

def test_non_regular_files_are_refused_without_reading_them(in_tmp):
    os.mkfifo("fifo")  # opening it to read would block until a writer came
    assert error_of(brewput.load, "fifo") == "fifo: cannot read the model file: not a regular file " \
                                             "(a device, FIFO or socket)"
    assert error_of(brewput.load, "/dev/zero").endswith("not a regular file (a device, FIFO or socket)")
    assert error_of(brewput.load, ".") == ".: cannot read the model file: it is a directory, not a file"


def test_a_file_over_the_size_cap_is_refused_before_it_is_parsed(in_tmp):
    (in_tmp / "big.yaml").write_text("brewput: 1\n# " + "x" * MAX_FILE_BYTES + "\n")
    assert error_of(brewput.load, "big.yaml") == "big.yaml: cannot read the model file: larger than 4 MiB " \
                                                 "(4,194,304 bytes)"


@pytest.mark.parametrize("data, problem", [
    (b"brewput: 1\x00\n", "control character U+0000 at line 1, column 11"),
    (b"brewput: 1\nname: a\x1bb\n", "control character U+001B at line 2, column 8"),
    (b"brewput: 1\nname: \xc2\x85\n", "control character U+0085 at line 2, column 7"),
    (b"brewput: 1\nname: \xff\n", "not UTF-8 text (byte 0xff at line 2, column 7)"),
    (b"brewput: 1\nname: \xed\xa0\x80\n", "not UTF-8 text (byte 0xed at line 2, column 7)"),  # encoded surrogate
    (b"brewput: 1\n\xef\xbb\xbfname: x\n", "control character U+FEFF at line 2, column 1"),
])
def test_bytes_no_model_has_are_refused_with_where_they_are(in_tmp, data, problem):
    (in_tmp / "m.yaml").write_bytes(data)
    assert error_of(brewput.load, "m.yaml").startswith(f"m.yaml: cannot read the model file: {problem}")


@pytest.mark.parametrize("escape, code", [(r"\0", "0000"), (r"\e", "001B"), (r"\ud800", "D800"), (r"\x7f", "007F")])
def test_control_characters_made_by_yaml_escapes_are_refused(in_tmp, escape, code):
    (in_tmp / "m.yaml").write_text(MODEL.replace("disk: {servers", f'"di{escape}sk": {{servers'))
    assert error_of(brewput.load, "m.yaml").startswith(f"m.yaml:3 stations: control character U+{code} in a value")


def test_a_leading_byte_order_mark_is_read_as_nothing(in_tmp):
    (in_tmp / "m.yaml").write_bytes(b"\xef\xbb\xbf" + MODEL.replace("SERVICE", "exp(0.5)").encode())
    assert brewput.load("m.yaml").stations["disk"].servers == 1


@pytest.mark.parametrize("text", [
    "a: " + "[" * 5000,
    "a: " + "{b: " * 5000,
    "".join(" " * i + "a:\n" for i in range(2000)),
    "".join("  " * i + "-\n" for i in range(2000)),
])
def test_deep_nesting_is_refused_while_composing(in_tmp, text):
    (in_tmp / "m.yaml").write_text(text)
    assert f"nested more than {MAX_DEPTH} levels deep" in error_of(brewput.load, "m.yaml")


def test_too_many_entries_are_refused_while_composing(in_tmp):
    (in_tmp / "m.yaml").write_text("brewput: 1\nstations: [" + "1," * MAX_ENTRIES + "1]\n")
    assert error_of(brewput.load, "m.yaml") == f"m.yaml:2: more than {MAX_ENTRIES:,} entries"


def test_an_alias_bomb_is_refused(in_tmp):
    lines = ["a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]"]
    lines += [f"{x}: &{x} [{', '.join(['*' + y] * 9)}]" for y, x in zip("abcdef", "bcdefg")]
    (in_tmp / "m.yaml").write_text("\n".join(lines) + "\n")
    assert f"more than {MAX_ENTRIES:,} entries" in error_of(brewput.load, "m.yaml")


# Empirical files go through the same reader ---------------------------------------

def test_empirical_files_have_the_readers_checks(in_tmp):
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "empirical(/dev/zero)"))
    assert error_of(brewput.load, "m.yaml") == (
        "m.yaml:8 classes.c.route[0].service: empirical(/dev/zero): cannot read the empirical file "
        "'/dev/zero': not a regular file (a device, FIFO or socket)")
    (in_tmp / "t.csv").write_bytes(b"time\n1\n2\x1b\n")
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "empirical(t.csv)"))
    assert "cannot read the empirical file 't.csv': control character U+001B at line 3" in \
        error_of(brewput.load, "m.yaml")


def test_empirical_values_are_counted_over_the_whole_model(in_tmp):
    count = MAX_EMPIRICAL // 2 + 1
    (in_tmp / "t.csv").write_text("1\n" * count)
    assert len(parse_distribution("empirical(t.csv)").values) == count
    text = MODEL.replace("SERVICE", "empirical(t.csv)") + "      - {station: disk, service: empirical(t.csv)}\n"
    (in_tmp / "m.yaml").write_text(text)
    assert error_of(brewput.load, "m.yaml") == f"m.yaml:9 classes.c.route[1].service: empirical(t.csv): more " \
                                               f"than {MAX_EMPIRICAL:,} empirical values in the model"


def test_an_empirical_header_is_skipped_and_a_later_word_named_by_its_line(in_tmp):
    (in_tmp / "t.csv").write_text("\ntime\n1\n3\n")
    assert parse_distribution("empirical(t.csv)").values == (1.0, 3.0)
    (in_tmp / "t.csv").write_text("time\n1\n\nfast\n")
    with pytest.raises(ValueError, match="empirical file 't.csv', line 4: 'fast' is not a number"):
        parse_distribution("empirical(t.csv)")


# What people type ----------------------------------------------------------------------

@pytest.mark.parametrize("written, expected", [
    ("lognormal(1, 2)", Lognormal(1, 2)),
    ("gamma(2, 0.5), station: disk, uses: []", Gamma(2, 0.5)),
    ("uniform( 1 ,  3 )", Uniform(1, 3)),
    ("hyperexp(1,2)", Hyperexp(1, 2)),
])
def test_a_call_split_by_yaml_inside_a_flow_mapping_is_rejoined(in_tmp, written, expected):
    (in_tmp / "m.yaml").write_text(MODEL.replace("station: disk, service: SERVICE", f"service: {written}, station: disk"
                                                 if "station" not in written else f"service: {written}"))
    assert brewput.load("m.yaml").classes["c"].route[0].service == expected


def test_calls_split_inside_a_flow_list_are_rejoined(in_tmp):
    (in_tmp / "d.yaml").write_text("d: [exp(1), gamma(2, 0.5), 3]\n")
    from brewput.model.source import parse
    assert parse((in_tmp / "d.yaml").read_text())[0] == {"d": ["exp(1)", "gamma(2, 0.5)", 3]}


def test_a_model_and_a_study_each_name_the_command_that_takes_them(in_tmp):
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "1"))
    (in_tmp / "s.yaml").write_text("brewput: 1\nmodels: {m: m.yaml}\n")
    assert error_of(brewput.load, "s.yaml") == "s.yaml:1: this is a study file (it has models:), not a model " \
                                               "file: brewput run takes it"
    assert error_of(load_study, "m.yaml") == "m.yaml:1: this is a model file (it has classes: and stations:), " \
                                             "not a study file: brewput simulate, solve or compare takes it"


def test_a_model_given_as_a_plain_dict_is_accepted_everywhere():
    document = yaml.safe_load(MODEL.replace("SERVICE", "exp(0.5)"))
    assert brewput.solve(document)["classes"]["c"]["response_time"]["mean"] == pytest.approx(1.0)  # M/M/1: 0.5/(1-0.5)
    assert brewput.load(document).compile() == Model.from_dict(document).compile()
    assert "got int" in error_of(brewput.load, 3)


# to_yaml -----------------------------------------------------------------------------------

def test_a_model_built_in_code_is_saved_and_read_back_the_same():
    model = Model(brewput=1, params={"n": 2, "m": "${n * 2}"},
                  stations={"desk": {"servers": "${m}"}, "door": {"servers": math.inf, "buffer": 0}},
                  classes={"c": {"population": "${n}", "think": Gamma(2, 0.5),
                                 "route": [{"station": "desk", "service": Normal(1, 0.25)},
                                           {"station": "door", "service": Empirical((0.1, 0.2, 0.3))}]}})
    text = model.with_params(n=3).to_yaml()
    again = Model.from_dict(yaml.safe_load(text))
    assert again.compile() == model.with_params(n=3).compile()
    assert again.params == {"n": 3, "m": 6} and again.stations["desk"].servers == 6
    assert again.with_params(n=1).compile() == model.with_params(n=1).compile()  # the expressions stay


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.glob("**/*.yaml") if "studies" not in p.parts),
                         ids=lambda p: p.name)
def test_every_example_model_survives_to_yaml(path):
    model = brewput.load(path)
    assert Model.from_dict(yaml.safe_load(model.to_yaml())).compile() == model.compile()


# JSON Schema -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("**/*.yaml")), ids=lambda p: p.name)
def test_every_example_is_valid_under_its_json_schema(path):
    schema = study_schema() if "studies" in path.parts else model_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(yaml.safe_load(path.read_text()), schema, cls=jsonschema.Draft202012Validator)


def _untyped(schema, where="schema"):
    """The places in a JSON Schema that accept anything."""
    if isinstance(schema, dict):
        if where.endswith(("properties", "$defs")):
            return [p for k, v in schema.items() for p in _untyped(v, f"{where}.{k}")]
        keys = set(schema) - {"title", "description", "default"}
        found = [where] if not keys else []
        return found + [p for k, v in schema.items() if k not in ("default", "const", "enum")
                        for p in _untyped(v, f"{where}.{k}")]
    if isinstance(schema, list):
        return [p for i, v in enumerate(schema) for p in _untyped(v, f"{where}[{i}]")]
    return []


@pytest.mark.parametrize("schema", [model_schema, study_schema], ids=["model", "study"])
def test_every_field_of_the_schemas_is_typed(schema):
    assert _untyped(schema()) == []


@pytest.mark.parametrize("bad", [
    {"stations": {"desk": {"servers": 0}}},
    {"stations": {"desk": {"servers": "many"}}},
    {"stations": {"desk": {"discipline": "random"}}},
    {"classes": {"c": {"rate": 1, "route": [{"station": "desk", "service": "exponential(1)"}]}}},
    {"classes": {"c": {"rate": 1, "route": [{"station": "desk", "service": {"dist": "exp", "rate": 1}}]}}},
    {"colour": "red"},
])
def test_the_model_schema_refuses_what_the_loader_refuses(bad):
    good = yaml.safe_load(MODEL.replace("SERVICE", "'${2 * 0.25}'"))
    jsonschema.validate({**good, "params": {"x": "${1 + 1}"}}, model_schema())
    document = {**good, **bad}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, model_schema())
    with pytest.raises(ModelError):
        Model.from_dict(document)


# Distributions at the ends of their ranges: every derived number finite and right ------

def _hyperexp_moments(d):
    c = d.compile()
    mean = c["p"] * c["mean1"] + (1 - c["p"]) * c["mean2"]
    second = 2 * (c["p"] * c["mean1"] ** 2 + (1 - c["p"]) * c["mean2"] ** 2)
    return mean, second / mean**2 - 1


@pytest.mark.parametrize("mean", [MIN_TIME, 1.0, MAX_TIME])
@pytest.mark.parametrize("cv", [MIN_CV, 1.0, MAX_CV])
def test_gamma_and_lognormal_at_the_corners_have_finite_exact_parameters(mean, cv):
    g = Gamma(mean, cv).compile()
    assert g["shape"] * g["scale"] == pytest.approx(mean, rel=1e-12)  # mean = k·θ
    assert 1 / g["shape"] == pytest.approx(cv**2, rel=1e-12)  # scv = 1/k
    ln = Lognormal(mean, cv).compile()
    assert math.exp(ln["mu"] + ln["sigma"] ** 2 / 2) == pytest.approx(mean, rel=1e-9)
    assert math.expm1(ln["sigma"] ** 2) == pytest.approx(cv**2, rel=1e-9)


@pytest.mark.parametrize("mean", [MIN_TIME, MAX_TIME])
@pytest.mark.parametrize("cv", [1.0, 10.0, MAX_CV])
def test_hyperexp_at_the_corners_keeps_its_mean_and_scv(mean, cv):
    got_mean, got_scv = _hyperexp_moments(Hyperexp(mean, cv))
    assert got_mean == pytest.approx(mean, rel=1e-9) and got_scv == pytest.approx(cv**2, rel=1e-6)


@pytest.mark.parametrize("mu, sd", [(MIN_TIME, MAX_TIME), (MAX_TIME, MIN_TIME), (1.0, 1.0), (MAX_TIME, MAX_TIME)])
def test_the_truncated_normal_at_the_corners_agrees_with_scipy(mu, sd):
    d = Normal(mu, sd)
    truth = scipy.stats.truncnorm(-mu / sd, math.inf, loc=mu, scale=sd)
    assert d.mean == pytest.approx(truth.mean(), rel=1e-9)
    assert d.scv == pytest.approx(truth.var() / truth.mean() ** 2, rel=1e-6)


def test_uniform_and_empirical_at_the_top_of_the_range():
    assert Uniform(0, MAX_TIME).scv == pytest.approx(1 / 3)  # (b-a)²/12 / (b/2)²
    big = Empirical((MAX_TIME,) * 1000 + (0.0,) * 1000)
    assert big.mean == MAX_TIME / 2 and big.scv == pytest.approx(1.0)


@pytest.mark.parametrize("text, field", [
    ("lognormal(1, 1e200)", "cv"), ("gamma(1, 1e-200)", "cv"), ("normal(1, 1e200)", "sd"),
    ("empirical([1e308, 1e308])", "values"), ("uniform(0, 1e200)", "b"), ("hyperexp(1, 1e200)", "cv"),
    ("erlang(2, 1e300)", "mean"), ("jitter(1e-300, 0)", "mean"), ("exp(1e-320)", "mean"), ("const(5e-324)", "value"),
])
def test_parameters_beyond_the_ranges_are_refused_naming_them(text, field):
    with pytest.raises(ValueError, match=rf"^{re.escape(text)}: {field} must be (0 or )?from "):
        parse_distribution(text)


def test_a_tiny_rate_names_rate(in_tmp):
    (in_tmp / "m.yaml").write_text(MODEL.replace("rate: 1", "rate: 1e-320").replace("SERVICE", "1"))
    assert error_of(brewput.load, "m.yaml") == "m.yaml:6 classes.c.rate: expected a rate from 1e-12 to 1e+12, " \
                                               "got 1e-320"


# Expressions -----------------------------------------------------------------------------

@pytest.mark.parametrize("expr, problem", [
    ("round(5, -10**18)", "round's digits must be a whole number from -20 to 20"),
    ("+".join(["1"] * 1000), "expression longer than 1,000 characters"),
    ("-" * 150 + "1", f"expression nested more than {MAX_EXPRESSION_DEPTH} deep"),
    ("+".join(["1"] * 300), "expression of more than 200 terms"),
    ("min(" + "1," * 250 + "1)", "expression of more than 200 terms"),
    ("(" * 300 + "1" + ")" * 300, "invalid expression"),
    ("1e999", "result is too large"),
    ("2**64", "result is too large"),
    ("2.0**2000", "result is too large"),
    ("floor(1e300)", "result is too large"),
    ("max(1e308 * 10, 1)", "result is too large"),
])
def test_runaway_expressions_are_refused_at_once(expr, problem):
    with pytest.raises(ExpressionError, match=re.escape(problem)):
        evaluate(expr, {})


def test_params_and_substituted_values_are_finite(in_tmp):
    (in_tmp / "m.yaml").write_text(MODEL.replace("rate: 1", "rate: '${r}'").replace("SERVICE", "1")
                                   .replace("stations:", "params: {r: 1}\nstations:"))
    assert error_of(brewput.load, "m.yaml", params={"r": "1e999"}) == \
        "m.yaml:2 params.r: result is too large in '${1e999}'"
    assert error_of(brewput.load, "m.yaml", params={"r": math.inf}) == \
        "m.yaml:2 params.r: expected a finite number or ${expression}, got inf"
    assert error_of(brewput.load, "m.yaml", params={"r": 1e300}).startswith("m.yaml:2 params.r: 1e+300 is too large")
    assert brewput.load("m.yaml", params={"r": "0.5 * 4"}).classes["c"].rate == 2.0


# Totals --------------------------------------------------------------------------------------

def test_many_closed_classes_are_bounded_together():
    each = MAX_TOTAL_POPULATION // 4
    classes = {f"c{i}": {"population": each, "route": [{"station": "desk", "service": 1}]} for i in range(5)}
    assert error_of(Model, brewput=1, stations={"desk": {}}, classes=classes) == (
        f"<model> classes.c4.population: more than {MAX_TOTAL_POPULATION:,} customers in all closed classes "
        "together (the engine holds every one in memory in each replication)")
    del classes["c4"]
    assert sum(c.population for c in Model(brewput=1, stations={"desk": {}}, classes=classes).classes.values()) \
        == MAX_TOTAL_POPULATION


def fork_of(branches: int, inner=None) -> dict:
    return {"fork": {f"b{i}": [inner or {"station": "desk", "service": 1}] for i in range(branches)}}


def test_a_forks_branches_count_as_jobs_against_the_closed_classes_bound():
    """A million customers forking into a thousand branches is 10^9 jobs at once,
    inside every other limit: the engine once aborted allocating them (or ate all
    memory). Branches of a fork add up, a dispatch's largest counts, nesting multiplies."""
    def model(population, route):
        return dict(brewput=1, stations={"desk": {}}, classes={"c": {"population": population, "route": route}})

    assert error_of(Model, **model(10**6, [fork_of(1000)])) == (
        f"<model> classes.c.population: more than {MAX_TOTAL_POPULATION:,} closed-class jobs at once (a customer "
        "is one; a fork makes one per branch) together (the engine holds every one in memory in each replication)")
    assert Model(**model(MAX_TOTAL_POPULATION // 1000, [fork_of(1000)])).classes["c"].population == 10_000
    nested = [fork_of(10, fork_of(10))]  # 100 jobs at once
    assert error_of(Model, **model(MAX_TOTAL_POPULATION // 100 + 1, nested)).startswith("<model> classes.c.population")
    Model(**model(MAX_TOTAL_POPULATION // 100, nested))
    dispatch = [{"dispatch": {"a": [fork_of(3)], "b": [fork_of(7)]}}]  # one branch, at most 7 jobs
    assert error_of(Model, **model(MAX_TOTAL_POPULATION // 7 + 1, dispatch)).startswith("<model> classes.c.population")
    Model(**model(MAX_TOTAL_POPULATION // 7, dispatch))


@pytest.mark.parametrize("kind, schema", [("model", model_schema), ("study", study_schema)])
def test_brewput_schema_prints_each_schema(kind, schema):
    import json
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "brewput", "schema", kind], capture_output=True, text=True)
    assert done.returncode == 0 and json.loads(done.stdout) == schema()


def test_steps_of_all_routes_are_bounded_together():
    from brewput.model.limits import MAX_ITEMS, MAX_TOTAL_STEPS
    route = [{"station": "desk", "service": 1}] * MAX_ITEMS
    classes = {f"c{i}": {"rate": 1, "route": route} for i in range(MAX_TOTAL_STEPS // MAX_ITEMS + 1)}
    assert error_of(Model, brewput=1, stations={"desk": {}}, classes=classes).startswith(
        f"<model> classes.c{MAX_TOTAL_STEPS // MAX_ITEMS}.route: more than {MAX_TOTAL_STEPS:,} steps in all routes "
        "together")


def test_empirical_objects_built_in_code_count_against_the_model():
    values = Empirical((1.0,) * (MAX_EMPIRICAL // 2 + 1))
    route = [{"station": "desk", "service": values}, {"station": "desk", "service": values}]
    assert "empirical values in the model" in error_of(
        Model, brewput=1, stations={"desk": {}}, classes={"c": {"rate": 1, "route": route}})


def test_a_plain_date_is_text_and_other_scalars_of_other_types_are_refused(in_tmp):
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "1") + "name: 2024-01-31\n")
    assert brewput.load("m.yaml").name == "2024-01-31"
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "1") + "name: !!binary aGk=\n")
    assert error_of(brewput.load, "m.yaml") == "m.yaml:9 name: unsupported YAML tag tag:yaml.org,2002:binary"
    (in_tmp / "m.yaml").write_text(MODEL.replace("SERVICE", "1").replace("servers: 1", "servers: " + "9" * 5000))
    assert error_of(brewput.load, "m.yaml").startswith("m.yaml:3 stations.disk.servers: cannot read '99")
