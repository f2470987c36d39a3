"""`Model`: a model file or document, validated, with its params resolved."""
from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, FrozenSet, Mapping, Optional, Sequence, Set, Union

import yaml

from ..errors import FieldError, ModelError, PathItem
from .compile import compile_model
from .day import Day
from .distributions import Distribution, Empirical, PARAMETERS
from .fields import Problems
from .features import features
from .params import Number, with_overrides, resolve_params, substitute
from .schema import JobClass, ModelSpec, Station
from .source import Origin, read
from .values import show


class Model:
    """A validated model with its params resolved.

    Build one with `brewput.load(path)`, `Model(brewput=1, stations=..., classes=...)`
    or `Model.from_dict(data)`. It keeps the original document so that
    `with_params` can resolve it again with other param values.
    """

    def __init__(self, **document: Any):
        self._resolve(copy.deepcopy(document), {}, Origin())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], params: Optional[Mapping[str, Any]] = None) -> Model:
        return cls._new(copy.deepcopy(data), params or {}, Origin())

    @classmethod
    def _new(cls, raw: Any, overrides: Mapping[str, Any], origin: Origin, given: Mapping[str, Any] = {}) -> Model:
        """The model resolved with `overrides`; a field that the params just `given`
        make invalid is refused naming them too: the field's own text (`${rate}`)
        does not say where its value came from (--set, a sweep, a study's set)."""
        model = cls.__new__(cls)
        try:
            model._resolve(raw, overrides, origin)
        except ModelError as e:
            if not given or e.path[:1] == ("params",) or not _resolves(raw, overrides, given, origin):
                raise  # a param's own problem names it already; a model invalid without them is not theirs
            values = ", ".join(f"{name}={show(value)}" for name, value in given.items())
            raise ModelError(f"{e.problem} (with {values})", e.path, e.file, e.line) from None
        return model

    def _resolve(self, raw: Any, overrides: Mapping[str, Any], origin: Origin) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise origin.error((), f"a model must be a mapping of fields, got {type(raw).__name__}")
        params = resolve_params(raw.get("params"), overrides, origin)
        data = substitute({k: v for k, v in raw.items() if k != "params"}, params, origin)
        try:
            spec = ModelSpec.check({**data, "params": params},
                                   {"base_dir": origin.base_dir, "time_unit": data.get("time_unit", "s")})
        except (FieldError, Problems) as e:
            raise first_problem(e, origin) from None
        self._raw, self._overrides, self._origin, self._spec = raw, dict(overrides), origin, spec

    def with_params(self, **overrides: Union[Number, str]) -> Model:
        """The same model resolved again with some params replaced (strings are expressions)."""
        return self._new(self._raw, {**self._overrides, **overrides}, self._origin, overrides)

    def with_edits(self, edits: Mapping[str, Any]) -> Model:
        """The same model with the fields at dotted paths replaced
        (`{"stations.web.servers": 4}`), validated again (model/edits.py)."""
        from .edits import edited

        raw = self._raw
        for path, value in edits.items():
            raw = edited(raw, path, value)
        return self._new(raw, self._overrides, self._origin)

    def params_behind(self, path: str) -> Set[str]:
        """The params the field at a dotted path is computed from, directly or through
        other params: varying one of them and the field at once would be one change
        overriding the other."""
        from .edits import value_at
        from .params import params_behind

        return params_behind(value_at(self._raw, path), self._raw.get("params"))

    def with_merged(self, keep: str, gone: str) -> Model:
        """The same model with station `gone` pooled into station `keep` (model/edits.py)."""
        from .edits import merged

        return self._new(merged(self._raw, keep, gone), self._overrides, self._origin)

    def with_more_servers(self, station: str, count: int = 1) -> Model:
        """The same model with `count` more servers at `station` (model/edits.py)."""
        from .edits import more_servers

        return self._new(more_servers(self._raw, station, count), self._overrides, self._origin)

    def to_yaml(self) -> str:
        """The model as a model file, params overridden as in this model, so that a
        model built in code can be saved, shown and loaded again (empirical files
        stay named as they were, relative to the model's folder)."""
        document = dict(self._raw)
        if self._overrides or "params" in document:
            document["params"] = with_overrides(document.get("params"), self._overrides, self._origin)
        return yaml.safe_dump(_plain(document), sort_keys=False, allow_unicode=True, width=100)

    def compile(self) -> Dict[str, Any]:
        """The engine's input, as described in docs/compiled-model.md."""
        return compile_model(self._spec)

    @property
    def name(self) -> str:
        """The model's `name:`, else its file's name without extension, else "model"."""
        if self._spec.name is not None:
            return self._spec.name
        return Path(self._origin.file).stem if self._origin.file else "model"

    @property
    def file(self) -> Optional[str]:
        return self._origin.file

    def error(self, path: Sequence[PathItem], problem: str) -> ModelError:
        """A problem with the field at `path`, shown as the loader shows one: `FILE:LINE FIELD: problem`."""
        return self._origin.error(path, problem)

    def missing_param(self, name: str) -> str:
        """Why `name` is no param here, naming the model's file: the one wording of every
        option that takes a param (plan --vary, doe --factor, whatif)."""
        where = Path(self.file).name if self.file else "the model"
        return f"{where} has no param {name!r} (its params: {', '.join(self.params) or 'none'})"

    @property
    def time_unit(self) -> str:
        return self._spec.time_unit

    @property
    def day(self) -> Optional[Day]:
        """The model's `day:` (model/day.py), None for a model in steady state."""
        return self._spec.day

    @property
    def params(self) -> Dict[str, Number]:
        """Effective param values, overrides applied."""
        return dict(self._spec.params)

    # Read-only views, not copies: a model of 10,000 stations is asked for them once per
    # station, and copies made that quadratic (54 s to solve a tandem line).
    @property
    def resources(self) -> Mapping[str, int]:
        return MappingProxyType(self._spec.resources)

    @property
    def stations(self) -> Mapping[str, Station]:
        return MappingProxyType(self._spec.stations)

    @property
    def classes(self) -> Mapping[str, JobClass]:
        return MappingProxyType(self._spec.classes)

    def features(self) -> FrozenSet[str]:
        """The named features the model uses (model/features.py's FEATURES)."""
        return features(self._spec)

    def __repr__(self) -> str:
        return (f"Model({self.name!r}, params={self.params}, stations={list(self._spec.stations)}, "
                f"classes={list(self._spec.classes)})")


