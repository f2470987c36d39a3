"""What `brewput report` reads: an experiment record (JSON), or one results
schema dict (as `brewput simulate --json` prints it), made a one-scenario record."""
from __future__ import annotations

from pathlib import Path

from ..errors import BrewputError
from ..experiment.record import one_scenario_record
from ..experiment.record_schema import check_record, check_results, read_json

__all__ = ["check_record", "read_record"]


def read_record(path) -> dict:
    """The record in a JSON file (or one results dict, made a record of one
    scenario), checked whole against the record's shape
    (experiment/record_schema.py) before anything reads it."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet"):
        raise BrewputError(f"{path}: a {path.suffix} export holds only the results table; "
                           f"report from the .json export (-o results.json), which holds the whole record")
    document = read_json(path)
    if isinstance(document, dict) and document.get("brewput") == "experiment":
        check_record(document, str(path))
        return document
    if isinstance(document, dict) and "engine" in document and "classes" in document:
        check_results(document, str(path))
        return one_scenario_record(document, command=None)
    raise BrewputError(f"{path}: not a brewput experiment record (no \"brewput\": \"experiment\") "
                       f"nor a results dict (brewput simulate --json)")
