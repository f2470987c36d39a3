"""`params` and `${...}` expressions: safe arithmetic over numbers and earlier params."""
from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any, Dict, Mapping, Set, Tuple, Union

from .limits import MAX_EXPRESSION_CHARS, MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_NODES, MAX_INTEGER, MAX_ROUND_DIGITS
from .source import KeyPath, Origin

Number = Union[int, float]

_WHOLE = re.compile(r"^\$\{([^{}]*)\}$")
# What a JSON Schema says of a value that may be given as `${expr}`.
EXPRESSION_SCHEMA = {"type": "string", "pattern": r"^\s*\$\{[^{}]*\}\s*$", "description": "${expression} over params"}


def or_expression(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A JSON Schema for `schema` or a `${...}` expression in its place."""
    return {"anyOf": [*schema.get("anyOf", [schema]), EXPRESSION_SCHEMA]}
_INLINE = re.compile(r"\$\{([^{}]*)\}")
_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _round(value: Number, digits: Number = None) -> Number:
    if digits is not None and (not isinstance(digits, int) or abs(digits) > MAX_ROUND_DIGITS):
        raise ExpressionError(f"round's digits must be a whole number from {-MAX_ROUND_DIGITS} "
                              f"to {MAX_ROUND_DIGITS}, got {digits!r}")
    return round(value) if digits is None else round(value, digits)


_FUNCTIONS = {"min": min, "max": max, "round": _round, "floor": math.floor, "ceil": math.ceil}


class ExpressionError(ValueError):
    pass


def evaluate(expr: str, names: Mapping[str, Number]) -> Number:
    """Evaluate arithmetic over numbers and `names`; anything else is refused
    (the AST is walked by hand: no eval, no attribute access, no calls but a few),
    and so is anything that would cost more than a model's arithmetic does."""
    tree, whole = parse(expr)
    try:
        return _eval(tree, names)
    except ZeroDivisionError:
        problem = "division by zero"
    except OverflowError:
        problem = "result is too large"
    except ExpressionError as e:
        problem = str(e)
    except (TypeError, ValueError) as e:  # e.g. min() with one number
        problem = f"cannot evaluate: {e}"
    raise ExpressionError(problem if f"'{expr.strip()}'" in problem else f"{problem} in '{whole}'")


def parse(expr: str) -> Tuple[ast.expr, str]:
    """The syntax tree of `expr`, refused when it is not Python's expression syntax
    or is too long, big or deep; and the expression as `${...}` text for messages.
    Which nodes are allowed is the walker's business (here and model/curve.py)."""
    whole = "${" + expr.strip() + "}"
    if len(whole) > 60:  # a message stays one readable line
        whole = whole[:56] + "...}"
    if len(expr) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"expression longer than {MAX_EXPRESSION_CHARS:,} characters")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError):  # the parser's own nesting limits
        raise ExpressionError(f"invalid expression '{whole}'") from None
    _check_size(tree.body, whole)
    return tree.body, whole


def _check_size(tree: ast.AST, whole: str) -> None:
    """Refuse a tree too big or too deep for the recursive walk, found without recursion."""
    if sum(isinstance(node, ast.expr) for node in ast.walk(tree)) > MAX_EXPRESSION_NODES:
        raise ExpressionError(f"expression of more than {MAX_EXPRESSION_NODES} terms in '{whole}'")
    todo = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_EXPRESSION_DEPTH:
            raise ExpressionError(f"expression nested more than {MAX_EXPRESSION_DEPTH} deep in '{whole}'")
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))


def _eval(node: ast.AST, names: Mapping[str, Number]) -> Number:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _checked(node.value)
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ExpressionError(f"unknown param '{node.id}'")
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand, names)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _eval(node.left, names), _eval(node.right, names)
        if (isinstance(node.op, ast.Pow) and type(left) is type(right) is int
                and right > 64 and abs(left) > 1):  # refused before the power is computed
            raise ExpressionError("result is too large")
        return _checked(_OPERATORS[type(node.op)](left, right))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS and node.args and not node.keywords):
        return _checked(_FUNCTIONS[node.func.id](*(_eval(arg, names) for arg in node.args)))
    raise ExpressionError(f"'{ast.unparse(node)}' is not allowed (only numbers, params, "
                          "+ - * / // % **, min, max, round, floor, ceil)")


