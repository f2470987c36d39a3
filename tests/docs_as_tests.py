#!/usr/bin/env python3
"""The docs as tests: every command block of README.md and docs/*.md, run as written.

    python tests/docs_as_tests.py [--bin DIR] [DOC.md ...] [--list] [--terminal]

Each document runs in a fresh temporary folder of its own, after `brewput examples .`,
its blocks in the order the page gives them, with `brewput` and `python` taken from
--bin (default: the folder of the Python running this, the current venv). What runs:

- ```sh, ```bash and ```console blocks. In a console block a command starts with `$ `
  and the lines after it, up to the next `$ `, are the output it shows. A command goes
  on over lines ending in `\\` and over a quote left open; bash runs each (with
  pipefail), in the document's folder.
- ```python blocks, saved as a file and run with `python FILE.py`, as a person runs a
  script (no main guard added).
- A command ending in `&` is started in the background (a server the next commands
  use; its port is waited for) and stopped, with all it started, when the document ends.

With --terminal each shell command runs on a pseudo-terminal instead of a pipe, as a
person types it (live bars on stderr, tables at the terminal's width), and what the
terminal showed, its escape codes removed, is checked as below.

What is checked, for each command: its exit code (0, or what a marker says), no
traceback, panic or lost stream in what it prints, an end within its time (--timeout),
and the figures the page shows for it:

- the output a console block shows after the command, or an unlabelled block marked
  `<!-- docs-test: output of "SUBSTRING" -->`, the output of the latest command
  holding SUBSTRING: each shown line, in order, must appear (a `...` line stands for
  lines left out), its words the same and its figures equal; a figure shown `x ± h`
  is random, and passes when its interval and the run's overlap;
- the figures after the first colon of a command's trailing comment
  (`# Erlang C, exact: 34.99 min mean response`), each of which the output must hold.

Markers, an HTML comment on the lines just above a block (invisible on the page):
    <!-- docs-test: skip "REASON" -->          the block is not run: the run names it and says why
    <!-- docs-test: needs MODULE -->           skipped so (by name) where python cannot import MODULE
    <!-- docs-test: exit 2 -->                  every command of the block must end with code 2
    <!-- docs-test: exit 1 "SUBSTRING" -->      the commands holding SUBSTRING must end with code 1
    <!-- docs-test: exit 0,1 "SUBSTRING" -->    ... with 0 or 1 (a threshold a measurement may or may not break)
    <!-- docs-test: tolerance 5% -->           figures shown without ± within 5 % (a random run)
    <!-- docs-test: output of "SUBSTRING" -->  (on an output block) see above
    <!-- docs-test: figures of "SUBSTRING" --> (on a Markdown table quoting a run) each of its
                                               figures `x ± h` agrees with one the command printed
An unlabelled block that starts like a command (`$ ` or `brewput `) is an error: label
it sh, console or text, so that no command goes unrun by accident.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from terminal import screen_text  # tests/, beside this file

CHECKOUT = Path(__file__).resolve().parent.parent
RUN_LANGUAGES = {"sh", "bash", "console", "python"}
TERMINAL_COLUMNS = 120  # --terminal's width
FENCE = re.compile(r"^```\s*(\w*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
# What no command may print: Python's traceback, Rust's panic, a stream Python lost.
BROKEN = re.compile(r"Traceback \(most recent call last\)|panicked at|lost sys\.std")
# A figure as brewput prints it: 1,884 / -0.012% / 1.2e-05 / 0.7623 ± 0.00033.
NUMBER = r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?"
FIGURE = re.compile(rf"(?<![\w.]){NUMBER}%?(?:\s*±\s*{NUMBER}%?)?(?![\w])")
# Table borders differ in length with the widths of the figures in them.
RULE_CHARS = str.maketrans("", "", "━─═┏┓┗┛┳┻╇┡┩┯┷┠┨┼╋┃│┌┐└┘├┤┬┴ \t")


@dataclass
class Command:
    """One command of a page: where it is, what it runs, what the page shows it printing."""
    doc: str
    line: int
    text: str
    language: str = "sh"
    comment: str = ""
    shown: list[str] = field(default_factory=list)  # output lines the page shows
    exit_codes: tuple = (0,)  # any of these
    tolerance: float = 0.0
    background: bool = False

    @property
    def name(self) -> str:
        lines = self.text.strip().splitlines() or [""]
        return f"{self.doc}:{self.line} {lines[0][:100]}{' …' if len(lines) > 1 else ''}"


@dataclass
class Block:
    doc: str
    line: int          # the line of its opening fence
    language: str
    lines: list[str]
    markers: dict

    @property
    def name(self) -> str:
        return f"{self.doc}:{self.line} ({self.language or 'unlabelled'} block)"


class DocError(Exception):
    """A page the runner cannot read as it says: an unknown marker, an unlabelled command."""


def parse_markers(text: str, where: str) -> dict:
    words = shlex.split(text)
    if words[:1] == ["skip"] and len(words) == 2:
        return {"skip": words[1]}
    if words[:1] == ["exit"] and len(words) in (2, 3) and re.fullmatch(r"\d+(,\d+)*", words[1]):
        # the exit codes of every command of the block, or of those holding a string
        return {"exit": {(words[2] if len(words) == 3 else ""): tuple(int(c) for c in words[1].split(","))}}
    if words[:1] == ["tolerance"] and len(words) == 2 and re.fullmatch(r"\d+(\.\d+)?%", words[1]):
        return {"tolerance": float(words[1][:-1]) / 100}
    if words[:2] == ["output", "of"] and len(words) == 3:
        return {"output_of": words[2]}
    if words[:2] == ["figures", "of"] and len(words) == 3:
        return {"figures_of": words[2]}
    if words[:1] == ["needs"] and len(words) == 2 and words[1].isidentifier():
        return {"needs": words[1]}
    raise DocError(f"{where}: unknown docs-test marker {text!r} (skip \"REASON\", needs MODULE, exit N, "
                   "tolerance N%, output of \"SUBSTRING\", figures of \"SUBSTRING\")")


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a page, with the markers just above each, and the tables
    marked `figures of` (as blocks of language "table")."""
    doc = str(path.relative_to(CHECKOUT)) if path.is_relative_to(CHECKOUT) else path.name
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            marker = MARKER.match(lines[i])
            if marker and i + 1 < len(lines) and lines[i + 1].startswith("|"):
                markers = parse_markers(marker.group(1), f"{doc}:{i + 1}")
                if set(markers) != {"figures_of"}:
                    raise DocError(f"{doc}:{i + 1}: a table takes only a figures of \"SUBSTRING\" marker")
                end = i + 1
                while end < len(lines) and lines[end].startswith("|"):
                    end += 1
                blocks.append(Block(doc, i + 2, "table", lines[i + 1:end], markers))
                i = end
                continue
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not re.match(r"^```\s*$", lines[end]):
            end += 1
        if end == len(lines):
            raise DocError(f"{doc}:{i + 1}: a block that is never closed")
        markers, above = {}, i - 1
        while above >= 0 and (match := MARKER.match(lines[above])):
            for key, value in parse_markers(match.group(1), f"{doc}:{above + 1}").items():
                markers[key] = {**markers.get(key, {}), **value} if key == "exit" else value
            above -= 1
        if "docs-test:" in lines[i - 1] and not markers:
            raise DocError(f"{doc}:{i}: a docs-test marker that is not one comment on its own line")
        blocks.append(Block(doc, i + 1, opening.group(1), lines[i + 1:end], markers))
        i = end + 1
    for block in blocks:
        first = next((line for line in block.lines if line.strip()), "")
        if not block.language and re.match(r"\s*(\$ |brewput )", first):
            raise DocError(f"{block.name} starts like a command: label it sh or console (run), or text (not run)")
    return blocks


