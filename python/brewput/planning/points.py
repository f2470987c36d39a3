"""Measured points of a scalability curve, (N, X) pairs, read from a table (CSV or
Parquet) or from an experiment record (`brewput lab`, `load --sweep`, a sweep of
`simulate` or `solve`, `run`).

N is the concurrency: a column or swept param of the user's, or, for open-loop
data (a sweep over an arrival `rate`, or a table with a mean response but no
concurrency), the mean number in the system by Little's law, N = X x mean R per
step. Every problem is one BrewputError naming the file and the column, row,
scenario or option at fault.
"""
from __future__ import annotations

import math
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

from ..errors import BrewputError

SUFFIXES = (".csv", ".parquet", ".json")
MAX_BYTES = 64 * 2**20   # measurements are a few rows; a bigger file is not one
MAX_POINTS = 10_000      # the same: more is a log of requests, not a curve (and its table would print for minutes)
# The throughputs read: with N at most usl.MAX_N, what is shown of a fit (the fitted
# curve, the ideal λN drawn past the last point, R = N/X) stays a finite double. The fit
# itself takes any finite unit (fit_usl); a file's numbers this far out are in the wrong one.
MIN_X, MAX_X = 1e-200, 1e200
# Column names recognised without --n / --x, case-insensitive, in order of preference.
N_NAMES = ("n", "concurrency", "load", "users", "clients", "vus", "threads", "workers", "processors", "cpus",
           "par", "population", "connections")
X_NAMES = ("x", "throughput", "tput", "rps", "qps", "tps", "ops")
R_NAMES = ("response_time_mean", "mean_response", "response_time", "response", "latency_mean", "latency", "r")
MEASURED = ("lab", "load")   # engines whose scenarios are measurements, preferred in a record
RATE = "rate"                # a swept param by this name is an offered arrival rate: open loop


@dataclass(frozen=True)
class Points:
    n: List[float]
    x: List[float]
    n_label: str             # the column or param N came from, or "N = X x R"
    x_label: str
    source: str              # the file, and in a record the model and engine
    open_loop: bool
    time_unit: Optional[str]  # a record's; a table's is unknown

    @property
    def description(self) -> str:
        return f"{self.source}: {self.n_label} -> {self.x_label}"


