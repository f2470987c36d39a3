"""What-ifs: a model beside variants of itself, each a set of edits, every one
answered the same way (answer.py) and shown with its change from the model as
it is. An edit is

    merge A,B            station B pooled into station A (one queue, both servers)
    add-server A         one more server at A (`add-server A+3`: three)
    PATH=VALUE           any field by its path (stations.desk.servers=5,
                         classes.call.route.0.service=exp(20)), or a param by name

and a case is `NAME: EDIT; EDIT ...` (or one edit, named by itself).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from ..errors import BrewputError, OptionError
from .answer import all_exact, answered

# Station names are any text (`café`, `desk 2`) but for the commas and plus signs these edits are written with.
_MERGE = re.compile(r"^merge\s+([^,;+]*[^,;+\s])\s*,\s*([^,;+]*[^,;+\s])$")
_ADD = re.compile(r"^add-server\s+([^,;+]*[^,;+\s])(?:\s*\+\s*([1-9][0-9]{0,5}))?$")
_SET = re.compile(r"^([A-Za-z0-9_.-]+)\s*=\s*(.+)$")
MAX_CASES = 100
_EXPECTED = "expected merge A,B, add-server A[+N] or PATH=VALUE"
# What --merge and --add-server take, where the edit they make does not parse.
_OPTION_EXPECTS = {"merge": "expected two stations, A,B",
                   "add_server": "expected a station, or STATION+N with N a whole number from 1 to 999999"}


@dataclass(frozen=True)
class Case:
    name: str
    edits: Tuple[str, ...]  # as written; applied in order
    option: str = "case"  # the option that gave it (merge, add_server, case): named when it is refused


def parse_case(text: str) -> Case:
    """`pooled: merge desk_a,desk_b; add-server desk_a`, or one edit alone."""
    name, sep, rest = str(text).partition(":")
    if sep and not _SET.match(name.strip()) and rest.strip():
        edits = tuple(e.strip() for e in rest.split(";") if e.strip())
        return Case(name=name.strip(), edits=edits)
    return Case(name=str(text).strip(), edits=(str(text).strip(),))


def edited(model, edit: str):
    """`model` with one edit applied (refused in one line naming the edit)."""
    from ..experiment.sweep import number

    try:
        if match := _MERGE.match(edit):
            return model.with_merged(match.group(1), match.group(2))
        if match := _ADD.match(edit):
            return model.with_more_servers(match.group(1), int(match.group(2) or 1))
        if match := _SET.match(edit):
            path, text = match.group(1), match.group(2).strip()
            value: Any
            try:
                value = number(text)
            except ValueError:
                value = text
            if "." in path:
                return model.with_edits({path: value})
            if path not in model.params:
                raise BrewputError(f"{model.missing_param(path)}; a field is named by its path")
            return model.with_params(**{path: value})
    except BrewputError as e:
        message = str(e)
        raise BrewputError(message if message.startswith(("merge ", "add-server ")) else f"{edit}: {message}") \
            from None
    raise BrewputError(f"{edit}: {_EXPECTED}")


def variant(model, case: Case):
    for edit in case.edits:
        model = edited(model, edit)
    return model


def check_cases(model, cases: Sequence[Case]) -> None:
    """Every case applies to the model and names itself once, refused before anything is answered."""
    if not cases:
        raise BrewputError("whatif: name at least one case: --merge A,B, --add-server A or --case 'NAME: EDIT; ...'")
    if len(cases) > MAX_CASES:
        raise BrewputError(f"whatif: {len(cases)} cases, at most {MAX_CASES}")
    seen = set()
    for case in cases:
        if case.name in seen:
            raise OptionError(case.option, "named twice", value=case.name)
        seen.add(case.name)
        try:
            variant(model, case)
        except BrewputError as e:
            raise _refused(case, str(e)) from None


def _refused(case: Case, message: str) -> OptionError:
    """A case's refusal naming the option that gave it: `--merge a,z: ...`, `--case pooled: edit 'x': ...`."""
    if case.option != "case":  # one edit, `merge A,B` or `add-server A`: the option says the keyword
        written = case.edits[0].partition(" ")[2].strip()
        problem = _without(case.edits[0], message)
        return OptionError(case.option, _OPTION_EXPECTS[case.option] if problem == _EXPECTED else problem,
                           value=written or "''")
    if case.edits == (case.name,):
        return OptionError("case", _without(case.name, message), value=case.name or "''")
    return OptionError("case", message, value=case.name)


def _without(edit: str, message: str) -> str:
    """The problem of a message `EDIT: problem`."""
    return message[len(edit) + 2:] if message.startswith(edit + ": ") else message


def whatif(model, cases: Sequence[Case], seed: int = 1) -> dict:
    """The model as it is (the first row) and each case, answered, with the
    figures people compare: per class throughput, mean and p95 response; per
    station utilization."""
    rows = [_row("as it is", (), model, seed)] + [_row(c.name, c.edits, variant(model, c), seed) for c in cases]
    return {"model": model.file or model.name, "time_unit": model.time_unit, "classes": list(model.classes),
            "stations": list(model.stations), "cases": rows}


def _row(name: str, edits: Sequence[str], model, seed: int) -> dict:
    row: dict = {"name": name, "edits": list(edits), "engine": None, "exact": False, "problem": None,
                 "classes": {}, "stations": {}}
    try:
        results, row["engine"] = answered(model, seed)
    except BrewputError as e:  # unstable, deadlocked: the case cannot carry the load
        row["problem"] = str(e)
        return row
    row["exact"] = all_exact(results)
    for name_, cls in results["classes"].items():
        times = cls.get("response_time") or {}
        row["classes"][name_] = {"throughput": cls.get("throughput"), "mean": times.get("mean"),
                                 "p95": times.get("p95")}
    row["stations"] = {s: {"utilization": part.get("utilization")} for s, part in results["stations"].items()}
    return row


def change(value: Optional[float], base: Optional[float]) -> Optional[float]:
    """The relative change from the model as it is, None where either is missing."""
    if value is None or base is None or base == 0:
        return None
    return (value - base) / base


def cases_from(merges: Sequence[str], servers: Sequence[str], written: Sequence[str]) -> List[Case]:
    """The command's cases: each --merge and --add-server alone, then each --case."""
    return ([Case(f"merge {m}", (f"merge {m}",), "merge") for m in merges]
            + [Case(f"add-server {s}", (f"add-server {s}",), "add_server") for s in servers]
            + [parse_case(text) for text in written])
