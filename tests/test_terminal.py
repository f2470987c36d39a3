"""Every command as a person runs it: on a terminal.

Every other test pipes a command's output, where rich draws nothing live; on a
terminal the progress bars, the live load line and the tables at the terminal's
width run instead, and once crashed every command that shows progress before it
printed anything. Each command here runs on a pseudo-terminal, with stdout on it
too and with stdout redirected to a file (`brewput ... > out.txt`), and must exit
0, show its tables and print no traceback."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from load_server import serving
from terminal import run_on_terminal

# (a command says its steps once it has run a second: a busy machine would print them where none are due)
pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

BREWPUT = str(Path(sys.executable).parent / "brewput")

# (what, expected text, arguments): the README's commands at sizes a test affords,
# one for each command that shows progress or a live line.
COMMANDS = [
    ("demo", "Throughput (lattes per second)", ["demo", "--customers", "2000", "--replications", "2"]),
    ("simulate", "desk", ["simulate", "examples/mmc.yaml", "--customers", "20000"]),
    ("simulate --sweep", "scenarios", ["simulate", "examples/mmc.yaml", "--sweep", "c=3..5", "--customers", "5000",
                                       "-o", "sweep.csv"]),
    ("solve", "34.99", ["solve", "examples/helpdesk/merged.yaml"]),
    ("solve --from", "expected figures over the next 3000 min",
     ["solve", "examples/helpdesk/merged.yaml", "--from", "desk=300", "--over", "3000"]),
    ("solve --sweep", "Central-server model: 2 scenarios", ["solve", "examples/central-server.yaml", "--sweep", "users=10,50"]),
    ("compare", "desk", ["compare", "examples/helpdesk/site-b.yaml", "--customers", "20000"]),
    ("run", "finelocking", ["run", "examples/studies/coffee.yaml", "--customers", "2000", "--replications", "2",
                            "-o", "study.json"]),
    ("plan", "chosen: agents=14", ["plan", "examples/planning/call-centre.yaml", "--vary", "agents=10..20",
                                   "--slo", "wait_mean<=20s", "--slo", "utilization<=85%", "--slo", "wait_p90<=1min"]),
    ("plan --rota", "held", ["plan", "examples/rush/coffee-bar.yaml", "--slo", "P(wait<=1min)>=80%", "--rota", "exact",
                             "--shift", "2h"]),
    ("plan --rota simulate", "held", ["plan", "examples/rush/call-centre-day.yaml", "--slo", "P(wait<=20s)>=80%",
                                      "--rota", "simulate"]),
    ("whatif", "pooled", ["whatif", "examples/helpdesk/two-sites.yaml", "--merge", "desk_a,desk_b"]),
    ("doe", "Coefficients", ["doe", "examples/coffee/linearpipe-1.yaml", "--factor", "cpus=1,4",
                             "--factor", "noise=0,0.5", "--customers", "2000", "--replications", "2"]),
    ("balance", "exact", ["balance", "--centres", "16"]),
    ("fit usl", "N*", ["fit", "usl", "examples/data/usl/specsdm91.csv"]),
    ("lab coffee", "ideal", ["lab", "coffee", "--impl", "ideal", "--cpus", "1", "--dur", "100ms", "--warmup", "10ms",
                             "--repetitions", "2", "--predict"]),
    ("lab pool", "threads", ["lab", "pool", "--tasks", "20", "--work", "1ms", "--threads", "1,2", "--repetitions", "1"]),
    ("lab talk", "jitter", ["lab", "talk", "--table", "jitter", "--impl", "ideal"]),
    ("schema", "$schema", ["schema", "model"]),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A user's folder: the examples copied in, as the README's first step does."""
    path = tmp_path_factory.mktemp("user")
    subprocess.run([BREWPUT, "examples", "."], cwd=path, check=True, capture_output=True)
    return path


def _clean(screen_text: str, command: str) -> None:
    for sign in ("Traceback", "panicked", "lost sys.std", "TypeError", "object does not support"):
        assert sign not in screen_text, f"{command}: {sign!r} on the terminal:\n{screen_text}"


