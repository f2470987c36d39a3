"""The `brewput` command line: typer for the options, rich for what is printed.

Every user error ends as one line on stderr and exit code 2; nothing here
computes, it only reads options, calls the engines and prints. A module per
family of commands; importing them registers their commands on `app`, in the
order `brewput --help` lists them.
"""
import copy
import os
import sys

import typer

from .. import shutdown
from .common import app, error_line
from . import version, engines, studies, lab, load, files, schema, balance, planning, plan, whatif, doe  # noqa: F401  (registers the commands)

# click's exception classes, found from the one typer exports: typer vendors its own
# copy of click in recent versions and uses click itself in older ones.
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def main() -> None:
    """Runs the command; a usage error (an unknown option, a value that does not
    parse, a missing argument) is one line naming the option, and exit code 2."""
    # A stdout that cannot encode every character (PYTHONIOENCODING=ascii, a legacy locale)
    # shows a station called `café` as `caf?` rather than failing on it.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    shutdown.install()
    command = typer.main.get_command(_only_the_command_run(sys.argv[1:]))
    try:
        code = command.main(prog_name="brewput", standalone_mode=False)
    except _USAGE_ERROR as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # bare `brewput` or `brewput lab`: the help, then why
            print(e.ctx.get_help())
            error_line(f"missing command: {e.ctx.command_path} COMMAND (the commands are listed above)")
            sys.exit(2)
        error_line(usage_message(e))
        sys.exit(2)
    except OSError as e:  # stdout's (a full disk, /dev/full): every file's is caught where the file is used
        _drop_stdout()
        error_line(f"{e.filename}: {e.strerror or e}" if e.filename else f"standard output: cannot write: {e.strerror or e}")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


def _drop_stdout() -> None:
    """Points stdout at the null device, so that what is still buffered does not fail
    again (as a second message) when the interpreter flushes it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _only_the_command_run(args) -> typer.Typer:
    """The app with only the command the arguments name, when they name one: typer
    turns every registered command into click's form before running any, which
    costs about 10 ms of start-up. The app itself stays whole (for `--help`, an
    unknown command's suggestions and shell completion)."""
    word = next((a for a in args if not a.startswith("-")), None)
    commands = [c for c in app.registered_commands if _name(c) == word]
    groups = [g for g in app.registered_groups if g.name == word]
    if not (commands or groups):
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only


def _name(command: typer.models.CommandInfo) -> str:
    return command.name or typer.main.get_command_name(command.callback.__name__)


def usage_message(e) -> str:
    """`--customers: expected a whole number, got 'abc'`: the option as typed, then the problem."""
    param = getattr(e, "param", None)
    if param is None or type(e).__name__ == "MissingParameter":
        message = " ".join(e.format_message().split())
        return message[:1].lower() + message[1:]
    options = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    name = max(options, key=len) if options else str(param.name).upper()
    return f"{name}: {' '.join(str(e.message).split())}"
