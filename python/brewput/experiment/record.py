"""The experiment record: every multi-scenario run as one JSON-able dict.

The shape is the contract between runs and reports (docs/experiments.md):
`brewput.experiment.record` makes, saves and loads it, and flattens it into one
table with a row per scenario and class, station or resource.
"""
from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ..errors import BrewputError

if TYPE_CHECKING:  # pandas costs a second to import; only the table needs it
    import pandas

VERSION = 1
FORMATS = (".json", ".csv", ".parquet")
KINDS = (("classes", "class"), ("stations", "station"), ("resources", "resource"))
CLASS_AT_STATION = "class at station"
ID_COLUMNS = ("scenario", "model", "engine", "time_unit")
TABLE_COLUMNS = ID_COLUMNS + ("kind", "name")  # beside the swept params
# Figures that count (customers, samples): whole numbers in every table.
COUNTS = ("completed", "lost", "count")
CHARTS = ("throughput", "latency", "latency_throughput", "latency_boxes", "utilization", "spectrum", "lost",
          "measures")


def new_record(*, title: str, command: Optional[str] = None, study: Optional[str] = None,
               models: Optional[Mapping[str, Mapping[str, Any]]] = None,
               sweep: Optional[Mapping[str, Sequence]] = None,
               charts: Optional[Sequence[str]] = None) -> dict:
    """An empty record (no scenarios yet, not interrupted), created now."""
    return {
        "brewput": "experiment",
        "version": VERSION,
        "title": title,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "study": study,
        "models": {label: dict(entry) for label, entry in (models or {}).items()},
        "sweep": {name: list(values) for name, values in (sweep or {}).items()},
        "charts": None if charts is None else list(charts),
        "interrupted": False,
        "scenarios": [],
        "failed": [],
    }


def add_scenario(record: dict, model: str, engine: str, params: Mapping[str, Any], results: dict) -> dict:
    """Appends a finished scenario (its results dict) to `record`, numbered in order; returns the record."""
    record["scenarios"].append({"id": len(record["scenarios"]), "model": model, "engine": engine,
                                "params": dict(params), "results": results})
    return record


def model_entry(file: Optional[str]) -> Dict[str, Optional[str]]:
    """A `models` entry: the file and its text, so that a report can be reproduced."""
    if file is None:
        return {"file": None, "text": None}
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BrewputError(f"{file}: cannot read the model file: {getattr(e, 'strerror', None) or e}")
    return {"file": str(file), "text": text}


def _format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise BrewputError(f"{path}: expected a file ending in {', '.join(FORMATS)}, got {suffix or 'none'}")
    return suffix


def without_pyarrow(path, doing: str) -> BrewputError:
    """The error for Parquet without pyarrow. It names the package, not the extra
    ('brewput[parquet]', which installs the same), since after installing a wheel
    file there is no name to give an extra to."""
    return BrewputError(f"{path}: {doing} Parquet needs pyarrow: pip install pyarrow")


def check_path(path) -> Path:
    """Refuses an output file brewput cannot write, before any work is done: a
    suffix it does not write, a folder, a missing or read-only folder, or Parquet
    without pyarrow."""
    import importlib.util

    from ..outputs import file_problem

    path = Path(path)
    if path.is_dir():
        raise BrewputError(f"{path}: is a folder; expected a file ending in {', '.join(FORMATS)}")
    suffix = _format(path)
    problem = file_problem(path)
    if problem:
        raise BrewputError(f"{path}: {problem}")
    if suffix == ".parquet" and importlib.util.find_spec("pyarrow") is None:
        raise without_pyarrow(path, "writing")
    return path


def save(record: dict, path) -> Path:
    """Writes `record` as JSON (all of it), CSV or Parquet (the flat table)."""
    path = Path(path)
    suffix = _format(path)
    from ..outputs import writing

    with writing(path):
        if suffix == ".json":
            path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        elif suffix == ".csv":
            flat_table(record).to_csv(path, index=False)
        else:
            flat_table(record).to_parquet(path, index=False)
    return path


def load(path) -> dict:
    """Reads a record saved as JSON. CSV and Parquet hold only the flat table:
    read those with `load_table`."""
    path = Path(path)
    if _format(path) != ".json":
        raise BrewputError(f"{path}: a {path.suffix} file holds only the results table; "
                           f"the whole record is in the .json export")
    from .record_schema import check_record, read_json

    record = read_json(path)
    if not (isinstance(record, dict) and record.get("brewput") == "experiment"):
        raise BrewputError(f"{path}: not a brewput experiment record (no \"brewput\": \"experiment\")")
    if record.get("version") != VERSION:
        raise BrewputError(f"{path}: record version {record.get('version')!r}; this brewput reads {VERSION}")
    check_record(record, str(path))
    return record


