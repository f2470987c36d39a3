"""Bad models: each gives one ModelError whose message is one line,
`FILE:LINE FIELD.PATH: problem`, naming the file, the line, the field and the problem."""
import pytest

import brewput
from brewput.errors import BrewputError, ModelError
from conftest import error_of

BASE = """\
brewput: 1
stations:
  desk: {servers: 1}
classes:
  c:
    rate: 1
    route:
      - {station: desk, service: exp(0.5)}
"""
#  line 1: brewput, 3: the station, 6: rate, 8: the step

WITH_PARAM = BASE.replace("stations:", "params: {r: 2}\nstations:")  # one line lower from here on


def edit(old, new, base=BASE):
    assert old in base
    return base.replace(old, new)


CASES = {
    "malformed YAML": ("brewput: 1\nstations: {desk: {servers: 1}\n",
                       "m.yaml:3: invalid YAML: expected ',' or '}', but got '<stream end>'"),
    "tab indentation": ("brewput: 1\nstations:\n\tdesk: {}\n",
                        "m.yaml:3: invalid YAML: found character '\\t' that cannot start any token "
                        "(indent with spaces, not tabs)"),
    "two documents": (BASE + "---\nbrewput: 1\n",
                      "m.yaml:9: invalid YAML: expected a single document in the stream, "
                      "but found another document"),
    "unquoted ${} in a flow mapping": (edit("servers: 1", "servers: ${r}", WITH_PARAM),
                                       "m.yaml:4: invalid YAML: expected ',' or '}', but got '{' (inside {...} "
                                       "or [...], quote a value that has ${...}: '${2 * n}')"),
    "duplicate key": (edit("  desk: {servers: 1}\n", "  desk: {servers: 1}\n  desk: {servers: 2}\n"),
                      "m.yaml:4 stations.desk: duplicate key"),
    "duplicate key in a flow mapping": (edit("{servers: 1}", "{servers: 1, servers: 2}"),
                                        "m.yaml:3 stations.desk.servers: duplicate key"),
    "python tag": ("brewput: !!python/object:os.system {}\n",
                   "m.yaml:1 brewput: unsupported YAML tag tag:yaml.org,2002:python/object:os.system"),
    "not a mapping": ("- 1\n- 2\n", "m.yaml:1: a model must be a mapping of fields, got list"),
    "empty file": ("", "m.yaml brewput: missing required field"),
    "wrong version": (edit("brewput: 1", "brewput: 2"),
                      "m.yaml:1 brewput: unsupported model language version 2 (this brewput reads brewput: 1)"),
    "no version": (edit("brewput: 1\n", "name: x\n"), "m.yaml:1 brewput: missing required field"),
    "unknown top-level field": (BASE + "colour: red\n",
                                "m.yaml:9 colour: unknown field (expected one of: brewput, name, "
                                "time_unit, params, day, resources, stations, classes)"),
    "unknown station field": (edit("servers: 1", "severs: 1"),
                              "m.yaml:3 stations.desk.severs: unknown field (expected one of: "
                              "servers, buffer, discipline, take, assign, preempt, off_shift)"),
    "bad time unit": (BASE + "time_unit: days\n",
                      "m.yaml:9 time_unit: expected one of ns, us, ms, s, min, h, got 'days'"),
    "no stations": (edit("  desk: {servers: 1}\n", "  {}\n"), "m.yaml:2 stations: needs at least one station"),
    "stations as a list": (edit("  desk: {servers: 1}\n", "  - desk\n"),
                           "m.yaml:2 stations: expected a mapping, got ['desk']"),
    "station not a mapping": (edit("{servers: 1}", "5"), "m.yaml:3 stations.desk: expected a mapping, got 5"),
    "zero servers": (edit("servers: 1", "servers: 0"),
                     "m.yaml:3 stations.desk.servers: expected a positive integer or inf, got 0"),
    "negative servers": (edit("servers: 1", "servers: -1"),
                         "m.yaml:3 stations.desk.servers: expected a positive integer or inf, got -1"),
    "fractional servers": (edit("servers: 1", "servers: 2.5"),
                           "m.yaml:3 stations.desk.servers: expected a positive integer or inf, got 2.5"),
    "boolean servers": (edit("servers: 1", "servers: yes"),
                        "m.yaml:3 stations.desk.servers: expected a positive integer or inf, got True"),
    "absurd servers": (edit("servers: 1", "servers: 20000000"),
                       "m.yaml:3 stations.desk.servers: 20000000 is too large (at most 10,000,000)"),
    "negative buffer": (edit("servers: 1", "buffer: -2"),
                        "m.yaml:3 stations.desk.buffer: expected a non-negative integer or inf, got -2"),
    "bad discipline": (edit("servers: 1", "discipline: fast"),
                       "m.yaml:3 stations.desk.discipline: expected one of fifo, lifo, priority, sjf, ps, "
                       "got 'fast'"),
    "zero tokens": (BASE + "resources: {cpu: 0}\n",
                    "m.yaml:9 resources.cpu: expected a positive integer, got 0"),
    "negative rate": (edit("rate: 1", "rate: -1"), "m.yaml:6 classes.c.rate: expected a rate from 1e-12 to 1e+12, got -1"),
    "infinite rate": (edit("rate: 1", "rate: .inf"),
                      "m.yaml:6 classes.c.rate: expected a rate from 1e-12 to 1e+12, got inf"),
    "open and closed": (edit("rate: 1", "rate: 1\n    population: 3"),
                        "m.yaml:5 classes.c: a class is open (arrivals: or rate:) or closed (population:), "
                        "not both"),
    "neither open nor closed": (edit("rate: 1", "priority: 1"),
                                "m.yaml:5 classes.c: needs arrivals: or rate: (an open class) or population: "
                                "(a closed class)"),
    "arrivals and rate": (edit("rate: 1", "rate: 1\n    arrivals: exp(1)"),
                          "m.yaml:6 classes.c.rate: give arrivals or rate, not both"),
    "zero interarrival": (edit("rate: 1", "arrivals: 0"),
                          "m.yaml:6 classes.c.arrivals: the mean time between arrivals must be positive"),
    "think in an open class": (edit("rate: 1", "rate: 1\n    think: 2"),
                               "m.yaml:7 classes.c.think: think: is for closed classes (an open class has "
                               "arrivals)"),
    "absurd population": (edit("rate: 1", "population: 1000000000000"),
                          "m.yaml:6 classes.c.population: 1000000000000 is too large (at most 10,000,000)"),
    "fractional priority": (edit("rate: 1", "rate: 1\n    priority: 0.5"),
                            "m.yaml:7 classes.c.priority: expected an integer from -10,000,000 to "
                            "10,000,000, got 0.5"),
    "empty route": (edit("\n      - {station: desk, service: exp(0.5)}", " []"),
                    "m.yaml:7 classes.c.route: needs at least one step"),
    "missing service": (edit(", service: exp(0.5)", ""),
                        "m.yaml:8 classes.c.route[0].service: missing required field"),
    "unknown station in a route": (edit("station: desk", "station: dsk"),
                                   "m.yaml:8 classes.c.route[0].station: unknown station 'dsk' (stations: desk)"),
    "unknown resource in uses": (edit("exp(0.5)}", "exp(0.5), uses: [cpu]}"),
                                 "m.yaml:8 classes.c.route[0].uses[0]: unknown resource 'cpu' (resources: none)"),
    "resource used twice": (BASE.replace("exp(0.5)}", "exp(0.5), uses: [cpu, cpu]}") + "resources: {cpu: 1}\n",
                            "m.yaml:8 classes.c.route[0].uses[1]: resource 'cpu' is listed twice"),
    "unknown param": (edit("rate: 1", "rate: ${r}"), "m.yaml:6 classes.c.rate: unknown param 'r'"),
    "unknown param in an expression": (edit("rate: 1", "rate: ${2 * r}"),
                                       "m.yaml:6 classes.c.rate: unknown param 'r' in '${2 * r}'"),
    "bad expression": (edit("rate: 1", "rate: ${r +}", WITH_PARAM),
                       "m.yaml:7 classes.c.rate: invalid expression '${r +}'"),
    "forbidden expression": (edit("rate: 1", "rate: '${__import__(\"os\").getpid()}'", WITH_PARAM),
                             "m.yaml:7 classes.c.rate: '__import__('os').getpid()' is not allowed (only "
                             "numbers, params, + - * / // % **, min, max, round, floor, ceil) in "
                             "'${__import__(\"os\").getpid()}'"),
    "division by zero": (edit("rate: 1", "rate: ${r / 0}", WITH_PARAM),
                         "m.yaml:7 classes.c.rate: division by zero in '${r / 0}'"),
    "runaway power": (edit("rate: 1", "rate: ${r ** 1000}", WITH_PARAM),
                      "m.yaml:7 classes.c.rate: result is too large in '${r ** 1000}'"),
    "param used before it is defined": (edit("params: {r: 2}", "params: {q: '${r}', r: 2}", WITH_PARAM),
                                        "m.yaml:2 params.q: unknown param 'r'"),
    "param not a number": (edit("params: {r: 2}", "params: {r: two}", WITH_PARAM),
                           "m.yaml:2 params.r: expected a finite number or ${expression}, got 'two'"),
    "unclosed ${": (edit("exp(0.5)", "'exp(${r)'", WITH_PARAM),
                    "m.yaml:9 classes.c.route[0].service: unclosed or nested ${ in 'exp(${r)'"),
    "probabilities not summing to 1": (edit("exp(0.5)}", "exp(0.5), next: {exit: 0.5}}"),
                                       "m.yaml:8 classes.c.route[0].next: probabilities must sum to 1, got 0.5"),
    "probability above 1": (edit("exp(0.5)}", "exp(0.5), next: {exit: 1.5}}"),
                            "m.yaml:8 classes.c.route[0].next.exit: expected a probability between 0 and 1, "
                            "got 1.5"),
    "unknown next id": (edit("exp(0.5)}", "exp(0.5), next: foo}"),
                        "m.yaml:8 classes.c.route[0].next: unknown step id 'foo' (ids in this route: none; or exit)"),
    "unknown next id in a mapping": (edit("exp(0.5)}", "exp(0.5), id: a, next: {a: 0.5, b: 0.5}}"),
                                     "m.yaml:8 classes.c.route[0].next.b: unknown step id 'b' (ids in this "
                                     "route: a; or exit)"),
    "duplicate step id": (edit("exp(0.5)}", "exp(0.5), id: a}\n      - {station: desk, service: 1, id: a}"),
                          "m.yaml:9 classes.c.route[1].id: duplicate step id 'a' (also route[0])"),
    "exit as a step id": (edit("exp(0.5)}", "exp(0.5), id: exit}"),
                          "m.yaml:8 classes.c.route[0].id: 'exit' is reserved for leaving the route"),
    "exit unreachable": (edit("exp(0.5)}", "exp(0.5), id: a}\n      - {station: desk, service: 1, next: a}"),
                         "m.yaml:8 classes.c.route[0]: jobs reaching this step can never exit: every way on "
                         "loops back for ever"),
    "negative constant service": (edit("exp(0.5)", "-1"),
                                  "m.yaml:8 classes.c.route[0].service: expected a time >= 0, got -1"),
    "zero mean": (edit("exp(0.5)", "exp(0)"),
                  "m.yaml:8 classes.c.route[0].service: exp(0): mean must be from 1e-12 to 1e+12, got 0.0"),
    "unknown distribution": (edit("exp(0.5)", "expo(0.5)"),
                             "m.yaml:8 classes.c.route[0].service: unknown distribution 'expo' (known: const, exp, "
                             "erlang, gamma, lognormal, uniform, normal, hyperexp, jitter, empirical)"),
    "wrong argument count": (edit("exp(0.5)", "exp(0.5; 1)"),
                             "m.yaml:8 classes.c.route[0].service: exp(0.5; 1): '0.5; 1' is not a number"),
    "param name without ${}": (edit("exp(0.5)", "exp(r)", WITH_PARAM),
                               "m.yaml:9 classes.c.route[0].service: exp(r): 'r' is not a number (write ${r} "
                               "to use a param)"),
    "a stray call piece in a flow mapping": (edit("exp(0.5)", "exp(0.5), 1)"),
                                          "m.yaml:8 classes.c.route[0].1): unknown field (expected one of: station, "
                                          "service, served_by, uses, balk, patience, id, next, mark); inside {...} quote a value with commas: "
                                          "\"gamma(2, 0.5)\""),
    "hyperexp cv below 1": (edit("exp(0.5)", "'hyperexp(1, 0.5)'"),
                            "m.yaml:8 classes.c.route[0].service: hyperexp(1, 0.5): cv must be from 1 to 1000 (a "
                            "hyperexponential varies at least as much as an exponential; use gamma or lognormal "
                            "below 1), got 0.5"),
    "erlang k = 0": (edit("exp(0.5)", "'erlang(0, 1)'"),
                     "m.yaml:8 classes.c.route[0].service: erlang(0, 1): k must be a positive integer (at most "
                     "10000), got 0"),
    "uniform a > b": (edit("exp(0.5)", "'uniform(3, 1)'"),
                      "m.yaml:8 classes.c.route[0].service: uniform(3, 1): b must be >= a (3.0), got 1.0"),
    "jitter wider than the mean allows": (edit("exp(0.5)", "'jitter(1, 3)'"),
                                          "m.yaml:8 classes.c.route[0].service: jitter(1, 3): width must be "
                                          "between 0 and 2*mean (2.0) so no time is negative, got 3.0"),
    "NaN mean": (edit("exp(0.5)", "exp(nan)"),
                 "m.yaml:8 classes.c.route[0].service: exp(nan): mean must be a finite number, got nan"),
    "mapping form: bad field": (edit("exp(0.5)", "{dist: gamma, mean: 2, cv: -1}"),
                                "m.yaml:8 classes.c.route[0].service.cv: cv must be from 1e-06 to 1000 (use const "
                                "for no variation), got -1.0"),
    "mapping form: unknown field": (edit("exp(0.5)", "{dist: exp, mean: 2, cv: 1}"),
                                    "m.yaml:8 classes.c.route[0].service.cv: unknown field 'cv' for exp "
                                    "(expected: mean)"),
    "mapping form: missing field": (edit("exp(0.5)", "{dist: gamma, mean: 2}"),
                                    "m.yaml:8 classes.c.route[0].service: gamma needs cv"),
    "mapping form: dist not a name": (edit("exp(0.5)", "{dist: [exp], mean: 2}"),
                                      "m.yaml:8 classes.c.route[0].service.dist: unknown distribution ['exp'] "
                                      "(known: const, exp, erlang, gamma, lognormal, uniform, normal, hyperexp, "
                                      "jitter, empirical)"),
    "empirical file missing": (edit("exp(0.5)", "empirical(times.csv)"),
                               "m.yaml:8 classes.c.route[0].service: empirical(times.csv): cannot read the "
                               "empirical file 'times.csv': No such file or directory"),
    "empirical list empty": (edit("exp(0.5)", "'empirical([])'"),
                             "m.yaml:8 classes.c.route[0].service: empirical([]): values must be a non-empty list "
                             "of numbers, got []"),
}




