"""The report of a day in headless Chromium (tests/test_report_browser.py's way): a compare
of a day with patience (the simulation and every method) and a planned rota render
every chart, log no error and request nothing outside the folder."""
from pathlib import Path

from test_report_browser import ARTIFACTS, chromium, load_in_browser  # noqa: F401 (chromium: the fixture)
from test_report_day import PATIENT, day_record

from brewput.report.html import write_report


def _renders(chromium, index: Path, tmp_path: Path, name: str) -> None:
    errors, requests, counts = load_in_browser(chromium, index, tmp_path / "profile", ARTIFACTS / f"report-{name}.png")
    assert errors == [], f"console errors: {errors}"
    assert all(url.startswith(("file://", "data:")) for url in requests), f"left the file system: {requests}"
    expected = index.read_text().count('class="plotly-graph-div"')
    assert expected >= 2
    assert counts == [expected, expected], f"plotly divs and rendered ones: {counts}, expected {expected}"


def test_a_day_renders_in_headless_chromium(chromium, tmp_path):  # noqa: F811
    _renders(chromium, write_report(day_record(PATIENT), tmp_path / "report"), tmp_path, "day")


def test_a_rota_renders_in_headless_chromium(chromium, tmp_path):  # noqa: F811
    from test_report_day_rota import _plan

    _plan(tmp_path, "--shift", "45min")
    _renders(chromium, tmp_path / "page" / "index.html", tmp_path, "rota")
