"""The page of a model followed from a given state (solve --from --report) in headless
Chromium (tests/test_report_browser.py's way): its charts render, it logs no error and
requests nothing outside the folder, drawn by solve and redrawn by brewput report."""
import subprocess
import sys

from test_report_browser import chromium  # noqa: F401 (the fixture)
from test_report_day_browser import _renders
from test_report_from_state import FOLLOW, SITE_A


def test_solve_from_renders_in_headless_chromium(chromium, tmp_path):  # noqa: F811
    for args in (["solve", SITE_A, *FOLLOW, "-o", "r.json", "--report", "page"], ["report", "r.json", "-o", "again"]):
        done = subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr
    for name in ("page", "again"):
        _renders(chromium, tmp_path / name / "index.html", tmp_path, f"from-{name}")