@pytest.mark.parametrize("text, message", CASES.values(), ids=CASES.keys())
def test_bad_model(in_tmp, text, message):
    (in_tmp / "m.yaml").write_text(text)
    assert error_of(brewput.load, "m.yaml") == message


def test_the_file_is_named_as_given(in_tmp):
    (in_tmp / "sub").mkdir()
    (in_tmp / "sub" / "coffee.yaml").write_text(edit("servers: 1", "servers: -1"))
    assert error_of(brewput.load, "sub/coffee.yaml").startswith("sub/coffee.yaml:3 stations.desk.servers: ")


def test_missing_model_file(in_tmp):
    assert error_of(brewput.load, "nope.yaml") == "nope.yaml: cannot read the model file: No such file or directory"


def test_unknown_param_override(in_tmp):
    (in_tmp / "m.yaml").write_text(WITH_PARAM)
    assert error_of(brewput.load, "m.yaml", params={"cpus": 4}) == \
        "m.yaml:2 params.cpus: cannot set unknown param 'cpus' (params: r)"
    model = brewput.load("m.yaml")
    assert error_of(model.with_params, q=1) == "m.yaml:2 params.q: cannot set unknown param 'q' (params: r)"
    assert error_of(model.with_params, r="r+") == "m.yaml:2 params.r: invalid expression '${r+}'"


