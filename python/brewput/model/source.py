"""Where a model came from: YAML read with the line of every key and list item,
so that any later error can point at the file and line it is about; and the one
reader of every file brewput takes as input (models, studies, empirical CSVs)."""
from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import yaml

from ..errors import ModelError, PathItem
from .limits import MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES, MAX_YAML_INTEGER

KeyPath = Tuple[PathItem, ...]

# C0 and C1 controls but tab and line ends, byte-order marks after the start,
# non-characters and lone surrogates (which a "\ud800" escape in YAML can make).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\ufffe\uffff\ud800-\udfff]")


class UnreadableFile(ValueError):
    """Why an input file cannot be read, in a few words (the caller names the file)."""


def read_text(path: str | Path) -> str:
    """The text of an input file: a regular file of at most MAX_FILE_BYTES of
    UTF-8 (a leading byte-order mark is dropped) without control characters.
    FIFOs, devices and directories are refused before anything is read."""
    try:
        # Non-blocking, so that opening a FIFO does not wait for a writer (Windows has no FIFOs).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise UnreadableFile(e.strerror or str(e)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise UnreadableFile("it is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise UnreadableFile("not a regular file (a device, FIFO or socket)")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise UnreadableFile(e.strerror or str(e)) from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise UnreadableFile(f"larger than {MAX_FILE_BYTES // 2**20} MiB ({MAX_FILE_BYTES:,} bytes)")
    if data.startswith(codecs.BOM_UTF8):  # what some editors put first: not part of the text
        data = data[len(codecs.BOM_UTF8):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start, b"\n")
        raise UnreadableFile(f"not UTF-8 text (byte 0x{data[e.start]:02x} at line {line}, column {column})") from None
    check_characters(text)
    return text


def check_characters(text: str) -> None:
    """Refuse characters no model or data file has, saying where the first is."""
    bad = _FORBIDDEN.search(text)
    if bad:
        line, column = _position(text, bad.start(), "\n")
        raise UnreadableFile(f"control character U+{ord(bad.group()):04X} at line {line}, column {column} "
                             "(only printable text, tabs and line ends)")


def _position(text, index: int, newline) -> Tuple[int, int]:
    start = text.rfind(newline, 0, index) + 1
    return text.count(newline, 0, index) + 1, index - start + 1


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


class _Refused(Exception):
    """A document too deep or too large, found while composing it."""

    def __init__(self, problem: str, mark: yaml.Mark):
        super().__init__(problem)
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """SafeLoader that also reads `1e-3` as a number, as YAML 1.2 does (PyYAML
    follows YAML 1.1, where a float needs a dot), and that refuses a document
    nested too deep or with too many nodes while composing it, before the
    composer's recursion or the nodes' memory get out of hand."""

    def __init__(self, text: str):
        super().__init__(text)
        self._depth = self._nodes = 0

    def compose_node(self, parent: Optional[yaml.Node], index: Any) -> yaml.Node:
        self._nodes += 1
        if self._nodes > MAX_ENTRIES:
            raise _Refused(f"more than {MAX_ENTRIES:,} entries", self.peek_event().start_mark)
        if self._depth >= MAX_DEPTH:
            raise _Refused(f"nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*\.?\d*|\.\d+)[eE][-+]?\d+$"),
    list("-+0123456789."),
)

_MERGE, _MAP, _SEQ, _STR, _NULL, _TIMESTAMP = (f"tag:yaml.org,2002:{t}" for t in
                                               ("merge", "map", "seq", "str", "null", "timestamp"))