def _checked(result: Any) -> Number:
    """Stop runaway arithmetic at each step, before it costs time or memory."""
    if isinstance(result, complex):
        raise ExpressionError("result is not a real number")
    if isinstance(result, float) and math.isnan(result):
        raise ExpressionError("result is not a number")
    if abs(result) > MAX_INTEGER:  # infinities too
        raise ExpressionError("result is too large")
    return result


def names_read(value: Any) -> Set[str]:
    """The names the `${...}` expressions anywhere in a part of a document read
    (an unparsable expression reads none: resolving it names its problem)."""
    if isinstance(value, str):
        names: Set[str] = set()
        for expr in _INLINE.findall(value):
            try:
                tree, _ = parse(expr)
            except ExpressionError:
                continue
            names.update(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
        return names
    parts = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
    return set().union(*map(names_read, parts))


def params_behind(value: Any, raw_params: Any) -> Set[str]:
    """The params a part of a document is computed from: those its expressions read,
    and those those params' own expressions read, and so on."""
    raw_params = raw_params if isinstance(raw_params, Mapping) else {}
    behind: Set[str] = set()
    unread = names_read(value)
    while unread:
        name = unread.pop()
        if name in raw_params and name not in behind:
            behind.add(name)
            unread |= names_read(raw_params[name])
    return behind


def resolve_params(raw: Any, overrides: Mapping[str, Any], origin: Origin) -> Dict[str, Number]:
    """Effective param values, in file order; each may use the params before it.

    An override replaces the file's value before anything is resolved; a string
    override (as from `--set cpus=8`) is an expression, with or without `${}`.
    """
    raw = with_overrides(raw, overrides, origin)
    values: Dict[str, Number] = {}
    for name, value in raw.items():
        path = ("params", name)
        if not (isinstance(name, str) and name.isidentifier()) or name in _FUNCTIONS:
            raise origin.error(path, f"a param name must be an identifier other than "
                                     f"{', '.join(_FUNCTIONS)}, got {name!r}")
        values[name] = _number(value, values, origin, path)
    return values


def with_overrides(raw: Any, overrides: Mapping[str, Any], origin: Origin) -> Dict[Any, Any]:
    """The `params:` mapping as written, with `overrides` in place of the file's values."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise origin.error(("params",), f"expected a mapping of names to numbers, got {raw!r}")
    raw = dict(raw)
    for name, value in overrides.items():
        if name not in raw:
            known = ", ".join(map(str, raw)) or "none"
            raise origin.error(("params", name), f"cannot set unknown param '{name}' (params: {known})")
        if isinstance(value, str) and not _WHOLE.match(value.strip()):
            value = "${" + value.strip() + "}"
        raw[name] = value
    return raw


def _number(value: Any, names: Mapping[str, Number], origin: Origin, path: KeyPath) -> Number:
    """A param's value: a finite number or a whole `${expr}`."""
    whole = _WHOLE.match(value.strip()) if isinstance(value, str) else None
    if whole:
        try:
            return evaluate(whole.group(1), names)
        except ExpressionError as e:
            raise origin.error(path, str(e)) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise origin.error(path, f"expected a finite number or ${{expression}}, got {value!r}")
    if abs(value) > MAX_INTEGER:
        raise origin.error(path, f"{value!r} is too large (at most {MAX_INTEGER:.3g} in size)")
    return value


def substitute(data: Any, params: Mapping[str, Number], origin: Origin,
               path: KeyPath = ()) -> Any:
    """Replace `${expr}` everywhere in `data`: a string that is exactly `${expr}`
    becomes its number; `${expr}` inside a longer string (`exp(${mean})`) is
    replaced by the number's text."""
    if isinstance(data, dict):
        return {k: substitute(v, params, origin, path + (k,)) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [substitute(v, params, origin, path + (i,)) for i, v in enumerate(data)]
    if not isinstance(data, str) or "${" not in data:
        return data
    try:
        whole = _WHOLE.match(data.strip())
        if whole:
            return evaluate(whole.group(1), params)
        text = _INLINE.sub(lambda m: repr(evaluate(m.group(1), params)), data)
    except ExpressionError as e:
        raise origin.error(path, str(e)) from None
    if "${" in text:
        raise origin.error(path, f"unclosed or nested ${{ in {data!r}")
    return text
