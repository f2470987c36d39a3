"""A table as text cells, built once and shown twice: on the terminal (as a
report/text_table.py Table) and on a report page as HTML, so that the two never
disagree."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Sequence


@dataclass
class Grid:
    title: str
    columns: List[str]
    rows: List[List[str]] = field(default_factory=list)
    left: int = 1  # columns aligned left (labels), the others right (figures)


    def table(self):
        """The grid as a report/text_table.py Table: printed without rich into a pipe
        (cli/common.py's `show`), by rich on a terminal."""
        from .text_table import Table

        table = Table(title=self.title)
        for i, column in enumerate(self.columns):
            table.add_column(column, justify="left" if i < self.left else "right")
        for row in self.rows:
            table.add_row(*row)
        return table


def grids_html(grids: Sequence[Grid]) -> List[str]:
    from .page import table_section

    return [table_section(g.title, g.columns, g.rows) for g in grids]
