"""A setting: one field of a settings dataclass (loadtest/settings.py's
LoadSettings, lab/coffee.py's CoffeeSettings) with its default and the words
that explain it, declared once. The command line's options are made from it
(cli/setting_option.py) and a study's fields read its default, so that no
default or help is written twice."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True)
class Setting:
    """What a person is told of a setting. `text` is its default as typed on the
    command line (None: the option is not given unless typed), `shown` the
    help's `[default: ...]` when that is not the typed default itself (a
    machine's value, another option's) and `metavar` what the option takes."""
    help: str
    text: Optional[str]
    metavar: Optional[str] = None
    shown: Optional[str] = None


def setting(default: Any, help: str, *, text: Any = dataclasses.MISSING, metavar: Optional[str] = None,
            shown: Optional[str] = None) -> Any:
    """A dataclass field with `default` and its Setting; the command line's
    default text is the default's own (`16`) unless `text` says otherwise."""
    typed = (None if default is None else str(default)) if text is dataclasses.MISSING else text
    return dataclasses.field(default=default, metadata={"setting": Setting(help, typed, metavar, shown)})


def setting_of(settings: type, name: str) -> Setting:
    """The Setting of field `name` of the settings dataclass `settings`."""
    return {f.name: f for f in dataclasses.fields(settings)}[name].metadata["setting"]
