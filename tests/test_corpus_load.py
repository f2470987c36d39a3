"""The corpus (tests/corpus.py) for `brewput load` and `brewput serve`: bad
input is one line naming the option, exit 2, before anything is sent or bound.

Classes: no target or two; URLs that are not http(s) URLs (scheme, host, port,
spaces); targets that cannot be reached on loopback (refused, closed ports);
headers that are not RFC 9110 fields or that the generator sets itself; body
files that are missing, not regular files or too big; certificate options that
are unreadable, not PEM, or beside an http:// URL;
rates, times and counts that are not positive, finite, in range or with a unit;
ramps and steps that do not parse; thresholds naming unknown metrics or bad
values; --predict models that cannot stand for the service; outputs that cannot be written; the demo server's bad workers, queue,
port, host and service distributions."""
import pytest

from corpus import CLOSED, MODEL, Case, check, ids

URL = "http://127.0.0.1:1/"  # nothing listens on port 1 of loopback


def load(*args):
    """A load run whose one bad option is in `args` (the rest valid)."""
    return ["load", *args]


CASES = [
    # No target, two targets, an empty command.
    Case("no-target", load("--rate", "10"), names=["URL", "--exec"]),
    Case("two-targets", load(URL, "--exec", "true", "--rate", "10"), names=["URL", "--exec"]),
    Case("exec-empty", load("--exec", " ", "--rate", "10"), names=["--exec"]),
    Case("url-bad-percent", load("http://127.0.0.1:1/%zz", "--rate", "10"), names=["URL", "percent-encode"]),
    Case("url-quote", load('http://127.0.0.1:1/a"b', "--rate", "10"), names=["URL"]),
    Case("method-not-ascii", load(URL, "--rate", "10", "--method", "Ä"), names=["--method"]),
    Case("exec-unbalanced-quote", load("--exec", "echo 'x", "--rate", "10"), names=["--exec"]),
    # URLs that are not http URLs.
    Case("url-ftp", load("ftp://127.0.0.1/", "--rate", "10"), names=["URL", "http://"]),
    Case("url-https-port-too-big", load("https://127.0.0.1:99999/", "--rate", "10"), names=["URL"]),
    Case("url-https-port-zero", load("https://127.0.0.1:0/", "--rate", "10"), names=["URL", "port 0"]),
    Case("url-https-no-host", load("https:///x", "--rate", "10"), names=["URL", "host"]),
    Case("url-https-port-word", load("https://127.0.0.1:tls/", "--rate", "10"), names=["URL"]),
    Case("url-no-scheme", load("127.0.0.1:8080", "--rate", "10"), names=["URL"]),
    Case("url-no-host", load("http:///x", "--rate", "10"), names=["URL", "host"]),
    Case("url-port-too-big", load("http://127.0.0.1:99999/", "--rate", "10"), names=["URL"]),
    Case("url-port-not-number", load("http://127.0.0.1:ab/", "--rate", "10"), names=["URL"]),
    Case("url-port-zero", load("http://127.0.0.1:0/", "--rate", "10"), names=["URL", "port 0"]),
    Case("url-space", load("http://127.0.0.1/a b", "--rate", "10"), names=["URL", "spaces"]),
    Case("url-bad-ipv6", load("http://[::1/", "--rate", "10"), names=["URL"]),
    Case("url-words", load("not a url", "--rate", "10"), names=["URL"]),
    # Targets on loopback that do not answer: one line before the run.
    Case("connection-refused", load(URL, "--rate", "10"), names=["127.0.0.1:1", "connection refused"]),
    Case("connection-refused-discard", load("http://127.0.0.1:9/x", "--rate", "10"), names=["127.0.0.1:9"]),
    Case("connection-refused-ipv6", load("http://[::1]:1/", "--rate", "10"), names=["[::1]:1"]),
    Case("connection-refused-other-loopback", load("http://127.0.0.2:1/", "--rate", "10"), names=["127.0.0.2:1"]),
    Case("connection-refused-https", load("https://127.0.0.1:1/", "--rate", "10"),
         names=["127.0.0.1:1", "connection refused"]),
    Case("connection-refused-https-default-port", load("https://127.0.0.1/", "--rate", "10"),
         names=["127.0.0.1:443", "connection refused"]),
    # Headers: not an RFC 9110 field, or one the generator sets itself, or too many.
    Case("header-no-colon", load(URL, "--rate", "10", "--header", "Accept"), names=["--header", "Name: value"]),
    Case("header-empty-name", load(URL, "--rate", "10", "--header", ": x"), names=["--header"]),
    Case("header-space-in-name", load(URL, "--rate", "10", "--header", "X Trace: 1"), names=["--header", "token"]),
    Case("header-space-before-colon", load(URL, "--rate", "10", "-H", "X-Trace : 1"), names=["--header", "token"]),
    Case("header-line-break", load(URL, "--rate", "10", "-H", "X-A: 1\r\nX-B: 2"), names=["--header", "line breaks"]),
    Case("header-bare-newline", load(URL, "--rate", "10", "-H", "X-A: 1\nHost: evil"), names=["--header"]),
    Case("header-not-ascii", load(URL, "--rate", "10", "-H", "X-Name: Zoë"), names=["--header", "ASCII"]),
    Case("header-nul", load(URL, "--rate", "10", "-H", "X-A: a\x01b"), names=["--header"]),
    Case("header-content-length", load(URL, "--rate", "10", "-H", "Content-Length: 5"),
         names=["--header", "--body"]),
    Case("header-transfer-encoding", load(URL, "--rate", "10", "-H", "transfer-encoding: chunked"),
         names=["--header"]),
    Case("headers-too-many", load(URL, "--rate", "10", *[a for i in range(101) for a in ("-H", f"X-{i}: v")]),
         names=["--header", "at most"]),
    Case("headers-too-big", load(URL, "--rate", "10", "-H", "X-Big: " + "v" * 70_000), names=["--header", "KiB"]),
    Case("header-with-exec", load("--exec", "true", "--rate", "10", "-H", "X: 1"), names=["--exec", "--header"]),
    # Bodies: a file that cannot be read whole, or that is too big.
    Case("body-missing", load(URL, "--rate", "10", "--body", "nope.bin"), names=["--body", "nope.bin", "no such file"]),
    Case("body-folder", load(URL, "--rate", "10", "--body", "{dir}"), names=["--body", "folder"]),
    Case("body-device", load(URL, "--rate", "10", "--body", "/dev/zero"), names=["--body", "/dev/zero", "regular"]),
    Case("body-fifo", load(URL, "--rate", "10", "--body", "/proc/self/fd/0"), names=["--body", "regular"]),
    Case("body-too-big", load(URL, "--rate", "10", "--body", "big.bin"), files={"big.bin": b"\0" * (64 * 2**20 + 1)},
         names=["--body", "big.bin", "64 MiB"]),
    Case("body-empty-name", load(URL, "--rate", "10", "--body", ""), names=["--body", "file name"]),
    Case("body-under-a-file", load(URL, "--rate", "10", "--body", "{dir}/f/b.bin"), files={"f": "x"},
         names=["--body", "b.bin"]),
    Case("body-with-trace", load(URL, "--rate", "10", "--body", "b", "--method", "TRACE"), files={"b": "x"},
         names=["--body", "--method", "TRACE"]),
    Case("body-with-exec", load("--exec", "true", "--rate", "10", "--body", "b"), files={"b": "x"},
         names=["--exec", "--body"]),
    Case("method-with-exec", load("--exec", "true", "--rate", "10", "--method", "POST"), names=["--exec", "--method"]),
    # Certificates: not readable, not PEM, or where they mean nothing.
    Case("cacert-missing", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "nope.pem"),
         names=["--cacert", "nope.pem", "no such file"]),
    Case("cacert-not-pem", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.pem"),
         files={"c.pem": "hello\n"}, names=["--cacert", "c.pem", "PEM"]),
    Case("cacert-binary", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.der"),
         files={"c.der": bytes(range(256)) * 4}, names=["--cacert", "c.der"]),
    Case("cacert-broken-base64", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.pem"),
         files={"c.pem": "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"}, names=["--cacert", "c.pem"]),
    Case("cacert-not-a-certificate", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.pem"),
         files={"c.pem": "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n"},
         names=["--cacert", "c.pem"]),
    Case("cacert-key-only", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "k.pem"),
         files={"k.pem": "-----BEGIN PRIVATE KEY-----\naGVsbG8=\n-----END PRIVATE KEY-----\n"},
         names=["--cacert", "k.pem", "no PEM certificate"]),
    Case("cacert-empty-name", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", " "), names=["--cacert"]),
    Case("cacert-too-big", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.pem"),
         files={"c.pem": "-----BEGIN CERTIFICATE-----\n" + "QUFB\n" * 300_000 + "-----END CERTIFICATE-----\n"},
         names=["--cacert", "c.pem", "1 MiB"]),
    Case("cacert-folder", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "{dir}"), names=["--cacert", "folder"]),
    Case("cacert-device", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "/dev/urandom"),
         names=["--cacert", "regular"]),
    Case("cacert-with-http", load(URL, "--rate", "10", "--cacert", "c.pem"), files={"c.pem": "x"},
         names=["--cacert", "https://"]),
    Case("insecure-with-http", load(URL, "--rate", "10", "--insecure"), names=["--insecure", "https://"]),
    Case("cacert-and-insecure", load("https://127.0.0.1:1/", "--rate", "10", "--cacert", "c.pem", "--insecure"),
         files={"c.pem": "x"}, names=["--cacert", "--insecure"]),
    Case("insecure-with-exec", load("--exec", "true", "--rate", "10", "--insecure"), names=["--exec", "--insecure"]),
    # Rates.
    Case("rate-zero", load(URL, "--rate", "0"), names=["--rate"]),
    Case("rate-negative", load(URL, "--rate", "-5"), names=["--rate"]),
    Case("rate-nan", load(URL, "--rate", "nan"), names=["--rate"]),
    Case("rate-inf", load(URL, "--rate", "inf"), names=["--rate"]),
    Case("rate-huge", load(URL, "--rate", "1e30"), names=["--rate"]),
    Case("rate-word", load(URL, "--rate", "fast"), names=["--rate"]),
    Case("rate-and-ramp", load(URL, "--rate", "5", "--ramp", "1..2", "--duration", "1s"), names=["--rate", "--ramp"]),
    Case("arrivals-unknown", load(URL, "--rate", "5", "--arrivals", "bursty"), names=["--arrivals"]),
    # Times and counts.
    Case("duration-negative", load(URL, "--rate", "10", "--duration", "-1s"), names=["--duration"]),
    Case("duration-zero", load(URL, "--rate", "10", "--duration", "0s"), names=["--duration"]),
    Case("duration-no-unit", load(URL, "--rate", "10", "--duration", "10"), names=["--duration", "unit"]),
    Case("duration-huge", load(URL, "--rate", "10", "--duration", "1e30s"), names=["--duration"]),
    Case("duration-unknown-unit", load(URL, "--rate", "10", "--duration", "3fortnights"), names=["--duration"]),
    Case("warmup-negative", load(URL, "--rate", "10", "--warmup", "-1s"), names=["--warmup"]),
    Case("timeout-zero", load(URL, "--rate", "10", "--timeout", "0s"), names=["--timeout"]),
    Case("tick-negative", load(URL, "--rate", "10", "--tick", "-1ms"), names=["--tick"]),
    Case("tick-no-unit", load(URL, "--rate", "10", "--tick", "1"), names=["--tick", "unit"]),
    Case("tick-too-long", load(URL, "--rate", "10", "--tick", "1s"), names=["--tick", "0.1s"]),
    Case("tick-not-a-time", load(URL, "--rate", "10", "--tick", "often"), names=["--tick"]),
    Case("tick-nan", load(URL, "--rate", "10", "--tick", "nanms"), names=["--tick"]),
    Case("requests-zero", load(URL, "--rate", "10", "--requests", "0"), names=["--requests"]),
    Case("requests-fraction", load(URL, "--rate", "10", "--requests", "1.5"), names=["--requests"]),
    Case("requests-huge", load(URL, "--rate", "10", "--requests", "1" + "0" * 30), names=["--requests"]),
    Case("connections-zero", load(URL, "--rate", "10", "--connections", "0"), names=["--connections"]),
    Case("connections-huge", load(URL, "--rate", "10", "--connections", "10000000"), names=["--connections"]),
    Case("in-flight-zero", load(URL, "--rate", "10", "--max-in-flight", "0"), names=["--max-in-flight"]),
    Case("seed-negative", load(URL, "--rate", "10", "--seed", "-1"), names=["--seed"]),
    Case("method-not-a-word", load(URL, "--rate", "10", "--method", "GE T"), names=["--method"]),
    # Ramps and steps.
    Case("ramp-one-end", load(URL, "--ramp", "5", "--duration", "1s"), names=["--ramp"]),
    Case("ramp-words", load(URL, "--ramp", "a..b", "--duration", "1s"), names=["--ramp"]),
    Case("ramp-zero-to-zero", load(URL, "--ramp", "0..0", "--duration", "1s"), names=["--ramp"]),
    Case("ramp-negative", load(URL, "--ramp", "-1..5", "--duration", "1s"), names=["--ramp"]),
    Case("ramp-no-duration", load(URL, "--ramp", "1..5", "--requests", "5"), names=["--ramp", "--duration"]),
    Case("step-no-x", load(URL, "--step", "100"), names=["--step"]),
    Case("step-no-duration", load(URL, "--step", "100x"), names=["--step"]),
    Case("step-no-rate", load(URL, "--step", "x10s"), names=["--step"]),
    Case("step-negative-time", load(URL, "--step", "100x-1s"), names=["--step"]),
    Case("step-and-duration", load(URL, "--step", "100x1s", "--duration", "1s"), names=["--step", "--duration"]),
    Case("steps-too-long", load(URL, "--step", ",".join(["1x23h"] * 2)), names=["--step"]),
    # Thresholds.
    Case("threshold-unknown-metric", load(URL, "--rate", "10", "--threshold", "p100<1ms"), names=["--threshold", "p100"]),
    Case("threshold-no-operator", load(URL, "--rate", "10", "--threshold", "p99"), names=["--threshold"]),
    Case("threshold-bad-time", load(URL, "--rate", "10", "--threshold", "p99<soon"), names=["--threshold"]),
    Case("threshold-bad-fraction", load(URL, "--rate", "10", "--threshold", "error_rate<150%"), names=["--threshold"]),
    Case("threshold-bad-rate", load(URL, "--rate", "10", "--threshold", "achieved_rate>=x*target"),
         names=["--threshold"]),
    Case("threshold-equals", load(URL, "--rate", "10", "--threshold", "p99=1ms"), names=["--threshold"]),
    # Outputs, refused before the run.
    Case("output-not-json", load(URL, "--rate", "10", "-o", "r.csv"), names=["--output"]),
    Case("output-under-a-file", load(URL, "--rate", "10", "-o", "{dir}/f/r.json"), files={"f": "x"}, names=["-o"]),
    Case("hlog-not-hlog", load(URL, "--rate", "10", "--hlog", "r.txt"), names=["--hlog"]),
    Case("hlog-under-a-file", load(URL, "--rate", "10", "--hlog", "{dir}/f/r.hlog"), files={"f": "x"},
         names=["--hlog"]),
    Case("hgrm-is-a-file", load(URL, "--rate", "10", "--hgrm", "{dir}/f"), files={"f": "x"}, names=["--hgrm"]),
    # --predict: a model that cannot stand for the service, refused before the run.
    Case("predict-missing-model", load(URL, "--rate", "10", "--predict", "nope.yaml"), names=["nope.yaml"]),
    Case("predict-closed-model", load(URL, "--rate", "10", "--predict", "m.yaml"), files={"m.yaml": CLOSED},
         names=["--predict", "open class"]),
    Case("predict-two-classes", load(URL, "--rate", "10", "--predict", "m.yaml"),
         files={"m.yaml": MODEL + "  d:\n    rate: 1\n    route: [{station: desk, service: exp(0.5)}]\n"},
         names=["--predict", "2 classes"]),
    Case("predict-bad-model", load(URL, "--rate", "10", "--predict", "m.yaml"),
         files={"m.yaml": MODEL.replace("servers: 1", "servers: -1")}, names=["m.yaml", "servers"]),
    Case("predict-unknown-param", load(URL, "--rate", "10", "--predict", "m.yaml", "--set", "zz=2"),
         files={"m.yaml": MODEL}, names=["zz"]),
    Case("predict-with-ramp", load(URL, "--ramp", "1..2", "--duration", "1s", "--predict", "m.yaml"),
         files={"m.yaml": CLOSED}, names=["--predict", "open class"]),
    Case("set-without-predict", load(URL, "--rate", "10", "--set", "c=2"), names=["--set"]),
    # --sweep: rates only, each a valid rate, and not beside the options it replaces.
    Case("sweep-not-rate", load(URL, "--sweep", "speed=1,2"), names=["--sweep"]),
    Case("sweep-zero-rate", load(URL, "--sweep", "rate=0,10"), names=["--sweep"]),
    Case("sweep-words", load(URL, "--sweep", "rate=a,b"), names=["--sweep"]),
    Case("sweep-empty-range", load(URL, "--sweep", "rate=5..1"), names=["--sweep"]),
    Case("sweep-too-many", load(URL, "--sweep", "rate=1..500"), names=["--sweep"]),
    Case("sweep-and-rate", load(URL, "--sweep", "rate=1,2", "--rate", "5"), names=["--sweep", "--rate"]),
    Case("sweep-and-hlog", load(URL, "--sweep", "rate=1,2", "--hlog", "r.hlog"), names=["--hlog"]),
    Case("sweep-bad-output", load(URL, "--sweep", "rate=1,2", "-o", "r.txt"), names=["-o"]),
    Case("report-without-sweep", load(URL, "--rate", "2", "--report", "rep"), names=["--report", "--sweep"]),
    # The demo server.
    Case("serve-workers-zero", ["serve", "--workers", "0", "--for", "1s"], names=["--workers"]),
    Case("serve-workers-huge", ["serve", "--workers", "100000", "--for", "1s"], names=["--workers"]),
    Case("serve-queue-zero", ["serve", "--queue", "0", "--for", "1s"], names=["--queue"]),
    # Workers within the limit whose threads a memory-capped process cannot start.
    *[Case(f"serve-workers-beyond-memory-{workers}", ["serve", "--port", "0", "--workers", str(workers), "--for",
                                                       "0.5s"], names=["--workers", "cannot run"], memory_mb=2000)
      for workers in (1000, 4000)],
    Case("serve-port-too-big", ["serve", "--port", "70000", "--for", "1s"], names=["--port"]),
    Case("serve-port-word", ["serve", "--port", "http", "--for", "1s"], names=["--port"]),
    Case("serve-host-not-an-address", ["serve", "--host", "999.1.1.1", "--port", "0", "--for", "1s"],
         names=["--host", "999.1.1.1"]),
    Case("serve-for-negative", ["serve", "--for", "-1s"], names=["--for"]),
    Case("serve-service-unknown", ["serve", "--service", "bogus(1ms)", "--for", "1s"], names=["--service", "bogus"]),
    Case("serve-service-negative", ["serve", "--service", "exp(-1ms)", "--for", "1s"], names=["--service"]),
    Case("serve-service-bad-unit", ["serve", "--service", "exp(2xs)", "--for", "1s"], names=["--service"]),
    Case("serve-service-unclosed", ["serve", "--service", "exp(1ms", "--for", "1s"], names=["--service"]),
    Case("serve-service-too-long", ["serve", "--service", "const(2h)", "--for", "1s"], names=["--service"]),
    Case("serve-service-arguments", ["serve", "--service", "gamma(1ms)", "--for", "1s"], names=["--service"]),
    Case("serve-service-missing-file", ["serve", "--service", "empirical(nope.csv)", "--for", "1s"],
         names=["--service", "nope.csv"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_load_input_is_one_line(case, tmp_path):
    check(case, tmp_path)
