"""`brewput report FILE -o DIR` redraws every page brewput writes from the record it saved
beside it (report/saved.py's KINDS): the page drawn again is the page drawn at the time,
chart for chart (the PNGs byte for byte, the interactive figures' numbers) and table for
table, all but the command in its "Reproduce" section, which is the report's. A record
whose page needs what it does not keep, and what is no record, is refused in one line
naming the file, exit code 2."""
import json
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest

from brewput.figures import number
from page_charts import charts

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# docs/reports.md's rush: a bar with a rush in the second quarter hour, 5-minute services.
RUSH = """brewput: 1
name: rush
time_unit: min
day: {start: "08:00", length: 60min, interval: 15min}
stations:
  bar: {servers: [1, 1, 1, 1], off_shift: resume}
classes:
  customer:
    rate: [0.5, 2.0, 0.5, 0.5]
    route: [{station: bar, service: exp(5)}]
"""
ROTA = ["plan", "rush.yaml", "--slo", "P(wait<=30s)>=80%", "--slo", "wait_mean<=1min", "--rota", "sipp",
        "--no-confirm"]
# Each command that writes a page with a record beside it (record.json), as a person runs it.
PAGES = {
    "rota": ROTA,
    "rota with shifts": ROTA + ["--shift", "45min"],
    "rota priced": ROTA + ["--shift", "45min", "--cost", "bar=20"],
    "plan": ["plan", EXAMPLES / "planning" / "call-centre.yaml", "--vary", "agents=11..16", "--slo",
             "wait_mean<=20s", "--slo", "utilization<=85%", "--cost", "agents=1000,40000", "--discount", "5%"],
    "plan per scenario": ["plan", EXAMPLES / "mmc.yaml", "--vary", "rate=0.5,2.7", "--vary", "c=1..8", "--slo",
                          "wait_mean<=0.25s", "--no-confirm"],
    "whatif": ["whatif", EXAMPLES / "helpdesk" / "two-sites.yaml", "--merge", "desk_a,desk_b", "--add-server",
               "desk_b"],
    "doe": ["doe", EXAMPLES / "coffee" / "linearpipe-1.yaml", "--factor", "cpus=1,4", "--factor", "noise=0,0.5",
            "--customers", "2000", "--replications", "2"],
    "fit usl": ["fit", "usl", EXAMPLES / "data" / "usl" / "specsdm91.csv"],
    "balance": ["balance", "--centres", "16", "--seed", "3"],
    "balance overloaded": ["balance", "--centres", "1024", "--mean", "0.75", "--sigma", "0.1"],
    "a day solved": ["solve", "rush5.yaml", "--method", "psa"],
    "solve --from": ["solve", EXAMPLES / "helpdesk" / "site-a.yaml", "--from", "desk=12", "--over", "4h",
                     "--bins", "30min"],
}


def brewput(*args, cwd):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "rush.yaml").write_text(RUSH)
    (tmp_path / "rush5.yaml").write_text(RUSH.replace("[1, 1, 1, 1]", "[5, 14, 5, 5]"))
    return tmp_path


def drawn_and_redrawn(folder, args):
    """The command's page (folder/at), and the page `brewput report at/record.json` draws (folder/again)."""
    done = brewput(*args, "--report", "at", cwd=folder)
    assert done.returncode == 0, done.stderr
    again = brewput("report", "at/record.json", "-o", "again", cwd=folder)
    assert again.returncode == 0 and again.stderr == "report: again/index.html\n", again.stderr
    return folder / "at", folder / "again"


def shown(page: Path) -> str:
    """A page but the command in its Reproduce section (the report's own, redrawn)."""
    text = (page / "index.html").read_text()
    return re.sub(r"(made (it|these results):</p>\n<pre>)[^<]*(</pre>)", r"\1\3", text)


@pytest.mark.parametrize("page", list(PAGES))
def test_the_page_drawn_again_is_the_page_drawn_then(folder, page):
    at, again = drawn_and_redrawn(folder, PAGES[page])
    assert shown(again) == shown(at)
    assert "<h2>Reproduce</h2>" in shown(again)
    assert json.loads((again / "record.json").read_text()) == json.loads((at / "record.json").read_text())
    pngs = sorted(p.name for p in (at / "charts").glob("*.png"))
    assert pngs and pngs == sorted(p.name for p in (again / "charts").glob("*.png"))
    for name in pngs:
        assert (again / "charts" / name).read_bytes() == (at / "charts" / name).read_bytes(), name
    assert charts(again) and charts(again) == charts(at)


def test_the_rota_redrawn_holds_the_plans_servers_shifts_and_table(folder):
    printed = brewput(*ROTA, "--shift", "45min", "--json", cwd=folder)
    plan = json.loads(printed.stdout)
    _, again = drawn_and_redrawn(folder, ROTA + ["--shift", "45min"])
    drawn = charts(again)
    rota = {(t["name"], t["xaxis"]): t["y"] for t in drawn["rota"] if t.get("name")}
    servers = [i["servers"] for i in plan["intervals"]]
    covered = plan["shifts"]["covered"]
    assert servers == [5, 14, 5, 5]
    assert rota["rate", "x"] == [0.5, 2.0, 0.5, 0.5, 0.5]              # the model's rate, per minute
    assert rota["sipp rota", "x2"] == servers + servers[-1:]           # steps: the last again at the day's end
    assert rota["shifts", "x2"] == covered + covered[-1:]
    over = [c - n for c, n in zip(covered, servers)]
    assert rota["shifts", "x3"] == over + over[-1:] and sum(over) == plan["shifts"]["over_staffing"]
    broken = [n for n, i in zip(servers, plan["intervals"]) if not i["held"]]
    assert [y for y in rota["sipp: broken (transient)", "x2"] if y is not None] == broken
    # each objective's figure per interval, as the plan judged it (a share in percent)
    figures = {t["xaxis"]: t["y"] for t in drawn["rota_objectives"]}
    assert figures["x"] == pytest.approx([100 * i["figures"]["P(wait<=30s)>=80%"] for i in plan["intervals"]],
                                         rel=1e-12)
    assert figures["x2"] == pytest.approx([i["figures"]["wait_mean<=1min"] for i in plan["intervals"]], rel=1e-12)
    # the table plan prints, row for row
    page = (again / "index.html").read_text()
    for interval, start, on in zip(plan["intervals"], plan["shifts"]["starts"], covered):
        held = "held" if interval["held"] else "broken"
        assert (f"<td>{escape(interval['label'])}</td><td>{interval['servers']}</td>" in page
                and f"<td>{held}</td><td>{start}</td><td>{on}</td>" in page), interval


