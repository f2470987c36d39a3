"""A rate curve: a safe expression in the time `t`, evaluated on arrays and bounded rigorously.

The expression is parsed and size-checked by params.py's `parse` (the one home of
what an expression may cost); its tree is walked here by hand, as params.py walks
its own, with the curve's vocabulary: numbers, `t`, `pi`, + - * / **, and the
calls sin, cos, exp, min, max. Two walks share the tree:

- `values(t)`: numpy arrays in, numpy arrays out (one walk for any number of times);
- `ranges(lo, hi)`: interval arithmetic, an enclosure [low, high] of the curve over
  each box [lo_i, hi_i] of times, so that `extreme` can bound the curve's maximum
  (or minimum) on a span rigorously by branch and bound, not by sampling.
"""
from __future__ import annotations

import ast
import math
from typing import Callable, Dict, List, Tuple, Union

import numpy as np

from .params import ExpressionError, parse

# Floating-point rounding in an interval walk is not directed; a bound is widened by
# this relative margin (far above the rounding of an expression of <= 200 terms).
ROUNDING_MARGIN = 1e-9
# Branch and bound stops when the bound is within this fraction of the curve's scale
# above the best value actually reached (so the bound is tight, not only safe).
BOUND_TOLERANCE = 1e-3
_FIRST_PIECES = 16
_MAX_PIECES = 4096
_MAX_ROUNDS = 40
_FUNCTION_NAMES = ("sin", "cos", "exp", "min", "max")
_ALLOWED = "only numbers, t, pi, + - * / **, sin, cos, exp, min, max"

Interval = Tuple[np.ndarray, np.ndarray]


class Curve:
    """`text` as a function of t (time_unit); refused at once if it uses anything else."""

    def __init__(self, text: str):
        self.text = text
        self._tree, _ = parse(text)
        self._check(self._tree)

    def values(self, t: np.ndarray) -> np.ndarray:
        """The curve at each time of `t` (float array of t's shape); a non-finite value is refused."""
        t = np.asarray(t, dtype=float)
        with np.errstate(all="ignore"):
            out = np.broadcast_to(np.asarray(_value(self._tree, t), dtype=float), t.shape)
        bad = ~np.isfinite(out)
        if bad.any():
            at = float(t[bad].flat[0])
            raise ExpressionError(f"curve is not a finite number at t = {at:g} in '{self.text}'")
        return np.array(out)

    def ranges(self, lo: np.ndarray, hi: np.ndarray) -> Interval:
        """Enclosures of the curve over the boxes [lo_i, hi_i]: (low_i, high_i) with
        low_i <= curve(t) <= high_i for every t in the box (up to ROUNDING_MARGIN)."""
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        with np.errstate(all="ignore"):
            low, high = _range(self._tree, (lo, hi))
        return np.broadcast_to(low, lo.shape), np.broadcast_to(high, lo.shape)

    def extreme(self, t0: float, t1: float, highest: bool = True) -> Tuple[float, float, float]:
        """(bound, reached, at): a rigorous upper bound of the curve on [t0, t1] (lower
        bound when not `highest`), a value the curve reaches there and where.

        Branch and bound: the span is cut into pieces; a piece whose enclosure cannot
        beat the best value reached by more than the tolerance is dropped, the others
        are halved, until the bound is within BOUND_TOLERANCE of the curve's scale."""
        sign = 1.0 if highest else -1.0
        edges = np.linspace(t0, t1, _FIRST_PIECES + 1)
        lo, hi = edges[:-1], edges[1:]
        reached, at = -math.inf, t0
        bound, dropped = math.inf, -math.inf  # dropped: the highest bound of a piece let go
        for _ in range(_MAX_ROUNDS):
            probes = np.concatenate([lo, hi, (lo + hi) / 2])
            sampled = sign * self.values(probes)
            best = int(np.argmax(sampled))
            if sampled[best] > reached:
                reached, at = float(sampled[best]), float(probes[best])
            low, high = self.ranges(lo, hi)
            upper = high if highest else -low
            upper = np.where(np.isnan(upper), math.inf, upper)
            scale = max(float(np.max(np.abs(sampled))), 1e-300)
            bound = max(float(np.max(upper)), dropped)
            if bound - reached <= BOUND_TOLERANCE * scale:
                break
            open_ = upper > reached + BOUND_TOLERANCE * scale
            if (~open_).any():
                dropped = max(dropped, float(np.max(upper[~open_])))
            lo, hi = lo[open_], hi[open_]
            if 2 * lo.size > _MAX_PIECES:  # keep the most promising pieces' share; the bound stays safe
                break
            middle = (lo + hi) / 2
            lo, hi = np.concatenate([lo, middle]), np.concatenate([middle, hi])
        bound = bound + ROUNDING_MARGIN * abs(bound)
        return sign * bound, sign * reached, at

    def postfix(self) -> List[Union[float, str]]:
        """The curve in postfix, as the simulator evaluates it (crates/sim/src/arrivals/curve.rs,
        docs/compiled-model.md): numbers, "t", + - * / **, "neg", sin, cos, exp, and min
        and max of two values (a call with more chains them)."""
        out: List[Union[float, str]] = []
        _postfix(self._tree, out)
        return out

    def _check(self, node: ast.AST) -> None:
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                if not (isinstance(child.func, ast.Name) and child.func.id in _FUNCTION_NAMES
                        and child.args and not child.keywords):
                    raise ExpressionError(f"'{ast.unparse(child)}' is not allowed in a curve ({_ALLOWED}) "
                                          f"in '{self.text}'")
                if child.func.id in ("sin", "cos", "exp") and len(child.args) != 1:
                    raise ExpressionError(f"{child.func.id} takes one argument in '{self.text}'")
            elif isinstance(child, ast.Name):
                if child.id not in ("t", "pi") and not _is_called(node, child):
                    raise ExpressionError(f"unknown name '{child.id}' in a curve (only t and pi) "
                                          f"in '{self.text}'")
            elif isinstance(child, ast.Constant):
                if type(child.value) not in (int, float):
                    raise ExpressionError(f"'{ast.unparse(child)}' is not allowed in a curve ({_ALLOWED}) "
                                          f"in '{self.text}'")
            elif isinstance(child, ast.BinOp):
                if type(child.op) not in _BINARY:
                    raise ExpressionError(f"'{ast.unparse(child)}' is not allowed in a curve ({_ALLOWED}) "
                                          f"in '{self.text}'")
            elif isinstance(child, ast.UnaryOp):
                if not isinstance(child.op, (ast.USub, ast.UAdd)):
                    raise ExpressionError(f"'{ast.unparse(child)}' is not allowed in a curve ({_ALLOWED}) "
                                          f"in '{self.text}'")
            elif isinstance(child, ast.expr):
                raise ExpressionError(f"'{ast.unparse(child)}' is not allowed in a curve ({_ALLOWED}) "
                                      f"in '{self.text}'")


_SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


def _postfix(node: ast.AST, out: List[Union[float, str]]) -> None:
    if isinstance(node, ast.Constant):
        out.append(float(node.value))
    elif isinstance(node, ast.Name):
        out.append("t" if node.id == "t" else math.pi)
    elif isinstance(node, ast.UnaryOp):
        _postfix(node.operand, out)
        if isinstance(node.op, ast.USub):
            out.append("neg")
    elif isinstance(node, ast.BinOp):
        _postfix(node.left, out)
        _postfix(node.right, out)
        out.append(_SYMBOLS[type(node.op)])
    else:  # a call, checked by _check
        _postfix(node.args[0], out)
        if node.func.id in _CALLS:
            out.append(node.func.id)
        for arg in node.args[1:]:
            _postfix(arg, out)
            out.append(node.func.id)


def _is_called(tree: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(n, ast.Call) and n.func is name for n in ast.walk(tree))


_BINARY: Dict[type, Callable] = {
    ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide, ast.Pow: np.power,
}
_CALLS: Dict[str, Callable] = {"sin": np.sin, "cos": np.cos, "exp": np.exp}


def _value(node: ast.AST, t: np.ndarray):
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        return t if node.id == "t" else math.pi
    if isinstance(node, ast.UnaryOp):
        value = _value(node.operand, t)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](np.asarray(_value(node.left, t), dtype=float),
                                      np.asarray(_value(node.right, t), dtype=float))
    args = [np.asarray(_value(arg, t), dtype=float) for arg in node.args]
    if node.func.id in _CALLS:
        return _CALLS[node.func.id](args[0])
    combine = np.minimum if node.func.id == "min" else np.maximum
    out = args[0]
    for arg in args[1:]:
        out = combine(out, arg)
    return out


# Interval arithmetic: each function takes and returns (low, high) arrays. A NaN from
# inf - inf or 0 * inf widens to the whole line, so an enclosure is never lost.

