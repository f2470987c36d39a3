"""The planning commands' HTML reports: the tables the command printed, cell
for cell (both come from planning/show.py's grids), the charts as PNGs, and
what was computed as record.json, equal to the command's --json."""
import html
import json
import subprocess
import sys
from pathlib import Path

import pytest

from brewput.planning.show import coefficients_grid, plan_grids, whatif_grid

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "plan": (["plan", "examples/planning/call-centre.yaml", "--vary", "agents=11..16", "--slo", "wait_mean<=20s",
              "--slo", "utilization<=85%", "--cost", "agents=1000,40000", "--discount", "5%"],
             lambda r: plan_grids(r, None), "plan.png"),
    "whatif": (["whatif", "examples/helpdesk/two-sites.yaml", "--merge", "desk_a,desk_b", "--add-server", "desk_b"],
               lambda r: [whatif_grid(r)], "whatif.png"),
    "doe": (["doe", "examples/coffee/linearpipe-1.yaml", "--factor", "cpus=1,4", "--factor", "noise=0,0.5",
             "--customers", "2000", "--replications", "2"], lambda r: [coefficients_grid(r)], "effects.png"),
}


def brewput(*args):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_report_holds_the_tables_charts_and_record(command, tmp_path):
    args, grids, png = COMMANDS[command]
    printed = brewput(*args, "--json")
    assert printed.returncode == 0, printed.stderr
    record = json.loads(printed.stdout)
    done = brewput(*args, "--json", "--report", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r" / "index.html").read_text()
    assert json.loads((tmp_path / "r" / "record.json").read_text()) == json.loads(done.stdout)
    assert (tmp_path / "r" / "charts" / png).stat().st_size > 10_000
    for grid in grids(record):
        for row in grid.rows:
            assert "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" in page, row


def test_a_report_folder_that_is_a_file_is_refused_before_any_work(tmp_path):
    (tmp_path / "taken").write_text("")
    done = brewput("plan", "examples/mmc.yaml", "--vary", "c=3..6", "--slo", "mean<2s", "--report", tmp_path / "taken")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "--report" in done.stderr
    assert done.stdout == ""


def test_a_usl_report_holds_the_fit_its_points_and_chart(tmp_path):
    from brewput.figures import number

    done = brewput("fit", "usl", "examples/data/usl/specsdm91.csv", "--json", "--report", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    fit = json.loads(done.stdout)
    page = (tmp_path / "r" / "index.html").read_text()
    assert json.loads((tmp_path / "r" / "record.json").read_text()) == fit
    assert (tmp_path / "r" / "charts" / "usl.png").stat().st_size > 10_000
    sigma = fit["sigma"]
    assert f"<td>σ contention</td><td>{number(sigma['estimate'])}</td><td>{number(sigma['std_error'])}</td>" in page
    assert "peak: N* = floor(sqrt((1 - σ) / κ)) = 96" in html.unescape(page)
    for point in fit["points"]:
        assert f"<td>{number(point['n'])}</td><td>{number(point['throughput'])}</td>" in page


def test_a_balance_report_holds_the_table_and_the_chart(tmp_path):
    done = brewput("balance", "--centres", "16", "--json", "--report", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert json.loads((tmp_path / "r" / "record.json").read_text()) == figures
    assert (tmp_path / "r" / "charts" / "busiest.png").stat().st_size > 10_000
    page = html.unescape((tmp_path / "r" / "index.html").read_text())
    assert "<td>exact (quadrature)</td>" in page and "Busiest of 16 centres" in page
