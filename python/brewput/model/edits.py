"""Edits of a model's document at a path (`stations.web.servers`): what a
what-if or a plan changes in a model that has no param for it. The edited
document is validated like a model file, so an edit that makes no sense is
refused with its field."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from ..errors import BrewputError


def edited(document: Mapping[str, Any], path: str, value: Any) -> dict:
    """A copy of `document` with the value at the dotted `path` replaced; every
    part of the path but the last must exist (a list's item by its index)."""
    keys = path.split(".")
    if not all(keys):
        raise BrewputError(f"{path}: expected a dotted path to a field, e.g. stations.web.servers")
    copied = copy.deepcopy(dict(document))
    parent: Any = copied
    for depth, key in enumerate(keys[:-1]):
        parent = _child(parent, key, ".".join(keys[:depth + 1]))
    last = keys[-1]
    if isinstance(parent, list):
        _index(parent, last, path)
        parent[int(last)] = value
    elif isinstance(parent, dict):
        if last not in parent and len(keys) < 3:
            # A new top-level part or station is a typo more often than a wish.
            raise BrewputError(f"{path}: the model has no {path} ({_known(parent)})")
        parent[last] = value
    else:
        raise BrewputError(f"{path}: {'.'.join(keys[:-1])} is a value, not a part with fields")
    return copied


def _child(parent: Any, key: str, where: str) -> Any:
    if isinstance(parent, list):
        return parent[_index(parent, key, where)]
    if not isinstance(parent, dict):
        raise BrewputError(f"{where}: {where.rpartition('.')[0]} is a value, not a part with fields")
    if key not in parent:
        raise BrewputError(f"{where}: the model has no {where} ({_known(parent)})")
    return parent[key]


def _index(items: list, key: str, where: str) -> int:
    if not (key.isdigit() and int(key) < len(items)):
        raise BrewputError(f"{where}: expected an index from 0 to {len(items) - 1}")
    return int(key)


def _known(part: dict) -> str:
    return "its fields: " + (", ".join(map(str, part)) or "none")
