"""`brewput load`'s and `brewput serve`'s options as people type them, each
refused in one OptionError naming it: the target URL, times (`10s`, `250ms`),
rates, a ramp (`100..1000`), steps (`100x10s,200x10s`), the service
distribution (`exp(2ms)`). The limits the Rust side also enforces come from
it through the binding (`LOAD_MAX_CONNECTIONS`, ...); the others live here.
"""
from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass
from typing import List, Optional, Tuple
from urllib.parse import urlsplit

from .. import _native
from ..errors import BrewputError, FieldError, OptionError
from ..units import TYPED_SECONDS, split_time
from .settings import LoadSettings

# The characters RFC 3986 allows in a path and query, a percent sign only before two hex digits.
_REQUEST_TARGET = re.compile(r"^(?:[A-Za-z0-9\-._~:/?@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")

MAX_SECONDS = 24 * 3600.0  # a run, a warm-up, a stage
MAX_RATE = 10_000_000.0  # requests per second
MAX_REQUESTS = 10**12
MAX_TIMEOUT = 3600.0


def seconds(field: str, text: str, *, zero: bool = False, most: float = MAX_SECONDS) -> float:
    """`10s` -> 10.0; positive (or 0 when `zero`), at most `most`."""
    typed = split_time(text)
    if typed is None or typed[1] not in TYPED_SECONDS:
        raise OptionError(field, "expected a time with a unit, e.g. 10s, 250ms, 2min", value=str(text))
    value = typed[0] * TYPED_SECONDS[typed[1]]
    if not (math.isfinite(value) and (0 < value <= most or (zero and value == 0))):
        low = "0" if zero else "more than 0"
        raise OptionError(field, f"expected a time from {low} to {most:g}s", value=str(text))
    return value


def rate(field: str, text: str, *, zero: bool = False) -> float:
    """`200` -> 200.0 requests per second; positive (0 allowed at a ramp's end)."""
    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and (0 < value <= MAX_RATE or (zero and value == 0))):
        raise OptionError(field, f"expected a rate {'from 0' if zero else 'above 0'} to {MAX_RATE:,.0f} per second",
                          value=str(text))
    return value


def whole(field: str, text: str, low: int, high: int) -> int:
    try:
        value = int(str(text).strip().replace("_", ""))
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise OptionError(field, f"expected a whole number from {low:,} to {high:,}", value=str(text))
    return value


def ramp(text: str) -> Tuple[float, float]:
    """`100..1000` -> (100.0, 1000.0): rates per second, either end may be 0, not both."""
    low, sep, high = str(text).partition("..")
    if not sep:
        raise OptionError("ramp", "expected A..B, rates per second, e.g. 100..1000", value=str(text))
    ends = rate("ramp", low, zero=True), rate("ramp", high, zero=True)
    if ends == (0.0, 0.0):
        raise OptionError("ramp", "a ramp from 0 to 0 sends nothing", value=str(text))
    return ends


def steps(text: str) -> List[Tuple[float, float]]:
    """`100x10s,200x5s` -> [(100.0, 10.0), (200.0, 5.0)]: rate x duration stages."""
    stages = []
    for part in str(text).split(","):
        r, sep, d = part.strip().partition("x")
        if not sep:
            raise OptionError("step", "expected RATExDURATION stages, e.g. 100x10s,200x10s", value=str(text))
        stages.append((rate("step", r), seconds("step", d)))
    if len(stages) > _native.LOAD_MAX_STAGES:
        raise OptionError("step", f"expected at most {_native.LOAD_MAX_STAGES} stages",
                          value=f"({len(stages)} stages)")
    if sum(d for _, d in stages) > MAX_SECONDS:
        raise OptionError("step", f"the stages last more than {MAX_SECONDS:g}s together", value=str(text))
    return stages


@dataclass(frozen=True)
class HttpTarget:
    host: str
    port: int
    authority: str
    path: str
    url: str
    tls: bool

    def settings(self, method: str, request: Optional[dict] = None) -> dict:
        """The generator's target; `request` is what `request()` made of the
        options that shape each request (headers, body, certificates)."""
        http = {"host": self.host, "port": self.port, "authority": self.authority, "path": self.path, "method": method}
        if request is not None:
            http.update(request)
        if self.tls:
            http.setdefault("tls", {})
        return {"http": http}


def _bad_url(problem: str, value: str) -> BrewputError:
    """The target is an argument, not an option: named as `URL`."""
    return BrewputError(f"URL {value}: {problem}")