def comment_start(line: str) -> int | None:
    """Where a shell comment starts in a line (a # starting a word, outside quotes)."""
    quote, escaped = None, False
    for k, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1].isspace()):
            return k
    return None


def complete(text: str) -> bool:
    """Whether a command's text is whole: no quote left open, no trailing backslash."""
    if text.rstrip().endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:
        return False
    return True


def commands_of(block: Block) -> list[Command]:
    """A block's commands, each with its comment and the output the page shows for it."""
    base = dict(doc=block.doc, tolerance=block.markers.get("tolerance", 0.0))
    if block.language == "python":
        return [Command(line=block.line + 1, text="\n".join(block.lines) + "\n", language="python",
                        exit_codes=block.markers.get("exit", {}).get("", (0,)), **base)]
    console = block.language == "console"
    commands: list[Command] = []
    pending: list[str] = []
    start = 0
    for k, raw in enumerate(block.lines):
        line_no = block.line + 1 + k
        if pending:
            pending.append(raw)
        elif console and raw.startswith("$ "):
            pending, start = [raw[2:]], line_no
        elif console:
            if commands:
                commands[-1].shown.append(raw)
            continue
        elif raw.strip() and not raw.lstrip().startswith("#"):
            pending, start = [raw], line_no
        else:
            continue
        text = "\n".join(pending)
        if not complete(text):
            continue
        pending = []
        last = text.split("\n")[-1]
        cut = comment_start(last)
        comment = last[cut + 1:].strip() if cut is not None else ""
        if cut is not None:
            text = "\n".join(text.split("\n")[:-1] + [last[:cut].rstrip()])
        background = bool(re.search(r"(?<!&)&\s*$", text))
        if background:
            text = re.sub(r"&\s*$", "", text).rstrip()
        commands.append(Command(line=start, text=text, comment=comment, background=background, **base))
    if pending:
        raise DocError(f"{block.name}: a command that never ends (an open quote or a trailing \\)")
    for wanted, codes in block.markers.get("exit", {}).items():
        holding = [command for command in commands if wanted in command.text]
        if not holding:
            raise DocError(f"{block.name}: its exit marker names {wanted!r}, which no command of the block holds")
        for command in holding:
            command.exit_codes = codes
    return commands


