"""docs/img/load-stall.png: coordinated omission on a stalled server, measured.

The demo server with one worker takes 1 ms per request, except about one in
400 that takes 300 ms; `brewput load` holds 200 requests/s for 10 s on one
connection (as a closed-loop tool would have it). The chart draws the latency
against the percentile twice from the same run: from each request's intended
start (the response time brewput reports) and from its send (the service time,
what a tool that waits for the connection reports). Run it with

    .venv/bin/python bench/load_stall.py

It sends traffic only to the server it starts on 127.0.0.1.
"""
from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path

from brewput import _native
from brewput.loadtest import measure
from brewput.loadtest import options as opt
from brewput.loadtest.results import to_results

OUT = Path(__file__).resolve().parent.parent / "docs" / "img" / "load-stall.png"


def run() -> dict:
    with tempfile.TemporaryDirectory() as folder:
        values = Path(folder) / "service.csv"
        values.write_text("\n".join(["0.001"] * 399 + ["0.3"]) + "\n")
        server = _native.DemoServer(json.dumps({
            "host": "127.0.0.1", "port": 0, "workers": 1, "service": opt.service_distribution(f"empirical({values})"),
            "burn": False, "queue": 10_000, "seed": 2, "for_seconds": 60.0}))
        url = f"http://{server.address()}/"
        control = _native.Control("serve")
        thread = threading.Thread(target=server.run, args=(control,), daemon=True)
        thread.start()
        try:
            schedule = opt.schedule(rate_text="200", arrivals="constant", ramp_text=None, step_text=None,
                                    duration_text="10s", requests_text=None, warmup_text="0s", seed=1)
            summary = measure({"target": opt.http_target(url).settings("GET"), "schedule": schedule,
                               "connections": 1, "max_in_flight": 10_000, "timeout_seconds": 10.0})
        finally:
            control.cancel()
            thread.join(10)
    return to_results(summary, target="stalled demo server", method="http", settings={})


def draw(results: dict) -> None:
    from matplotlib.figure import Figure

    request = results["classes"]["request"]
    figure = Figure(figsize=(10, 5.6), dpi=150)
    axes = figure.add_subplot()
    for block, label, style in (("response_time", "response time: from the intended start (brewput)", "-"),
                                ("service_time", "service time: from the send (a tool that waits)", "--")):
        rows = [(p, v) for v, p, _ in request[block]["distribution"]["rows"] if p < 1]
        axes.plot([1 / (1 - p) for p, _ in rows], [v for _, v in rows], style, label=label, linewidth=2)
    axes.set_xscale("log")
    axes.set_yscale("log")
    ticks = [(2, "50%"), (10, "90%"), (100, "99%"), (1000, "99.9%")]
    axes.set_xticks([t for t, _ in ticks], [label for _, label in ticks])
    axes.set_xlabel("percentile")
    axes.set_ylabel("latency (ms)")
    axes.set_title("One server stalling 300 ms about once in 400 requests, 200 requests/s on one connection")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(loc="upper left")
    figure.savefig(OUT)


def main() -> int:
    results = run()
    request = results["classes"]["request"]
    for block in ("response_time", "service_time", "lag"):
        b = request[block]
        print(f"{block:14} mean {b['mean']:8.3f} ms  p50 {b['p50']:8.3f}  p90 {b['p90']:8.3f}  p99 {b['p99']:8.3f}  "
              f"max {b['max']:8.3f}")
    draw(results)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
