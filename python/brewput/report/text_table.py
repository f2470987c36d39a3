"""A table of strings that prints without importing rich when there is no terminal.

`brewput solve` answers in about 0.1 s, and rich's import and layout were a quarter
of it. `Table` keeps what report/table.py builds (title, columns, rows); on a
terminal the command hands it to rich (`__rich__`), which styles it; into a pipe or
a file, `render` lays it out as rich lays out its default table (heavy head box,
one space of padding, headers at the bottom of their cells, words wrapped the way
rich wraps them) and the output is the same, character for character
(tests/test_report_text_table.py checks it against rich on random tables).
Text outside what `render` reproduces (characters of other widths than one cell,
control characters) makes it return None, and rich prints that table instead.
"""
from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

#: Characters one cell wide that the tables print besides printable ASCII.
_NARROW = frozenset("±≈…−·×→←–—°µ")
_WORD = re.compile(r"\s*\S+\s*")
_TRAILING_SPACE = re.compile(r"\s+$")
#: rich's HEAVY_HEAD box: (left, horizontal, divider, right) of each rule, and the
#: header's and the rows' vertical bars.
_TOP, _HEAD_RULE, _BOTTOM = ("┏", "━", "┳", "┓"), ("┡", "━", "╇", "┩"), ("└", "─", "┴", "┘")
_HEAD_BAR, _ROW_BAR = "┃", "│"
_PADDING = 1  # spaces either side of a cell's text


class Column:
    def __init__(self, header: str, justify: str):
        self.header = header
        self.justify = justify
        self._cells: List = []  # rich's name: what the tests read, whichever prints


class Table:
    """What rich.table.Table offers report/table.py: a title, left or right
    justified columns, rows of strings (or rich Text, for colour on a terminal)."""

    def __init__(self, title: str, title_justify: str = "left"):
        self.title = title
        self.title_justify = title_justify
        self.columns: List[Column] = []

    def add_column(self, header: str, justify: str = "left") -> None:
        self.columns.append(Column(header, justify))

    def add_row(self, *cells) -> None:
        for column, cell in zip(self.columns, cells):
            column._cells.append(cell)

    def __rich__(self):
        from rich.table import Table as RichTable

        table = RichTable(title=self.title, title_justify=self.title_justify)
        for column in self.columns:
            table.add_column(column.header, justify=column.justify)
        for row in zip(*(column._cells for column in self.columns)):
            table.add_row(*row)
        return table


def render(table: Table, width: int) -> Optional[str]:
    """The table as rich prints it on a console `width` cells wide with no
    terminal (no styles), or None when its text is not all one cell wide or
    its columns are too narrow for a letter."""
    rows = [[column.header for column in table.columns]] + [[str(v) for v in row] for row in
                                                            zip(*(c._cells for c in table.columns))]
    if not (table.columns and all(_printable(text) for text in [table.title, *(t for row in rows for t in row)])):
        return None
    widths = _column_widths(table, width)
    if min(widths) <= 2 * _PADDING:
        return None
    lines = _wrap(table.title, sum(widths) + len(widths) + 1, table.title_justify, fold=True) if table.title else []
    lines.append(_rule(_TOP, widths))
    for index, row in enumerate(rows):
        cells = [_cell(text, w, column.justify) for text, w, column in zip(row, widths, table.columns)]
        height = max(len(cell) for cell in cells)
        header = index == 0
        # headers sit at the bottom of their cells, figures at the top
        cells = [([" " * w] * (height - len(cell)) + cell) if header else (cell + [" " * w] * (height - len(cell)))
                 for cell, w in zip(cells, widths)]
        bar = _HEAD_BAR if header else _ROW_BAR
        lines += [bar + bar.join(line) + bar for line in zip(*cells)]
        if header:
            lines.append(_rule(_HEAD_RULE, widths))
    lines.append(_rule(_BOTTOM, widths))
    return "\n".join(lines) + "\n"


def render_line(text: str, width: int) -> Optional[str]:
    """A line of text as rich prints it `width` cells wide: wrapped at words, or None."""
    if not _printable(text):
        return None
    return "\n".join(_wrap(text, width, "default", fold=True)) + "\n"


def _printable(text: str) -> bool:
    return all(" " <= ch <= "~" or ch in _NARROW for ch in text)


def _rule(box: Tuple[str, str, str, str], widths: Sequence[int]) -> str:
    left, horizontal, divider, right = box
    return left + divider.join(horizontal * w for w in widths) + right


def _measure(text: str) -> Tuple[int, int]:
    """The narrowest (its longest word) and widest (all of it) a cell's text prints."""
    words = text.split()
    return (max(map(len, words)) if words else len(text)), len(text)


