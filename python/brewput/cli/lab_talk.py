"""`brewput lab talk`: the talk's published tables (examples/data/talk) beside
brewput's predictions and, with --measure, the lab's measurements on this machine.

Every option is checked before the first prediction: a bad one is one line naming it."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional

import typer

from .. import shutdown
from ..errors import OptionError
from ..lab.settings import CoffeeSettings
from .common import PageOption, command_line, err, show_all, user_errors, warning_line
from .progress import progress_bar
from .lab import lab_app
from .scenarios import check_outputs, write_each
from .setting_option import setting_option

TABLE_CHOICES = "varycpu, jitter, multi, overload or all"


@lab_app.command("talk")
@user_errors
def lab_talk(
    table: str = typer.Option("all", "--table", metavar="NAMES",
                              help="The talk's tables: varycpu, jitter, multi, overload (comma-separated) or all."),
    impl: str = typer.Option("all", "--impl", metavar="NAMES",
                             help="all, or the talk's modes: ideal, locking, multi-2, americano, ..."),
    measure: bool = typer.Option(False, "--measure", help="Also measure each point in the lab, at the CPU counts "
                                                          "this machine has (the others stay model only)."),
    cpus: Optional[str] = typer.Option(None, "--cpus", metavar="COUNTS",
                                       help="Only the talk's points at these CPU counts, e.g. 1..2 [default: all]."),
    dur: str = setting_option(CoffeeSettings, "duration_ms", "--dur",
                              help="With --measure: measured time per repetition."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE",
                                          help="Write the rows: .csv or .parquet (flat), .json (with the source).  "
                                               "[default: none]"),
    report: Optional[Path] = PageOption,
):
    """The talk's published measurements beside brewput's model (and the lab), with relative errors."""
    from ..lab import options as opt
    from ..lab.talk import TABLES, talk_tables
    from ..lab.talk_compare import compare
    from ..lab.talk_report import talk_grids, talk_notes, write_talk_file, write_talk_page

    names = _tables(table, TABLES)
    tables = talk_tables(names)
    tables = _only_modes(tables, impl)
    tables = _only_cpus(tables, None if cpus is None else opt.whole_numbers("cpus", cpus))
    settings = CoffeeSettings(duration_ms=opt.time_ms("duration_ms", dur))
    settings.check()
    check_outputs(output, report)
    machine = None
    if measure:
        from ..lab.native import require_lab

        require_lab()
        machine = opt.machine_cpus()
    with progress_bar(enabled=True, label="measuring" if measure else "simulating") as progress:
        comparisons = compare(tables, measure_with=settings if measure else None, machine_cpus=machine or 1,
                              progress=progress)
    _warn(comparisons)
    grids, notes = talk_grids(comparisons, measured=measure), talk_notes(comparisons, machine)
    empty = [name for name, rows in tables.items() if not rows]
    if empty:
        notes.append(f"No points in {_named({name: [] for name in empty})} for the --impl and --cpus asked for.")
    show_all([*grids, *notes])
    # The tables are out first: an output that cannot be written loses nothing shown (exit 2 after).
    outputs = (("rows", output, lambda: write_talk_file(output, comparisons, command_line())),
               ("report", report, lambda: write_talk_page(report, comparisons, grids, notes, command_line())))
    written = write_each([(label, path, write) for label, path, write in outputs if path is not None])
    if any(c.unmeasured == "interrupted" for c in comparisons):
        err.print("interrupted")
        raise typer.Exit(shutdown.exit_code())
    if not written:
        raise typer.Exit(2)


def _tables(text: str, known) -> tuple:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if names == ["all"]:
        return tuple(known)
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise OptionError("table", f"expected {TABLE_CHOICES}", value=text)
    return tuple(dict.fromkeys(names))


def _only_modes(tables: Dict[str, list], text: str) -> Dict[str, list]:
    """The rows of the modes --impl names; each must be in one of the tables asked for."""
    if text.strip() == "all":
        return tables
    modes = [name.strip() for name in text.split(",") if name.strip()]
    known = list(dict.fromkeys(row.mode for rows in tables.values() for row in rows))
    unknown = [mode for mode in modes if mode not in known]
    if not modes or unknown:
        raise OptionError("implementations", f"not a mode of {_named(tables)} (expected all or any of "
                                             f"{', '.join(known)})", value=text)
    return {name: [row for row in rows if row.mode in modes] for name, rows in tables.items()}


def _named(tables: Dict[str, list]) -> str:
    return f"the talk's {'/'.join(tables)} table{'s' if len(tables) > 1 else ''}"


def _only_cpus(tables: Dict[str, list], counts: Optional[List[int]]) -> Dict[str, list]:
    """The rows at the CPU counts --cpus names; each must be one the tables have."""
    if counts is None:
        return tables
    have = sorted({row.maxprocs for rows in tables.values() for row in rows})
    if not set(counts) <= set(have):
        raise OptionError("cpus", f"expected CPU counts of {_named(tables)} ({', '.join(map(str, have))})",
                          value=",".join(map(str, counts)))
    return {name: [row for row in rows if row.maxprocs in counts] for name, rows in tables.items()}


def _warn(comparisons) -> None:
    """The lab's warnings (a busy machine), once for the whole run."""
    from ..lab.show import record_warnings

    measured = [{"engine": "lab", "results": c.lab_results} for c in comparisons if c.lab_results is not None]
    for warning in record_warnings({"scenarios": measured}):
        warning_line(warning)
