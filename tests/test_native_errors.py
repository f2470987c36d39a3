"""Each way a native run can fail reaches Python as its own class of
brewput.errors, with the engine's message as it is (crates/py/src/errors.rs);
and the one control every engine takes (crates/py/src/control.rs)."""
import json
import socket
import subprocess
import sys
import textwrap

import pytest

import brewput
from brewput import _native
from brewput.errors import (BindError, BrewputError, CancelledError, DeadlockError, EngineError, EngineInputError,
                            InternalError, LabError, LabInputError, LabSystemError, LoadError, LoadInputError,
                            LoadSystemError, OutputError, UnreachableError, UnstableError)
from brewput.loadtest import measure
from brewput.loadtest import options as opt
from brewput.loadtest.run import run_settings, schedule_times
from load_server import serving

RING = {"brewput": 1, "name": "ring", "stations": {"a": {"buffer": 0}, "b": {"buffer": 0}},
        "classes": {"c": {"population": 2, "route": [
            {"id": "x", "station": "a", "service": "exp(1)"},
            {"station": "b", "service": "exp(1)", "next": {"x": 0.5, "exit": 0.5}}]}}}
FLOOD = {"brewput": 1, "name": "flood", "stations": {"desk": {"servers": 1}},
         "classes": {"c": {"rate": 10, "route": [{"station": "desk", "service": "exp(1)"}]}}}
SETTINGS = {"seed": 1, "replications": 1, "stop": {"kind": "customers", "count": 100_000},
            "warmup": {"kind": "customers", "count": 0}}


def simulate(model: dict, settings: dict = SETTINGS, control=None) -> str:
    compiled = json.dumps(brewput.Model.from_dict(model).compile())
    return _native.simulate(compiled, json.dumps(settings), control or _native.Control("simulate"))


def test_the_native_module_has_no_exception_classes_of_its_own():
    own = [name for name in dir(_native)
           if isinstance(getattr(_native, name), type) and issubclass(getattr(_native, name), BaseException)]
    assert own == []


def test_each_engines_classes_are_brewput_errors_of_its_family():
    families = {EngineError: (EngineInputError, DeadlockError, UnstableError, CancelledError, InternalError),
                LabError: (LabInputError, LabSystemError),
                LoadError: (LoadInputError, UnreachableError, BindError, OutputError, LoadSystemError)}
    for family, classes in families.items():
        assert issubclass(family, BrewputError)
        for error in classes:
            assert issubclass(error, family) and error.__module__ == "brewput.errors"
    assert not issubclass(LabError, EngineError) and not issubclass(LoadError, EngineError)


@pytest.mark.parametrize("model, settings, error, message", [
    (FLOOD, {**SETTINGS, "replications": 0}, EngineInputError, "replications must be at least 1"),
    (RING, SETTINGS, DeadlockError, "the model deadlocked at time "),
    (FLOOD, {**SETTINGS, "stop": {"kind": "customers", "count": 10**9}}, UnstableError,
     "more than 1000000 open-class jobs (customers and their forks' branches) in the system at time "),
])
def test_each_simulation_error_reaches_python_as_its_class(model, settings, error, message):
    with pytest.raises(error) as caught:
        simulate(model, settings)
    assert type(caught.value) is error and str(caught.value).startswith(message)


def test_a_cancelled_simulation_and_a_malformed_model():
    control = _native.Control("simulate")
    control.cancel()
    with pytest.raises(CancelledError, match="^the run was cancelled$"):
        simulate(FLOOD, control=control)
    with pytest.raises(EngineInputError, match="compiled model"):
        _native.simulate("{", json.dumps(SETTINGS), _native.Control("simulate"))
    with pytest.raises(EngineInputError, match="^the confidence level must be between 0 and 1, got 1.5$"):
        _native.t_critical(1.5, 3)


LAB_POOL = {"tasks": 1, "work_us": 1.0, "threads": 1, "cpus": 1, "repetitions": 1, "percentiles": [50.0]}


@pytest.mark.skipif(not hasattr(_native, "lab_coffee"), reason="the lab is built on Linux only")
def test_lab_input_errors_reach_python_as_their_class():
    with pytest.raises(LabInputError, match="^pool run: "):
        _native.lab_pool("{", _native.Control("lab"))
    with pytest.raises(LabInputError, match="^work_us"):
        _native.lab_pool(json.dumps({**LAB_POOL, "work_us": 1e30}), _native.Control("lab"))
    # Through the library: the same class, said of the lab, and one line from the command line.
    from brewput.lab import native
    with pytest.raises(LabInputError, match="^lab: work_us"):
        native.call("lab_pool", {**LAB_POOL, "work_us": 1e30})