def _column_widths(table: Table, width: int) -> List[int]:
    """Each column's width with its padding: rich's Table._calculate_column_widths
    for columns of no fixed width that may wrap."""
    available = width - (len(table.columns) + 1)  # the vertical bars
    ranges = [_column_range(column, available) for column in table.columns]
    widths = [high or 1 for _, high in ranges]
    if sum(widths) > available:
        widths = _collapse(widths, available)
        if sum(widths) > available:
            widths = _reduce(sum(widths) - available, [1] * len(widths), widths, widths)
        widths = [_column_range(column, w)[1] or 0 for column, w in zip(table.columns, widths)]
    return widths


def _column_range(column: Column, available: int) -> Tuple[int, int]:
    """rich's Table._measure_column: the widest of its cells' narrowest and widest."""
    if available < 1:
        return 0, 0
    ranges = [_cell_range(text, available) for text in [column.header] + [str(v) for v in column._cells]]
    return _at_most(max(low for low, _ in ranges), max(high for _, high in ranges), available)


def _cell_range(text: str, available: int) -> Tuple[int, int]:
    """rich's Measurement.get of a cell: its Padding around its Text."""
    if available - 2 * _PADDING < 1:
        padded = (available, available)
    else:
        low, high = _measured(*_measure(text), available)
        padded = _at_most(low + 2 * _PADDING, high + 2 * _PADDING, available)
    return _measured(*padded, available)


def _measured(low: int, high: int, available: int) -> Tuple[int, int]:
    """rich's Measurement.get's last steps: normalized, at most `available`, nothing below one cell."""
    low, high = _at_most(*_normalized(low, high), available)
    return (0, 0) if high < 1 else _normalized(low, high)


def _normalized(low: int, high: int) -> Tuple[int, int]:
    low = min(max(0, low), high)
    return max(0, low), max(0, max(low, high))


def _at_most(low: int, high: int, most: int) -> Tuple[int, int]:
    return min(low, most), min(high, most)


def _collapse(widths: List[int], available: int) -> List[int]:
    """rich's Table._collapse_widths: narrow the widest columns first, down to the next widest."""
    total = sum(widths)
    excess = total - available
    while total and excess > 0:
        widest = max(widths)
        second = max((w for w in widths if w != widest), default=0)
        difference = widest - second
        ratios = [1 if w == widest else 0 for w in widths]
        if not any(ratios) or not difference:
            break
        widths = _reduce(excess, ratios, [min(excess, difference)] * len(widths), widths)
        total = sum(widths)
        excess = total - available
    return widths


def _reduce(total: int, ratios: List[int], maximums: List[int], values: List[int]) -> List[int]:
    """rich's _ratio.ratio_reduce."""
    ratios = [ratio if most else 0 for ratio, most in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    remaining, result = total, []
    for ratio, most, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            distributed = min(most, round(ratio * remaining / total_ratio))
            result.append(value - distributed)
            remaining -= distributed
            total_ratio -= ratio
        else:
            result.append(value)
    return result


def _cell(text: str, width: int, justify: str) -> List[str]:
    """A cell's lines, `width` wide with the padding: rich's Padding around its Text,
    which wraps at words and ends a word too long for the column with an ellipsis."""
    pad = " " * _PADDING
    return [pad + line + pad for line in _wrap(text, width - 2 * _PADDING, justify, fold=False)]


def _wrap(text: str, width: int, justify: str, fold: bool) -> List[str]:
    """rich's Text.wrap of one line of one-cell characters: `justify` left or right
    pads to the width, `default` leaves the line as it wrapped; a word longer than
    the width is folded across lines (fold) or cut with an ellipsis."""
    breaks, offset = [], 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            if fold:
                pieces = [word[i:i + width] for i in range(0, len(word), width)]
                for k, piece in enumerate(pieces):
                    if start:
                        breaks.append(start)
                    if k == len(pieces) - 1:
                        offset = len(piece)
                    else:
                        start += len(piece)
            else:
                if start:
                    breaks.append(start)
                offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    bounds = [0, *breaks, len(text)]
    lines = [text[a:b] for a, b in zip(bounds, bounds[1:])] or [""]
    out = []
    for line in lines:
        if len(line) > width:  # whitespace beyond the width goes first
            trailing = _TRAILING_SPACE.search(line)
            if trailing:
                line = line[:len(line) - min(len(trailing.group(0)), len(line) - width)]
        overflow = "fold" if fold else "ellipsis"
        if justify == "left":
            line = _truncate(line, width, overflow).ljust(width)
        elif justify == "right":
            line = _truncate(line.rstrip(), width, overflow).rjust(width)
        out.append(_truncate(line, width, overflow))
    return out


def _truncate(line: str, width: int, overflow: str) -> str:
    if len(line) <= width:
        return line
    return line[:width - 1] + "…" if overflow == "ellipsis" else line[:width]
