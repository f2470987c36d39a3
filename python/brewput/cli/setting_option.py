"""A command-line option made from a setting (setting.py): its default text,
metavar and help are the settings dataclass's, written nowhere else."""
from __future__ import annotations

from typing import Any, Optional

import typer

from ..setting import setting_of


def setting_option(settings: type, name: str, flag: Optional[str] = None, help: Optional[str] = None) -> Any:
    """The typer option of field `name` of `settings`: `--name-with-dashes`
    unless `flag` names it otherwise, with the setting's help unless a command
    says more of it (`help`)."""
    declared = setting_of(settings, name)
    shown = f"  [default: {declared.shown}]" if declared.shown else ""
    return typer.Option(declared.text, flag or "--" + name.replace("_", "-"), metavar=declared.metavar,
                        help=(help or declared.help) + shown)
