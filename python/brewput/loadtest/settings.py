"""The load engine's settings a person chooses, each with its default and help
declared once: `brewput load`'s options (cli/load.py) are made from them and a
study's `load:` fields (experiment/study.py) take their defaults from them.
Their checks are loadtest/options.py's; crates/load's LoadSettings receives
them checked, as JSON, and has no default of its own but the tick's, which
it owns (DEFAULT_TICK_SECONDS, read here through the binding)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .. import _native
from ..setting import setting

_TICK = f"{_native.LOAD_DEFAULT_TICK_SECONDS * 1e6:g}us"


@dataclass(frozen=True)
class LoadSettings:
    """A load run's settings as typed, times with their units."""
    arrivals: str = setting("poisson", "poisson or constant spacing of the intended starts.")
    # The command line runs until --requests when that is given instead.
    duration: str = setting("10s", "Length of the schedule.", text=None, metavar="TIME",
                            shown="10s, or until --requests")
    warmup: str = setting("0s", "Sent but not measured at the start.", metavar="TIME")
    connections: int = setting(16, "Connections kept alive (or commands running at once).", metavar="C")
    max_in_flight: int = setting(10_000, "Requests due but unanswered at most; more are dropped and counted.",
                                 metavar="N")
    timeout: str = setting("10s", "A request unanswered this long fails.", metavar="TIME")
    tick: Optional[str] = setting(None, "Wake for the schedule at most once per TIME: a request due in between goes "
                                        "out at the next wake (the tick's, or an answer's), up to TIME late (counted "
                                        "as lag). Longer saves CPU at high rates; 0 wakes for every request.",
                                  metavar="TIME", shown=_TICK)
    seed: int = setting(1, "Seed of the schedule (poisson).", metavar="N")
