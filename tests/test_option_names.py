"""Option names as a person types them: no command takes a second long name for an
option (plan's `--rate`, an alias of `--discount`, meant an arrival rate
everywhere else), and no command accepts a prefix of an option as the option
(`--disc` for `--discount`): each is refused in one line, exit code 2."""
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import brewput.cli  # noqa: F401  (registers the commands)
from brewput.cli.common import app

ROOT = Path(__file__).resolve().parent.parent
MMC = ROOT / "examples" / "mmc.yaml"
BREWPUT = typer.main.get_command(app)


def commands():
    """(the words that run it, the command) for every command and subcommand."""
    found = []

    def walk(command, words):
        subcommands = getattr(command, "commands", {})
        for name, sub in subcommands.items():
            walk(sub, [*words, name])
        if not subcommands:
            found.append((words, command))

    walk(BREWPUT, [])
    return found


def long_names(option):
    return [name for name in option.opts if name.startswith("--")]


def options(command):
    return [p for p in command.params if type(p).__name__.endswith("Option")]


def test_every_command_is_walked():
    named = {" ".join(words) for words, _ in commands()}
    assert {"plan", "load", "serve", "simulate", "lab coffee", "fit usl", "whatif", "doe"} <= named


@pytest.mark.parametrize("words, command", commands(), ids=lambda c: " ".join(c) if isinstance(c, list) else "")
def test_an_option_has_one_long_name(words, command):
    """A second long name is a second meaning waiting to happen: `--flag/--no-flag`
    pairs (click's secondary names) and one-letter short names (-o, -H) are all there is."""
    doubled = {p.name: long_names(p) for p in options(command) if len(long_names(p)) > 1}
    assert doubled == {}, f"brewput {' '.join(words)}"


def test_a_long_name_means_an_arrival_rate_wherever_it_is_rate():
    """`--rate` is an arrival rate (load, lab coffee); no command takes it for anything else."""
    uses = {" ".join(words): p for words, command in commands() for p in options(command) if "--rate" in p.opts}
    assert set(uses) == {"load", "lab coffee"}
    for name, option in uses.items():
        assert option.name == "rate" and "per second" in option.help, name


@pytest.mark.parametrize("words, command", commands(), ids=lambda c: " ".join(c) if isinstance(c, list) else "")
def test_a_prefix_of_an_option_is_no_option(words, command):
    """Every long option with its last letter dropped (where that is no option of its
    own) is refused as no such option, exit 2: click never completes a prefix."""
    own = {name for p in options(command) for name in [*p.opts, *p.secondary_opts]}
    runner = CliRunner()
    tried = 0
    for option in options(command):
        for name in long_names(option):
            prefix = name[:-1]
            if len(prefix) <= 3 or prefix in own:
                continue
            result = runner.invoke(app, [*words, prefix, "1"])
            assert result.exit_code == 2, (words, prefix, result.output)
            assert f"No such option: {prefix}" in result.output, (words, prefix, result.output)
            tried += 1
    assert tried > 0 or not options(command)


def test_plan_refuses_a_prefix_of_discount_in_one_line():
    result = subprocess.run([sys.executable, "-m", "brewput", "plan", str(MMC), "--vary", "c=1..5", "--slo",
                             "p95<20s", "--disc", "10%"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == ["error: no such option: --disc (Possible options: --discount)"]


def test_plan_refuses_rate_which_is_an_arrival_rate_elsewhere():
    result = subprocess.run([sys.executable, "-m", "brewput", "plan", str(MMC), "--vary", "c=1..5", "--slo",
                             "p95<20s", "--rate", "10%"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no such option: --rate"), result.stderr
