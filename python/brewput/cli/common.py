"""What every command shares: the app, the two consoles, one-line user errors,
the progress bar, and the options several commands take."""
from __future__ import annotations

import functools
import sys
from contextlib import contextmanager
from typing import Dict, List

import typer
from rich.console import Console

from ..errors import BrewputError

app = typer.Typer(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="How fast will this service system be, where will it saturate, what should I change?")
# Piped output gets room for the tables instead of rich's 80 columns.
out = Console(width=None if sys.stdout.isatty() else 130)
err = Console(stderr=True)


def user_errors(command):
    """Turns BrewputError into one line on stderr and exit code 2, Ctrl-C into
    `interrupted` and 130 (__main__ does the same for Ctrl-C during start-up)."""
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except BrewputError as e:
            err.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
            raise typer.Exit(2)
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(130)
    return wrapper


def parse_sets(pairs: List[str]) -> Dict[str, float]:
    """`--set name=value` pairs as numbers."""
    params: Dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            if not (sep and name.strip()):
                raise ValueError
            number = float(value)
        except ValueError:
            raise BrewputError(f"--set {pair}: expected name=number, e.g. --set cpus=4") from None
        params[name.strip()] = int(number) if number.is_integer() and "." not in value else number
    return params


@contextmanager
def progress_bar(enabled: bool, label: str = "simulating"):
    """A progress callback drawing a transient bar on stderr when it is a terminal."""
    if not (enabled and err.is_terminal):
        yield None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeRemainingColumn)

    count = (MofNCompleteColumn(),) if label == "scenarios" else ()
    columns = (TextColumn(label), BarColumn(), *count, TaskProgressColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("simulate", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


SetOption = typer.Option([], "--set", help="Override a model param: name=value (repeatable).")
SweepOption = typer.Option([], "--sweep", help="Vary a param: name=1..6, name=1,2,4,8 or name=0.1:0.9:0.1 "
                                               "(repeatable: every combination).")
OutputOption = typer.Option(None, "-o", "--output",
                            help="Write the results: .csv or .parquet (the table), .json (the whole record).")
ReportOption = typer.Option(None, "--report", help="Write an HTML report (charts, tables, models) into this folder.")
ExecutorOption = typer.Option("local", "--executor", help="Where scenarios run: local (processes) or dask.")
SchedulerOption = typer.Option(None, "--scheduler", help="The Dask scheduler's address, with --executor dask.")
WorkersOption = typer.Option(None, "--workers",
                             help="Local worker processes [default: all cores]; results do not depend on it.")


def command_line() -> str:
    """How this run was started, to be written into its record."""
    import shlex

    return shlex.join(["brewput", *sys.argv[1:]])
