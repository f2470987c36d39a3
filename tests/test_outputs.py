"""Outputs that fail as they are written (a full disk: a link to /dev/full passes
every check made before the run): the figures still reach stdout, and the one
error line names the file or folder that failed and the system's reason.
Outputs refused before the run are in the corpus (tests/test_corpus_*.py)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
ROOT = Path(__file__).resolve().parent.parent
FULL = "No space left on device"


def brewput(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def full_link(path: Path) -> Path:
    path.symlink_to("/dev/full")
    return path


def test_a_chart_that_cannot_be_written_keeps_the_table(tmp_path):
    chart = full_link(tmp_path / "busiest.png")
    run = brewput("balance", "--centres", "4", "--chart", chart)
    assert run.returncode == 2
    assert "exact (quadrature)" in run.stdout and "Blom" in run.stdout
    assert run.stderr.strip() == f"error: --chart: {chart}: {FULL}"


def test_a_report_that_cannot_be_written_names_its_folder_not_stdout(tmp_path):
    record = tmp_path / "r.json"
    assert brewput("solve", "examples/mmc.yaml", "--sweep", "c=3,4", "-o", record).returncode == 0
    report = tmp_path / "rep"
    report.mkdir()
    full_link(report / "record.json")
    run = brewput("report", record, "-o", report)
    assert run.returncode == 2
    assert run.stderr.strip() == f"error: -o {report}: cannot write: {FULL}"


def test_load_results_that_cannot_be_written_name_the_file(tmp_path):
    output = full_link(tmp_path / "load.json")
    run = brewput("load", "--exec", "true", "--rate", "20", "--duration", "1s", "-o", output)
    assert run.returncode == 2
    assert "times in ms" in run.stdout and "p99" in run.stdout  # the table, before the file
    assert run.stderr.splitlines()[-1] == f"error: {output}: cannot write: {FULL}"


def test_a_load_sweep_without_a_model_reports_its_curves(tmp_path):
    """No --predict: no stations, so no utilization to draw (once a KeyError); the
    report has the latency and throughput curves, and `report` redraws it."""
    record, report = tmp_path / "sweep.json", tmp_path / "rep"
    run = brewput("load", "--exec", "true", "--sweep", "rate=10,20", "--duration", "1s", "--warmup", "0s",
                  "-o", record, "--report", report)
    assert run.returncode == 0, run.stderr
    charts = {p.stem for p in (report / "charts").iterdir()}
    assert {"throughput", "latency"} <= charts and "utilization" not in charts
    assert [s["params"]["rate"] for s in json.loads(record.read_text())["scenarios"]] == [10, 20]
    again = brewput("report", record, "-o", tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert {p.stem for p in (tmp_path / "again" / "charts").iterdir()} == charts
