"""`brewput load` over https, with headers and a body, against a server the
test starts on 127.0.0.1: Python's http.server behind `ssl`, its certificate
issued by a throwaway CA (trustme), recording what arrives. Proves: requests
succeed with --cacert, are refused in one line without it, succeed (said
loudly) with --insecure, handshakes that fail mid-run count as `tls` errors,
and the headers and body arrive byte for byte."""
import json
import ssl
import subprocess
import sys
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme

from brewput.loadtest.options import http_target

REQUESTS = 12


def brewput(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "brewput", *args], capture_output=True, text=True, timeout=timeout)


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the generator expects

    def _answer(self):
        length = int(self.headers.get("Content-Length", 0))
        self.server.arrived.append({
            "method": self.command, "path": self.path, "headers": list(self.headers.raw_items()),
            "body": self.rfile.read(length), "alpn": self.connection.selected_alpn_protocol(),
        })
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, *args):  # quiet
        pass


class _TlsServer(ThreadingHTTPServer):
    """Each accepted connection gets `contexts[n]` (the last for the rest), its
    handshake done in the handler's thread."""
    daemon_threads = True

    def __init__(self, contexts):
        super().__init__(("127.0.0.1", 0), _Recorder)
        self.contexts, self.accepted, self.arrived = contexts, 0, []

    def handle_error(self, request, client_address):  # a refused handshake is what some tests want
        pass

    def get_request(self):
        sock, address = self.socket.accept()
        context = self.contexts[min(self.accepted, len(self.contexts) - 1)]
        self.accepted += 1
        return context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address


def _context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    context.set_alpn_protocols(["h2", "http/1.1"])  # the client must choose http/1.1
    return context


@contextmanager
def tls_server(*cas):
    server = _TlsServer([_context(ca) for ca in cas])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ca(tmp_path):
    authority = trustme.CA()
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    return authority


def run(url, *args):
    return brewput("load", url, "--rate", "100", "--arrivals", "constant", "--requests", str(REQUESTS), *args)


def test_https_with_cacert_carries_headers_and_body_byte_for_byte(ca, tmp_path):
    body = bytes(range(256)) * 300  # every byte value, 76,800 bytes: several TLS records
    (tmp_path / "body.bin").write_bytes(body)
    with tls_server(ca) as (url, server):
        done = run(f"{url}/orders?id=7", "--cacert", str(tmp_path / "ca.pem"), "--body", str(tmp_path / "body.bin"),
                   "--header", "X-Trace: a b\tc", "-H", "Accept: text/plain", "-H", "Accept: application/json",
                   "-H", "User-Agent: tester/1", "-H", "Authorization: Bearer s3cret", "-H", "X-Api-Key: k3y",
                   "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    load = results["load"]
    assert load["answers"] == {"2xx": REQUESTS} and load["errors"] == {}, load
    assert len(server.arrived) == REQUESTS
    # Credentials reach the server but not the results, which get shared.
    assert "s3cret" not in done.stdout and "k3y" not in done.stdout
    assert ["Authorization", "(hidden)"] in results["settings"]["target"]["http"]["headers"]
    for request in server.arrived:
        assert (request["method"], request["path"], request["alpn"]) == ("POST", "/orders?id=7", "http/1.1")
        assert request["body"] == body
        headers = request["headers"]
        assert [v for n, v in headers if n.lower() == "accept"] == ["text/plain", "application/json"]
        assert [v for n, v in headers if n.lower() == "x-trace"] == ["a b\tc"]
        assert [v for n, v in headers if n.lower() == "user-agent"] == ["tester/1"]
        assert [v for n, v in headers if n.lower() in ("authorization", "x-api-key")] == ["Bearer s3cret", "k3y"]
        assert [v for n, v in headers if n.lower() == "host"] == [url.split("//")[1]]
        assert [v for n, v in headers if n.lower() == "content-length"] == [str(len(body))]


def test_an_untrusted_certificate_is_one_line_before_anything_is_sent(ca):
    with tls_server(ca) as (url, server):
        done = run(url + "/")
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    for word in ("not trusted", "--cacert", "--insecure", url.split("//")[1]):
        assert word in done.stderr, done.stderr
    assert server.arrived == []


def test_insecure_accepts_the_certificate_and_says_so(ca):
    with tls_server(ca) as (url, server):
        done = run(url + "/", "--insecure", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert results["load"]["answers"] == {"2xx": REQUESTS}
    assert any("NOT verified" in w for w in results["warnings"])
    assert "--insecure" in done.stderr and "NOT verified" in done.stderr
    assert results["settings"]["target"]["http"]["tls"]["insecure"] is True
    assert len(server.arrived) == REQUESTS


def test_handshakes_failing_during_the_run_count_as_tls_errors(ca, tmp_path):
    # The check before the run meets a certificate of the trusted CA; every
    # later connection one of another CA (a certificate swapped mid-run).
    with tls_server(ca, trustme.CA()) as (url, server):
        done = run(url + "/", "--cacert", str(tmp_path / "ca.pem"), "--connections", "2", "--json",
                   "--threshold", "error_rate<1%")
    assert done.returncode == 1, done.stderr
    load = json.loads(done.stdout)["load"]
    assert load["errors"] == {"tls": REQUESTS} and load["answered"] == 0 and load["error_rate"] == 1.0, load
    assert server.arrived == []


def test_a_body_with_get_is_sent_and_warned(ca, tmp_path):
    (tmp_path / "q.json").write_bytes(b'{"q": 1}')
    with tls_server(ca) as (url, server):
        done = run(url + "/", "--cacert", str(tmp_path / "ca.pem"), "--method", "GET", "--body",
                   str(tmp_path / "q.json"))
    assert done.returncode == 0, done.stderr
    assert "--body with --method GET" in done.stderr
    assert {(r["method"], r["body"]) for r in server.arrived} == {("GET", b'{"q": 1}')}


def test_an_empty_body_file_sends_a_zero_length(ca, tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    with tls_server(ca) as (url, server):
        done = run(url + "/", "--cacert", str(tmp_path / "ca.pem"), "--body", str(tmp_path / "empty"))
    assert done.returncode == 0, done.stderr
    assert {(r["method"], r["body"]) for r in server.arrived} == {("POST", b"")}
    assert all([v for n, v in r["headers"] if n.lower() == "content-length"] == ["0"] for r in server.arrived)


@pytest.mark.parametrize("url, port, tls", [
    ("https://example.test/", 443, True), ("https://example.test:8443/x", 8443, True),
    ("http://example.test/", 80, False), ("HTTPS://[::1]/", 443, True),
])
def test_the_scheme_gives_tls_and_the_default_port(url, port, tls):
    target = http_target(url)
    assert (target.port, target.tls) == (port, tls)


def test_an_https_url_to_a_plain_http_server_is_one_line_without_a_certificate_hint():
    from load_server import serving

    with serving("const(1ms)", workers=1) as url:
        done = run(url.replace("http://", "https://"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "does not answer in TLS" in done.stderr and "--cacert" not in done.stderr, done.stderr
