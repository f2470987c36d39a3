"""`brewput` and `python -m brewput`: a Ctrl-C at any moment, even while the
program is still starting, ends with one line and exit code 130."""
import sys


def run() -> None:
    try:
        from .cli import main

        main()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    run()
