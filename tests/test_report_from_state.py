"""The page of a model followed from a given state (`solve --from ... --report DIR`, and
`brewput report` of its `-o r.json`): the expected number in the system and at each station
and P(empty) against the time since the start, and the times until the backlog clears as a
table. The numbers drawn are the results' and, for the helpdesk (M/M/4 from 12 calls), the
birth-death chain's, built here by hand."""
import json
import subprocess
import sys
from html import unescape
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.optimize import brentq

from brewput.figures import number
from page_charts import charts

ROOT = Path(__file__).resolve().parent.parent
SITE_A = ROOT / "examples" / "helpdesk" / "site-a.yaml"   # M/M/4: calls at 0.08 a minute, 30 minutes each
FOLLOW = ["--from", "desk=12", "--over", "4h", "--bins", "30min"]
TANDEM = """brewput: 1
name: tandem
time_unit: s
stations:
  a: {servers: 1}
  b: {servers: 2}
classes:
  job:
    rate: 0.5
    route: [{station: a, service: exp(1)}, {station: b, service: exp(1.5)}]
"""


def brewput(*args, cwd):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def traces(page: Path) -> dict:
    """Each chart's plotly traces on the page, by name: (trace name, x axis) -> trace."""
    return {name: {(t["name"], t["xaxis"]): t for t in data if t.get("name")} for name, data in charts(page).items()}


@pytest.fixture(scope="module")
def helpdesk(tmp_path_factory):
    """solve --from with -o and --report, and the page report draws of the -o file."""
    folder = tmp_path_factory.mktemp("helpdesk")
    done = brewput("solve", SITE_A, *FOLLOW, "-o", "r.json", "--report", "page", cwd=folder)
    assert done.returncode == 0, done.stderr
    again = brewput("report", "r.json", "-o", "again", cwd=folder)
    assert again.returncode == 0, again.stderr
    results = json.loads((folder / "r.json").read_text())["scenarios"][0]["results"]
    return folder, results


def mm4_generator(size: int, arrivals: float = 0.08, service: float = 1 / 30, servers: int = 4) -> np.ndarray:
    """The M/M/4 birth-death chain on 0..size-1 jobs (truncated far beyond where 12 jobs go in 4 hours)."""
    q = np.zeros((size, size))
    for n in range(size):
        if n + 1 < size:
            q[n, n + 1] = arrivals
        if n > 0:
            q[n, n - 1] = min(n, servers) * service
        q[n, n] = -q[n].sum()
    return q


@pytest.mark.parametrize("page", ["page", "again"])
def test_the_chart_draws_the_results_and_the_birth_death_chain(helpdesk, page):
    folder, results = helpdesk
    chart = traces(folder / page)["from_state"]
    points = results["from"]["points"]
    times = [p["time"] for p in points]
    assert times == [30.0 * k for k in range(9)]
    system, desk, empty = chart["in system", "x"], chart["at desk", "x"], chart["P(empty)", "x2"]
    assert system["x"] == desk["x"] == empty["x"] == times
    assert system["y"] == [p["number"] for p in points]
    assert desk["y"] == [p["stations"]["desk"]["queue_length"] for p in points]
    assert empty["y"] == [p["empty"] for p in points]
    # the truth: p(t) = p(0) exp(Qt) from 12 calls
    q = mm4_generator(200)
    start = np.zeros(200)
    start[12] = 1.0
    for t, n, p0 in zip(times, system["y"], empty["y"]):
        p = start @ expm(q * t)
        assert n == pytest.approx(p @ np.arange(200), rel=1e-8)
        assert p0 == pytest.approx(p[0], rel=1e-7, abs=1e-12)