@pytest.mark.skipif(not hasattr(_native, "lab_coffee"), reason="the lab is built on Linux only")
def test_a_thread_the_system_refuses_is_a_lab_system_error():
    # More threads than a capped address space holds (each reserves its stack),
    # in a process of its own (tests/test_corpus_lab.py does it from the command line).
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2048 << 20, 2048 << 20))
        from brewput.lab import native
        try:
            native.call("lab_pool", {{**{LAB_POOL!r}, "tasks": 10000, "threads": 10000}})
        except Exception as e:
            print(type(e).__name__, e, sep="|")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    name, message = done.stdout.strip().split("|")
    assert name == "LabSystemError" and message.startswith("lab: cannot start ") and "thread" in message, done


def closed_port() -> int:
    """A port nothing listens on (it was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_settings(url: str, **kwargs) -> dict:
    schedule = opt.schedule(rate_text="100", arrivals="constant", ramp_text=None, step_text=None,
                            duration_text="1s", requests_text=None, warmup_text="0s", seed=1)
    return run_settings(opt.http_target(url).settings("GET"), schedule, connections=1, max_in_flight=100,
                        timeout_seconds=1.0, **kwargs)


def test_each_load_error_reaches_python_as_its_class(tmp_path):
    with pytest.raises(LoadInputError, match="^load settings: "):
        _native.load_run("{", _native.Control("load"))
    with pytest.raises(LoadInputError, match="^schedule: "):
        _native.load_schedule("{", 10)
    with pytest.raises(UnreachableError, match=r"^cannot connect to 127\.0\.0\.1:"):
        _native.load_run(json.dumps(load_settings(f"http://127.0.0.1:{closed_port()}/")), _native.Control("load"))
    with serving() as url:
        log = tmp_path / "no such folder" / "run.hlog"
        with pytest.raises(OutputError, match=f"^{log}: cannot write the interval log"):
            _native.load_run(json.dumps(load_settings(url, interval_log=str(log))), _native.Control("load"))


def test_the_library_says_load_errors_as_before():
    """Nothing sent: the engine's message alone; settings refused: said of the load."""
    with pytest.raises(UnreachableError, match=r"^cannot connect to 127\.0\.0\.1:"):
        measure(load_settings(f"http://127.0.0.1:{closed_port()}/"))
    with pytest.raises(LoadInputError, match="^load: load settings: "):
        measure({"target": "nowhere"})
    with pytest.raises(LoadInputError, match="^load: schedule: "):
        schedule_times({"stages": "none"})


def test_each_demo_server_error_reaches_python_as_its_class():
    with pytest.raises(LoadInputError, match="^serve settings: "):
        _native.DemoServer("{")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = {"host": "127.0.0.1", "port": port, "workers": 1, "service": opt.service_distribution("const(1ms)"),
                    "burn": False, "queue": 1, "seed": 1, "for_seconds": 1.0}
        with pytest.raises(BindError, match=f"^cannot listen on 127.0.0.1:{port}: "):
            _native.DemoServer(json.dumps(settings))
    with pytest.raises(LoadInputError, match="^workers must be from 1 to "):
        _native.DemoServer(json.dumps({**settings, "workers": 0}))


@pytest.mark.parametrize("error", [EngineInputError, DeadlockError, LabInputError, UnreachableError,
                                   LoadSystemError, InternalError])
def test_the_classes_cross_process_pools(error):
    import pickle
    copy = pickle.loads(pickle.dumps(error("what happened")))
    assert type(copy) is error and str(copy) == "what happened"


def test_the_control_is_made_for_one_engine_and_shows_its_progress():
    assert json.loads(_native.Control("simulate").progress()) == {"customers": 0}
    assert json.loads(_native.Control("load").progress()) == {
        "elapsed_seconds": 0.0, "sent": 0, "answered": 0, "in_flight": 0, "response_p50": 0.0, "response_p99": 0.0}
    assert json.loads(_native.Control("lab").progress()) is None
    assert json.loads(_native.Control("serve").progress()) is None
    with pytest.raises(ValueError, match='expected one of simulate, lab, load, serve, got "sim"'):
        _native.Control("sim")
    with pytest.raises(TypeError, match=r'made for another engine: make it with Control\("simulate"\)'):
        simulate(FLOOD, control=_native.Control("load"))
    with pytest.raises(TypeError, match=r'made for another engine: make it with Control\("load"\)'):
        _native.load_run("{}", _native.Control("simulate"))


def test_a_simulations_control_counts_its_customers():
    control = _native.Control("simulate")
    simulate(FLOOD, {**SETTINGS, "stop": {"kind": "customers", "count": 1000}}, control)
    assert json.loads(control.progress()) == {"customers": 1000}