@pytest.mark.parametrize("what, expected, args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_on_a_terminal(folder, what, expected, args):
    screen = run_on_terminal([BREWPUT, *args], cwd=folder)
    _clean(screen.text, what)
    assert screen.code == 0, f"{what}: exit {screen.code} on a terminal:\n{screen.text}"
    assert expected in screen.text, f"{what}: {expected!r} not shown on the terminal:\n{screen.text}"


@pytest.mark.parametrize("what, expected, args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_on_a_terminal_with_stdout_to_a_file(folder, what, expected, args):
    """`brewput ... > out.txt` typed at a terminal: stderr (the bar, warnings) is
    the terminal, stdout is not; the tables go whole to stdout, plain."""
    screen = run_on_terminal([BREWPUT, *args], cwd=folder, stdout_on_terminal=False)
    _clean(screen.text + screen.stdout, what)
    assert screen.code == 0, f"{what}: exit {screen.code}:\n{screen.text}\n{screen.stdout}"
    assert expected in screen.text + screen.stdout
    assert "\x1b[" not in screen.stdout, f"{what}: escape codes in the redirected stdout"


def test_load_shows_its_live_line_and_table_on_a_terminal(folder):
    with serving(service="exp(2ms)", workers=2) as url:
        screen = run_on_terminal([BREWPUT, "load", url, "--rate", "100", "--duration", "2s",
                                  "--predict", "examples/server.yaml"], cwd=folder)
    _clean(screen.text, "load")
    assert screen.code == 0, screen.text
    assert "measured beside" in screen.text


def test_a_sweep_in_a_pipe_says_each_scenario_as_it_finishes(folder):
    """Piped (a CI log): not silent until the end, a line per finished step."""
    done = subprocess.run([BREWPUT, "simulate", "examples/mmc.yaml", "--sweep", "c=3..5", "--customers", "5000"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("scenarios ")]
    assert [line.split(":")[0] for line in lines] == ["scenarios 1/3", "scenarios 2/3", "scenarios 3/3"]
    assert sorted(line.split(": ")[1].split(" (")[0] for line in lines) == [
        "mmc simulate c=3", "mmc simulate c=4", "mmc simulate c=5"]


def test_a_json_run_in_a_pipe_prints_no_progress(folder):
    """--json is for programs: stderr stays quiet, stdout is the JSON alone."""
    done = subprocess.run([BREWPUT, "simulate", "examples/mmc.yaml", "--customers", "5000", "--json"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_a_long_solve_in_a_pipe_says_each_step_of_its_chain(folder):
    """A Markov chain solved truncation after truncation takes seconds to minutes: piped,
    a line per step once the first second has passed, each saying what it did."""
    done = subprocess.run([BREWPUT, "solve", "examples/helpdesk/merged.yaml", "--from", "desk=300", "--over", "30000"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("solving ")]
    # the span followed first (a span too long is refused before the steady state's work),
    # then the steady state's truncations
    assert len(lines) >= 2 and ": --from: 1,025 states followed (open jobs up to 1024) (" in lines[0], done.stderr
    assert all(": ctmc: " in line for line in lines[1:]), done.stderr
    assert all(re.fullmatch(r"solving \d+: (ctmc|--from): .* \(\d+\.\d s\)", line) for line in lines), lines


def test_a_quick_solve_in_a_pipe_prints_its_answer_alone(folder):
    """Most answers come at once: no progress line before them."""
    done = subprocess.run([BREWPUT, "solve", "examples/helpdesk/merged.yaml", "--method", "ctmc"],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "exact (ctmc)" in done.stdout


def test_a_rota_planned_in_a_pipe_says_each_day_it_solved(folder):
    """plan --rota solves the day for each rota it tries (dozens, seconds each): piped, a
    line per rota tried after the quiet first second (the lagged-SIPP rota exact starts
    from, then exact's), the last the confirming simulation."""
    done = subprocess.run([BREWPUT, "plan", "examples/rush/coffee-bar.yaml", "--slo", "P(wait<=1min)>=80%",
                           "--rota", "exact"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("planning ")]
    tried = [re.fullmatch(r"planning \d+: (lag-sipp|exact): a rota of \d+ server-intervals, \d+ of 20 intervals "
                          r"short \(\d+\.\d s\)", line) for line in lines[:-1]]
    assert tried and all(tried), done.stderr
    methods = [match[1] for match in tried]
    assert methods[-1] == "exact" and methods == sorted(methods, key=["lag-sipp", "exact"].index), done.stderr
    assert re.fullmatch(r"planning \d+: the rota confirmed: the day simulated 20 times \(\d+\.\d s\)", lines[-1])


def test_a_rota_simulated_in_a_pipe_says_each_iteration(folder):
    """plan --rota simulate simulates the day once per iteration: piped, a line each after
    the quiet first second (none on a machine fast enough to finish within it), the last
    the confirming simulation; each iteration says what changed, until nothing does."""
    from brewput.model import load
    from brewput.planning.rota import plan_rota
    from brewput.planning.slo import parse_objective
    from brewput.steps import telling

    done = subprocess.run([BREWPUT, "plan", "examples/rush/call-centre-day.yaml", "--slo", "P(wait<=20s)>=80%",
                           "--rota", "simulate"], cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("planning ")]
    iteration = r"planning \d+: simulate: iteration (\d+), (\d+) of 24 intervals changed \(\d+\.\d s\)"
    assert all(re.fullmatch(iteration, line) for line in lines[:-1]), done.stderr
    assert re.fullmatch(r"planning \d+: the rota confirmed: the day simulated 20 times \(\d+\.\d s\)", lines[-1])
    told = []  # every step, as the bar or the pipe is told it, whatever the time
    model = load(folder / "examples/rush/call-centre-day.yaml")
    with telling(lambda done, total, what: told.append(what)):
        plan_rota(model, [parse_objective("P(wait<=20s)>=80%", model)], "simulate")
    steps = [re.fullmatch(r"simulate: iteration (\d+), (\d+) of 24 intervals changed", what) for what in told]
    assert len(steps) >= 2 and all(steps), told
    assert [int(s.group(1)) for s in steps] == list(range(1, len(steps) + 1))
    assert steps[0].group(2) == "24" and steps[-1].group(2) == "0"  # from 1,000 each, until it settles