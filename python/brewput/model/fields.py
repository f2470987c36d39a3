"""The walker of the files brewput reads (model files, study files): each part of
a file is a `Strict` class whose fields are declared once, with their check, their
default and (from the same declaration) their JSON Schema.

Hand-written, not pydantic: importing pydantic and building the model language's
classes costs about 60 ms of every `brewput solve` (40 % of its 150 ms budget),
and the checks were ours already (values.py); pydantic only walked the structure.

    class Station(Strict):
        servers = Field(Value(count(1, MAX_SIZE, infinite=True), expressions=True), default=1)

A shape checks one value and says what it accepts as JSON Schema: `Value` (a
check from values.py), `Text`, `ListOf`, `MapOf`, `Maybe` (or null), `Shorthand`
(another spelling of a value, say a number for a mapping) and every Strict class.
A part's problems are all collected, each with its path, so that the loader can
report the first in the file; a Strict's `_check` (relations between its fields)
runs only once its fields are valid.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from ..errors import FieldError, PathItem
from .params import or_expression
from .values import show

Path = Tuple[PathItem, ...]
Schemas = Dict[str, Any]  # the `$defs` a schema's parts refer to


class Problems(Exception):
    """Every problem found in a value: (path within it, problem)."""

    def __init__(self, found: List[Tuple[Path, str]]):
        super().__init__(found)
        self.found = found


def _within(key: PathItem, error: Exception) -> List[Tuple[Path, str]]:
    if isinstance(error, FieldError):
        return [((key, *error.path), str(error))]
    return [((key, *path), problem) for path, problem in error.found]


def _collect(problems: List[Tuple[Path, str]], key: PathItem, shape: Any, value: Any, context: Dict) -> Any:
    """`value` checked by `shape`; its problems added to `problems` under `key`."""
    try:
        return shape.check(value, context)
    except (FieldError, Problems) as e:
        problems.extend(_within(key, e))
        return None


class Value:
    """A value checked by one of values.py's checks (which carries its JSON Schema as
    `.schema`); `expressions`: the file may write `${...}` in its place (substituted
    before the walk, so only the schema says so)."""

    def __init__(self, check: Callable[[Any], Any], expressions: bool = False,
                 schema: Optional[Dict[str, Any]] = None):
        self._check = check
        schema = check.schema if schema is None else schema
        self._schema = or_expression(schema) if expressions else schema

    def check(self, value: Any, context: Dict) -> Any:
        return self._check(value)

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        return self._schema


class WithContext(Value):
    """A value whose check needs the walk's context (say, the file's folder)."""

    def check(self, value: Any, context: Dict) -> Any:
        return self._check(value, context)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise FieldError(f"expected a string, got {show(value)}")
    return value


_text.schema = {"type": "string"}  # type: ignore[attr-defined]
Text = Value(_text)


class Maybe:
    """`shape` or null (YAML's `~`, or nothing after the colon)."""

    def __init__(self, shape: Any):
        self.shape = shape

    def check(self, value: Any, context: Dict) -> Any:
        return None if value is None else self.shape.check(value, context)

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        inner = self.shape.schema(defs)
        return {"anyOf": [*inner.get("anyOf", [inner]), {"type": "null"}]}


class _Collection:
    """A list or a mapping: `before` sees the raw value (a size limit), `after`
    the checked one (a rule over its items). A hook that limits the number of
    items says so as `.limits`, (least, most or None), for the JSON Schema."""

    def __init__(self, before: Optional[Callable] = None, after: Optional[Callable] = None):
        self.before, self.after = before, after

    def _limits(self, least: str, most: str) -> Dict[str, int]:
        low, high = next((hook.limits for hook in (self.before, self.after) if hasattr(hook, "limits")), (0, None))
        return {**({least: low} if low else {}), **({most: high} if high is not None else {})}

    def check(self, value: Any, context: Dict) -> Any:
        if self.before is not None:
            value = self.before(value)
        value = self._items(value, context)
        return value if self.after is None else self.after(value)

    def _items(self, value: Any, context: Dict) -> Any:
        raise NotImplementedError


class ListOf(_Collection):
    def __init__(self, item: Any, **hooks: Callable):
        super().__init__(**hooks)
        self.item = item

    def _items(self, value: Any, context: Dict) -> List[Any]:
        if not isinstance(value, (list, tuple)):
            raise FieldError(f"expected a list, got {show(value)}")
        problems: List[Tuple[Path, str]] = []
        items = [_collect(problems, i, self.item, v, context) for i, v in enumerate(value)]
        if problems:
            raise Problems(problems)
        return items

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        return {"type": "array", "items": self.item.schema(defs), **self._limits("minItems", "maxItems")}


class MapOf(_Collection):
    def __init__(self, key: Any, value: Any, **hooks: Callable):
        super().__init__(**hooks)
        self.key, self.value = key, value

    def _items(self, value: Any, context: Dict) -> Dict[Any, Any]:
        if not isinstance(value, dict):
            raise FieldError(f"expected a mapping, got {show(value)}")
        problems: List[Tuple[Path, str]] = []
        items = {}
        for k, v in value.items():
            key = _collect(problems, k, self.key, k, context)  # a bad key is told before its value
            items[key] = _collect(problems, k, self.value, v, context)
        if problems:
            raise Problems(problems)
        return items

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        key, value = self.key.schema(defs), self.value.schema(defs)
        schema: Dict[str, Any] = {"type": "object"}
        if "pattern" in key:
            schema.update(patternProperties={key["pattern"]: value}, additionalProperties=False)
        else:
            schema["additionalProperties"] = value
        return {**schema, **self._limits("minProperties", "maxProperties")}


class Shorthand:
    """`shape`, or a shorter spelling of it (`short`, say a string for a mapping)
    that `expand` turns into what `shape` takes."""

    def __init__(self, shape: Any, short: Any, expand: Callable[[Any], Any]):
        self.shape, self.short, self.expand = shape, short, expand

    def check(self, value: Any, context: Dict) -> Any:
        return self.shape.check(self.expand(value), context)

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        return {"anyOf": [self.short.schema(defs), self.shape.schema(defs)]}


_REQUIRED = object()


class Field:
    """One field of a Strict part: its shape and its default (none: required),
    written as the file would write it: checked like a value given, and shown as
    it is in the JSON Schema."""

    def __init__(self, shape: Any, default: Any = _REQUIRED, description: Optional[str] = None):
        self.shape, self.default, self.description = shape, default, description

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def schema(self, defs: Schemas) -> Dict[str, Any]:
        schema = dict(self.shape.schema(defs))
        if self.description:
            schema["description"] = self.description
        if not self.required:
            schema["default"] = self.default
        return schema


class Strict:
    """A part of a file (a model, a station, a study's options): its fields are the
    class's `Field`s, in order; unknown fields are errors that list the allowed ones.
    Parts are read-only once checked. `_check` (optional) checks relations between
    fields and raises FieldError."""

    fields: Dict[str, Field] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = {name: value for name, value in vars(cls).items() if isinstance(value, Field)}
        for name in own:  # the instance's value, not the declaration, is what `part.name` gives
            delattr(cls, name)
        cls.fields = {**cls.fields, **own}

    @classmethod
    def check(cls, data: Any, context: Optional[Dict] = None) -> Strict:
        """`data` (a mapping from a file) as this part, or Problems."""
        context = {} if context is None else context
        if data is None:  # `grinder:` with nothing after it: all defaults
            data = {}
        if not isinstance(data, dict):
            raise FieldError(f"expected a mapping, got {show(data)}")
        for key in data:
            if key not in cls.fields:
                hint = ""
                if ")" in str(key):  # {service: gamma(2, 0.5)}: YAML split the value at its comma
                    hint = '; inside {...} quote a value with commas: "gamma(2, 0.5)"'
                raise FieldError(f"unknown field (expected one of: {', '.join(cls.fields)}){hint}", key)
        problems: List[Tuple[Path, str]] = []
        part = cls.__new__(cls)
        for name, field in cls.fields.items():
            if name in data:
                value = data[name]
            elif field.required:
                problems.append(((name,), "missing required field"))
                continue
            else:
                value = copy.deepcopy(field.default)
            object.__setattr__(part, name, _collect(problems, name, field.shape, value, context))
        if problems:
            raise Problems(problems)
        object.__setattr__(part, "given", frozenset(data))
        part._check()
        return part

    def _check(self) -> None:
        """Raise FieldError when the fields, each valid, do not go together."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _items(self) -> Iterator[Tuple[str, Any]]:
        return ((name, getattr(self, name)) for name in self.fields)

    def as_dict(self) -> Dict[str, Any]:
        return {name: value.as_dict() if isinstance(value, Strict) else value for name, value in self._items()}

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and dict(self._items()) == dict(other._items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._items())})"

    @classmethod
    def schema(cls, defs: Schemas) -> Dict[str, Any]:
        """A `$ref` to this part's JSON Schema, added to `defs`."""
        if cls.__name__ not in defs:
            defs[cls.__name__] = {}  # a part may hold itself
            defs[cls.__name__] = cls._object_schema(defs)
        return {"$ref": f"#/$defs/{cls.__name__}"}

    @classmethod
    def _object_schema(cls, defs: Schemas) -> Dict[str, Any]:
        schema: Dict[str, Any] = {"type": "object", "additionalProperties": False,
                                  "properties": {name: field.schema(defs) for name, field in cls.fields.items()}}
        required = [name for name, field in cls.fields.items() if field.required]
        if required:
            schema["required"] = required
        if cls.__doc__:
            schema["description"] = " ".join(cls.__doc__.split())
        return schema

    @classmethod
    def json_schema(cls, title: str) -> Dict[str, Any]:
        """The JSON Schema of a whole file whose top is this part."""
        defs: Schemas = {}
        top = cls._object_schema(defs)
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **top,
                **({"$defs": defs} if defs else {})}
