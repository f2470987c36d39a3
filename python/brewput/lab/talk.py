"""The talk's published measurements (examples/data/talk, from its repository) as
typed rows: what brewput's predictions and the lab's measurements stand beside.

The files are the Go program's CSV output as it printed them: some with a header
line and some without, one opening with a blank line, times as Go prints a
duration (`10.27s`, `1m17.28s`, `500µs`, `0s`) and utilization as a percentage
(`99%`). A file that does not read is one BrewputError naming its line."""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

from ..bundled import EXAMPLES
from ..errors import BrewputError
from ..units import time_in

TALK_DATA = EXAMPLES / "data" / "talk"
# The talk's tables, as `brewput lab talk --table` names them (finelocking.csv, an
# older run that the talk's generate.sh no longer makes, is readable but not shown).
TABLES = ("varycpu", "jitter", "multi", "overload")
COLUMNS = ("mode", "par", "maxprocs", "maxq", "dur", "interval", "ops", "drops", "thru", "dthr", "wall", "exec",
           "util", "upar", "min", "p05", "p25", "p50", "p75", "p90", "p95", "p99", "max", "jitter")
PERCENTILES = ("min", "p05", "p25", "p50", "p75", "p90", "p95", "p99", "max")

# Go's duration units (time.Duration.String) as the unit table names them; "µs" in either spelling.
_GO_UNITS = {"h": "h", "m": "min", "s": "s", "ms": "ms", "us": "us", "µs": "us", "μs": "us", "ns": "ns"}
_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)")


@dataclass(frozen=True)
class TalkRow:
    """One published point: an implementation at a CPU count, customer count and jitter."""
    mode: str
    par: int                    # concurrent customers (closed loop), 0 in a file read as maxprocs
    maxprocs: int               # CPUs (GOMAXPROCS)
    ops: int                    # lattes made in the run
    thru_per_s: float           # lattes per second
    latency_ms: Dict[str, float]  # min, p05 ... p99, max, from the start of service
    jitter_ms: float
    duration_ms: float
    cpu_busy: float             # CPUs kept busy on average (util: `594%` -> 5.94)

    @property
    def p50_ms(self) -> float:
        return self.latency_ms["p50"]


def go_duration_ms(text: str) -> float:
    """A duration as Go prints it, in milliseconds: `1m17.28s` -> 77280.0, `500µs` -> 0.5, `0s` -> 0."""
    text = text.strip()
    parts = _GO_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise ValueError(f"expected a Go duration like 10s, 1m17.28s or 500µs, got {text!r}")
    return sum(time_in(float(number), _GO_UNITS[unit], "ms") for number, unit in parts)


def read_table(path: Path) -> List[TalkRow]:
    """The rows of one of the talk's CSV files, header line or not, blank lines skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BrewputError(f"{path}: cannot read the talk's table: {getattr(e, 'strerror', None) or e}") from None
    rows = []
    for line_number, fields in enumerate(csv.reader(text.splitlines()), start=1):
        if not fields or fields == [""] or tuple(fields) == COLUMNS:
            continue
        try:
            rows.append(_row(fields))
        except ValueError as e:
            raise BrewputError(f"{path}:{line_number}: {e}") from None
    return rows


def _row(fields: List[str]) -> TalkRow:
    if len(fields) != len(COLUMNS):
        raise ValueError(f"expected {len(COLUMNS)} columns ({', '.join(COLUMNS)}), got {len(fields)}")
    cell = dict(zip(COLUMNS, (f.strip() for f in fields)))
    if not cell["mode"]:
        raise ValueError("mode: empty")
    maxprocs = _whole(cell, "maxprocs")
    if maxprocs == 0:
        raise ValueError("maxprocs: expected at least 1 CPU, got '0'")
    # The talk's --par=0 means as many customers as CPUs (its files print the count it resolved to).
    par = _whole(cell, "par") or maxprocs
    return TalkRow(mode=cell["mode"], par=par, maxprocs=maxprocs,
                   ops=_whole(cell, "ops"), thru_per_s=_number(cell, "thru"),
                   latency_ms={name: _number(cell, name) for name in PERCENTILES},
                   jitter_ms=_duration(cell, "jitter"), duration_ms=_duration(cell, "dur"),
                   cpu_busy=_percent(cell, "util"))


def _whole(cell: Dict[str, str], name: str) -> int:
    try:
        value = int(cell[name])
    except ValueError:
        raise ValueError(f"{name}: expected a whole number, got {cell[name]!r}") from None
    if value < 0:
        raise ValueError(f"{name}: expected a whole number, got {cell[name]!r}")
    return value


def _number(cell: Dict[str, str], name: str) -> float:
    try:
        value = float(cell[name])
    except ValueError:
        raise ValueError(f"{name}: expected a number, got {cell[name]!r}") from None
    if not 0 <= value < float("inf"):
        raise ValueError(f"{name}: expected a number from 0, got {cell[name]!r}")
    return value


def _duration(cell: Dict[str, str], name: str) -> float:
    try:
        return go_duration_ms(cell[name])
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _percent(cell: Dict[str, str], name: str) -> float:
    """`594%` -> 5.94."""
    text = cell[name]
    try:
        if not text.endswith("%"):
            raise ValueError
        return _number({name: text[:-1]}, name) / 100
    except ValueError:
        raise ValueError(f"{name}: expected a percentage like 99%, got {text!r}") from None


def talk_tables(names: Tuple[str, ...] = TABLES, folder: Path = TALK_DATA) -> Dict[str, List[TalkRow]]:
    """The named tables of the talk, read from `folder` (the bundled copy by default)."""
    return {name: read_table(Path(folder) / f"{name}.csv") for name in names}
