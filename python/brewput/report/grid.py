"""A table as text cells, built once and shown twice: on the terminal through
rich, and on a report page as HTML, so that the two never disagree."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Sequence


@dataclass
class Grid:
    title: str
    columns: List[str]
    rows: List[List[str]] = field(default_factory=list)
    left: int = 1  # columns aligned left (labels), the others right (figures)


def print_grid(console, grid: Grid) -> None:
    from rich.table import Table

    table = Table(title=grid.title, title_justify="left")
    for i, column in enumerate(grid.columns):
        table.add_column(column, justify="left" if i < grid.left else "right")
    for row in grid.rows:
        table.add_row(*row)
    console.print(table)


def grids_html(grids: Sequence[Grid]) -> List[str]:
    from .page import table_section

    return [table_section(g.title, g.columns, g.rows) for g in grids]