def _whole_line(low, high) -> Interval:
    return np.where(np.isnan(low), -math.inf, low), np.where(np.isnan(high), math.inf, high)


def _range(node: ast.AST, t: Interval) -> Interval:
    if isinstance(node, ast.Constant):
        v = np.float64(node.value)
        return v, v
    if isinstance(node, ast.Name):
        return t if node.id == "t" else (np.float64(math.pi), np.float64(math.pi))
    if isinstance(node, ast.UnaryOp):
        low, high = _range(node.operand, t)
        return (-high, -low) if isinstance(node.op, ast.USub) else (low, high)
    if isinstance(node, ast.BinOp):
        a, b = _range(node.left, t), _range(node.right, t)
        op = type(node.op)
        if op is ast.Add:
            return _whole_line(a[0] + b[0], a[1] + b[1])
        if op is ast.Sub:
            return _whole_line(a[0] - b[1], a[1] - b[0])
        if op is ast.Mult:
            return _product(a, b)
        if op is ast.Div:
            return _quotient(a, b)
        return _power(a, b, node.right)
    args = [_range(arg, t) for arg in node.args]
    name = node.func.id
    if name == "exp":
        return np.exp(args[0][0]), np.exp(args[0][1])
    if name == "sin":
        return _sine(*args[0])
    if name == "cos":
        return _sine(args[0][0] + math.pi / 2, args[0][1] + math.pi / 2)
    pick = np.minimum if name == "min" else np.maximum
    low, high = args[0]
    for a in args[1:]:
        low, high = pick(low, a[0]), pick(high, a[1])
    return low, high


def _product(a: Interval, b: Interval) -> Interval:
    corners = np.stack(np.broadcast_arrays(a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]))
    low, high = np.min(corners, axis=0), np.max(corners, axis=0)
    nan = np.isnan(corners).any(axis=0)
    return np.where(nan, -math.inf, low), np.where(nan, math.inf, high)


def _quotient(a: Interval, b: Interval) -> Interval:
    b_low, b_high = np.broadcast_arrays(*b)
    holds_zero = (b_low <= 0) & (b_high >= 0)
    inverse = (np.where(holds_zero, -math.inf, 1 / b_high), np.where(holds_zero, math.inf, 1 / b_low))
    return _product(a, inverse)


def _power(a: Interval, b: Interval, right: ast.AST) -> Interval:
    exponent = _constant(right)
    if exponent is not None and float(exponent).is_integer():
        n = int(exponent)
        if n == 0:
            return np.float64(1.0), np.float64(1.0)
        low, high = np.broadcast_arrays(*a)
        if n < 0:
            return _quotient((np.float64(1.0), np.float64(1.0)), _power(a, b, ast.Constant(value=-n)))
        lo_n, hi_n = low ** n, high ** n
        if n % 2:
            return lo_n, hi_n
        straddles = (low < 0) & (high > 0)
        return (np.where(straddles, 0.0, np.minimum(lo_n, hi_n)), np.maximum(lo_n, hi_n))
    # x ** y = exp(y log x) for x > 0; anything else may not be real: the whole line
    # (values() refuses a curve that is not a finite number where it is evaluated).
    low, high = np.broadcast_arrays(*a)
    positive = low > 0
    logs = (np.log(np.where(positive, low, 1.0)), np.log(np.where(positive, high, 1.0)))
    exp_low, exp_high = _product(logs, b)
    return (np.where(positive, np.exp(exp_low), -math.inf), np.where(positive, np.exp(exp_high), math.inf))


def _constant(node: ast.AST):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    return None


def _sine(low, high) -> Interval:
    """sin over [low, high]: its ends, and 1 or -1 where a crest or trough lies inside."""
    low, high = np.broadcast_arrays(low, high)
    ends = np.sin(low), np.sin(high)
    lo, hi = np.minimum(*ends), np.maximum(*ends)
    crest = np.ceil((low - math.pi / 2) / (2 * math.pi)) * 2 * math.pi + math.pi / 2
    trough = np.ceil((low + math.pi / 2) / (2 * math.pi)) * 2 * math.pi - math.pi / 2
    wide = ~np.isfinite(low) | ~np.isfinite(high) | (high - low >= 2 * math.pi)
    hi = np.where(wide | (crest <= high), 1.0, hi)
    lo = np.where(wide | (trough <= high), -1.0, lo)
    return lo, hi