def test_the_clearing_times_are_a_table_of_the_chains_passage_times(helpdesk):
    folder, results = helpdesk
    clears = results["from"]["clears"]
    # no job waits once the 8 waiting are served: 4/30 a minute against 0.08 arriving
    assert clears["waiting"]["mean"] == pytest.approx(8 / (4 / 30 - 0.08), rel=1e-9)
    # first empty: the mean hitting time of 0 from 12, (-Q_TT) m = 1 over the states 1..
    q = mm4_generator(400)
    transient = -q[1:, 1:]
    assert clears["mean"] == pytest.approx(np.linalg.solve(transient, np.ones(399))[11], rel=1e-8)
    # its median: P(empty by t) = 1/2, the absorbing chain's
    absorbing = q.copy()
    absorbing[0] = 0.0
    start = np.zeros(400)
    start[12] = 1.0
    median = brentq(lambda t: (start @ expm(absorbing * t))[0] - 0.5, 100, 1000, xtol=1e-6)
    assert clears["p50"] == pytest.approx(median, rel=1e-5)
    for page in ("page", "again"):
        html = unescape((folder / page / "index.html").read_text())
        assert "Helpdesk site A: from desk=12, the time until the backlog clears (min)" in html
        assert "<tr><th>passage</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th></tr>" in html
        for label, times in (("the system is first empty", clears), ("no job waits any more", clears["waiting"])):
            cells = "".join(f"<td>{number(times[k])}</td>" for k in ("mean", "p50", "p90", "p99"))
            assert f"<tr><td>{label}</td>{cells}</tr>" in html
        # the grid's table as solve prints it, a row per time
        assert "<td>30</td><td>10.4</td><td>2.206e-05</td>" in html
        # the mean time until no job waits marks both panels; the first empty (377 min) is beyond the span
        assert html.count("no job waits: mean 150 min") >= 2 and "first empty: mean" not in html


def test_each_station_has_its_line(tmp_path):
    (tmp_path / "tandem.yaml").write_text(TANDEM)
    done = brewput("solve", "tandem.yaml", "--from", "a=3,b=2", "--over", "10s", "--bins", "1s", "--json",
                   "--report", "page", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    points = json.loads(done.stdout)["from"]["points"]
    chart = traces(tmp_path / "page")["from_state"]
    for name in ("a", "b"):
        assert chart[f"at {name}", "x"]["y"] == [p["stations"][name]["queue_length"] for p in points]
    system = chart["in system", "x"]["y"]
    assert system[0] == 5 and system == pytest.approx([p["stations"]["a"]["queue_length"] +
                                                      p["stations"]["b"]["queue_length"] for p in points], rel=1e-12)
    # the --json answer saved and reported: the same chart
    (tmp_path / "tandem.json").write_text(done.stdout)
    again = brewput("report", "tandem.json", "-o", "again", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert traces(tmp_path / "again")["from_state"] == chart


def test_an_overloaded_model_followed_has_its_transient_drawn_and_no_steady_state(tmp_path):
    """Calls at 0.2 a minute against four agents serving 4/30: no steady state, so no class
    figures and no summary, the passage times perhaps never, and the notes say why."""
    done = brewput("solve", SITE_A, "--set", "rate=0.2", *FOLLOW, "-o", "r.json", "--report", "page", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    again = brewput("report", "r.json", "-o", "again", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    results = json.loads((tmp_path / "r.json").read_text())["scenarios"][0]["results"]
    assert results["classes"] == {} and results["from"]["clears"]["mean"] is None
    for page in ("page", "again"):
        html = unescape((tmp_path / page / "index.html").read_text())
        assert "<h2>Summary</h2>" not in html
        assert "<tr><td>the system is first empty</td><td>perhaps never</td>" in html
        assert "no steady state exists" in html
        chart = traces(tmp_path / page)["from_state"]
        assert chart["in system", "x"]["y"] == [p["number"] for p in results["from"]["points"]]
        # the queue grows by (0.2 - 4/30) a minute once it never empties: 12 + 16 in 240 min, nearly
        assert chart["in system", "x"]["y"][-1] == pytest.approx(12 + 240 * (0.2 - 4 / 30), rel=0.01)


@pytest.mark.parametrize("change, says", [
    (lambda r: r["from"]["points"][3].__setitem__("number", "many"), "from.points[3].number: expected a number"),
    (lambda r: r["from"]["clears"].pop("waiting"), "from.clears.waiting: missing"),
    (lambda r: r["from"].__setitem__("points", []), "from.points: expected a non-empty list"),
    (lambda r: r.__setitem__("classes", {}), "classes: expected a non-empty map"),
])
def test_a_malformed_from_block_is_one_line(helpdesk, tmp_path, change, says):
    _, results = helpdesk
    results = json.loads(json.dumps(results))
    if "classes" in says:
        results.pop("from")
    change(results)
    (tmp_path / "bad.json").write_text(json.dumps(results))
    done = brewput("report", "bad.json", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == f"error: bad.json: {says}" + done.stderr.split(says, 1)[1]
    assert done.stderr.count("\n") == 1 and not (tmp_path / "out").exists()