# --- comparing what the page shows with what the command printed -----------------

def number(text: str) -> float:
    return float(text.replace(",", "").rstrip("%"))


def figures_of(line: str) -> list[tuple[float, float | None, str]]:
    """(value, half-width or None, as written) of each figure in a line."""
    found = []
    for match in FIGURE.finditer(line):
        value, _, half = match.group(0).partition("±")
        found.append((number(value.strip()), number(half.strip()) if half else None, match.group(0)))
    return found


def skeleton(line: str) -> str:
    """A line with its figures blanked and its table rules and spaces dropped."""
    return FIGURE.sub("#", line).translate(RULE_CHARS)


def figures_agree(shown, printed, tolerance: float) -> bool:
    (value, half, _), (got, got_half, _) = shown, printed
    if half is not None or got_half is not None:
        # two estimates of one figure: their intervals overlap
        return abs(value - got) <= (half or 0) + (got_half or 0) + 1e-12
    if tolerance:
        return abs(value - got) <= tolerance * max(abs(value), abs(got))
    return value == got


def compare_output(shown: list[str], printed: str, tolerance: float) -> list[str]:
    """What differs between the lines a page shows and what was printed: each shown
    line (a `...` line skips any) must be found, in order, with its figures agreeing."""
    lines = printed.splitlines()
    problems, at = [], 0
    for want in shown:
        if not want.strip() or want.strip().startswith("...") or not skeleton(want):
            continue
        found = matching_line(want, lines, at)
        if found is None:
            problems.append(f"shown but not printed (or out of order): {want.strip()}")
            continue
        text, at = found
        for a, b in zip(figures_of(want), figures_of(text)):
            if not figures_agree(a, b, tolerance):
                problems.append(f"shown {a[2]!r}, printed {b[2]!r} in: {text.strip()}")
    return problems


