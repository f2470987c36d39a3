"""The settings of a coffee-shop measurement (`brewput lab coffee`, lab/coffee.py),
each with its default and help declared once. The command line's options are
made from them (cli/lab.py), so this module imports nothing heavy: every
`brewput` command builds its options at start-up."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import Field, OptionError
from ..setting import setting
from .options import LIMITS, RUNTIMES, time_text


def _time(ms: float, help: str) -> float:
    """A time setting in milliseconds, typed with its unit on the command line."""
    return setting(ms, help, text=time_text(ms), metavar="TIME")


@dataclass(frozen=True)
class CoffeeSettings:
    """Everything about a measurement but the implementation, CPUs and customers:
    the one home of each setting's default and help (`brewput lab coffee`'s
    options are made from them, cli/lab.py); the bounds are lab/options.py's LIMITS."""
    grind_ms: float = _time(1.0, "CPU burnt grinding.")
    press_ms: float = _time(1.0, "CPU burnt pressing the espresso.")
    steam_ms: float = _time(1.0, "CPU burnt steaming the milk.")
    latte_ms: float = _time(1.0, "CPU burnt making the latte.")
    jitter_ms: float = _time(0.0, "Grind, press and steam each last their time ± jitter/2, uniformly (the latte "
                                  "does not vary).")
    duration_ms: float = _time(1000.0, "Measured time per repetition.")
    warmup_ms: float = _time(250.0, "Discarded before each repetition's measurement.")
    repetitions: int = setting(3, "Repetitions per scenario.", metavar="N")
    # None: closed loop.
    rate_per_s: Optional[float] = setting(None, "Open loop: orders per second [default: closed loop].",
                                          metavar="PER_S")
    arrivals: str = setting("poisson", "Open loop: poisson or constant.")
    # The request queue's capacity.
    queue: int = setting(10_000, "Open loop: orders waiting at most; more are dropped.", metavar="N")
    seed: int = 1                           # open loop: Poisson arrivals' random stream (the API's only)
    # Every n-th order's grinding stalls for stall_ms (a deliberate hiccup).
    stall_every: Optional[int] = setting(None, "Which orders stall (with --stall).", metavar="N", shown="none")
    stall_ms: float = _time(0.0, "Pause every --stall-every-th order's grinding this long.")
    # Below 0 needs privilege.
    nice: Optional[int] = setting(None, "Run the measurement at this nice value; below 0 (higher priority, needs "
                                        "root) keeps other busy processes out of the figures.", metavar="N",
                                  shown="as started")
    # What a customer's or barista's task is (lab/options.py).
    runtime: str = setting(RUNTIMES[0], "tasks: Go-like tasks on one worker per CPU (what the talk measured); "
                                        "threads: a thread per customer and barista; tasks,threads: both, side by "
                                        "side.", text=None, shown=RUNTIMES[0])

    def check(self) -> None:
        """Every setting within its field's bounds (lab/options.py) and consistent with the others."""
        for field in ("grind_ms", "press_ms", "steam_ms", "latte_ms", "jitter_ms", "duration_ms", "warmup_ms",
                      "repetitions", "queue", "seed", "stall_ms"):
            LIMITS[field].check(getattr(self, field))
        for field in ("rate_per_s", "nice", "stall_every"):
            if getattr(self, field) is not None:
                LIMITS[field].check(getattr(self, field))
        if self.jitter_ms > 2 * min(self.grind_ms, self.press_ms, self.steam_ms):
            raise OptionError("jitter_ms", "at most twice the shortest stage it varies (grind, press and steam "
                              "each last their time ± jitter/2)", value=f"{self.jitter_ms:g}ms")
        if self.runtime not in RUNTIMES:
            raise OptionError("runtime", f"expected {' or '.join(RUNTIMES)}", value=str(self.runtime))
        if self.arrivals not in ("poisson", "constant"):
            raise OptionError("arrivals", "expected poisson or constant", value=str(self.arrivals))
        if self.stall_ms > 0 and self.stall_every is None:
            raise OptionError("stall_ms", "needs ", Field("stall_every"), " N (which orders stall)",
                              value=f"{self.stall_ms:g}ms")

    def load(self) -> dict:
        if self.rate_per_s is None:
            return {"kind": "closed"}
        return {"kind": "open", "rate_per_s": self.rate_per_s, "arrivals": self.arrivals,
                "queue": self.queue, "seed": self.seed}