def http_target(text: str) -> HttpTarget:
    """`http://127.0.0.1:8080/x?y=1` or `https://...`, checked: a host, a port
    from 1 to 65535 (80 or 443 when none is given), a path as RFC 3986 allows."""
    text = str(text).strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as e:
        raise _bad_url(f"not a valid URL ({e})", value=text) from None
    if parts.scheme not in ("http", "https"):
        raise _bad_url("expected an http:// or https:// URL, e.g. http://127.0.0.1:8080/", value=text)
    if not parts.hostname:
        raise _bad_url("the URL names no host", value=text)
    if port == 0:
        raise _bad_url("port 0 cannot be connected to", value=text)
    if any(ord(c) < 33 or ord(c) == 127 for c in text):  # before the path check: the clearer reason
        raise _bad_url("a URL cannot hold spaces or control characters", value=repr(text))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not _REQUEST_TARGET.match(path):
        raise _bad_url("the path holds characters a URL must percent-encode (RFC 3986)", value=text)
    tls = parts.scheme == "https"
    return HttpTarget(host=parts.hostname, port=port or (443 if tls else 80), authority=parts.netloc.rpartition("@")[2],
                      path=path, url=text, tls=tls)


# A header's name is an RFC 9110 token; its value visible ASCII, spaces and tabs
# (no line breaks: a header cannot smuggle another in).
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_HEADER_VALUE = re.compile(r"^[\x20-\x7e\t]*$")
MAX_HEADERS = 100
MAX_HEADER_BYTES = 64 * 1024  # all of them together: servers refuse far less
# Headers the generator sets itself, from what they describe.
_OWN_HEADERS = {"content-length": "is set from --body's size", "transfer-encoding": "is not sent: bodies have a length"}
# Methods whose body RFC 9110 gives no meaning: sent, with a warning.
_BODY_IGNORED = ("GET", "HEAD", "DELETE")


def header(text: str) -> Tuple[str, str]:
    """`'Name: value'` -> ("Name", "value"), checked (RFC 9110 field syntax)."""
    name, sep, value = str(text).partition(":")
    if not sep or not name:
        raise OptionError("header", "expected 'Name: value', e.g. --header 'Accept: application/json'", value=repr(text))
    if not _HEADER_NAME.match(name):
        raise OptionError("header", "the name must be a token (letters, digits, -_.!#$%&'*+^`|~), with no space "
                                    "before the colon", value=repr(text))
    value = value.strip(" \t")
    if not _HEADER_VALUE.match(value):
        raise OptionError("header", "the value must be visible ASCII, spaces and tabs (no line breaks or "
                                    "control characters)", value=repr(text))
    if name.lower() in _OWN_HEADERS:
        raise OptionError("header", f"{name} {_OWN_HEADERS[name.lower()]}", value=repr(text))
    return name, value


def request(target: HttpTarget, method_text: Optional[str], header_texts: List[str], body: Optional[str],
            cacert: Optional[str], insecure: bool) -> Tuple[str, dict, List[str]]:
    """The method and what shapes each request of a URL target (`--header`,
    `--body`, `--cacert`, `--insecure`), checked, with warnings to show. A body
    without --method is POSTed, as curl does; the files are read by the
    generator, once, before anything is sent."""
    for option, path in (("body", body), ("cacert", cacert)):
        if path is not None and not str(path).strip():
            raise OptionError(option, "expected a file name", value=repr(path))
    chosen = method(method_text) if method_text is not None else ("POST" if body is not None else "GET")
    found = []
    if body is not None:
        if chosen == "TRACE":
            raise OptionError(("body", "method"), "a TRACE request carries no body (RFC 9110)")
        if chosen in _BODY_IGNORED:
            found.append(f"--body with --method {chosen}: sent, but RFC 9110 gives a {chosen} body no meaning, "
                         "and servers may ignore or refuse it")
    if len(header_texts) > MAX_HEADERS:
        raise OptionError("header", f"expected at most {MAX_HEADERS} headers", value=f"({len(header_texts)} given)")
    headers = [header(t) for t in header_texts]
    if sum(len(n) + len(v) + 4 for n, v in headers) > MAX_HEADER_BYTES:
        raise OptionError("header", f"the headers hold more than {MAX_HEADER_BYTES // 1024} KiB together")
    settings: dict = {"headers": [list(h) for h in headers], "body": body}
    if not target.tls and (cacert is not None or insecure):
        raise OptionError("cacert" if cacert is not None else "insecure", "only for an https:// URL",
                          value=cacert)
    if cacert is not None and insecure:
        raise OptionError(("cacert", "insecure"), "give one: --cacert trusts a certificate, --insecure trusts any")
    if target.tls:
        settings["tls"] = {"cacert": cacert, "insecure": insecure}
    if insecure:
        found.append(INSECURE)
    return chosen, settings, found


