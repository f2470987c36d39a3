"""The HTML report in a real browser: Debian's headless Chromium, driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: no port, no extra package).

The page must load from file:// with no request leaving the file system, log
no console error or uncaught exception, and render every chart (each plotly div
gets its `.main-svg`). A full-page screenshot is kept in tests/artifacts/.
CI installs chromium (.ci/run); elsewhere the test installs it with apt-get
when it can, and skips only when chromium cannot be installed.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from report_records import coffee_record, mixed_record, no_sweep_record, starbucks_record

from brewput.report.html import write_report

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]
RENDER_TIMEOUT = 60.0


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if path:
            return path
    return None


class Browser:
    """A headless Chromium and one page, spoken to in DevTools protocol messages
    (JSON, each ended by a NUL byte) on the pipe pair it reads at fd 3 and writes at fd 4."""

    def __init__(self, executable, profile):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        # bash puts the pipe ends at fds 3 and 4 (no preexec_fn, unsafe with threads; dash
        # cannot redirect from fds above 9)
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}', executable, *FLAGS,
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_r, from_browser_w))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        target = next(t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, timeout=30.0, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    def evaluate(self, expression):
        return self.page("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close", timeout=5.0)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def install_chromium():
    """Debian's chromium through apt-get, as root or with passwordless sudo; the
    output of a failed try, or None."""
    if shutil.which("apt-get") is None:
        return "no apt-get on this machine"
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            done = subprocess.run(sudo + command, capture_output=True, text=True, env=env, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
        if done.returncode != 0:
            return (done.stderr or done.stdout).strip().splitlines()[-1:]
    return None


@pytest.fixture(scope="module")
def chromium():
    path = find_chromium()
    if path is None:
        failure = install_chromium()
        path = find_chromium()
        if path is None:
            pytest.skip(f"chromium cannot be installed here: {failure}")
    return path


def load_in_browser(chromium, index: Path, profile: Path, screenshot: Path):
    """Loads the page, waits for the charts; returns (errors, requests, chart counts)."""
    browser = Browser(chromium, profile)
    try:
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.page(f"{domain}.enable")
        browser.page("Emulation.setDeviceMetricsOverride", width=1400, height=1000, deviceScaleFactor=1,
                     mobile=False)
        browser.page("Page.navigate", url=index.as_uri())
        deadline = time.monotonic() + RENDER_TIMEOUT
        counts = None
        while time.monotonic() < deadline:
            counts = browser.evaluate(
                "document.readyState === 'complete' ? "
                "[document.querySelectorAll('.plotly-graph-div').length, "
                " Array.from(document.querySelectorAll('.plotly-graph-div'))"
                "      .filter(d => d.querySelector('svg.main-svg')).length] : null")
            if counts and counts[0] and counts[0] == counts[1]:
                break
            time.sleep(0.2)
        time.sleep(0.5)  # let late console messages arrive
        browser.evaluate("1")
        size = browser.page("Page.getLayoutMetrics")["cssContentSize"]
        shot = browser.page("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        events = browser.events
    finally:
        browser.close()
    errors = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("exception", {}).get("description")
                          or params["exceptionDetails"].get("text"))
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert", "warning"):
            errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
            errors.append(params["entry"]["text"])
    requests = [e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"]
    return errors, requests, counts


@pytest.mark.parametrize("name, make", [("coffee", coffee_record), ("mixed", mixed_record),
                                        ("no-sweep", no_sweep_record), ("starbucks", starbucks_record)])
def test_report_renders_in_headless_chromium(chromium, tmp_path, name, make):
    index = write_report(make(), tmp_path / "report")
    screenshot = ARTIFACTS / f"report-{name}.png"
    errors, requests, counts = load_in_browser(chromium, index, tmp_path / "profile", screenshot)
    assert errors == [], f"console errors: {errors}"
    assert all(url.startswith(("file://", "data:")) for url in requests), f"left the file system: {requests}"
    html = index.read_text()
    expected = html.count('class="plotly-graph-div"')
    assert expected >= 4
    assert counts == [expected, expected], f"plotly divs and rendered ones: {counts}, expected {expected}"
    png = screenshot.read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
