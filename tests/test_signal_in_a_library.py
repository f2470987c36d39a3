"""A stopping signal whose exception a library caught and raised as its own (scipy's
VODE: the Terminated raised in its Fortran callback comes back as SystemError, then
ValueError 'Function to integrate must not return a tuple.') still ends the command as
the signal: `interrupted`, 143, no traceback. Found by killing `plan --rota exact` in
its transients; when the signal lands there is chance, so the chain is built here."""
import subprocess
import sys

import pytest

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

SCRIPT = """
import signal
import sys

import typer
from brewput import shutdown
from brewput.cli import common

def integrate():
    try:
        shutdown.note(signal.SIGTERM)
        raise shutdown.Terminated()
    except KeyboardInterrupt as e:
        try:
            raise SystemError("<fortran object> returned a result with an exception set") from e
        except SystemError as f:
            raise ValueError("Function to integrate must not return a tuple.") from f

def unrelated():
    raise ValueError("a bug of brewput's own")

try:  # as typer ends a command
    common.user_errors({command})()
except typer.Exit as ended:
    sys.exit(ended.exit_code)
"""


def run(command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT.format(command=command)], capture_output=True, text=True,
                          timeout=60)


def test_a_signal_a_library_raised_as_its_own_error_ends_as_the_signal():
    done = run("integrate")
    assert done.returncode == 143 and done.stderr.strip() == "interrupted", done.stderr


def test_an_error_with_no_signal_behind_it_is_not_taken_for_one():
    done = run("unrelated")
    assert done.returncode == 1 and "ValueError: a bug of brewput's own" in done.stderr