# Headers that carry credentials: kept out of the results (files get shared).
_SECRET_HEADERS = re.compile(r"^(authorization|proxy-authorization|cookie)$|token|secret|api-?key|password", re.I)


def shown_settings(settings: dict) -> dict:
    """`settings` as the results show them: credential headers' values hidden."""
    http = settings.get("target", {}).get("http")
    if not http or not http.get("headers"):
        return settings
    headers = [[name, "(hidden)" if _SECRET_HEADERS.search(name) else value] for name, value in http["headers"]]
    return {**settings, "target": {"http": {**http, "headers": headers}}}


INSECURE = ("--insecure: the server's certificate was NOT verified; anyone on the path could have answered "
            "(use --cacert FILE to trust a test server's certificate)")


def no_request_options(given: List[str]) -> None:
    """--exec runs a command: the options that shape HTTP requests are refused."""
    if given:
        raise OptionError(("exec", given[0]), f"only a URL target takes --{given[0]} (--exec runs a command)")


def exec_target(command: str) -> dict:
    if not str(command).strip():
        raise OptionError("exec", "expected a command line, e.g. --exec 'dd if=/dev/zero of=/dev/null count=1'",
                          value=repr(command))
    try:
        shlex.split(command)
    except ValueError as e:
        raise OptionError("exec", f"the command does not parse as a shell line ({e})", value=command) from None
    return {"exec": {"command": command}}


def service_distribution(text: str) -> dict:
    """`exp(2ms)` -> {"kind": "exp", "mean": 0.002}: the model language's
    distribution (one parser: model/distributions.py), with its times in
    seconds; a number may carry a unit (`2ms`), a bare number is seconds."""
    from ..model.distributions import parse_distribution

    try:
        distribution = parse_distribution(str(text), time_unit="s")
    except FieldError as e:
        raise OptionError("service", str(e), value=str(text)) from None
    if distribution.mean > 3600:
        raise OptionError("service", "expected a mean service time of at most an hour", value=str(text))
    return distribution.compile()


def workers_rota(text: str, interval_text: Optional[str], repeat: bool = False) -> Tuple[int, Optional[dict]]:
    """`--workers 3` -> (3, None); `--workers 2,4,0,2 --interval 10s` -> the most
    (4) and the rota the server follows: workers on per interval (0: none serves,
    requests wait), from its first request on, again and again with `repeat`."""
    parts = str(text).split(",")
    if len(parts) == 1:
        if interval_text is not None or repeat:
            raise OptionError(("interval" if interval_text is not None else "repeat", "workers"),
                              "times a rota: give --workers per interval, e.g. 2,4,2",
                              value=interval_text if interval_text is not None else "")
        return whole("workers", text, 1, _native.SERVE_MAX_WORKERS), None
    if interval_text is None:
        raise OptionError(("workers", "interval"), "a rota needs --interval, how long each count lasts",
                          value=str(text))
    if len(parts) > _native.SERVE_MAX_ROTA:
        raise OptionError("workers", f"a rota of at most {_native.SERVE_MAX_ROTA:,} intervals", value=f"({len(parts)})")
    counts = [whole("workers", part, 0, _native.SERVE_MAX_WORKERS) for part in parts]
    if max(counts) == 0:
        raise OptionError("workers", "a rota with no worker ever on serves nothing", value=str(text))
    return max(counts), {"workers": counts, "interval_seconds": seconds("interval", interval_text), "repeat": repeat}


def rota_text(rota: dict) -> str:
    """`workers 2, 4, 2 per 10 s from the first request, then 2` (or `, repeated`)."""
    counts = rota["workers"]
    return (f"workers {', '.join(map(str, counts))} per {rota['interval_seconds']:g} s from the first request, "
            + ("repeated" if rota["repeat"] else f"then {counts[-1]}"))


def listen_host(text: str) -> str:
    """An IP address to listen on (`127.0.0.1`, `::1`, `0.0.0.0`) or
    `localhost`: never a name to look up."""
    import ipaddress

    if text == "localhost":
        return text
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise OptionError("host", "expected an IP address to listen on, e.g. 127.0.0.1 or ::1", value=text) from None


MAX_SWEEP_RATES = 100


