"""The demo server (`brewput serve`'s M/G/c queue) run inside the test process
on 127.0.0.1, on a free port, stopped when the test is done: the only kind of
server the load tests send traffic to."""
from __future__ import annotations

import json
import threading
from contextlib import contextmanager

from brewput import _native
from brewput.loadtest.options import service_distribution


@contextmanager
def serving(service: str = "const(1ms)", workers: int = 4, queue: int = 10_000, seed: int = 1, rota=None):
    """Yields the server's URL; stops it afterwards (at most a few seconds: its
    `for_seconds` bounds it even if the stop is missed). `rota`: (workers per
    interval, the interval in seconds[, whether it repeats]), `workers` then
    being the most."""
    settings = {"host": "127.0.0.1", "port": 0, "workers": workers, "service": service_distribution(service),
                "burn": False, "queue": queue, "seed": seed, "for_seconds": 300.0}
    if rota is not None:
        settings["rota"] = {"workers": list(rota[0]), "interval_seconds": rota[1], "repeat": bool(rota[2:3] == (True,))}
    server = _native.DemoServer(json.dumps(settings))
    url = f"http://{server.address()}/"
    control = _native.Control("serve")
    thread = threading.Thread(target=server.run, args=(control,), daemon=True)
    thread.start()
    try:
        yield url
    finally:
        control.cancel()
        thread.join(10)
