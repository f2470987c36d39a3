"""Errors a user can cause. The CLI prints `str(e)` on one line and exits 2."""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

PathItem = Union[str, int]


class BrewputError(Exception):
    """Base of every user-facing error: its message is one line, never a traceback."""


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
    """Native code failed where it never should (a panic): a bug in brewput."""


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

    A ValueError so pydantic collects it with the field's location; the model
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