def read_points(path, n: Optional[str] = None, x: Optional[str] = None, model: Optional[str] = None,
                minimum: int = 4) -> Points:
    """The points of `path`; `n` and `x` name the columns (in a record: the
    concurrency param and the class), `model` a record's model label. At least
    `minimum` distinct concurrencies."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise BrewputError(f"{path}: expected a .csv or .parquet table or a .json experiment record, "
                           f"got {suffix or 'no suffix'}")
    if suffix == ".json":
        points = _from_record(path, n, x, model)
    else:
        if model is not None:
            raise BrewputError(f"--model {model}: only an experiment record (.json) has models; {path} is a table")
        points = _from_table(path, suffix, n, x)
    _check_enough(points, minimum)
    return points


def _check_file(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise BrewputError(f"{path}: no such file") from None
    except OSError as e:
        raise BrewputError(f"{path}: cannot read: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise BrewputError(f"{path}: is a folder; expected a table of measurements")
    if not stat.S_ISREG(mode):
        raise BrewputError(f"{path}: not a regular file (a device, FIFO or socket)")
    if path.stat().st_size > MAX_BYTES:
        raise BrewputError(f"{path}: larger than {MAX_BYTES >> 20} MiB; not a table of measurements")


def _read_frame(path: Path, suffix: str):
    import pandas

    _check_file(path)
    try:
        if suffix == ".csv":
            frame = pandas.read_csv(path, encoding="utf-8-sig", skipinitialspace=True)
        else:
            frame = pandas.read_parquet(path)
    except ImportError:
        from ..experiment.record import without_pyarrow

        raise without_pyarrow(path, "reading") from None
    except UnicodeDecodeError as e:
        raise BrewputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except pandas.errors.EmptyDataError:
        raise BrewputError(f"{path}: empty; expected a header line and a row per measurement") from None
    except (OSError, ValueError, pandas.errors.ParserError) as e:  # pyarrow's errors are ValueErrors or OSErrors
        raise BrewputError(f"{path}: cannot read the table: {' '.join(str(e).split())[:200]}") from None
    except Exception as e:  # pyarrow's ArrowInvalid and kin, whose classes need pyarrow to name
        if type(e).__module__.startswith("pyarrow"):
            raise BrewputError(f"{path}: cannot read the table: {' '.join(str(e).split())[:200]}") from None
        raise
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _find(columns: Sequence[str], names: Sequence[str]) -> Optional[str]:
    lowered = {c.strip().lower(): c for c in columns}
    return next((lowered[name] for name in names if name in lowered), None)


def _named(path: Path, option: str, name: str, columns: Sequence[str]) -> str:
    if name not in columns:
        raise BrewputError(f"{option} {name}: {path} has no column {name!r} (its columns: {', '.join(columns)})")
    return name


def _from_table(path: Path, suffix: str, n: Optional[str], x: Optional[str]) -> Points:
    frame = _read_frame(path, suffix)
    columns = list(frame.columns)
    if not columns or len(frame) == 0:
        raise BrewputError(f"{path}: no rows; expected a header line and a row per measurement")
    _check_at_most(str(path), len(frame), "rows")
    row_of = (lambda i: f"line {i + 2}") if suffix == ".csv" else (lambda i: f"row {i + 1}")
    x_col = _named(path, "--x", x, columns) if x is not None else _find(columns, X_NAMES)
    n_col = _named(path, "--n", n, columns) if n is not None else _find(columns, N_NAMES)
    r_col = None if n_col is not None else _find(columns, R_NAMES)
    if x_col is None and n_col is None and r_col is None and len(columns) == 2:
        n_col, x_col = columns   # two unnamed columns: N, then X
    if x_col is None:
        raise BrewputError(f"{path}: no throughput column (looked for {', '.join(X_NAMES)}; its columns: "
                           f"{', '.join(columns)}); name it with --x")
    if n_col is None and r_col is None:
        raise BrewputError(f"{path}: no concurrency column (looked for {', '.join(N_NAMES)}) and no mean response "
                           f"time for open-loop data ({', '.join(R_NAMES)}); its columns: {', '.join(columns)}; name it with --n")
    if n_col == x_col:
        raise BrewputError(f"--n {n_col}: the same column as the throughput (--x {x_col})")
    xs = _numbers(path, frame[x_col].tolist(), x_col, row_of)
    if n_col is not None:
        ns = _numbers(path, frame[n_col].tolist(), n_col, row_of)
        _check_increasing(ns, lambda i: f"{path}: column {n_col!r} {row_of(i)}")
        return Points(ns, xs, n_col, x_col, str(path), open_loop=False, time_unit=None)
    rs = _numbers(path, frame[r_col].tolist(), r_col, row_of)
    return _little(xs, rs, f"N = {x_col} x {r_col}", x_col, str(path), None)


def _numbers(path: Path, values: list, column: str, row_of: Callable[[int], str]) -> List[float]:
    numbers = []
    for i, value in enumerate(values):
        where = f"{path}: column {column!r} {row_of(i)}"
        number = _number(value)
        if number is None:
            raise BrewputError(f"{where}: expected a number, got {_shown(value)}")
        if not number > 0:
            raise BrewputError(f"{where}: expected a positive number, got {_shown(value)}")
        numbers.append(number)
    return numbers


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _shown(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "nothing"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_increasing(ns: List[float], where: Callable[[int], str]) -> None:
    """N must not go down from row to row: a curve is measured in increasing concurrency,
    and rows out of order are more often a wrong column than a reordered sweep."""
    for i in range(1, len(ns)):
        if ns[i] < ns[i - 1]:
            raise BrewputError(f"{where(i)}: N goes down from {ns[i - 1]:g} to {ns[i]:g}; expected the "
                               f"measurements in increasing concurrency (not monotone)")


def _little(xs: List[float], rs: List[float], n_label: str, x_label: str, source: str,
            time_unit: Optional[str]) -> Points:
    """Open-loop steps as points: N = X x R (Little's law), in increasing N."""
    pairs = sorted((x * r, x) for x, r in zip(xs, rs))
    return Points([p[0] for p in pairs], [p[1] for p in pairs], n_label, x_label, source, open_loop=True,
                  time_unit=time_unit)


def _check_at_most(source: str, count: int, what: str) -> None:
    if count > MAX_POINTS:
        raise BrewputError(f"{source}: {count:,} {what}; a fit takes at most {MAX_POINTS:,} measured points")


def _check_enough(points: Points, minimum: int) -> None:
    _check_at_most(points.source, len(points.n), "points")
    outside = [x for x in points.x if not MIN_X <= x <= MAX_X]
    if outside:
        raise BrewputError(f"{points.source}: throughput {outside[0]:g}; a fit takes throughputs from {MIN_X:g} "
                           f"to {MAX_X:g} (measure them in another unit of time)")
    distinct = len(set(points.n))
    if distinct < minimum:
        count = f"{len(points.n)} points" + (f" at {distinct} distinct concurrencies" if distinct != len(points.n) else "")
        raise BrewputError(f"{points.source}: {count}; the fit needs at least {minimum} distinct concurrencies "
                           f"(fewer than {minimum} points)")


# Records ---------------------------------------------------------------------------

def record_scenarios(path: Path, model: Optional[str]) -> Tuple[dict, List[dict]]:
    """The record at `path` and the scenarios of one curve: its measured ones (lab,
    load) when it has any, of the one model (or `model`), of one engine."""
    from ..experiment.record import load

    record = load(path)
    scenarios = list(record["scenarios"])
    if not scenarios:
        raise BrewputError(f"{path}: the record has no scenarios that ran")
    measured = [s for s in scenarios if s["engine"] in MEASURED]
    scenarios = measured or scenarios
    labels = list(dict.fromkeys(s["model"] for s in scenarios))
    if model is not None:
        if model not in labels:
            raise BrewputError(f"--model {model}: {path} has no model {model!r} (its models: {', '.join(labels)})")
        scenarios = [s for s in scenarios if s["model"] == model]
    elif len(labels) > 1:
        raise BrewputError(f"{path}: {len(labels)} models ({', '.join(labels)}); choose one with --model")
    engines = list(dict.fromkeys(s["engine"] for s in scenarios))
    if len(engines) > 1:   # simulate and solve of one model: the first engine's curve
        scenarios = [s for s in scenarios if s["engine"] == engines[0]]
    return record, scenarios


def scenario_place(path: Path, scenario: dict) -> str:
    """`r.json: scenario 3 (m at rate=0.4)`, for messages."""
    return f"{path}: scenario {scenario['id']} ({scenario['model']} at {_params(scenario)})"


def _from_record(path: Path, n: Optional[str], x: Optional[str], model: Optional[str]) -> Points:
    record, scenarios = record_scenarios(path, model)
    label, engine = scenarios[0]["model"], scenarios[0]["engine"]
    source = f"{path} ({label}, {engine})"
    param = _concurrency_param(path, record, scenarios, n)
    open_loop = n is None and (engine == "load" or param == RATE)
    xs, rs, ns = [], [], []
    for scenario in scenarios:
        throughput, response = class_figures(scenario_place(path, scenario), scenario["results"], x)
        xs.append(throughput)
        rs.append(response)
        if not open_loop:
            value = _number(scenario["params"].get(param, scenario["results"].get("params", {}).get(param)))
            if value is None or not value > 0:
                raise BrewputError(f"{scenario_place(path, scenario)}: param {param!r} is not a positive number")
            ns.append(value)
    units = {s["results"].get("time_unit") for s in scenarios}
    time_unit = units.pop() if len(units) == 1 else None
    x_label = f"throughput (per {time_unit})" if time_unit else "throughput"
    if open_loop:
        missing = [s["id"] for s, r in zip(scenarios, rs) if r is None]
        if missing:
            raise BrewputError(f"{path}: scenario {missing[0]} has no mean response time, which open-loop "
                               f"data need (N = X x R)")
        return _little(xs, rs, "N = X x R", x_label, source, time_unit)
    order = sorted(range(len(ns)), key=ns.__getitem__)
    return Points([ns[i] for i in order], [xs[i] for i in order], param, x_label, source, open_loop=False,
                  time_unit=time_unit)


def _params(scenario: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in scenario["params"].items()) or "its params"


def _concurrency_param(path: Path, record: dict, scenarios: List[dict], n: Optional[str]) -> str:
    swept = [name for name in record["sweep"] if len({repr(s["params"].get(name)) for s in scenarios}) > 1]
    if n is not None:
        known = set(record["sweep"]) | {k for s in scenarios for k in s["results"].get("params", {})}
        if n not in known:
            raise BrewputError(f"--n {n}: {path} has no param {n!r} (its swept params: "
                               f"{', '.join(record['sweep']) or 'none'})")
        return n
    if len(swept) == 1:
        return swept[0]
    if not swept:
        raise BrewputError(f"{path}: nothing was swept, so there is no curve to fit (one point per scenario "
                           f"of a --sweep)")
    raise BrewputError(f"{path}: {len(swept)} params were swept ({', '.join(swept)}); name the concurrency with --n")


def class_figures(where: str, results: dict, name: Optional[str]) -> Tuple[float, Optional[float]]:
    """Throughput and mean response time of the class `name`, or of all classes
    together (throughputs summed, responses weighted by throughput)."""
    classes = results.get("classes") or {}
    if name is not None:
        if name not in classes:
            raise BrewputError(f"--x {name}: {where} has no class {name!r} (its classes: {', '.join(classes)})")
        classes = {name: classes[name]}
    if not classes:
        raise BrewputError(f"{where}: no classes, so no throughput")
    total, weighted = 0.0, 0.0
    for label, figures in classes.items():
        throughput = _number(figures.get("throughput"))
        if throughput is None:
            raise BrewputError(f"{where}: class {label!r} has no throughput")
        if throughput < 0:
            raise BrewputError(f"{where}: class {label!r} has throughput {throughput:g}; expected 0 or more")
        response = _number((figures.get("response_time") or {}).get("mean"))
        total += throughput
        weighted = math.nan if response is None else weighted + throughput * response
    if not total > 0:
        raise BrewputError(f"{where}: throughput 0; every point of a scalability curve needs a positive throughput")
    return total, None if math.isnan(weighted) else weighted / total
