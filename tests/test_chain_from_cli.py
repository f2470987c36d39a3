"""`brewput solve MODEL --from STATE --over T` as a person runs it: piped, on a terminal,
with -o results.json and --json; every refusal one line on stderr and exit code 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import brewput
from terminal import run_on_terminal

BREWPUT = str(Path(sys.executable).parent / "brewput")
SITE_A = "examples/helpdesk/site-a.yaml"
ARGS = ["solve", SITE_A, "--from", "desk=12", "--over", "8h", "--bins", "30min"]


def run(*args, cwd=None):
    return subprocess.run([BREWPUT, *args], capture_output=True, text=True, cwd=cwd)


def test_piped_it_prints_the_curves_the_clearing_times_and_the_steady_state():
    done = run(*ARGS)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Helpdesk site A: from desk=12, expected figures over the next 480 min (exact, ctmc)" in out
    table = out.split("(exact, ctmc)")[1].split("the system is first empty")[0]
    rows = [line.replace("│", " ").split() for line in table.splitlines() if line.strip("│ ")[:1].isdigit()]
    assert len(rows) == 17 and rows[0][:3] == ["0", "12", "0"]  # time, in system, P(empty)
    assert [row[0] for row in rows] == [str(30 * k) for k in range(17)]
    words = " ".join(out.split())
    # M/M/4, 8 waiting, served at 4/30 a minute while 0.08 arrive: (12 - 4) / (4/30 - 0.08) = 150 min.
    assert "no job waits any more after 150 min on average" in words
    assert "Then, in the steady state:" in words and "35.38" in out  # Erlang C's response time
    # a pipe gets no escape codes; its steps may be told, a line each, where the run
    # outlasts the quiet first second (a loaded machine)
    assert "\x1b[" not in out and "\x1b[" not in done.stderr and "Traceback" not in done.stderr


def test_the_python_api_gives_the_same_numbers():
    res = brewput.solve(SITE_A, from_state={"desk": 12}, over="8h", bins="30min")
    done = run(*ARGS, "--json")
    assert json.loads(done.stdout)["from"] == res["from"]
    assert res["from"]["clears"]["waiting"]["mean"] == pytest.approx(8 / (4 / 30 - 0.08), rel=1e-9)


def test_o_results_json_holds_the_curves(tmp_path):
    done = run(*ARGS, "-o", str(tmp_path / "results.json"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "results.json").read_text())
    block = record["scenarios"][0]["results"]["from"]
    assert block["state"] == {"desk": 12} and block["over"] == 480 and len(block["points"]) == 17
    assert block["points"][-1]["stations"]["desk"]["utilization"] == pytest.approx(0.6081, abs=1e-4)


@pytest.mark.parametrize("stdout_on_terminal", [True, False])
def test_on_a_terminal(stdout_on_terminal):
    screen = run_on_terminal([BREWPUT, *ARGS], cwd=Path.cwd(), stdout_on_terminal=stdout_on_terminal)
    text = screen.text + (screen.stdout or "")
    assert screen.code == 0 and "Traceback" not in text
    assert "no job waits any more after 150 min" in " ".join(text.split())


BUFFERED = """brewput: 1
name: buffered
stations:
  desk: {servers: 1, buffer: 2}
classes:
  call:
    rate: 0.5
    route:
      - {station: desk, service: exp(1)}
