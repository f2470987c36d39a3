"""`brewput --version`."""
import typer

from .common import app


def print_version(asked: bool) -> None:
    if asked:
        from ..version import __version__

        print(f"brewput {__version__}")
        raise typer.Exit()


@app.callback()
def options(
    version: bool = typer.Option(False, "--version", callback=print_version, is_eager=True,
                                 help="Print brewput's version and exit."),
):
    """The options before the command; the help text is the app's (common.py)."""
