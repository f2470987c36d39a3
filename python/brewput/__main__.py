"""`brewput` and `python -m brewput`: a Ctrl-C (or SIGTERM) at any moment, even
while the program is still starting, ends with one line and exit code 130 (143)."""
import gc
import os
import sys

#: numpy's BLAS would start a thread per core at import (tens of ms of a start-up
#: budget of 150) and, with more than one, sum in an order that depends on the core
#: count, so solve's last digits would differ between machines. The command owns its
#: process, so it asks for one thread unless the user chose otherwise; the Python API
#: leaves a notebook's BLAS alone.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def run() -> None:
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")
    # Start-up builds what lives until exit (modules, classes, functions): the cyclic
    # collector would traverse it again and again for nothing (about 4 % of `brewput
    # solve`'s instructions). The command turns collection back on when it starts
    # its own work (cli/common.py's user_errors).
    gc.disable()
    try:
        from .cli import main

        main()
    except KeyboardInterrupt:
        from .shutdown import exit_code

        sys.stderr.write("interrupted\n")
        sys.exit(exit_code())
    except AttributeError as e:
        # A checkout pulled but not rebuilt: its Python asks the engine for what an
        # older build of it does not have. Said in one line, not as a traceback.
        native = sys.modules.get("brewput._native")
        if native is None or getattr(e, "obj", None) is not native:
            raise
        sys.stderr.write(f"error: brewput's native engine ({native.__file__}) is older than its Python code "
                         f"(it has no {e.name}); rebuild it: make build (or pip install .)\n")
        sys.exit(2)
    finally:
        # The process ends here: the interpreter's last collection would only walk
        # objects the exit frees anyway (another 5 %). atexit handlers still run.
        gc.freeze()


if __name__ == "__main__":
    run()
