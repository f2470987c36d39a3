"""A class's route as the engine runs it: the steps of the route and of every
branch in one list (the compiled order: the route's own steps first, at their
route index, then each fork's or dispatch's branches, breadth first), each
`next:` resolved to an index within its scope, and the rules that need the
whole route: ids unique in the class, `next:` staying within its own route or
branch, and every route and branch able to end.

A scope is the route itself or one branch; a `next` of None ends the scope
(the customer leaves at the route's level, the branch ends inside a branch).
Steps are read by duck typing: every step has `id` and `next`; a fork or
dispatch step also has `kind` ("fork" or "dispatch") and `branches`."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import FieldError, format_path

EXIT = "exit"
Row = List[Tuple[Optional[int], float]]  # (next step index or None: the scope ends, probability)


@dataclass(frozen=True)
class Placed:
    """A step where it stands: its path in the class (`("route", 1, "fork", "milk", 0)`)
    and the index of the fork or dispatch step whose branch holds it (None: the route)."""

    path: Tuple[Any, ...]
    step: Any
    scope: Optional[int]


@dataclass(frozen=True)
class Flat:
    steps: List[Placed]
    next: List[Row]
    branches: Dict[int, List[int]]  # fork/dispatch step -> the first step of each of its branches


def known(names: Any) -> str:
    names = list(names)
    return ", ".join(names[:10]) + (f", ... ({len(names)} in all)" if len(names) > 10 else "") or "none"


def flatten(route: Sequence[Any]) -> Flat:
    """The route and its branches as one list, checked (FieldError with the path)."""
    placed: List[Placed] = []
    branches: Dict[int, List[int]] = {}
    scopes: List[Tuple[int, int]] = []  # (first step, steps)
    todo = deque([(None, ("route",), route)])
    while todo:
        owner, prefix, steps = todo.popleft()
        first = len(placed)
        if owner is not None:
            branches.setdefault(owner, []).append(first)
        placed.extend(Placed((*prefix, i), step, owner) for i, step in enumerate(steps))
        scopes.append((first, len(steps)))
        for i, step in enumerate(steps):
            for label, branch in getattr(step, "branches", {}).items():
                todo.append((first + i, (*prefix, i, step.kind, label), branch))
    where: Dict[str, int] = {}  # step id -> its index
    for index, p in enumerate(placed):
        if p.step.id in where:
            raise FieldError(f"duplicate step id '{p.step.id}' (also {format_path(placed[where[p.step.id]].path)})",
                             *p.path, "id")
        if p.step.id is not None:
            where[p.step.id] = index
    table: List[Row] = []
    for first, n in scopes:
        rows = [_row(placed, first, n, i, where) for i in range(n)]
        stuck = _never_ends([[(None if t is None else t - first, p) for t, p in row] for row in rows])
        if stuck is not None:
            ends = "exit" if placed[first].scope is None else "end its branch"
            raise FieldError(f"jobs reaching this step can never {ends}: every way on loops back for ever",
                             *placed[first + stuck].path)
        table.extend(rows)
    return Flat(placed, table, branches)


def _row(placed: List[Placed], first: int, n: int, i: int, where: Dict[str, int]) -> Row:
    """Step `first + i`'s next, as indices (None ends its scope)."""
    step = placed[first + i].step
    if step.next is None:
        return [(first + i + 1 if i + 1 < n else None, 1.0)]
    pairs = {step.next: 1.0} if isinstance(step.next, str) else step.next
    scope = placed[first].scope
    row = []
    for target, p in pairs.items():
        at = (*placed[first + i].path, "next", *(() if isinstance(step.next, str) else (target,)))
        if target == EXIT:
            row.append((None, p))
            continue
        index = where.get(target)
        here = "route" if scope is None else "branch"
        if index is None:
            ids = [q.step.id for q in placed[first:first + n] if q.step.id is not None]
            raise FieldError(f"unknown step id '{target}' (ids in this {here}: {known(ids)}; or {EXIT})", *at)
        if not first <= index < first + n:
            raise FieldError(f"step '{target}' is at {format_path(placed[index].path)}, outside this {here}: "
                             f"next: stays within its own {here} ({EXIT} "
                             f"{'leaves' if scope is None else 'ends the branch'})", *at)
        row.append((index, p))
    return row


def _never_ends(routing: List[Row]) -> Optional[int]:
    """The first step reachable from the scope's start with no way to its end, if any."""
    reachable, todo = {0}, deque([0])
    while todo:
        for target, p in routing[todo.popleft()]:
            if p > 0 and target is not None and target not in reachable:
                reachable.add(target)
                todo.append(target)
    # Backwards from the steps that end the scope, along the routing's arcs: linear
    # in the route, which may have thousands of steps.
    sources: Dict[int, List[int]] = {}
    ends = set()
    for i, row in enumerate(routing):
        for target, p in row:
            if p > 0 and target is None:
                ends.add(i)
            elif p > 0:
                sources.setdefault(target, []).append(i)
    todo = deque(ends)
    while todo:
        for source in sources.get(todo.popleft(), ()):
            if source not in ends:
                ends.add(source)
                todo.append(source)
    return min(reachable - ends, default=None)