def load_table(path) -> "pandas.DataFrame":
    """The flat table of a record saved in any of the three formats."""
    import pandas

    path = Path(path)
    suffix = _format(path)
    if suffix == ".json":
        return flat_table(load(path))
    try:
        if suffix == ".csv":
            return whole_counts(pandas.read_csv(path))
        return whole_counts(pandas.read_parquet(path))
    except ImportError:
        raise without_pyarrow(path, "reading") from None
    except (OSError, ValueError) as e:  # pyarrow's and pandas' parse errors are ValueErrors
        raise BrewputError(f"{path}: cannot read the table: {e}") from None


def flat_table(record_or_results: dict) -> "pandas.DataFrame":
    """One row per scenario and class, station or resource, of a record or of
    one results dict.

    Columns: scenario, model, engine, time_unit, each swept param, kind, name,
    then the figures with nested names joined by `_` (response_time_p95) and
    each confidence interval as two columns (throughput_ci_low,
    throughput_ci_high). Times are in time_unit, throughputs per time_unit;
    counts are whole numbers.
    """
    import pandas

    record = as_record(record_or_results)
    swept = list(record["sweep"])
    rows: List[dict] = []
    for scenario in record["scenarios"]:
        ids = {"scenario": scenario["id"], "model": scenario["model"], "engine": scenario["engine"],
               "time_unit": scenario["results"]["time_unit"],
               **{name: scenario["params"].get(name) for name in swept}}
        for kind, name, figures in elements(scenario["results"]):
            rows.append({**ids, "kind": kind, "name": name, **_flatten(figures)})
        for interval in scenario["results"].get("intervals", []):  # a day's (docs/results.md "Intervals")
            at = {"interval": interval["label"], "interval_start": interval["start"], "interval_end": interval["end"]}
            for key, kind in KINDS[:2]:
                for name, figures in interval.get(key, {}).items():  # a measured day has no stations
                    rows.append({**ids, "kind": f"{kind} per interval", "name": name, **at, **_flatten(figures)})
        for point in scenario["results"].get("from", {}).get("points", []):  # solve --from's (docs/results.md)
            at = {"time": point["time"]}
            rows.append({**ids, "kind": "system at time", "name": "system", **at,
                         **{key: value for key, value in point.items() if key not in ("time", "stations")}})
            for name, figures in point["stations"].items():
                rows.append({**ids, "kind": "station at time", "name": name, **at, **figures})
    columns = list(ID_COLUMNS) + swept + ["kind", "name"]
    return whole_counts(pandas.DataFrame(rows, columns=_ordered_columns(rows, columns)))


def elements(results: dict) -> Iterator[Tuple[str, str, dict]]:
    """(kind, name, figures) of each class, station and resource of one results dict,
    then, in a model of several classes, of each class at each station it visits (kind
    `class at station`, named `station · class`: docs/results.md, "Per class at each
    station"; with one class they are the station's)."""
    for key, kind in KINDS:
        for name, figures in results.get(key, {}).items():
            yield kind, name, {k: v for k, v in figures.items() if not (key == "stations" and k == "classes")}
    if len(results.get("classes", {})) < 2:
        return
    for station, figures in results.get("stations", {}).items():
        for name, at in (figures.get("classes") or {}).items():
            yield CLASS_AT_STATION, f"{station} · {name}", at


def whole_counts(table: "pandas.DataFrame") -> "pandas.DataFrame":
    """The count columns as whole numbers (pandas' nullable Int64: a count a
    row lacks stays empty instead of making the column float)."""
    for column in table.columns:
        if column in COUNTS or column.endswith(tuple(f"_{count}" for count in COUNTS)):
            table[column] = table[column].astype("Int64")
    return table


def as_record(record_or_results: Any) -> dict:
    """An experiment record as it is; one results dict as a record of one scenario."""
    if isinstance(record_or_results, Mapping) and record_or_results.get("brewput") == "experiment":
        return dict(record_or_results)
    if isinstance(record_or_results, Mapping) and "engine" in record_or_results and "classes" in record_or_results:
        return one_scenario_record(dict(record_or_results))
    raise BrewputError("expected an experiment record or a results dict (docs/results.md), got "
                       f"{type(record_or_results).__name__}")


def one_scenario_record(results: dict, command: Optional[str] = None) -> dict:
    """A record holding one results dict, as its only scenario."""
    label = str(results.get("model") or "model")
    record = new_record(title=label, command=command, models={label: {"file": None, "text": None}})
    return add_scenario(record, label, results["engine"], results.get("params") or {}, results)


def _flatten(figures: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    flat: Dict[str, Any] = {}
    for key, value in figures.items():
        name = prefix + key
        if isinstance(value, Mapping):
            flat.update(_flatten(value, name + "_"))
        elif key.endswith("_ci") and _is_interval(value):
            flat[name + "_low"], flat[name + "_high"] = (None, None) if value is None else value
        elif value is None or isinstance(value, (bool, int, float, str)):
            flat[name] = value
        # other lists (the percentile spectrum and its intervals) have no place in a flat row
    return flat


def _is_interval(value: Any) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 2
                             and all(x is None or isinstance(x, (int, float)) for x in value))


def _ordered_columns(rows: List[dict], first: List[str]) -> List[str]:
    """The id columns, then every figure in the order it first appears."""
    seen = dict.fromkeys(first)
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)

