"""Errors a user can cause. The CLI prints `str(e)` on one line and exits 2."""
from __future__ import annotations

import re
from typing import Callable, Optional, Sequence, Tuple, Union

PathItem = Union[str, int]


class BrewputError(Exception):
    """Base of every user-facing error: its message is one line, never a traceback."""


# The native engines' errors, from EngineError to LoadSystemError: the binding
# (crates/py/src/errors.rs) raises these very classes, looked up here by name, so
# this module is their one home.

class Unstable(BrewputError):
    """A model with no steady state (a station offered 100 % or more of what it serves):
    solve's refusal, which names the station; the command adds the model's file."""


class EngineError(BrewputError):
    """A simulation that could not run to its end (the Rust engine's errors,
    each its own class below)."""


class EngineInputError(EngineError):
    """The engine refused the compiled model or the run settings it was given."""


class DeadlockError(EngineError):
    """Every customer is blocked (finite buffers in a cycle) and nothing is scheduled."""


class UnstableError(EngineError):
    """An open model's queues grew past the engine's bound: arrivals outpace service."""


class CancelledError(EngineError):
    """The run was cancelled through its control before it finished."""


class InternalError(EngineError):
    """Native code failed where it never should (a panic): a bug in brewput. Raised by
    any native call (the lab's and the load generator's too), with the panic's message and place."""


class LabError(BrewputError):
    """A lab run that could not be measured (the Rust lab's errors, each its own class below)."""


class LabInputError(LabError):
    """The lab refused the run's settings."""


class LabSystemError(LabError):
    """The operating system refused what the run needs (CPU affinity, a thread), or a thread of it failed."""


class LoadError(BrewputError):
    """A load run or the demo server that could not run (the Rust generator's errors, each its own
    class below)."""


class LoadInputError(LoadError):
    """Settings the generator or the server cannot use, or a file they name that cannot be read."""


class UnreachableError(LoadError):
    """The target could not be reached before the run started: nothing was sent."""


class BindError(LoadError):
    """The demo server cannot listen where asked."""


class OutputError(LoadError):
    """An output the run was asked to write cannot be created: nothing was sent."""


class LoadSystemError(LoadError):
    """The machine refused something the run needs (threads, a runtime, TLS)."""


class Field(str):
    """An option's field named inside an OptionError's problem (`use {Field("method")} approx`):
    written as the API spells it, and as its option by the command line."""


Naming = Callable[[str], str]


class OptionError(BrewputError):
    """A run option refused: `field` as the API spells it (`customers`, `grind_ms`; a
    tuple for a problem of several), the value as given, and the problem, whose parts
    may name other fields (`Field`). str() names the fields as the API does
    (`customers: expected ...`); the command line words them as its options (`worded`)."""

    def __init__(self, field: Union[str, Tuple[str, ...]], *problem: str, value: Optional[str] = None):
        self.fields = (field,) if isinstance(field, str) else tuple(field)
        self.problem = problem
        self.value = value
        super().__init__(str(self))

    def __reduce__(self):
        return _option_error, (self.fields, self.problem, self.value)

    def __str__(self) -> str:
        return self.worded(str)

    def worded(self, name: Naming) -> str:
        """The message with each field named by `name` (the CLI: `customers` -> `--customers`)."""
        where = " and ".join(name(field) for field in self.fields)
        if self.value is not None:
            where += f" {self.value}"
        return where + ": " + self.problem_worded(name)

    def problem_worded(self, name: Naming = str) -> str:
        return "".join(name(part) if isinstance(part, Field) else part for part in self.problem)


def _option_error(fields, problem, value) -> OptionError:
    return OptionError(fields, *problem, value=value)


class ModelError(BrewputError):
    """A problem in a model, shown as `FILE:LINE FIELD.PATH: problem`.

    Models built in code have no file and show `<model>`; the line and the path
    are left out when unknown.
    """

    def __init__(self, problem: str, path: Sequence[PathItem] = (),
                 file: Optional[str] = None, line: Optional[int] = None):
        self.problem = re.sub(r"\s*\n\s*", " ", str(problem)).strip()
        self.path = tuple(path)
        self.file = file
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file or "<model>"
        if self.line is not None:
            where += f":{self.line}"
        if self.path:
            where += " " + format_path(self.path)
        return f"{where}: {self.problem}"


class FieldError(ValueError):
    """A validator's complaint about one value, possibly about a part of it (`path`).

    The file walker (model/fields.py) adds the field's location; the model
    loader then turns it into a ModelError with file and line.
    """

    def __init__(self, problem: str, *path: PathItem):
        super().__init__(problem)
        self.path = path


def format_path(path: Sequence[PathItem]) -> str:
    """('classes', 'latte', 'route', 2, 'service') -> classes.latte.route[2].service"""
    text = ""
    for item in path:
        text += f"[{item}]" if isinstance(item, int) else (f".{item}" if text else str(item))
    return text
