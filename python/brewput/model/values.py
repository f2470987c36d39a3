"""One validator per kind of value a model or study file holds (a name, a count,
a whole number in a range, a positive number, a choice, the language version),
shared by the model language and study files. Each raises FieldError in the
files' own wording (the loaders add the file, line and field) and carries the
JSON Schema of what it accepts as `.schema` (fields.py's `Value` wraps one for a
field)."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Union

from ..errors import FieldError

VERSION = 1
# `inf` as written, or YAML's `.inf` (a float no finite number reaches in JSON Schema terms).
INFINITY_SCHEMA = [{"const": "inf"}, {"type": "number", "minimum": 1e308}]


def _with_schema(check: Callable, schema: Dict[str, Any]) -> Callable:
    check.schema = schema  # type: ignore[attr-defined]
    return check


def show(value: Any) -> str:
    """A value as the user wrote it: strings quoted, numbers as numbers."""
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_whole(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value == int(value)


def count(low: int, high: int, infinite: bool = False) -> Callable[[Any], Union[int, float]]:
    """A size: a whole number from `low` to `high`, or inf (also written "inf") where allowed."""
    what = ("a positive integer" if low == 1 else "a non-negative integer" if low == 0
            else f"an integer of at least {low:,}") + (" or inf" if infinite else "")

    def check(value: Any) -> Union[int, float]:
        if infinite and (value == "inf" or value == math.inf):
            return math.inf
        if not is_whole(value) or value < low:
            raise FieldError(f"expected {what}, got {show(value)}")
        if value > high:
            raise FieldError(f"{show(value)} is too large (at most {high:,})")
        return int(value)

    schema = {"type": "integer", "minimum": low, "maximum": high}
    return _with_schema(check, {"anyOf": [schema, *INFINITY_SCHEMA]} if infinite else schema)


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise FieldError(f"expected true or false, got {show(value)}")
    return value


#: true or false (YAML's true/false, not a number or a word like "yes" in quotes).
boolean = _with_schema(_boolean, {"type": "boolean"})


def integer(low: int, high: int) -> Callable[[Any], int]:
    """A whole number from `low` to `high`."""
    def check(value: Any) -> int:
        if not is_whole(value) or not low <= value <= high:
            raise FieldError(f"expected an integer from {low:,} to {high:,}, got {show(value)}")
        return int(value)

    return _with_schema(check, {"type": "integer", "minimum": low, "maximum": high})


def number(low: Optional[float] = None, high: Optional[float] = None, what: str = "a number") -> Callable[[Any], float]:
    """A finite number from `low` to `high` (either may be open)."""
    span = (f" from {low:g} to {high:g}" if low is not None and high is not None
            else f" of at least {low:g}" if low is not None else f" of at most {high:g}" if high is not None else "")

    def check(value: Any) -> float:
        if not is_number(value):
            raise FieldError(f"expected {what}, got {show(value)}")
        if not (math.isfinite(value) and (low is None or value >= low) and (high is None or value <= high)):
            raise FieldError(f"expected {what}{span}, got {show(value)}")
        return value

    schema: Dict[str, Any] = {"type": "number"}
    schema.update({} if low is None else {"minimum": low})
    schema.update({} if high is None else {"maximum": high})
    return _with_schema(check, schema)


def name(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise FieldError(f"expected a name, got {show(value)}")
    return value


name.schema = {"type": "string", "pattern": r"\S"}  # type: ignore[attr-defined]


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise FieldError(f"expected one of {', '.join(choices)}, got {show(value)}")
        return value

    return _with_schema(check, {"enum": list(choices)})


def version(value: Any) -> int:
    if value != VERSION or isinstance(value, bool):
        raise FieldError(f"unsupported model language version {show(value)} (this brewput reads brewput: {VERSION})")
    return VERSION


version.schema = {"const": VERSION}  # type: ignore[attr-defined]


def first_repeat(values: List[Any]) -> Optional[int]:
    """The index of the first value listed a second time, if any (in linear time:
    a list may be long)."""
    seen = set()
    for i, value in enumerate(values):
        if value in seen:
            return i
        seen.add(value)
    return None
