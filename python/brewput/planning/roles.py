"""What a varied name is to a plan: a decision (what you can buy or set: a
station's servers or buffer, a resource, a class's priority, a dispatch
policy) or demand (what happens to you: a class's arrivals, population, think
time, service times or routing mix), found from what it changes in the compiled
model (docs/compiled-model.md). A plan chooses among decisions, and answers
each combination of demand, a scenario, on its own: demand is never bought.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

from ..experiment.sweep import Number

DECISION, DEMAND = "decision", "demand"
# A source's fields, and a step's that the customers bring: what each changes, in words.
_SOURCE_WORDS = {"interarrival": "arrivals", "population": "population", "think": "think time"}
_STEP_DEMAND = {"service": "service time", "served_by": "service time", "patience": "patience",
                "balk": "balking", "next": "routing mix", "weights": "routing mix"}


@dataclass(frozen=True)
class Role:
    name: str
    kind: str                             # DECISION or DEMAND
    changes: Tuple[Tuple[str, str], ...]  # (DECISION or DEMAND, what): (DEMAND, "the arrivals of class call")

    @property
    def reason(self) -> str:
        return ", ".join(what for _, what in self.changes) or "it changes nothing in the model"

    @property
    def changes_demand(self) -> bool:
        return any(kind == DEMAND for kind, _ in self.changes)


def changed(base: dict, other: dict) -> List[Tuple[str, str]]:
    """(kind, what) for each part of compiled model `other` that differs from
    `base`: a class's arrivals or service time is demand, a station's servers, a
    resource, a class's priority or anything that reshapes a route a decision."""
    found: List[Tuple[str, str]] = []
    for mine, theirs in zip(base["stations"], other["stations"]):
        found += [(DECISION, f"the {key} of station {mine['name']}") for key in _keys(mine, theirs)]
    for mine, theirs in zip(base["resources"], other["resources"]):
        if mine != theirs:
            found.append((DECISION, f"the tokens of resource {mine['name']}"))
    for mine, theirs in zip(base["classes"], other["classes"]):
        label = f"of class {mine['name']}"
        for key in _keys(mine, theirs):
            if key == "source":
                found += [(DEMAND, f"the {_SOURCE_WORDS.get(part, part)} {label}")
                          for part in _keys(mine["source"], theirs["source"])]
            elif key == "steps" and len(mine["steps"]) == len(theirs["steps"]):
                for step, other_step in zip(mine["steps"], theirs["steps"]):
                    found += [(DEMAND, f"the {_STEP_DEMAND[part]} {label}") if part in _STEP_DEMAND
                              else (DECISION, f"the route ({part}) {label}") for part in _keys(step, other_step)]
            else:
                found.append((DECISION, f"the {key} {label}"))
    return list(dict.fromkeys(found))


def _keys(mine: dict, theirs: dict) -> List[str]:
    return [key for key in dict.fromkeys([*mine, *theirs]) if mine.get(key) != theirs.get(key)]


def role(model, name: str, values: Sequence[Number]) -> Role:
    """What varying `name` over `values` changes in `model`, and so its role: demand
    when all it changes is demand, else a decision (as a plan always took it)."""
    from .plan import variant

    base = model.compile()
    tried = sorted(set(values))
    found: List[Tuple[str, str]] = []
    for value in dict.fromkeys([tried[0], tried[len(tried) // 2], tried[-1]]):
        found += changed(base, variant(model, {name: value}).compile())
    found = list(dict.fromkeys(found))
    kind = DEMAND if found and all(k == DEMAND for k, _ in found) else DECISION
    return Role(name, kind, tuple(found))


def roles(model, vary: Mapping[str, Sequence[Number]]) -> Dict[str, Role]:
    return {name: role(model, name, values) for name, values in vary.items()}


def inferred_line(inferred: Mapping[str, Role]) -> str:
    """What plan says on stderr of the roles it inferred (for names given with
    --vary), when any is demand or changes demand beside a decision; else ""."""
    if not any(r.changes_demand for r in inferred.values()):
        return ""
    parts = []
    for r in inferred.values():
        if r.kind == DEMAND:
            parts.append(f"{r.name} is demand ({r.reason}): a scenario, answered on its own")
        else:
            parts.append(f"{r.name} is a decision ({r.reason})")
    return "; ".join(parts) + ". Say otherwise with --decide NAME=VALUES or --scenario NAME=VALUES"