def test_the_first_problem_in_the_file_is_reported(in_tmp):
    text = edit("servers: 1", "servers: 0").replace("rate: 1", "rate: -1").replace("desk, service", "dsk, service")
    (in_tmp / "m.yaml").write_text(text)
    assert error_of(brewput.load, "m.yaml").startswith("m.yaml:3 stations.desk.servers")


def test_models_built_in_code_are_named_model():
    classes = {"c": {"rate": 1, "route": [{"station": "desk", "service": "exp(0.5)"}]}}
    assert error_of(brewput.Model, brewput=1, stations={"desk": {"servers": -1}}, classes=classes) == \
        "<model> stations.desk.servers: expected a positive integer or inf, got -1"
    assert error_of(brewput.Model.from_dict, {"brewput": 1, "stations": {"desk": {}}, "classes": classes},
                    params={"n": 1}) == "<model> params.n: cannot set unknown param 'n' (params: none)"
    assert error_of(brewput.Model.from_dict, [1]) == "<model>: a model must be a mapping of fields, got list"


def test_too_many_stations():
    stations = {f"s{i}": {} for i in range(10_001)}
    classes = {"c": {"rate": 1, "route": [{"station": "s0", "service": 1}]}}
    assert error_of(brewput.Model, brewput=1, stations=stations, classes=classes) == \
        "<model> stations: at most 10,000 allowed, got 10,001"


def test_model_errors_are_brewput_errors():
    assert issubclass(ModelError, BrewputError) and issubclass(BrewputError, Exception)
    assert str(ModelError("bad", ("a", 1, "b"), file="f.yaml", line=3)) == "f.yaml:3 a[1].b: bad"
    assert str(ModelError("two\n  lines")) == "<model>: two lines"
