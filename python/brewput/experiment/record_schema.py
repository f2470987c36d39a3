"""The shape of an experiment record and of the results dicts inside it, as
pydantic models: the one description `brewput report` checks a record against
before drawing anything, so that a malformed record is one line naming the JSON
field at fault (`scenarios[0].results.classes.latte.throughput: expected a
number, got 'fast'`), never a traceback from deep inside a chart.

Only what brewput reads is described; other fields are kept as they are.
"""
from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from pydantic import (BaseModel, ConfigDict, Field, Strict, ValidationError, ValidationInfo, field_validator,
                      model_validator)
from pydantic_core import PydanticCustomError
from typing_extensions import Annotated

from ..errors import BrewputError, format_path
from ..units import SECONDS
from .record import CHARTS, VERSION

MAX_BYTES = 1 << 30  # a record's file; a million scenarios of a small model fit
MAX_DEPTH = 64  # of nested JSON arrays and objects; a record needs about 8

Number = Annotated[float, Strict()]  # an int or a float, never a string or a bool
Whole = Annotated[int, Strict()]
Text = Annotated[str, Strict()]
Flag = Annotated[bool, Strict()]
Interval = Optional[Tuple[Optional[Number], Optional[Number]]]
Spectrum = List[Tuple[Number, Number]]  # (percent, value) pairs
# Every figure but the few named ones (exact, method) is a number or its interval:
# a string where the charts expect a number would fail deep inside them.
Measure = Union[Number, Interval, None]


class Part(BaseModel):
    """A part of a record: the fields brewput reads are typed, others kept."""
    model_config = ConfigDict(extra="allow")


class Times(Part):
    """response_time and waiting_time: the mean, percentiles, max, the spectrum."""
    mean: Optional[Number] = None
    max: Optional[Number] = None
    spectrum: Optional[Spectrum] = None
    spectrum_ci: Optional[List[Interval]] = None
    distribution: Optional[Dict[str, Any]] = None  # asked for (--hgrm): the rows of an .hgrm file
    within: Optional[List[Tuple[Number, Optional[Number]]]] = None  # asked for (--within): [t, P(time <= t)]
    within_ci: Optional[List[Interval]] = None
    __pydantic_extra__: Dict[str, Measure]  # the percentiles and their intervals


class Law(Part):
    """How solve knows a class's time laws, its percentiles and service levels (percentiles.py)."""
    exact: Flag
    method: Text


class Asked(Part):
    """The quantiles (percents) and service-level times a run was asked for beyond the fixed list."""
    quantiles: List[Number] = []
    within: List[Number] = []


class ClassFigures(Part):
    throughput: Optional[Number]
    throughput_ci: Interval = None
    response_time: Times
    waiting_time: Optional[Times] = None
    lost: Optional[Whole] = None
    lost_by: Optional[Dict[str, Optional[Whole]]] = None  # full, balked, reneged
    loss_probability_by: Optional[Dict[str, Optional[Number]]] = None  # none for a closed class
    loss_probability_by_ci: Optional[Dict[str, Interval]] = None
    measures: Optional[Dict[str, Times]] = None  # between marks, each like the response time
    measures_count: Optional[Dict[str, Whole]] = None
    exact: Optional[Flag] = None
    method: Optional[Text] = None
    law: Optional[Law] = None  # solve's, where percentiles or service levels are given
    station: Optional[Text] = None  # a solved day's: where the class queues
    __pydantic_extra__: Dict[str, Union[Measure, Times]]  # loss_probability, the lab's service_time...


class ServerType(Part):
    """A typed group of a station's servers: how busy, and what it served per class."""
    utilization: Optional[Number] = None
    utilization_ci: Interval = None
    served: Dict[str, Number] = {}
    __pydantic_extra__: Dict[str, Union[Measure, Dict[str, Measure]]]


class ClassAtStation(Part):
    """One class's figures at a station it visits (docs/results.md, "Per class at each station")."""
    __pydantic_extra__: Dict[str, Measure]  # queue_length, utilization ... and their intervals