def _resolves(raw: Any, overrides: Mapping[str, Any], given: Mapping[str, Any], origin: Origin) -> bool:
    """Whether the model resolves with the `overrides` but those `given`."""
    try:
        Model.__new__(Model)._resolve(raw, {k: v for k, v in overrides.items() if k not in given}, origin)
    except ModelError:
        return False
    return True


def load(path: Union[str, Path, Mapping[str, Any]], params: Optional[Mapping[str, Any]] = None) -> Model:
    """Read, resolve and validate a model file (or a model document given as a
    mapping, as `Model.from_dict` takes); `params` overrides its params."""
    if isinstance(path, Mapping):
        return Model.from_dict(path, params)
    if not isinstance(path, (str, Path)):
        raise ModelError(f"expected a Model, a mapping of model fields or a model file's path, "
                         f"got {type(path).__name__}")
    document = read(path, "model")
    return Model._new(document.data, params or {}, document.origin, params or {})


def as_model(model: Union[Model, Mapping[str, Any], str, Path],
             params: Optional[Mapping[str, Any]] = None) -> Model:
    """A Model from a Model, a model document (a mapping) or a model file, with
    `params` overriding its params: what every engine accepts."""
    if isinstance(model, Model):
        return model.with_params(**params) if params else model
    return load(model, params=params)


def first_problem(error: Union[FieldError, Problems], origin: Origin) -> ModelError:
    """The problems a file's walk found as one ModelError: the first in the file."""
    found = error.found if isinstance(error, Problems) else [(error.path, str(error))]
    problems = [origin.error(path, problem) for path, problem in found]
    return min(problems, key=lambda p: (p.line is None, p.line or 0))


def _plain(value: Any) -> Any:
    """A document as YAML's plain types: distributions in the model language's words."""
    if isinstance(value, Empirical):
        return {"dist": "empirical", "values": list(value.values)}
    if isinstance(value, Distribution):
        names = [f.name for f in dataclasses.fields(value)]
        return {"dist": value.kind, **{name: getattr(value, field) for name, field in
                                       zip(PARAMETERS[value.kind], names)}}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, bool)) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):  # numpy's floats too, which YAML cannot write
        return float(value)
    raise ModelError(f"cannot write {type(value).__name__} {show(value)} as YAML")
