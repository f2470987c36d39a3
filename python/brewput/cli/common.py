"""What every command shares: the app, the two consoles, one-line user errors,
the option parsers and the options several commands take.

rich is imported when a command first prints through a console (about 15 ms of
start-up that `--help`, `--version` and a one-line error need not pay)."""
from __future__ import annotations

import functools
import gc
import math
import os
import sys
from pathlib import Path
from typing import Dict, List, Union

import typer

from .. import shutdown
from ..errors import BrewputError, OptionError

# Plain click help: rich's markup mode would read a help text's `[default: ...]` as a tag and drop it.
app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="How fast will this service system be, where will it saturate, what should I change?")
# Names, paths and values come from users: a station called `[/]` or `:x:` prints as
# written, so neither console reads markup, emoji codes or highlights anything; styles
# are given as rich Text. Piped output gets room for the tables instead of 80 columns.
_PLAIN = dict(markup=False, emoji=False, highlight=False)


class _Console:
    """A rich Console made on first use, with these options. What rich itself is
    handed (a Progress's or a Live's console) is `.rich`, the Console: rich enters
    it with `with`, which Python looks up on the type, past `__getattr__`."""

    def __init__(self, **options):
        self._options = options
        self._console = None

    @property
    def rich(self):
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.rich, name)


#: How wide what is printed into a pipe or a file is (on a terminal: the terminal's width).
PIPED_WIDTH = 130
out = _Console(width=None if sys.stdout.isatty() else PIPED_WIDTH, **_PLAIN)
err = _Console(stderr=True, **_PLAIN)


def _unstyled_output() -> bool:
    """Whether rich would print to stdout without styles, in UTF-8: a pipe or a file
    that no variable declares a terminal."""
    return (not sys.stdout.isatty() and not {"FORCE_COLOR", "TTY_COMPATIBLE"} & set(os.environ)
            and (sys.stdout.encoding or "").lower().startswith("utf"))


def show(table) -> None:
    """Prints a table of report/text_table.py: laid out without rich (about 25 ms
    of imports and layout) where rich would print it without styles, by rich elsewhere."""
    from ..report.text_table import render

    text = render(table, PIPED_WIDTH) if _unstyled_output() else None
    if text is None:
        out.print(table)
    else:
        sys.stdout.write(text)


def show_all(items) -> None:
    """Tables (report/grid.py's Grids) and lines, in order, as `show` and `show_line` print them."""
    for item in items:
        if isinstance(item, str):
            show_line(item)
        else:
            show(item.table())


def show_line(text: str) -> None:
    """A line of text as out.print prints it (wrapped at words), without rich where it can."""
    from ..report.text_table import render_line

    plain = render_line(text, PIPED_WIDTH) if _unstyled_output() else None
    if plain is None:
        out.print(text)
    else:
        sys.stdout.write(plain)


# The control characters rich drops from what it prints (bell, backspace and the
# line breaks other than \n), dropped here too where rich is not used.
_CONTROL = dict.fromkeys((7, 8, 11, 12, 13))


def say(label: str, style: str, message: str) -> None:
    """One line on stderr: a styled `label:` and the message as written (styled
    only on a terminal; elsewhere rich would print the same plain line)."""
    if not sys.stderr.isatty():
        sys.stderr.write(f"{label}: {message}\n".translate(_CONTROL))
        sys.stderr.flush()
        return
    from rich.text import Text

    err.print(Text.assemble((f"{label}:", style), " ", message), soft_wrap=True)


def error_line(message: str) -> None:
    say("error", "bold red", message)


def warning_line(message: str) -> None:
    say("warning", "bold yellow", message)


# The API's fields whose command-line option is not the field with dashes (the lab's times and rates).
OPTION_NAMES = {"grind_ms": "--grind", "press_ms": "--press", "steam_ms": "--steam", "latte_ms": "--latte",
                "jitter_ms": "--jitter", "duration_ms": "--dur", "warmup_ms": "--warmup", "stall_ms": "--stall",
                "work_ms": "--work", "rate_per_s": "--rate", "implementation": "--impl", "implementations": "--impl",
                "from_state": "--from"}


def option_name(field: str) -> str:
    """The command-line option of an API field: `customers` -> `--customers`, `stall_every` -> `--stall-every`."""
    return OPTION_NAMES.get(field) or "--" + field.replace("_", "-")


def user_message(e: BrewputError) -> str:
    """An error as the command line says it: a refused option named as its `--option`."""
    return e.worded(option_name) if isinstance(e, OptionError) else str(e)