class Figures(Part):
    """A station's or a resource's figures."""
    utilization: Optional[Number] = None
    server_types: Optional[Dict[str, ServerType]] = None
    classes: Optional[Dict[str, ClassAtStation]] = None
    exact: Optional[Flag] = None
    method: Optional[Text] = None
    __pydantic_extra__: Dict[str, Measure]


class Bounds(Part):
    bottleneck: Text
    max_throughput: Optional[Number]
    saturation_population: Optional[Number] = None
    throughput: Interval = None
    response_time: Interval = None
    balanced_throughput: Interval = None
    balanced_response_time: Interval = None


class IntervalClass(Part):
    """A class's figures in one interval of a day: of the customers who arrived in it."""
    waiting_time: Optional[Times] = None
    exact: Optional[Flag] = None
    method: Optional[Text] = None
    __pydantic_extra__: Dict[str, Union[Measure, Times]]  # arrivals, abandonment ... and their intervals; a
                                                          # measured day's response_time and service_time


class IntervalStation(Part):
    """A station's figures in one interval of a day: of its time."""
    exact: Optional[Flag] = None
    method: Optional[Text] = None
    __pydantic_extra__: Dict[str, Measure]  # servers, utilization, waiting ... and their intervals


class DayInterval(Part):
    """One interval of a day (docs/results.md "Intervals")."""
    start: Number
    end: Number
    label: Text
    classes: Dict[str, IntervalClass]
    stations: Dict[str, IntervalStation] = {}


class FromStation(Part):
    """A station's expected figures at one time of a model followed from a given state."""
    queue_length: Number
    waiting: Number
    busy_servers: Number
    utilization: Optional[Number]   # null at servers: inf


class FromPoint(Part):
    time: Number
    number: Number
    throughput: Number
    completions: Number
    empty: Number
    stations: Dict[str, FromStation] = Field(min_length=1)


class Passage(Part):
    """A time until the system is first empty (or no job waits): its mean and quantiles, null where it may never come."""
    mean: Optional[Number]
    __pydantic_extra__: Dict[str, Optional[Number]]  # p50, p90, p99


class Clears(Passage):
    waiting: Passage


class From(Part):
    """solve --from's answer (docs/results.md "From a given state")."""
    state: Dict[str, Whole]
    over: Number
    exact: Flag
    method: Text
    points: List[FromPoint] = Field(min_length=1)
    clears: Clears


class Results(Part):
    """One engine's answer (docs/results.md)."""
    model: Text
    engine: Literal["simulate", "solve", "lab", "load"]
    method: Optional[Text] = None
    time_unit: Literal[tuple(SECONDS)]  # type: ignore[valid-type]
    params: Dict[str, Union[Number, Text]] = {}
    settings: Optional[Dict[str, Any]] = None
    followed: Optional[From] = Field(None, alias="from")   # before classes: an overloaded model followed has none
    classes: Dict[str, ClassFigures]
    stations: Dict[str, Figures] = {}
    resources: Dict[str, Figures] = {}
    bounds: Optional[Dict[str, Bounds]] = None
    warnings: List[Text] = []
    notes: List[Text] = []
    asked: Optional[Asked] = None
    intervals: Optional[List[DayInterval]] = None

    @field_validator("classes")
    @classmethod
    def _classes_unless_followed_alone(cls, classes: dict, info: ValidationInfo) -> dict:
        # An overloaded model followed from a given state (solve --from) has no steady state: no class figures.
        if not classes and info.data.get("followed") is None:
            raise PydanticCustomError("too_short", "expected a non-empty map")
        return classes

    @model_validator(mode="before")
    @classmethod
    def _every_interval_names_the_same_classes(cls, results: Any) -> Any:
        problem = intervals_problem(results, "")
        if problem:
            raise ValueError(problem)
        return results

    @model_validator(mode="before")
    @classmethod
    def _a_solved_day_has_no_response_time(cls, results: Any) -> Any:
        # solve answers a day's waits per interval, with no response time of the day's (checked as empty)
        if not (isinstance(results, dict) and results.get("intervals") and results.get("engine") == "solve"
                and isinstance(results.get("classes"), dict)):
            return results
        classes = {name: {"response_time": {}, **figures} if isinstance(figures, dict) else figures
                   for name, figures in results["classes"].items()}
        return {**results, "classes": classes}


