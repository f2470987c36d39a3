"""Start-up: what a command imports, which is most of how long it takes (timings
are in bench/startup.py and bench/RESULTS.md; a test asserts none)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported(*args: str, env=None) -> set:
    """The modules `brewput ARGS` imports, as `python -X importtime` lists them."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "brewput", *args], cwd=ROOT,
                          capture_output=True, text=True, env=env)
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
    return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", done.stderr, re.MULTILINE))


def packages(modules: set) -> set:
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["solve", "--help"], ["schema", "model"]],
                         ids=" ".join)
def test_help_and_version_import_no_numpy_no_rich_no_pydantic(args):
    found = imported(*args)
    assert "typer" in packages(found)  # the listing works: the command line's own parser is there
    assert packages(found) & {"numpy", "rich", "pydantic"} == set()


def test_solve_into_a_pipe_prints_its_tables_without_rich_and_reads_its_model_without_pydantic():
    found = imported("solve", "examples/mmc.yaml")
    assert {"brewput.model.fields", "numpy", "brewput.report.text_table"} <= found | packages(found)  # solved, printed
    assert packages(found) & {"rich", "pydantic"} == set()


@pytest.mark.parametrize("variable", ["FORCE_COLOR", "TTY_COMPATIBLE"])
def test_solve_prints_through_rich_where_a_terminal_is_declared(variable):
    found = imported("solve", "examples/mmc.yaml", env={**os.environ, variable: "1"})
    assert {"brewput.report.text_table", "rich.table"} <= found


def test_a_refused_model_is_one_line_without_rich(tmp_path):
    model = tmp_path / "m.yaml"
    model.write_text("brewput: 1\nstations: {desk: {}}\nclasses: {c: {rate: 1, route: [{station: dsk, service: 1}]}}\n")
    found = imported("solve", str(model))
    assert "brewput.model.fields" in found
    assert packages(found) & {"rich", "pydantic"} == set()


def test_a_model_or_study_loaded_in_python_imports_no_pydantic_and_no_numpy():
    code = ("import sys, brewput; from brewput.experiment.study import load_study; "
            "brewput.load('examples/tandem.yaml'); load_study('examples/studies/coffee.yaml'); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'numpy'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_simulating_a_chain_imports_no_numpy():
    found = imported("simulate", "examples/tandem.yaml", "--customers", "2000", "--replications", "2")
    assert "brewput._native" in found and "numpy" not in packages(found)


@pytest.mark.parametrize("steps", [1, 2, 7, 256, 257, 1000])
def test_a_chain_visits_each_step_once_as_its_traffic_equations_say(steps):
    import numpy as np
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    from brewput import Model
    from brewput.analytic.traffic import step_visits

    route = [{"station": "desk", "service": 1}] * steps
    chain = Model(brewput=1, stations={"desk": {}}, classes={"c": {"rate": 1, "route": route}}).classes["c"]
    # v = e0 + P^T v with P the shift to the next step, solved as a linear system
    start = np.eye(steps)[0]
    truth = (np.linalg.solve(np.eye(steps) - np.eye(steps, k=-1), start) if steps <= 256  # P^T: i feeds i + 1
             else spsolve(sparse.identity(steps, format="csc") - sparse.eye(steps, k=-1, format="csc"), start))
    assert step_visits(chain) == [float(v) for v in truth] == [1.0] * steps


def test_the_command_runs_blas_on_one_thread_unless_told_otherwise():
    # One thread: numpy starts sooner and sums in the same order on any machine.
    probe = "import os, brewput.__main__ as m, brewput.cli as c; c.main = lambda: print(os.environ['{}']); m.run()"
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env = {k: v for k, v in os.environ.items() if k != variable}
        done = subprocess.run([sys.executable, "-c", probe.format(variable)], env=env, capture_output=True,
                              text=True, check=True)
        assert done.stdout.strip() == "1"
        done = subprocess.run([sys.executable, "-c", probe.format(variable)], env={**env, variable: "3"},
                              capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "3"


def test_start_up_is_not_collected_but_the_command_is():
    # Start-up runs with the cyclic collector off; the command's own work (inside
    # user_errors) with it on, start-up's objects frozen out of it.
    probe = ("import gc, brewput.__main__ as m, brewput.cli as c, brewput.cli.common as common\n"
             "seen = []\n"
             "work = common.user_errors(lambda: seen.append((gc.isenabled(), gc.get_freeze_count() > 0)))\n"
             "c.main = lambda: (seen.append((gc.isenabled(), gc.get_freeze_count() > 0)), work())\n"
             "m.run()\n"
             "print(seen)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[(False, False), (True, True)]"


@pytest.mark.parametrize("example", ["coffee/parsteam.yaml", "starbucks/fifo.yaml", "starbucks/early-order.yaml"])
def test_a_model_solve_refuses_is_refused_before_numpy_is_imported(example):
    # the refusals of analytic/support.py: a feature, a finite buffer inside a network, a measure
    found = imported("solve", f"examples/{example}")
    assert "brewput.analytic.support" in found
    assert packages(found) & {"numpy", "rich"} == set()


def test_a_shared_dispatch_of_ten_servers_solves_without_scipy():
    found = imported("solve", "examples/balance/ten/shared.yaml")
    assert "brewput.analytic.ordered_servers" in found and "scipy" not in packages(found)


def _simulate_with_native(altered: str) -> str:
    """The one stderr line of `brewput simulate` after `altered` (a statement on
    `native`, the loaded engine) takes from the engine what an older build lacks."""
    script = (f"import sys, brewput._native as native; {altered}; "
              "sys.argv = ['brewput', 'simulate', 'examples/mmc.yaml']; "
              "from brewput.__main__ import run; run()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: brewput's native engine (")
    assert line.endswith("rebuild it: make build (or pip install .)")
    return line


def test_an_engine_older_than_its_python_is_one_line_saying_rebuild():
    """A checkout pulled but not rebuilt: the Python asks the native engine for a
    name an older build lacks (here taken away), and gets one line, not a traceback."""
    assert "(it has no VOCABULARY)" in _simulate_with_native("del native.VOCABULARY")


@pytest.mark.parametrize("table, entry", [("words", "policy"), ("defaults", "discipline"), (None, "marked")])
def test_an_engine_whose_vocabulary_lacks_an_entry_is_one_line_saying_rebuild(table, entry):
    """The same, where the older build has the vocabulary but not a word a newer Python reads."""
    part = f"native.VOCABULARY[{table!r}]" if table else "native.VOCABULARY"
    assert f"(it has no VOCABULARY[{entry!r}])" in _simulate_with_native(f"del {part}[{entry!r}]")