_SCALARS = {_STR, _NULL} | {f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float")}

# What tells the two kinds of file apart, and the commands that take each.
_KINDS = {
    "model": ({"stations", "classes"}, "brewput simulate, solve or compare"),
    "study": ({"models"}, "brewput run"),
}


@dataclass(frozen=True)
class Document:
    """A file's YAML as plain data, where each part of it came from, and its text."""

    data: Any
    origin: Origin
    text: str


def read(path: str | Path, kind: str = "model") -> Document:
    """Read a model or study file (`kind`); a file of the other kind is refused
    with the command that takes it."""
    file = str(path)
    try:
        text = read_text(path)
    except UnreadableFile as e:
        raise ModelError(f"cannot read the {kind} file: {e}", file=file) from None
    data, lines = parse(text, file)
    origin = Origin(file, lines, Path(path).parent)
    if isinstance(data, dict) and not _KINDS[kind][0] & data.keys():
        for other, (fields, command) in _KINDS.items():
            found = sorted(fields & data.keys())
            if other != kind and found:
                raise origin.error((), f"this is a {other} file (it has {' and '.join(f'{k}:' for k in found)}), "
                                       f"not a {kind} file: {command} takes it")
    return Document(data, origin, text)


def parse(text: str, file: Optional[str] = None) -> Tuple[Any, Dict[KeyPath, int]]:
    """YAML text -> (plain data, {path: line}). Any YAML problem is a one-line ModelError."""
    try:
        check_characters(text)
    except UnreadableFile as e:
        raise ModelError(str(e), file=file) from None
    lines: Dict[KeyPath, int] = {}
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        data = None if node is None else _build(loader, node, (), lines, file)
    except _Refused as e:
        raise ModelError(str(e), file=file, line=e.mark.line + 1) from None
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
        raise ModelError(f"invalid YAML: {problem}", file=file, line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as e:
        raise ModelError(f"invalid YAML: {e}", file=file) from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, lines


def _build(loader: _Loader, node: yaml.Node, path: KeyPath, lines: Dict[KeyPath, int],
           file: Optional[str]) -> Any:
    def fail(problem: str, at: yaml.Node, where: KeyPath = path) -> ModelError:
        return ModelError(problem, where, file=file, line=at.start_mark.line + 1)

    def scalar(at: yaml.Node, where: KeyPath = path) -> Any:
        if at.tag == _TIMESTAMP and at.style is None:  # `title: 2024-01-31` is text, not a date
            return at.value
        if at.tag not in _SCALARS:
            raise fail(f"unsupported YAML tag {at.tag}", at, where)
        try:
            value = loader.construct_object(at)
        except (ValueError, OverflowError):  # `!!int abc`, a 5,000-digit number
            raise fail(f"cannot read {at.value[:40]!r} as {at.tag.rsplit(':', 1)[-1]} (not one, or too large)", at,
                       where) from None
        if isinstance(value, int) and abs(value) > MAX_YAML_INTEGER:
            raise fail(f"{at.value[:40]} is too large (at most {MAX_YAML_INTEGER:,} in size)", at, where)
        bad = _FORBIDDEN.search(value) if isinstance(value, str) else None
        if bad:  # made by an escape such as "\x1b" or "\ud800"
            raise fail(f"control character U+{ord(bad.group()):04X} in a value "
                       "(only printable text, tabs and line ends)", at, where)
        return value

    if not path:
        lines[()] = node.start_mark.line + 1
    if len(path) > MAX_DEPTH:  # through aliases, which the composer does not follow
        raise fail(f"nested more than {MAX_DEPTH} levels deep", node)
    if len(lines) > MAX_ENTRIES:
        raise fail(f"more than {MAX_ENTRIES:,} entries", node)

    if isinstance(node, yaml.CollectionNode) and node.tag not in (_MAP, _SEQ):
        raise fail(f"unsupported YAML tag {node.tag}", node)

    if isinstance(node, yaml.SequenceNode):
        if node.flow_style:
            node.value = _rejoin_sequence(node.value)
        items = []
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            items.append(_build(loader, item, path + (i,), lines, file))
        return items

    if isinstance(node, yaml.MappingNode):
        if node.flow_style:
            node.value = _rejoin_mapping(node.value)
        # Duplicates are checked before merging, since keys given next to a
        # merge (`<<: *base`) legitimately override the merged ones.
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise fail("a key must be a plain name, not a list or mapping", key_node)
            key = scalar(key_node)
            if key in seen:
                raise fail("duplicate key", key_node, path + (key,))
            seen.add(key)
        loader.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = scalar(key_node)
            lines[path + (key,)] = key_node.start_mark.line + 1
            mapping[key] = _build(loader, value_node, path + (key,), lines, file)
        return mapping

    return scalar(node)


_CALL_START = re.compile(r"^\s*[A-Za-z_]\w*\s*\(")


def _rejoin_mapping(pairs: list) -> list:
    """Inside {...} YAML splits at every comma, so `{service: gamma(2, 0.5)}` arrives
    as the value `gamma(2` and a key `0.5)` with no value: join such pieces back
    into the call while its parentheses are open."""
    joined: list = []
    for key, value in pairs:
        if joined and _is_open_call(joined[-1][1]) and _is_piece(key) and _is_empty(value):
            joined[-1] = (joined[-1][0], _joined(joined[-1][1], key))
        else:
            joined.append((key, value))
    return joined


def _rejoin_sequence(items: list) -> list:
    """The same inside [...]: `[exp(1), gamma(2, 0.5)]` arrives as three items."""
    joined: list = []
    for item in items:
        if joined and _is_open_call(joined[-1]) and _is_piece(item):
            joined[-1] = _joined(joined[-1], item)
        else:
            joined.append(item)
    return joined


def _is_open_call(node: Any) -> bool:
    return (isinstance(node, yaml.ScalarNode) and node.style is None and bool(_CALL_START.match(node.value))
            and node.value.count("(") > node.value.count(")"))


def _is_piece(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.style is None


def _is_empty(node: yaml.Node) -> bool:
    """The value YAML gives a key written without one."""
    return isinstance(node, yaml.ScalarNode) and node.tag == _NULL and node.value == ""


def _joined(call: yaml.ScalarNode, piece: yaml.ScalarNode) -> yaml.ScalarNode:
    return yaml.ScalarNode(_STR, f"{call.value}, {piece.value}", call.start_mark, piece.end_mark)
