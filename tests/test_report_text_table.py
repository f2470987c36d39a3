"""report/text_table.py lays tables out as rich does, without rich: checked against
rich itself (the truth) on random tables and on every shipped example."""
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from brewput.bundled import EXAMPLES
from brewput.report.text_table import Table, render, render_line

ROOT = Path(__file__).resolve().parent.parent


def printed_by_rich(thing, width: int) -> str:
    """What the command's console prints into a pipe (cli/common.py's options)."""
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None, markup=False, emoji=False, highlight=False).print(thing)
    return buffer.getvalue()


def random_text(rng: random.Random) -> str:
    """Words of any length (empty, one letter, longer than any column), runs of spaces, the symbols the tables use."""
    letters = "abcdefghij XYZ0123(),.:-_/±≈…−"
    words = ["".join(rng.choice(letters) for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 13, 25, 60])))
             for _ in range(rng.choice([1, 1, 2, 4, 9]))]
    return (" " * rng.choice([0, 0, 1, 2])).join(words)


def random_table(rng: random.Random) -> Table:
    table = Table(title=random_text(rng) if rng.random() < 0.9 else "")
    for _ in range(rng.randint(1, 9)):
        table.add_column(random_text(rng), justify=rng.choice(["left", "right"]))
    for _ in range(rng.randint(0, 4)):
        table.add_row(*[random_text(rng) for _ in table.columns])
    return table


@pytest.mark.parametrize("seed", range(4))
def test_random_tables_print_as_rich_prints_them(seed):
    rng = random.Random(seed)
    laid_out = 0
    for _ in range(500):
        width = rng.choice([10, 20, 40, 60, 80, 100, 130, 200])
        table = random_table(rng)
        text = render(table, width)
        if text is not None:  # None: columns too narrow for a letter, rich prints those
            laid_out += 1
            assert text == printed_by_rich(table, width), (width, table.title)
        line = random_text(rng)
        assert render_line(line, width) == printed_by_rich(line, width)
    assert laid_out > 350


def test_text_of_other_widths_is_left_to_rich():
    for text in ("咖啡", "tab\there", "line\nbreak", "é\u0301", "\x1b[31m"):
        table = Table(title="t")
        table.add_column(text)
        assert render(table, 130) is None
        assert render_line(text, 130) is None
    table = Table(title="t")
    table.add_column("plain ± ≈ …")
    assert render(table, 130) == printed_by_rich(table, 130)


def test_the_tables_columns_and_cells_read_as_rich_tables_do():
    table = Table(title="stations")
    table.add_column("station")
    table.add_column("utilization", justify="right")
    table.add_row("desk", "0.9")
    assert [c.header for c in table.columns] == ["station", "utilization"]
    assert [c._cells for c in table.columns] == [["desk"], ["0.9"]]
    rich_table = table.__rich__()
    assert [(c.header, c.justify, c._cells) for c in rich_table.columns] == [
        ("station", "left", ["desk"]), ("utilization", "right", ["0.9"])]
    assert printed_by_rich(rich_table, 130) == printed_by_rich(table, 130) == render(table, 130)


def solved_examples():
    return sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.yaml") if "studies" not in p.parts)


def test_every_example_solves_to_the_same_text_without_rich_as_with_it():
    answered = 0
    for example in solved_examples():
        runs = [subprocess.run([sys.executable, "-m", "brewput", "solve", str(EXAMPLES / example)], cwd=ROOT,
                               capture_output=True, text=True, env={**os.environ, **extra})
                for extra in ({}, {"TTY_COMPATIBLE": "0"})]  # TTY_COMPATIBLE: rich, printing no styles
        assert runs[0].stdout == runs[1].stdout and runs[0].returncode == runs[1].returncode, example
        answered += runs[0].returncode == 0 and "┏" in runs[0].stdout
    assert answered >= 10
