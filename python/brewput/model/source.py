"""Where a model came from: YAML read with the line of every key and list item,
so that any later error can point at the file and line it is about."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import yaml

from ..errors import ModelError, PathItem

KeyPath = Tuple[PathItem, ...]
MAX_ENTRIES = 1_000_000  # keys + list items: stops alias bombs and runaway files
MAX_DEPTH = 64  # also stops self-referencing aliases (&a [*a])


@dataclass(frozen=True)
class Origin:
    """The file (None for a model built in code), the line of each path in it,
    and the folder that relative paths in the model (empirical CSVs) start from."""

    file: Optional[str] = None
    lines: Dict[KeyPath, int] = field(default_factory=dict)
    base_dir: Path = Path(".")

    def line(self, path: Sequence[PathItem]) -> Optional[int]:
        """The line of `path`, or of its nearest parent that is in the file."""
        path = tuple(path)
        for n in range(len(path), -1, -1):
            if path[:n] in self.lines:
                return self.lines[path[:n]]
        return None

    def error(self, path: Sequence[PathItem], problem: str) -> ModelError:
        return ModelError(problem, path, file=self.file, line=self.line(path))


class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads `1e-3` as a number, as YAML 1.2 does
    (PyYAML follows YAML 1.1, where a float needs a dot)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*\.?\d*|\.\d+)[eE][-+]?\d+$"),
    list("-+0123456789."),
)

_MERGE, _MAP, _SEQ = (f"tag:yaml.org,2002:{t}" for t in ("merge", "map", "seq"))


def read(path: str | Path) -> Tuple[Any, Origin]:
    """Parse a model file into plain data and its Origin."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ModelError(f"cannot read model file: {getattr(e, 'strerror', None) or e}", file=file)
    data, lines = parse(text, file)
    return data, Origin(file, lines, Path(path).parent)


def parse(text: str, file: Optional[str] = None) -> Tuple[Any, Dict[KeyPath, int]]:
    """YAML text -> (plain data, {path: line}). Any YAML problem is a one-line ModelError."""
    loader = _Loader(text)
    lines: Dict[KeyPath, int] = {}
    try:
        node = loader.get_single_node()
        data = None if node is None else _build(loader, node, (), lines, file)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = e.problem or e.context or "malformed"
        if e.context and problem.startswith("but "):  # PyYAML split one sentence in two
            problem = f"{e.context}, {problem}"
        bad_line = (text.splitlines()[mark.line:mark.line + 1] or [""])[0] if mark else ""
        if "'\\t'" in problem:
            problem += " (indent with spaces, not tabs)"
        elif "${" in bad_line and "flow" in str(e.context):  # `${` is YAML flow syntax too
            problem += " (inside {...} or [...], quote a value that has ${...}: '${2 * n}')"
        raise ModelError(f"invalid YAML: {problem}", file=file, line=mark.line + 1 if mark else None)
    except yaml.YAMLError as e:
        raise ModelError(f"invalid YAML: {e}", file=file)
    finally:
        loader.dispose()
    return data, lines


def _build(loader: _Loader, node: yaml.Node, path: KeyPath, lines: Dict[KeyPath, int],
           file: Optional[str]) -> Any:
    def fail(problem: str, at: yaml.Node, where: KeyPath = path) -> ModelError:
        return ModelError(problem, where, file=file, line=at.start_mark.line + 1)

    if not path:
        lines[()] = node.start_mark.line + 1
    if len(path) > MAX_DEPTH:
        raise fail(f"nested more than {MAX_DEPTH} levels deep", node)
    if len(lines) > MAX_ENTRIES:
        raise fail(f"more than {MAX_ENTRIES:,} entries", node)

    if isinstance(node, yaml.CollectionNode) and node.tag not in (_MAP, _SEQ):
        raise fail(f"unsupported YAML tag {node.tag}", node)

    if isinstance(node, yaml.SequenceNode):
        items = []
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            items.append(_build(loader, item, path + (i,), lines, file))
        return items

    if isinstance(node, yaml.MappingNode):
        # Duplicates are checked before merging, since keys given next to a
        # merge (`<<: *base`) legitimately override the merged ones.
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise fail("a key must be a plain name, not a list or mapping", key_node)
            key = loader.construct_object(key_node)
            if key in seen:
                raise fail("duplicate key", key_node, path + (key,))
            seen.add(key)
        loader.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node)
            lines[path + (key,)] = key_node.start_mark.line + 1
            mapping[key] = _build(loader, value_node, path + (key,), lines, file)
        return mapping

    return loader.construct_object(node)