def user_errors(command):
    """Turns BrewputError into one line on stderr and exit code 2, Ctrl-C into
    `interrupted` and 130, SIGTERM into the same and 143 (shutdown.py; __main__
    does the same during start-up)."""
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        # The command's own work, however long, collects its cycles; what start-up
        # built is frozen out of every collection (__main__ turned collection off for it).
        gc.freeze()
        gc.enable()
        try:
            return command(*args, **kwargs)
        except BrewputError as e:
            error_line(user_message(e))
            raise typer.Exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(shutdown.exit_code())
        except Exception as e:
            if not shutdown.became(e):
                raise
            err.print("interrupted")
            raise typer.Exit(shutdown.exit_code()) from None
    return wrapper


def whole_number(text: Union[str, int]) -> int:
    """An option's whole number: `20000`, `20_000` or `2e4`; the engines check the range."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    try:
        return int(text)
    except ValueError:  # also a number of more digits than Python converts
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value.is_integer()):
        raise typer.BadParameter(f"expected a whole number, got {text!r}")
    return int(value)


def finite_number(text: Union[str, float]) -> float:
    """An option's number: anything float() reads except nan and inf."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise typer.BadParameter(f"expected a finite number, got {text!r}")
    return value


def folder_path(text: Union[str, Path]) -> Path:
    """A folder option's path. An empty one (an unset shell variable) is refused
    rather than read as the current folder, where a report would spread its
    files over whatever is there."""
    if str(text) == "":
        raise typer.BadParameter("expected a folder, got an empty name")
    return Path(text)


def parse_sets(pairs: List[str]) -> Dict[str, Union[int, float, str]]:
    """`--set name=value` pairs: a number stays a number; anything else (`cpus+1`,
    `2*n`) is a param expression, which the model layer evaluates and checks."""
    if not pairs:
        return {}
    from ..experiment.sweep import number  # and decimal: a run without --set does not pay them

    params: Dict[str, Union[int, float, str]] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not (sep and name and value):
            raise BrewputError(f"--set {pair}: expected name=value, e.g. --set cpus=4 or --set workers=cpus+1")
        try:
            params[name] = number(value)
        except ValueError:
            params[name] = value
    return params


def WholeOption(default, *names: str, help: str):
    return typer.Option(default, *names, help=help, parser=whole_number, metavar="INTEGER")


def NumberOption(default, *names: str, help: str):
    return typer.Option(default, *names, help=help, parser=finite_number, metavar="NUMBER")


SetOption = typer.Option([], "--set", help="Override a model param: name=value or name=expression, e.g. "
                                           "workers=cpus+1 (repeatable).  [default: the model's params]")
SweepOption = typer.Option([], "--sweep", help="Vary a param: name=1..6, name=1,2,4,8 or name=0.1:0.9:0.1 "
                                               "(repeatable: every combination).  [default: no sweep]")
OutputOption = typer.Option(None, "-o", "--output",
                            help="Write the results: .csv or .parquet (the table), .json (the whole record).  "
                                 "[default: none]")
ReportOption = typer.Option(None, "--report", parser=folder_path, metavar="DIR",
                            help="Write an HTML report (charts, tables, models) into this folder.  [default: none]")
#: A planning command's page: its tables, its charts and what it computed (record.json).
PageOption = typer.Option(None, "--report", metavar="DIR", parser=folder_path,
                          help="Also write an HTML report (tables, charts, what it computed) into this folder.  "
                               "[default: none]")
HgrmOption = typer.Option(None, "--hgrm", parser=folder_path, metavar="DIR",
                          help="Write each class's response-time percentile distribution as an .hgrm file "
                               "(HdrHistogram's format) into this folder.  [default: none]")
ExecutorOption = typer.Option("local", "--executor", help="Where scenarios run: local (processes) or dask.")
SchedulerOption = typer.Option(None, "--scheduler", help="The Dask scheduler's address, with --executor dask "
                                                         "(tcp://HOST:8786).  [default: none]")
WorkersOption = WholeOption(None, "--workers",
                            help="Local worker processes; results do not depend on it.  [default: all cores]")
YesOption = typer.Option(False, "--yes", help="Start a run estimated to take more than a day (refused without it).")


def command_line() -> str:
    """How this run was started, to be written into its record."""
    import shlex

    return shlex.join(["brewput", *sys.argv[1:]])