def matching_line(want: str, lines: list[str], start: int) -> tuple[str, int] | None:
    """The first printed line from `start` shaped as `want`, or a few lines that a
    terminal's width wrapped from one (a long title): the text and the line after it."""
    shape = skeleton(want)
    for j in range(start, len(lines)):
        for wrapped in range(1, WRAPPED_LINES + 1):
            text = " ".join(line.strip() for line in lines[j:j + wrapped])
            if skeleton(text) == shape:
                return text, j + wrapped
    return None


# A shown line may be printed wrapped over this many lines.
WRAPPED_LINES = 3


def comment_figures(comment: str) -> list[str]:
    """The figures a trailing comment says the command prints: those after its first colon."""
    _, colon, after = comment.partition(":")
    return [m.group(0) for m in FIGURE.finditer(after)] if colon else []


def check_comment(comment: str, printed: str) -> list[str]:
    values = {f[0] for line in printed.splitlines() for f in figures_of(line)}
    return [f"the comment says {fig!r}, which the output does not hold"
            for fig in comment_figures(comment) if number(fig.split("±")[0].strip()) not in values]


# --- running a page ---------------------------------------------------------------

@dataclass
class Outcome:
    name: str
    status: str       # ok, skip, FAIL
    seconds: float = 0.0
    detail: str = ""


def served_port(command: Command) -> int | None:
    """The loopback port a background `brewput serve` listens on (8080 unless told)."""
    if "brewput serve" not in command.text:
        return None
    port = re.search(r"--port[ =](\d+)", command.text)
    return int(port.group(1)) if port else 8080


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def wait_for_port(port: int | None, process: subprocess.Popen, seconds: float = 20) -> None:
    """A server started in the background answers before the next command runs, as it
    has when a person types the next command."""
    if port is None:
        time.sleep(1)
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None and not answers(port):
        time.sleep(0.1)


