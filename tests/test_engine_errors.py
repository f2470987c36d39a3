"""Each way a simulation can fail is its own exception, from the Rust engine
through the binding (crates/py/src/errors.rs) to brewput.errors; every engine's
(tests/test_native_errors.py)."""
import json
import pickle

import pytest

import brewput
from brewput import _native
from brewput.engine import simulate as simulate_module
from brewput.cli.common import user_message
from brewput.errors import (BrewputError, CancelledError, DeadlockError, EngineError, EngineInputError,
                            InternalError, OptionError, UnstableError)

RING = ("brewput: 1\nname: ring\nstations: {a: {buffer: 0}, b: {buffer: 0}}\n"
        "classes: {c: {population: 2, route: [{id: x, station: a, service: exp(1)},"
        " {station: b, service: exp(1), next: {x: 0.5, exit: 0.5}}]}}\n")
"""Two bufferless stations feeding each other: both customers end up blocked."""

FLOOD = ("brewput: 1\nname: flood\nstations: {desk: {servers: 1}}\n"
         "classes: {c: {rate: 10, route: [{station: desk, service: exp(1)}]}}\n")
"""Arrivals ten times faster than service: the queue grows without bound."""

MM1 = ("brewput: 1\nstations: {desk: {servers: 1}}\n"
       "classes: {c: {rate: 0.5, route: [{station: desk, service: exp(1)}]}}\n")


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_hierarchy():
    for error in (DeadlockError, UnstableError, CancelledError, EngineInputError, InternalError):
        assert issubclass(error, EngineError) and issubclass(error, BrewputError)


def test_the_classes_are_public():
    assert brewput.DeadlockError is DeadlockError and brewput.UnstableError is UnstableError
    assert brewput.CancelledError is CancelledError and brewput.EngineError is EngineError


def test_deadlock(tmp_path):
    with pytest.raises(DeadlockError, match=r"ring\.yaml: the model deadlocked at time"):
        brewput.simulate(write(tmp_path, "ring.yaml", RING), customers=1000, replications=1)


def test_unstable_stops_with_its_own_error(tmp_path):
    with pytest.raises(UnstableError, match=r"flood\.yaml: more than 1000000 open-class jobs \(customers and their forks' branches\)"):
        brewput.simulate(write(tmp_path, "flood.yaml", FLOOD), replications=1)


def test_native_errors_carry_their_class():
    model = json.dumps(brewput.Model.from_dict(
        {"brewput": 1, "stations": {"d": {}}, "classes": {"c": {"rate": 0.5, "route": [{"station": "d", "service": 1}]}}}
    ).compile())
    settings = {"seed": 1, "replications": 1, "stop": {"kind": "customers", "count": 10},
                "warmup": {"kind": "customers", "count": 0}}
    control = _native.Control("simulate")
    control.cancel()
    with pytest.raises(CancelledError, match="cancelled"):
        _native.simulate(model, json.dumps(settings), control)
    with pytest.raises(EngineInputError, match="replications must be at least 1"):
        _native.simulate(model, json.dumps({**settings, "replications": 0}), _native.Control("simulate"))
    with pytest.raises(EngineInputError, match="compiled model"):
        _native.simulate("{", json.dumps(settings), _native.Control("simulate"))


@pytest.mark.parametrize("error", [CancelledError, EngineInputError, InternalError, DeadlockError, UnstableError])
def test_simulate_says_each_native_error_of_its_model_keeping_its_class(tmp_path, monkeypatch, error):
    def failing(*args):
        raise error("what happened")
    monkeypatch.setattr(simulate_module._native, "simulate", failing)
    with pytest.raises(error) as caught:
        brewput.simulate(write(tmp_path, "m.yaml", MM1), customers=10, replications=1)
    assert type(caught.value) is error and str(caught.value) == f"{tmp_path / 'm.yaml'}: what happened"


@pytest.mark.parametrize("run, fields, message, worded", [
    (lambda m: brewput.simulate(m, customers=0), ("customers",),
     "customers: expected a number from 1 to 4,000,000,000, got 0",
     "--customers: expected a number from 1 to 4,000,000,000, got 0"),
    (lambda m: brewput.simulate(m, seed=-1), ("seed",), "seed: expected a number from 0 to ",
     "--seed: expected a number from 0 to "),
    (lambda m: brewput.simulate(m, horizon=5.0, warmup=-1.0), ("warmup",),
     "warmup: expected a non-negative finite number, got -1.0", "--warmup: expected a non-negative"),
    (lambda m: brewput.simulate(m, customers=10, horizon=5.0), ("customers", "horizon"),
     "customers and horizon: give one, not both", "--customers and --horizon: give one, not both"),
    (lambda m: brewput.solve(m, method="x"), ("method",), "method: expected one of auto, ",
     "--method: expected one of auto, "),
    (lambda m: brewput.solve(m, method="approx"), ("method",),
     "method approx: open networks are solved exactly (or by the named approximation per station); "
     "use method auto", "--method approx: open networks are solved exactly (or by the named approximation "
                        "per station); use --method auto"),
])
def test_run_options_are_refused_naming_the_apis_field_and_the_cli_words_its_option(
        tmp_path, run, fields, message, worded):
    with pytest.raises(OptionError) as e:
        run(write(tmp_path, "mm1.yaml", MM1))
    assert isinstance(e.value, BrewputError) and e.value.fields == fields
    assert str(e.value).startswith(message) and "--" not in str(e.value)
    assert user_message(e.value).startswith(worded)
    assert str(pickle.loads(pickle.dumps(e.value))) == str(e.value)