class ModelEntry(Part):
    file: Optional[Text] = None
    text: Optional[Text] = None


class Scenario(Part):
    id: Whole
    model: Text
    engine: Text
    params: Dict[str, Union[Number, Text]]
    results: Results


class Failure(Part):
    id: Whole
    model: Text
    engine: Text
    params: Dict[str, Union[Number, Text]]
    error: Text


class Record(Part):
    brewput: Literal["experiment"]
    version: Literal[VERSION]  # type: ignore[valid-type]
    title: Optional[Text] = None
    created: Optional[Text] = None
    command: Optional[Text] = None
    study: Optional[Text] = None
    models: Dict[str, ModelEntry] = {}
    sweep: Dict[str, List[Union[Number, Text]]] = {}
    charts: Optional[List[Literal[CHARTS]]] = None  # type: ignore[valid-type]
    interrupted: Flag = False
    scenarios: List[Scenario] = Field(min_length=1)
    failed: List[Failure] = []

    @model_validator(mode="before")
    @classmethod
    def _every_days_intervals_name_the_same_classes(cls, record: Any) -> Any:
        scenarios = record.get("scenarios") if isinstance(record, dict) else None
        for i, scenario in enumerate(scenarios if isinstance(scenarios, list) else ()):
            results = scenario.get("results") if isinstance(scenario, dict) else None
            problem = intervals_problem(results, f"scenarios[{i}].results.")
            if problem:
                raise ValueError(problem)
        return record

    @model_validator(mode="before")
    @classmethod
    def _swept_params_in_every_scenario(cls, record: Any) -> Any:
        # Before the fields: a scenario without a swept param is a record of another
        # sweep, whatever else is wrong in it. Wrong types are left to the fields.
        sweep, scenarios = (record.get("sweep"), record.get("scenarios")) if isinstance(record, dict) else (0, 0)
        if not (isinstance(sweep, dict) and isinstance(scenarios, list)):
            return record
        for name, values in sweep.items():
            if isinstance(values, list) and not values:
                raise ValueError(f"sweep.{name}: expected a non-empty list of values")
            # A swept param's values are sorted together (tables, charts): all numbers or all text.
            numbers = isinstance(values, list) and _is_number(values[0])
            for k, value in enumerate(values if isinstance(values, list) else ()):
                if _is_number(value) != numbers:
                    raise ValueError(f"sweep.{name}[{k}]: {_brief(value)} among {_kind(numbers)}")
            for i, scenario in enumerate(scenarios):
                params = scenario.get("params") if isinstance(scenario, dict) else None
                if isinstance(params, dict) and name not in params:
                    raise ValueError(f"scenarios[{i}].params: missing the swept param {name}")
                if isinstance(params, dict) and isinstance(values, list) and _is_number(params[name]) != numbers:
                    raise ValueError(f"scenarios[{i}].params.{name}: {_brief(params[name])}, but the sweep's "
                                     f"values are {_kind(numbers)}")
        return record


def intervals_problem(results: Any, prefix: str) -> Optional[str]:
    """Where a day's intervals (a list of maps) name other classes or stations than its
    first does (a hand-edited record), which the charts and tables read interval by
    interval: `PREFIXintervals[3].classes: ...`; None if they agree. Other shapes are left
    to the fields."""
    intervals = results.get("intervals") if isinstance(results, dict) else None
    if not (isinstance(intervals, list) and intervals and all(isinstance(i, dict) for i in intervals)):
        return None
    for key in ("classes", "stations"):
        first = intervals[0].get(key)
        if not isinstance(first, dict):
            continue
        for k, interval in enumerate(intervals[1:], 1):
            names = interval.get(key)
            if isinstance(names, dict) and set(names) != set(first):
                return (f"{prefix}intervals[{k}].{key}: expected those of intervals[0] ({', '.join(first) or 'none'}), "
                        f"got {', '.join(names) or 'none'}")
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(numbers: bool) -> str:
    return "numbers" if numbers else "text"


