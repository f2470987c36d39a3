"""The `brewput` command line: typer for the options, rich for what is printed.

Every user error ends as one line on stderr and exit code 2; nothing here
computes, it only reads options, calls the engines and prints. A module per
family of commands; importing them registers their commands on `app`, in the
order `brewput --help` lists them.
"""
from .common import app
from . import version, engines, studies, lab, files  # noqa: F401  (registers the commands)


def main() -> None:
    app()
