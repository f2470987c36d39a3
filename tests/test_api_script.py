"""The public API from a plain script, as a person runs one: `python script.py`
with no `if __name__ == "__main__":` guard (and from `python -c` and stdin).

brewput's worker processes must not run the script again (experiment/spawning.py):
each script here appends a line to a file as it starts, and the file must hold one
line after the run. The figures are checked against Erlang C, computed here."""
import json
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import check

CHECKOUT = Path(__file__).resolve().parent.parent
MMC = {"rate": 2.7, "service": 1.0}  # examples/mmc.yaml: M/M/c, exp(1) service, c = 3 unless set


def erlang_c_response(c: int, rate: float = MMC["rate"], service: float = MMC["service"]) -> float:
    """The mean response time of M/M/c (Erlang's C formula)."""
    load = rate * service
    top = load ** c / math.factorial(c) * c / (c - load)
    waits = top / (sum(load ** k / math.factorial(k) for k in range(c)) + top)
    return service + waits * service / (c - load)


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """A folder after `brewput examples .`, where a new user runs the docs' snippets."""
    folder = tmp_path_factory.mktemp("user")
    done = subprocess.run([sys.executable, "-m", "brewput", "examples", "."], cwd=folder,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return folder


def starts_once(marks: Path) -> str:
    """The script's first line: one line per start of its body, in `marks`."""
    return f"import os\nopen({str(marks)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"


def run_script(code: str, folder: Path, how: str = "file", timeout: float = 180) -> subprocess.CompletedProcess:
    """`code` run as a person runs a script: `python script.py`, `python - < script.py`
    or `python -c CODE`, in `folder`."""
    script = folder / "script.py"
    script.write_text(code)
    command = {"file": [sys.executable, "script.py"], "stdin": [sys.executable, "-"],
               "-c": [sys.executable, "-c", code]}[how]
    with open(script) as stdin:
        return subprocess.run(command, cwd=folder, stdin=stdin if how == "stdin" else subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout)


def assert_clean(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr


def starts(marks: Path) -> int:
    return len(marks.read_text().splitlines())


def python_block(doc: Path, after: str) -> str:
    """The first ```python block after the line holding `after` in `doc`."""
    text = doc.read_text()
    return re.search(r"```python\n(.*?)```", text[text.index(after):], re.S).group(1)


SWEEPS = """
import json
import brewput

model = brewput.load("examples/mmc.yaml")
solved = brewput.sweep(model, {"c": range(3, 7)}, engine="solve", workers=2)
on_two = brewput.sweep(model, {"c": [3, 4]}, "simulate", workers=2, seed=3, customers=20_000)
alone = brewput.sweep(model, {"c": [3, 4]}, "simulate", workers=1, seed=3, customers=20_000)

def results(record):
    return {s["params"]["c"]: s["results"] for s in record["scenarios"]}

print(json.dumps({"solved": results(solved), "on_two": results(on_two), "alone": results(alone),
                  "failed": solved["failed"] + on_two["failed"]}))
"""


def check_sweeps(stdout: str) -> None:
    printed = json.loads(stdout)
    assert printed["failed"] == []
    response = ("classes", "customer", "response_time", "mean")
    solved = {int(c): results["classes"]["customer"]["response_time"]["mean"]
              for c, results in printed["solved"].items()}
    assert sorted(solved) == [3, 4, 5, 6]
    for c, mean in solved.items():
        assert mean == pytest.approx(erlang_c_response(c), rel=1e-9), c
    # the same numbers on two workers as in this process alone, and Erlang C within their interval
    assert printed["on_two"] == printed["alone"]
    assert sorted(printed["on_two"]) == ["3", "4"]
    for c, results in printed["on_two"].items():
        check(results, response, erlang_c_response(int(c)))


@pytest.mark.parametrize("how", ["file", "stdin", "-c"])
def test_a_sweep_on_two_workers_from_a_script_without_a_main_guard_runs_the_script_once(examples, tmp_path, how):
    marks = tmp_path / "starts"
    done = run_script(starts_once(marks) + SWEEPS, examples, how)
    assert_clean(done)
    check_sweeps(done.stdout)
    assert starts(marks) == 1


def test_a_script_with_a_main_guard_still_works_and_its_own_spawned_pool_still_imports_it(examples, tmp_path):
    # brewput leaves the script's own multiprocessing as it was: a spawn pool
    # started after brewput's still runs the script's functions (which needs the
    # script imported in its workers).
    marks = tmp_path / "starts"
    guarded = ("import multiprocessing\n\ndef square(x):\n    return x * x\n\n"
               "if __name__ == '__main__':\n" + textwrap.indent(starts_once(marks) + SWEEPS, "    ") +
               "    with multiprocessing.get_context('spawn').Pool(2) as pool:\n"
               "        print(pool.map(square, [1, 2, 3]))\n")
    done = run_script(guarded, examples)
    assert_clean(done)
    sweeps, squares = done.stdout.splitlines()
    check_sweeps(sweeps)
    assert squares == "[1, 4, 9]"
    assert starts(marks) == 1


def test_the_readme_python_snippet_runs_as_a_plain_script(examples, tmp_path):
    marks = tmp_path / "starts"
    snippet = python_block(CHECKOUT / "README.md", "From Python")
    assert "brewput.sweep(" in snippet  # the snippet that starts worker processes
    printed = ("\nprint('response', brewput.solve(model)['classes']['customer']['response_time']['mean'])\n"
               "print('sweep', len(record['scenarios']), len(record['failed']))\n")
    done = run_script(starts_once(marks) + snippet + printed, examples)
    assert_clean(done)
    response = float(re.search(r"^response (\S+)$", done.stdout, re.M).group(1))
    assert response == pytest.approx(erlang_c_response(3), rel=1e-9)
    assert "sweep 4 0" in done.stdout.splitlines()
    assert "name: M/M/c queue" in done.stdout  # the snippet's last line, the model as a file
    assert starts(marks) == 1


def test_the_experiments_page_sweep_runs_as_a_plain_script(examples, tmp_path):
    marks = tmp_path / "starts"
    snippet = python_block(CHECKOUT / "docs" / "experiments.md", "## From Python: brewput.sweep")
    printed = "\nprint('scenarios', len(record['scenarios']), 'failed', len(record['failed']))\n"
    done = run_script(starts_once(marks) + snippet + printed, examples)
    assert_clean(done)
    assert "scenarios 6 failed 0" in done.stdout.splitlines()
    assert starts(marks) == 1


def test_a_class_the_script_defines_is_refused_in_one_line_that_says_what_to_do(examples, tmp_path):
    # A worker without the script cannot unpickle what the script defines.
    marks = tmp_path / "starts"
    code = starts_once(marks) + textwrap.dedent("""
        import sys
        import brewput

        class Seed(int):
            pass

        record = brewput.sweep("examples/mmc.yaml", {"c": [3, 4]}, "simulate", workers=int(sys.argv[-1]),
                               seed=Seed(3), customers=5_000)
        print("scenarios", len(record["scenarios"]))
        """)
    (examples / "seeded.py").write_text(code)
    refused = subprocess.run([sys.executable, "seeded.py", "2"], cwd=examples, capture_output=True, text=True,
                             timeout=120)
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[-1] == (
        "brewput.errors.BrewputError: Seed is defined in the script itself (__main__), which brewput's worker "
        "processes do not run: define it in a module the script imports, or run with workers=1")
    assert starts(marks) == 1
    # what the message offers works
    alone = subprocess.run([sys.executable, "seeded.py", "1"], cwd=examples, capture_output=True, text=True,
                           timeout=120)
    assert_clean(alone)
    assert alone.stdout == "scenarios 2\n"
    assert starts(marks) == 2