def stop(process: subprocess.Popen) -> None:
    """A background command and everything it started (its own process group)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()


def run_document(path: Path, bin_dir: Path, timeout: float, say=print, terminal: bool = False) -> list[Outcome]:
    """Every block of one page, in order, in a fresh folder after `brewput examples .`
    (with `terminal`, each command on a pseudo-terminal)."""
    outcomes: list[Outcome] = []
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONUNBUFFERED="1")
    for name in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(prefix=f"docs-{path.stem}-") as folder:
        work = Path(folder)
        prepared = subprocess.run(["brewput", "examples", "."], cwd=work, env=env, capture_output=True, text=True)
        if prepared.returncode:
            return [Outcome(f"{path.name}: brewput examples .", "FAIL", 0, prepared.stdout + prepared.stderr)]
        background: list[tuple[Command, subprocess.Popen, Path]] = []
        commands: list[Command] = []  # run so far, for `output of`
        printed_by: dict[int, str] = {}
        try:
            for block in blocks_of(path):
                if block.language not in RUN_LANGUAGES:
                    if "output_of" in block.markers:
                        outcomes.append(check_output_block(block, commands, printed_by))
                        say(report_line(outcomes[-1]))
                    if "figures_of" in block.markers:
                        outcomes.append(check_table_figures(block, commands, printed_by))
                        say(report_line(outcomes[-1]))
                    continue
                reason = block.markers.get("skip") or missing(block.markers.get("needs"), work, env)
                if reason:
                    outcomes.append(Outcome(block.name, "skip", detail=reason))
                    say(report_line(outcomes[-1]))
                    continue
                for command in commands_of(block):
                    port = served_port(command) if command.background else None
                    if port and answers(port):
                        # the page's commands would measure another program's server
                        outcomes.append(Outcome(command.name + " &", "FAIL", detail=f"port {port} is taken by "
                                                "another program before the page's server started: stop it"))
                    elif command.background:
                        log = work / f".background-{command.line}.log"
                        with log.open("w") as sink:
                            process = subprocess.Popen(["bash", "-c", command.text], cwd=work, env=env, stdout=sink,
                                                       stderr=subprocess.STDOUT, start_new_session=True)
                        wait_for_port(port, process)
                        if process.poll() is None:
                            background.append((command, process, log))
                            outcomes.append(Outcome(command.name + " &", "ok", detail="started in the background"))
                        else:
                            outcomes.append(Outcome(command.name + " &", "FAIL", detail=f"ended at once with code "
                                                    f"{process.returncode}:\n{tail(log.read_text())}"))
                    else:
                        outcomes.append(run_command(command, work, env, timeout, printed_by, terminal))
                        commands.append(command)
                    say(report_line(outcomes[-1]))
        finally:
            for command, process, log in background:
                ended = process.poll()
                stop(process)
                text = log.read_text(errors="replace")
                if BROKEN.search(text) or ended:
                    why = f"ended by itself with code {ended}" if ended else "printed a traceback or panic"
                    outcomes.append(Outcome(command.name + " &", "FAIL", detail=f"{why}:\n{tail(text)}"))
                    say(report_line(outcomes[-1]))
    return outcomes


def missing(module: str | None, work: Path, env: dict) -> str | None:
    """Why a block that needs an optional module cannot run here, or None."""
    if module is None:
        return None
    found = subprocess.run(["python", "-c", f"import {module}"], cwd=work, env=env, capture_output=True)
    return f"needs {module}, which this environment lacks" if found.returncode else None


def run_command(command: Command, work: Path, env: dict, timeout: float, printed_by: dict,
                terminal: bool = False) -> Outcome:
    if command.language == "python":
        script = work / f"snippet_{command.line}.py"
        script.write_text(command.text)
        argv = ["python", script.name]
    else:
        argv = ["bash", "-o", "pipefail", "-c", command.text]
    if terminal and command.language != "python":
        # util-linux's script: a pseudo-terminal for the command's stdin, stdout and
        # stderr, as a person's; -e passes its exit code on.
        argv = ["script", "-qec", shlex.join(argv), "/dev/null"]
        env = dict(env, TERM="xterm-256color", COLUMNS=str(TERMINAL_COLUMNS))
    started = time.monotonic()
    process = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
    try:
        printed, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(process)
        printed, _ = process.communicate()
        return Outcome(command.name, "FAIL", time.monotonic() - started,
                       f"did not end within {timeout:g} s (--timeout); printed:\n{tail(printed)}")
    seconds = time.monotonic() - started
    if terminal:
        printed = screen_text(printed)
    printed_by[id(command)] = printed
    problems = []
    if process.returncode not in command.exit_codes:
        problems.append(f"exit code {process.returncode}, expected {' or '.join(map(str, command.exit_codes))}")
    if BROKEN.search(printed):
        problems.append("printed a traceback, panic or lost stream")
    problems += compare_output(command.shown, printed, command.tolerance)
    problems += check_comment(command.comment, printed)
    if problems:
        return Outcome(command.name, "FAIL", seconds, "\n".join(problems) + "\nprinted:\n" + tail(printed))
    return Outcome(command.name, "ok", seconds)


def printed_by_latest(wanted: str, commands: list[Command], printed_by: dict) -> str | None:
    """What the latest command that is `wanted`, or else holds it, printed; None when none ran."""
    source = next((c for c in reversed(commands) if wanted == c.text.strip()), None) \
        or next((c for c in reversed(commands) if wanted in c.text), None)
    return printed_by.get(id(source)) if source else None


def check_output_block(block: Block, commands: list[Command], printed_by: dict) -> Outcome:
    wanted = block.markers["output_of"]
    name = f"{block.name}, output of {wanted!r}"
    printed = printed_by_latest(wanted, commands, printed_by)
    if printed is None:
        return Outcome(name, "FAIL", detail=f"no command holding {wanted!r} ran before this block")
    problems = compare_output(block.lines, printed, block.markers.get("tolerance", 0.0))
    if problems:
        return Outcome(name, "FAIL", detail="\n".join(problems) + "\nprinted:\n" + tail(printed))
    return Outcome(name, "ok")


def check_table_figures(block: Block, commands: list[Command], printed_by: dict) -> Outcome:
    """A table of the page quoting a run: each of its figures with an interval (`x ± h`)
    agrees with a figure the command printed (their intervals overlap). Figures without
    one (a theory's column beside the run's) are the page's own."""
    wanted = block.markers["figures_of"]
    name = f"{block.name}, figures of {wanted!r}"
    printed = printed_by_latest(wanted, commands, printed_by)
    if printed is None:
        return Outcome(name, "FAIL", detail=f"no command holding {wanted!r} ran before this table")
    runs = [f for line in printed.splitlines() for f in figures_of(line) if f[1] is not None]
    quoted = [f for line in block.lines for f in figures_of(line) if f[1] is not None]
    unmatched = [f[2] for f in quoted if not any(figures_agree(f, run, 0.0) for run in runs)]
    if not quoted:
        return Outcome(name, "FAIL", detail="the table quotes no figure with an interval")
    if unmatched:
        return Outcome(name, "FAIL", detail=f"the table's {', '.join(unmatched)}: printed nowhere, not even "
                                            f"within its interval\nprinted:\n{tail(printed)}")
    return Outcome(name, "ok")


def tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def report_line(outcome: Outcome) -> str:
    if outcome.status == "skip":
        return f"skip  {outcome.name}: {outcome.detail}"
    line = f"{outcome.status:<4}  {outcome.name}  ({outcome.seconds:.1f} s)"
    if outcome.status == "FAIL":
        line += "\n" + "\n".join("      " + part for part in outcome.detail.splitlines())
    return line


def documents(names: list[str]) -> list[Path]:
    if names:
        return [Path(name).resolve() for name in names]
    return [CHECKOUT / "README.md", *sorted((CHECKOUT / "docs").glob("*.md"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("documents", nargs="*", help="pages to run (default: README.md and docs/*.md)")
    parser.add_argument("--bin", type=Path, default=Path(sys.executable).parent,
                        help="the folder holding the brewput and python to run (default: this Python's)")
    parser.add_argument("--timeout", type=float, default=240, help="seconds any one command may take")
    parser.add_argument("--list", action="store_true", help="list the commands and skips, run nothing")
    parser.add_argument("--terminal", action="store_true",
                        help="run each command on a pseudo-terminal (util-linux's script), as a person does, "
                             "where the live bars and the terminal's width apply")
    args = parser.parse_args(argv)
    paths = documents(args.documents)
    if args.list:
        for path in paths:
            for block in blocks_of(path):
                if block.language in RUN_LANGUAGES:
                    if "skip" in block.markers:
                        print(f"skip  {block.name}: {block.markers['skip']}")
                    else:
                        needs = f"  (where {block.markers['needs']} imports)" if "needs" in block.markers else ""
                        for command in commands_of(block):
                            print(f"run   {command.name}{needs}")
        return 0
    bin_dir = args.bin.resolve()
    if not (bin_dir / "brewput").exists():
        parser.error(f"--bin {bin_dir}: holds no brewput")
    started = time.monotonic()
    outcomes = []
    for path in paths:
        print(f"== {path.name}", flush=True)
        outcomes += run_document(path, bin_dir, args.timeout, say=lambda line: print(line, flush=True),
                                 terminal=args.terminal)
    counts = {status: sum(o.status == status for o in outcomes) for status in ("ok", "skip", "FAIL")}
    print(f"docs as tests: {counts['ok']} ok, {counts['skip']} skipped by name, {counts['FAIL']} failed, "
          f"in {time.monotonic() - started:.0f} s")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DocError as error:
        print(f"docs as tests: {error}", file=sys.stderr)
        sys.exit(2)
