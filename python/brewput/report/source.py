"""What `brewput report` reads: an experiment record (JSON), or one results
schema dict (as `brewput simulate --json` prints it), made a one-scenario record."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import BrewputError
from ..units import SECONDS


def read_record(path) -> dict:
    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet"):
        raise BrewputError(f"{path}: a {path.suffix} export holds only the results table; "
                           f"report from the .json export (-o results.json), which holds the whole record")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BrewputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BrewputError(f"{path}: is a folder; expected an experiment record (JSON)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BrewputError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise BrewputError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    if isinstance(document, dict) and document.get("brewput") == "experiment":
        check_record(document, str(path))
        return document
    if isinstance(document, dict) and "engine" in document and "classes" in document:
        record = one_scenario_record(document, command=None)
        check_record(record, str(path))
        return record
    raise BrewputError(f"{path}: not a brewput experiment record (no \"brewput\": \"experiment\") "
                       f"nor a results dict (brewput simulate --json)")


def one_scenario_record(results: dict, command=None) -> dict:
    """A record holding one results dict, as its only scenario."""
    from ..experiment.record import add_scenario, new_record

    label = str(results.get("model") or "model")
    record = new_record(title=label, command=command, models={label: {"file": None, "text": None}})
    return add_scenario(record, label, results["engine"], results.get("params") or {}, results)


def check_record(record: dict, source: str) -> None:
    """The parts of a record the report relies on, each missing one named."""
    from ..experiment.record import VERSION

    if record.get("version", VERSION) != VERSION:
        raise BrewputError(f"{source}: record version {record.get('version')!r}; this brewput reads {VERSION}")
    sweep = record.get("sweep", {})
    if not isinstance(sweep, dict) or not all(isinstance(v, list) and v for v in sweep.values()):
        raise BrewputError(f"{source}: sweep: expected a map of param names to lists of values")
    scenarios = record.get("scenarios")
    if not isinstance(scenarios, list) or not scenarios:
        raise BrewputError(f"{source}: scenarios: expected a non-empty list of scenarios")
    for i, scenario in enumerate(scenarios):
        where = f"{source}: scenarios[{i}]"
        if not isinstance(scenario, dict):
            raise BrewputError(f"{where}: expected a scenario (a map)")
        for key in ("id", "model", "engine", "params", "results"):
            if key not in scenario:
                raise BrewputError(f"{where}: missing {key}")
        results = scenario["results"]
        if not isinstance(results, dict) or not isinstance(results.get("classes"), dict):
            raise BrewputError(f"{where}.results: expected a results dict with classes (docs/results.md)")
        if results.get("time_unit") not in SECONDS:
            raise BrewputError(f"{where}.results.time_unit: expected one of {', '.join(SECONDS)}, "
                               f"got {results.get('time_unit')!r}")
        for name in sweep:
            if name not in scenario["params"]:
                raise BrewputError(f"{where}.params: missing the swept param {name}")