def sweep_rates(text: Optional[str], given: List[str]) -> Optional[List[float]]:
    """`rate=100,200,400` or `rate=100:500:100` -> the rates (per second), each
    checked; None without a sweep. A sweep gives the rates: no --rate, --ramp
    or --step beside it."""
    from ..experiment.sweep import parse_values

    if text is None:
        return None
    name, sep, values = str(text).partition("=")
    if not sep or name.strip() != "rate":
        raise OptionError("sweep", "expected rate=VALUES, e.g. rate=100,200,400 or rate=100:500:100", value=text)
    if given:
        raise OptionError(("sweep", given[0]), "the sweep gives the rates: drop --" + given[0])
    try:
        rates = [rate("sweep", str(v)) for v in parse_values(values)]
    except ValueError as e:
        raise OptionError("sweep", str(e), value=text) from None
    if len(rates) > MAX_SWEEP_RATES:
        raise OptionError("sweep", f"expected at most {MAX_SWEEP_RATES} rates", value=text)
    return rates


def method(text: str) -> str:
    """`GET`, `POST`, as typed (methods are case-sensitive): a token of letters."""
    text = str(text).strip()
    if not (text.isascii() and text.isalpha()):
        raise OptionError("method", "expected an HTTP method, e.g. GET or POST", value=text)
    return text


def connections(text: str) -> int:
    return whole("connections", text, 1, _native.LOAD_MAX_CONNECTIONS)


def tick(text: str) -> float:
    """`1ms` -> 0.001: how far apart the generator's wakes are at least (0: one per request)."""
    return seconds("tick", text, zero=True, most=_native.LOAD_MAX_TICK_SECONDS)


def max_in_flight(text: str) -> int:
    return whole("max_in_flight", text, 1, _native.LOAD_MAX_IN_FLIGHT)


def requests(text: str) -> int:
    return whole("requests", text, 1, MAX_REQUESTS)


def no_target() -> BrewputError:
    return BrewputError("brewput load: name a target: a URL (http://127.0.0.1:8080/) or --exec 'COMMAND'; "
                        "nothing is sent without one")


def speedup(text: str) -> float:
    """`360` -> 360.0: how many times faster than the model's clock a day runs."""
    from .speedup import MAX_SPEEDUP

    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_SPEEDUP):
        raise OptionError("speedup", f"expected a number above 0, at most {MAX_SPEEDUP:g} (360: an hour in 10 s)",
                          value=str(text))
    return value


def day_alone(given: List[str]) -> None:
    """--day gives the rate and the length: none of the options that also do."""
    if given:
        raise OptionError(("day", given[0]), f"the day gives the rate and its length: drop --{given[0]}")


def schedule(*, rate_text: Optional[str], arrivals: str, ramp_text: Optional[str], step_text: Optional[str],
             duration_text: Optional[str], requests_text: Optional[str], warmup_text: str, seed: int) -> dict:
    """The schedule settings the generator takes, from the options that shape it."""
    if arrivals not in ("poisson", "constant"):
        raise OptionError("arrivals", "expected poisson or constant", value=arrivals)
    given = [name for name, text in (("rate", rate_text), ("ramp", ramp_text), ("step", step_text)) if text]
    if len(given) != 1:
        raise OptionError(("rate", "ramp", "step") if given else "rate",
                          "give exactly one of them" if given else "expected a target rate, e.g. --rate 200")
    count = requests(requests_text) if requests_text is not None else None
    duration = seconds("duration", duration_text) if duration_text is not None else None
    if step_text:
        if duration is not None:
            raise OptionError(("step", "duration"), "the steps say how long each lasts: drop --duration")
        stages = [{"from": r, "to": r, "seconds": d} for r, d in steps(step_text)]
    else:
        if duration is None and count is None:
            duration = seconds("duration", LoadSettings.duration)
        if ramp_text:
            if duration is None:
                raise OptionError("ramp", "a ramp needs --duration (the time it takes)")
            low, high = ramp(ramp_text)
        else:
            low = high = rate("rate", rate_text)
            if duration is None and count / low > MAX_SECONDS:
                raise OptionError(("requests", "rate"), f"{count:,} requests at {low:g}/s would take more than "
                                                        f"{MAX_SECONDS:g}s: give --duration or a higher rate")
        stages = [{"from": low, "to": high, "seconds": duration}]
    return {"arrivals": arrivals, "stages": stages, "requests": count,
            "warmup_seconds": seconds("warmup", warmup_text, zero=True), "seed": seed}
