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


def value_at(document: Mapping[str, Any], path: str) -> Any:
    """The value at the dotted `path` of `document`, as written (None where the
    field is not given)."""
    keys = path.split(".")
    part: Any = document
    for depth, key in enumerate(keys):
        if isinstance(part, dict) and key not in part:
            return None
        part = _child(part, key, ".".join(keys[:depth + 1]))
    return part


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


def merged(document: Mapping[str, Any], keep: str, gone: str) -> dict:
    """A copy of `document` with station `gone` pooled into `keep`: one queue in
    front of both stations' servers, every step that visited `gone` visiting
    `keep` (in branches too). The stations must be alike but for their servers."""
    copied = copy.deepcopy(dict(document))
    stations = copied.get("stations") or {}
    for name in (keep, gone):
        if name not in stations:
            raise BrewputError(f"merge {keep},{gone}: the model has no station {name!r} "
                               f"(its stations: {', '.join(map(str, stations)) or 'none'})")
    if keep == gone:
        raise BrewputError(f"merge {keep},{gone}: a station cannot be merged with itself")
    first, second = dict(stations[keep] or {}), dict(stations[gone] or {})
    for field in sorted((set(first) | set(second)) - {"servers"}):
        if first.get(field) != second.get(field):
            raise BrewputError(f"merge {keep},{gone}: the stations differ in {field} ({first.get(field)!r} and "
                               f"{second.get(field)!r}); only stations alike but for their servers are pooled")
    servers = [first.get("servers", 1), second.get("servers", 1)]
    if any(isinstance(s, Mapping) for s in servers):
        raise BrewputError(f"merge {keep},{gone}: typed servers are not pooled here; edit the servers by path")
    first["servers"] = _sum(servers)
    stations[keep] = first
    del stations[gone]
    copied["classes"] = _visit_instead(copied.get("classes"), gone, keep)
    return copied


def _sum(servers: list) -> Any:
    """Two stations' servers together: a number, or a `${...}` expression of their params."""
    if all(isinstance(s, (int, float)) for s in servers):
        return servers[0] + servers[1]
    parts = [s[2:-1] if isinstance(s, str) and s.startswith("${") and s.endswith("}") else str(s) for s in servers]
    return "${(" + ") + (".join(parts) + ")}"


def _visit_instead(part: Any, gone: str, keep: str) -> Any:
    """Every `station: gone` in the classes' routes (at any depth) made `station: keep`."""
    if isinstance(part, dict):
        return {k: (keep if k == "station" and v == gone else _visit_instead(v, gone, keep)) for k, v in part.items()}
    if isinstance(part, list):
        return [_visit_instead(item, gone, keep) for item in part]
    return part


def more_servers(document: Mapping[str, Any], station: str, count: int) -> dict:
    """A copy of `document` with `count` more servers at `station`."""
    copied = copy.deepcopy(dict(document))
    stations = copied.get("stations") or {}
    if station not in stations:
        raise BrewputError(f"add-server {station}: the model has no station {station!r} "
                           f"(its stations: {', '.join(map(str, stations)) or 'none'})")
    part = dict(stations[station] or {})
    if isinstance(part.get("servers", 1), Mapping):
        raise BrewputError(f"add-server {station}: its servers are typed; edit stations.{station}.servers.TYPE")
    part["servers"] = _sum([part.get("servers", 1), count])
    stations[station] = part
    return copied