_PROBLEMS = {  # pydantic's checks in our words
    "missing": "missing",
    "float_type": "expected a number",
    "int_type": "expected a whole number",
    "string_type": "expected text",
    "bool_type": "expected true or false",
    "dict_type": "expected a map",
    "model_type": "expected a map",
    "list_type": "expected a list",
    "tuple_type": "expected a list",
    "too_long": "expected fewer items",
}


def check_record(document: Any, source: str) -> None:
    """Refuses a record that does not have the record's shape, naming the first
    field at fault: `results.json: scenarios[2].results.time_unit: ...`."""
    _check(Record, document, source)


def check_results(document: Any, source: str) -> None:
    """The same for one results dict (as `brewput simulate --json` prints it)."""
    _check(Results, document, source)


def _check(shape: type, document: Any, source: str) -> None:
    try:
        shape.model_validate(document)
    except ValidationError as e:
        raise BrewputError(f"{source}: {_first_problem(e, document)}") from None


def _first_problem(error: ValidationError, document: Any) -> str:
    problems = error.errors(include_url=False)
    # A union reports a problem per member it tried; the member that got furthest
    # into the document is the one the record meant.
    first = _path(problems[0], document)[:1]
    problem = max((p for p in problems if _path(p, document)[:1] == first), key=lambda p: len(_path(p, document)))
    if problem["type"] == "value_error":
        return str(problem["ctx"]["error"])
    words = _PROBLEMS.get(problem["type"])
    if problem["type"] == "too_short":
        words = f"expected a non-empty {'map' if isinstance(problem['input'], dict) else 'list'}"
    if words is None:  # literal_error and the like: pydantic says what it expected
        words = "expected " + re.sub(r"^Input should be ", "", problem["msg"])
    if problem["type"] != "missing":
        words += f", got {_brief(problem['input'])}"
    path = format_path(_path(problem, document))
    return f"{path}: {words}" if path else words


def _path(problem: dict, document: Any) -> tuple:
    """The JSON path of a problem: its location without the union members pydantic
    names in it, found by following the location through the document."""
    path, node = [], document
    location = problem["loc"]
    for k, item in enumerate(location):
        if isinstance(node, dict) and item in node:
            path.append(item)
            node = node[item]
        elif isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node):
            path.append(item)
            node = node[item]
        elif problem["type"] == "missing" and k == len(location) - 1:
            path.append(item)
    return tuple(path)


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def nesting_depth(text: str) -> int:
    """How deeply a JSON text's arrays and objects nest, found without parsing
    it (json.loads recurses, and would overflow Python's stack first)."""
    depth = deepest = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif mark in "]}":
            depth -= 1
    return deepest


def read_json(path: Path) -> Any:
    """A JSON file's document, refused in one line naming the file if it is not a
    regular file, is larger than MAX_BYTES, is not UTF-8, nests deeper than
    MAX_DEPTH or is not JSON; nothing unbounded is read or parsed."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise BrewputError(f"{path}: is a folder; expected an experiment record (JSON)")
        if not stat.S_ISREG(mode):
            raise BrewputError(f"{path}: not a regular file; expected an experiment record (JSON)")
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise BrewputError(f"{path}: no such file") from None
    except OSError as e:
        raise BrewputError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise BrewputError(f"{path}: larger than {MAX_BYTES >> 20:,} MB; not an experiment record")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BrewputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if nesting_depth(text) > MAX_DEPTH:
        raise BrewputError(f"{path}: nested more than {MAX_DEPTH} levels deep; not an experiment record")
    try:
        return json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as e:
        raise BrewputError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    except _HugeInteger:
        at = re.search(rf"\d{{{MAX_DIGITS + 1},}}", text)
        line = text.count("\n", 0, at.start()) + 1
        raise BrewputError(f"{path}:{line}: an integer of {len(at.group()):,} digits, beyond any figure; "
                           f"not an experiment record") from None


# Python's own limit on reading an int (3.11 on): beyond it int() raises. A shorter
# integer, however large, is read and refused by the schema naming its field.
MAX_DIGITS = 4300


class _HugeInteger(ValueError):
    pass


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _HugeInteger
    return int(digits)