"""
PATIENCE = BUFFERED.replace("exp(1)}", "exp(1), patience: uniform(1, 5)}")
DAY = BUFFERED.replace("stations:", "day: {length: 1h, interval: 30min}\nstations:").replace("buffer: 2", "buffer: 5")


@pytest.mark.parametrize("model, args, message", [
    (SITE_A, ["--from", "bar=3", "--over", "1h"], "--from bar=3: unknown station 'bar' (stations: desk)"),
    (SITE_A, ["--from", "desk=-2", "--over", "1h"], "--from desk=-2: expected jobs of at least 0 at 'desk', got -2"),
    (SITE_A, ["--from", "desk=2.5", "--over", "1h"], "--from desk=2.5: expected a whole number of jobs at 'desk', "
                                                      "got '2.5'"),
    (SITE_A, ["--from", "desk", "--over", "1h"], "--from desk: expected STATION=JOBS, comma-separated"),
    (SITE_A, ["--from", "desk=1,desk=2", "--over", "1h"], "--from desk=1,desk=2: station 'desk' given twice"),
    ("buffered.yaml", ["--from", "desk=4", "--over", "10"], "--from desk=4: station 'desk' holds at most 3 jobs "
                                                            "(its servers and buffer)"),
    ("patience.yaml", ["--from", "desk=2", "--over", "10"], "patience.yaml: classes.call.route[0].patience: a "
                                                            "patience other than exponential (uniform) is not in "
                                                            "the state-space engine"),
    ("day.yaml", ["--from", "desk=2", "--over", "10"], "--from desk=2: follows a model without a day"),
    (SITE_A, ["--from", "desk=99999999999", "--over", "1h"], "--from: from 99,999,999,999 jobs: the "
                                                               "state-space engine follows at most 4,000"),
    (SITE_A, ["--from", "desk=300", "--over", "1h", "--max-states", "200"], "--from: from 300 jobs its Markov "
                                                                            "chain has more than 300 states, beyond "
                                                                            "--max-states 200"),
    ("buffered.yaml", ["--from", "desk=2", "--over", "1e9"], "--over 1e+09: the chain's fastest events come about "
                                                             "4e+09 times over the span, more than the 100,000"),
    (SITE_A, ["--over", "1h"], "--from: needed with --over: the jobs at each station to start from"),
    (SITE_A, ["--from", "desk=3"], "--over: how long to follow the model from the given state is needed"),
    (SITE_A, ["--bins", "5min"], "--bins 5min: is for a model followed from a given state (--from and --over)"),
    (SITE_A, ["--from", "desk=3", "--over", "0"], "--over 0: expected a positive time"),
    (SITE_A, ["--from", "desk=3", "--over", "-1h"], "--over -1h: expected a positive time"),
    (SITE_A, ["--from", "desk=3", "--over", "1h", "--bins", "7min"], "--bins 7min: the span followed (60 min) must "
                                                                    "be a whole number of bins"),
    (SITE_A, ["--from", "desk=3", "--over", "1h", "--method", "erlang"], "--method erlang: the model is followed "
                                                                         "from a given state by its Markov chain"),
    (SITE_A, ["--from", "desk=3", "--over", "1h", "--sweep", "staff=3,4"], "--from: follows one model from a given "
                                                                           "state, not with --sweep"),
])
def test_every_refusal_is_one_line_and_exit_2(tmp_path, model, args, message):
    for name, text in (("buffered.yaml", BUFFERED), ("patience.yaml", PATIENCE), ("day.yaml", DAY)):
        (tmp_path / name).write_text(text)
    path = str(Path(model).resolve()) if model.startswith("examples") else model
    done = run("solve", path, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert message in lines[0], lines[0]


def test_o_results_csv_has_a_row_per_time(tmp_path):
    done = run(*ARGS, "-o", str(tmp_path / "results.csv"))
    assert done.returncode == 0, done.stderr
    import pandas

    table = pandas.read_csv(tmp_path / "results.csv")
    system = table[table["kind"] == "system at time"]
    desk = table[(table["kind"] == "station at time") & (table["name"] == "desk")]
    assert list(system["time"]) == list(desk["time"]) == [30.0 * k for k in range(17)]
    assert system["number"].iloc[0] == 12 and desk["waiting"].iloc[0] == 8
    assert desk["utilization"].iloc[-1] == pytest.approx(0.6081, abs=1e-4)


def test_an_overloaded_model_prints_its_curves_and_why_there_is_no_steady_state(tmp_path):
    done = run("solve", SITE_A, "--set", "rate=0.15", "--from", "desk=12", "--over", "2h", "--bins", "30min",
               "-o", str(tmp_path / "results.csv"))
    assert done.returncode == 0, done.stderr
    words = " ".join(done.stdout.split())
    assert "the system is first empty perhaps never (see the notes)" in words
    assert "note: station desk: utilization 1.125 >= 1, the open model is unstable; no steady state exists: its " \
           "figures are those from the given state over the span followed only" in words
    assert "steady state:" not in words and "stations (L, Lq" not in words
    # 4 agents serve 4/30 a minute while 0.15 arrive: the 12 grow by 1/60 a minute while all are busy
    assert "│ 30         │      12.5 │" in done.stdout