def test_a_redrawn_record_draws_the_same_page_again(folder):
    """record.json of a redrawn page is the record: a page can be redrawn from a redrawing."""
    _, again = drawn_and_redrawn(folder, ROTA)
    done = brewput("report", "again/record.json", "-o", "third", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert shown(folder / "third") == shown(again)


def refused(folder, name, text=None):
    if text is not None:
        (folder / name).write_text(text)
    done = brewput("report", name, "-o", "out", cwd=folder)
    assert done.returncode == 2 and done.stdout == ""
    assert re.match(rf"error: {re.escape(name)}(:\d+)?: ", done.stderr) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def test_the_busiest_centre_redrawn_holds_its_figures_and_its_seeds_chart(folder):
    """balance's chart is simulated when drawn, seeded: drawn again from the record, the same draws."""
    printed = brewput("balance", "--centres", "1024", "--mean", "0.75", "--sigma", "0.1", "--json", cwd=folder)
    figures = json.loads(printed.stdout)
    _, again = drawn_and_redrawn(folder, PAGES["balance overloaded"])
    page = (again / "index.html").read_text()
    assert f"<td>exact (quadrature)</td><td>{number(figures['exact']['e_max'])}</td>" in page
    top = 0.75 + 0.1 * figures["exact"]["e_max"]   # E[max of 1024 normals] = 3.2: over 100 %
    assert top > 1 and f"The busiest centre is expected {top:.1%} busy: overloaded, though the mean is 75.0%." in page
    exact = {t["name"]: t for t in charts(again)["busiest"] if t.get("name") == "exact"}["exact"]
    assert exact["x"][-1] == 1024
    from brewput.planning.balance import expected_max
    assert exact["y"] == pytest.approx([expected_max(m) for m in exact["x"]], rel=1e-12)
    assert exact["y"][-1] == pytest.approx(figures["exact"]["e_max"], rel=1e-12)


def test_a_record_whose_page_needs_more_than_it_keeps_says_what_to_do(folder):
    done = brewput("lab", "talk", "--table", "jitter", "--impl", "ideal", "--report", "t", cwd=folder)
    assert done.returncode == 0, done.stderr
    line = refused(folder, "t/record.json")
    assert "lab talk" in line and "run its command again, brewput lab talk --table jitter --impl ideal" in line
    # plan --rota's -o keeps the rota only: its page's record.json is what redraws
    done = brewput(*ROTA, "-o", "plan.json", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "redraw the record.json that plan --rota ... --report DIR writes" in refused(folder, "plan.json")


@pytest.mark.parametrize("name, text, says", [
    ("model.json", '{"brewput": 1, "name": "m"}', "not a brewput experiment record"),
    ("other.json", '{"model": "m", "figures": [1]}', "keys figures, model"),
    ("list.json", "[1, 2]", "(a JSON list)"),
    ("cut.json", '{"method": "sipp", "station": "bar", "intervals": [{"lab', "cut.json:1: not JSON"),
])
def test_what_is_no_record_is_one_line(folder, name, text, says):
    assert says in refused(folder, name, text)


def test_a_folder_is_refused(folder):
    (folder / "at").mkdir()
    assert "is a folder" in refused(folder, "at")


def test_a_record_of_a_known_kind_but_not_its_shape_is_one_line(folder):
    at, _ = drawn_and_redrawn(folder, ROTA)
    record = json.loads((at / "record.json").read_text())
    del record["intervals"][2]["servers"]
    line = refused(folder, "rota.json", json.dumps(record))
    assert "a planned rota (plan --rota --report DIR's record.json), but not as brewput writes it " \
           "(no 'servers' where its page reads one)" in line
    record = json.loads((at / "record.json").read_text())
    record["intervals"] = "all of them"
    assert "but not as brewput writes it" in refused(folder, "rota2.json", json.dumps(record))
    record = json.loads((at / "record.json").read_text())
    record["objectives"] = {}   # no objective: a chart of no panels
    assert "but not as brewput writes it (division by zero)" in refused(folder, "rota3.json", json.dumps(record))


def test_a_balance_record_of_centres_balance_refuses_is_refused_before_any_simulation(folder):
    at, _ = drawn_and_redrawn(folder, PAGES["balance"])
    figures = json.loads((at / "record.json").read_text())
    figures["centres"] = 10**12
    line = refused(folder, "balance.json", json.dumps(figures))
    assert "balance.json: centres: expected a whole number of centres from 2 to" in line


def test_a_fit_whose_points_are_not_its_fit_is_refused(folder):
    at, _ = drawn_and_redrawn(folder, PAGES["fit usl"])
    fit = json.loads((at / "record.json").read_text())
    fit["points"][0]["throughput"] *= 2
    line = refused(folder, "fit.json", json.dumps(fit))
    assert "its points fit σ, κ, λ" in line and "not the fit it keeps" in line
