"""Study files: several models (or variants of one), the sweeps, the engines and
the charts of an experiment, run by `brewput run STUDY.yaml`.

A study file is YAML validated like a model file: a problem is one line naming
the file, the line and the field (docs/experiments.md lists the fields).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from ..analytic.methods import METHODS
from ..engine.simulate import DEFAULT_REPLICATIONS, MAX_CUSTOMERS, MAX_REPLICATIONS, MAX_SEED, run_settings
from ..errors import BrewputError, FieldError, ModelError, OptionError
from ..loadtest.settings import LoadSettings
from ..model import Model, load
from ..model.limits import MAX_INTEGER, MAX_STUDY_MODELS, MAX_TIME, MIN_TIME
from ..model.fields import Field, ListOf, MapOf, Maybe, Problems, Shorthand, Strict, Text, Value
from ..model.model import first_problem
from ..model.source import Origin, read
from ..units import SECONDS
from ..model.values import boolean, count, first_repeat, integer, number, one_of, show, version
from .record import CHARTS, model_entry, new_record
from .runner import ENGINES, Scenario, plan
from .sweep import SPELLINGS, Number, SweepError, sweep_values


def _values(value: Any) -> List[Number]:
    try:
        return sweep_values(value)
    except SweepError as e:
        raise FieldError(str(e)) from None


def _model_ref(value: Any) -> Any:
    return {"file": value} if isinstance(value, str) else value


def _unique(values: List[str]) -> List[str]:
    if not values:
        raise FieldError("expected at least one")
    twice = first_repeat(values)
    if twice is not None:
        raise FieldError(f"{values[twice]} is listed twice", twice)
    return values


def _some(mapping: Dict[str, Any]) -> Dict[str, Any]:
    if not mapping:
        raise FieldError("expected at least one")
    if len(mapping) > MAX_STUDY_MODELS:
        raise FieldError(f"at most {MAX_STUDY_MODELS:,} models allowed, got {len(mapping):,}")
    return mapping


_unique.limits, _some.limits = (1, None), (1, MAX_STUDY_MODELS)  # type: ignore[attr-defined]


_BASE_60 = re.compile(r"[:\s]\d+(:\d+)+\s*(#.*)?$")
_values.schema = {"anyOf": [{"type": "number"}, {"type": "string", "description": SPELLINGS},  # type: ignore
                            {"type": "array", "items": {"type": "number"}, "minItems": 1}]}
Param = Value(number(-MAX_INTEGER, MAX_INTEGER))
_warmup_time, _warmup_customers = number(0, MAX_TIME, "a time"), count(0, MAX_CUSTOMERS)


class ModelRef(Strict):
    file = Field(Text, description="the model file, relative to the study file's folder")
    set = Field(MapOf(Text, Param), default={})


class SimulateOptions(Strict):
    seed = Field(Value(integer(0, MAX_SEED)), default=1)
    replications = Field(Value(count(1, MAX_REPLICATIONS)), default=DEFAULT_REPLICATIONS)
    customers = Field(Maybe(Value(count(1, MAX_CUSTOMERS))), default=None)
    horizon = Field(Maybe(Value(number(MIN_TIME, MAX_TIME, "a time"))), default=None)
    warmup = Field(Maybe(Value(number(0, None, "a number"))), default=None)

    def _check(self) -> None:
        # A warm-up is a time with a horizon, else a count of customers.
        if self.warmup is not None:
            try:
                (_warmup_time if self.horizon is not None else _warmup_customers)(self.warmup)
            except FieldError as e:
                raise FieldError(f"{e} ({'model time, as the horizon' if self.horizon is not None else 'customers'})",
                                 "warmup") from None
        # The relations between fields are the command line's, reported at the study's field.
        try:
            run_settings(self.seed, self.replications, self.customers, self.horizon, self.warmup, None)
        except OptionError as e:
            if len(e.fields) > 1:  # about two fields: "customers and horizon: give one, not both"
                raise FieldError(str(e), e.fields[0]) from None
            raise FieldError(e.problem_worded(), e.fields[0]) from None


class SolveOptions(Strict):
    method = Field(Value(one_of(*METHODS)), default="auto")


def _load_option(check: Callable[[str], Any], schema: Dict[str, Any]) -> Value:
    """A `brewput load` option checked by its own check (loadtest/options.py),
    the problem said at the study's field."""
    def checked(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise FieldError(f"expected {schema['description']}, got {type(value).__name__}")
        try:
            return check(str(value))
        except OptionError as e:
            raise FieldError(f"{e.problem_worded()}, got {show(value)}") from None
        except BrewputError as e:  # a URL's problem, worded `URL <url>: problem`
            raise FieldError(str(e).partition(": ")[2] or str(e)) from None
    return Value(checked, schema=schema)


def _load_text(check: Callable[[str], Any], description: str) -> Value:
    return _load_option(check, {"type": "string", "description": description})


def _load_time(field: str, zero: bool = False) -> Value:
    return _load_text(lambda text: _options().seconds(field, text, zero=zero), "a time with its unit, e.g. 10s")


def _load_whole(check_name: str) -> Value:
    return _load_option(lambda text: getattr(_options(), check_name)(text),
                        {"type": "integer", "description": "a whole number"})


def _options():
    from ..loadtest import options  # the load engine's own checks, imported only for a study that measures

    return options


def _threshold(text: str) -> str:
    from ..loadtest.thresholds import parse_threshold

    return parse_threshold(text).text


class LoadOptions(Strict):
    """How the load engine measures the service the models describe: once per
    swept rate, after the models' scenarios (so that they do not share the CPUs)."""
    target = Field(Maybe(_load_text(lambda text: _options().http_target(text).url, "an http:// or https:// URL")),
                   default=None, description="the URL to measure (or exec)")
    exec = Field(Maybe(_load_text(lambda text: _options().exec_target(text)["exec"]["command"], "a command line")),
                 default=None, description="a command run per request (or target)")
    rate = Field(Text, default="rate", description="the swept param that is the request rate, per the model's "
                                                   "time unit (converted to requests per second for the load)")
    duration = Field(_load_time("duration"), default=LoadSettings.duration)
    warmup = Field(_load_time("warmup", zero=True), default=LoadSettings.warmup)
    arrivals = Field(Value(one_of("poisson", "constant")), default=LoadSettings.arrivals)
    connections = Field(_load_whole("connections"), default=LoadSettings.connections)
    max_in_flight = Field(_load_whole("max_in_flight"), default=LoadSettings.max_in_flight)
    timeout = Field(_load_time("timeout"), default=LoadSettings.timeout)
    tick = Field(Maybe(_load_text(lambda text: _options().tick(text), "a time with its unit, e.g. 1ms")),
                 default=LoadSettings.tick,
                 description="wake to send at most once per tick, as --tick [default: the generator's]")
    method = Field(Maybe(_load_text(lambda text: _options().method(text), "an HTTP method")), default=None,
                   description="the HTTP method [default: GET, or POST with a body]")
    headers = Field(ListOf(_load_text(lambda text: ": ".join(_options().header(text)), "a header, Name: value")),
                    default=[])
    body = Field(Maybe(Text), default=None, description="a file sent as each request's body, relative to the study")
    cacert = Field(Maybe(Text), default=None, description="a PEM file of certificates to trust (https)")
    insecure = Field(Value(boolean), default=False, description="https without checking the certificate")
    seed = Field(Value(integer(0, MAX_SEED)), default=LoadSettings.seed)
    thresholds = Field(ListOf(_load_text(_threshold, "a threshold, e.g. p99<250ms")), default=[])

    def _check(self) -> None:
        if (self.target is None) == (self.exec is None):
            raise FieldError("give one target: target (an http:// or https:// URL) or exec (a command)", "target")
        if self.exec is not None:
            given = [name for name in ("method", "body", "cacert") if getattr(self, name) is not None]
            given += ["headers"] * bool(self.headers) + ["insecure"] * self.insecure
            if given:
                raise FieldError("shapes an HTTP request: not with exec", given[0])
            return
        try:
            _options().request(_options().http_target(self.target), self.method, list(self.headers), self.body,
                               self.cacert, self.insecure)
        except OptionError as e:
            raise FieldError(e.problem_worded(), e.fields[0]) from None


class StudySpec(Strict):
    brewput = Field(Value(version))
    title = Field(Maybe(Text), default=None)
    models = Field(MapOf(Text, Shorthand(ModelRef, Text, _model_ref), after=_some))
    set = Field(MapOf(Text, Param), default={})
    sweep = Field(MapOf(Text, Value(_values)), default={})
    engines = Field(ListOf(Value(one_of(*ENGINES)), after=_unique), default=["simulate"])
    simulate = Field(SimulateOptions, default={})
    solve = Field(SolveOptions, default={})
    load = Field(Maybe(LoadOptions), default=None)
    charts = Field(Maybe(ListOf(Value(one_of(*CHARTS)), after=_unique)), default=None)


def json_schema() -> Dict[str, Any]:
    """The JSON Schema of a study file, for editors (docs/model-language.md)."""
    return StudySpec.json_schema("brewput study file")


@dataclass(frozen=True)
class Study:
    """A validated study: each model loaded with the study's and its own `set`."""

    file: str
    text: str
    title: str
    models: Dict[str, Model]
    sweep: Dict[str, List[Number]]
    engines: Dict[str, Dict[str, Any]]  # engine -> its options, in the study's order
    charts: Optional[List[str]]

    def with_params(self, **params: Number) -> Study:
        """Every model with `params` set on top of the study's own (`--set`)."""
        return replace(self, models={label: m.with_params(**params) for label, m in self.models.items()})

    def with_simulate(self, **options: Any) -> Study:
        """The study with some simulate options replaced (simulated by the simulator
        even if the study lists other engines only)."""
        return replace(self, engines={**self.engines, "simulate": {**self.engines.get("simulate", {}), **options}})

    def scenarios(self) -> List[Scenario]:
        return plan(self.models, self.sweep, self.engines, where=self.file)

    def new_record(self, command: Optional[str] = None) -> dict:
        return new_record(title=self.title, command=command, study=self.text,
                          models={label: model_entry(m.file) for label, m in self.models.items()},
                          sweep=self.sweep, charts=self.charts)


def load_study(path) -> Study:
    """Reads and validates a study file and the model files it names."""
    file = str(path)
    document = read(path, "study")
    data, origin, text = document.data, document.origin, document.text
    if not isinstance(data, dict):
        raise origin.error((), f"a study must be a mapping of fields, got {type(data).__name__}")
    _refuse_base_60(data.get("sweep"), text, origin)
    try:
        spec = StudySpec.check(data)
    except (FieldError, Problems) as e:
        raise first_problem(e, origin) from None
    files: Dict[str, Model] = {}  # variants of one model file read it once
    models = {label: _load_model(spec, label, origin, files) for label in spec.models}
    engines = {"simulate": _simulate_options(spec.simulate), "solve": spec.solve.as_dict()}
    if "load" in spec.engines:
        engines["load"] = _load_options(spec, origin)
        _check_rates(spec, models, origin)
    return Study(file=file, text=text, title=spec.title or Path(file).stem, models=models,
                 sweep=dict(spec.sweep), engines={e: engines[e] for e in spec.engines}, charts=spec.charts)


def _refuse_base_60(sweep: Any, text: str, origin: Origin) -> None:
    """YAML 1.1 reads an unquoted `1:9:2` as the base-60 number 4142: refuse a
    swept number that was written that way rather than sweep one value."""
    if not isinstance(sweep, dict):
        return
    lines = text.splitlines()
    for name, value in sweep.items():
        line = origin.line(("sweep", name))
        if isinstance(value, int) and line and _BASE_60.search(lines[line - 1]):
            raise origin.error(("sweep", name), "quote a start:stop:step of whole numbers (\"1:9:2\"): "
                                                f"YAML reads it unquoted as the number {value}")


def _load_options(spec: StudySpec, origin: Origin) -> Dict[str, Any]:
    """The load engine's options: its settings for the generator, less the rate
    each scenario gives. It measures the one service at each swept rate, so the
    rate is the only swept param."""
    load = spec.load
    if load is None:
        raise origin.error(("engines",), "engine load needs a load: section naming its target "
                                         "(docs/experiments.md)")
    if load.rate not in spec.sweep:
        raise origin.error(("load", "rate"), f"{load.rate!r} is not swept: the load measures at each "
                                                  "value of its rate param (sweep it)")
    others = [name for name in spec.sweep if name != load.rate]
    if others:
        raise origin.error(("sweep", others[0]), f"engine load measures one service at each {load.rate}: sweep "
                                                 "only the rate (give other params with set, or as model variants)")
    files = {}
    for name in ("body", "cacert"):  # read by the generator before it sends: checked before anything runs
        given = getattr(load, name)
        if given is not None:
            path = os.path.normpath(origin.base_dir / given)
            if not Path(path).is_file():
                raise origin.error(("load", name), f"no such file {path}")
            files[name] = path
    # Every field as checked, the files as found from the study's folder.
    return {**load.as_dict(), "headers": list(load.headers), "body": files.get("body"), "cacert": files.get("cacert"),
            "thresholds": list(load.thresholds)}


def _check_rates(spec: StudySpec, models: Dict[str, Model], origin: Origin) -> None:
    """Every swept rate, per second in each model's time unit, one the load
    can send: refused here, before any scenario runs."""
    name = spec.load.rate
    for label, model in models.items():
        for value in spec.sweep[name]:
            try:
                _options().rate("rate", repr(value / SECONDS[model.time_unit]))
            except OptionError as e:
                raise origin.error(("sweep", name), f"{value} per {model.time_unit} (model {label}) is not a rate "
                                                    f"the load can send: {e.problem_worded()}") from None


def _simulate_options(options: SimulateOptions) -> Dict[str, Any]:
    """The simulate options the study gives (the engine's defaults for the rest)."""
    return {k: v for k, v in options.as_dict().items() if v is not None}


def _load_model(spec: StudySpec, label: str, origin: Origin, files: Dict[str, Model]) -> Model:
    ref = spec.models[label]
    file = os.path.normpath(origin.base_dir / ref.file)
    try:
        exists = Path(file).exists()
    except OSError as e:  # a name too long for the system, say
        raise origin.error(("models", label, "file"), f"{file[:200]}: {e.strerror or e}") from None
    if not exists:
        raise origin.error(("models", label, "file"), f"no model file {file}")
    if file not in files:
        try:
            files[file] = load(file)
        except ModelError as e:
            if e.path or e.line is not None:  # a problem inside the model names its own file and line
                raise
            raise origin.error(("models", label, "file"), f"{file}: {e.problem}") from None  # not a model file at all
    model = files[file]
    params = {**spec.set, **ref.set}
    for where, names in ((("set",), spec.set), (("models", label, "set"), ref.set), (("sweep",), spec.sweep)):
        for name in names:
            if name not in model.params:
                known = ", ".join(model.params) or "none"
                raise origin.error(where + (name,), f"model {label} ({file}) has no param {name!r} "
                                                    f"(its params: {known})")
    return model.with_params(**params) if params else model

