"""What `brewput report` reads: an experiment record (JSON), or one results
schema dict (as `brewput simulate --json` prints it), made a one-scenario record."""
from __future__ import annotations

import json
import stat
from pathlib import Path

from ..errors import BrewputError
from ..experiment.record import one_scenario_record
from ..experiment.record_schema import MAX_BYTES, MAX_DEPTH, check_record, check_results, nesting_depth

__all__ = ["check_record", "read_record"]


def read_record(path) -> dict:
    """The record in a JSON file, checked whole against the record's shape
    (experiment/record_schema.py) before anything reads it."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet"):
        raise BrewputError(f"{path}: a {path.suffix} export holds only the results table; "
                           f"report from the .json export (-o results.json), which holds the whole record")
    text = _read_text(path)
    if nesting_depth(text) > MAX_DEPTH:
        raise BrewputError(f"{path}: nested more than {MAX_DEPTH} levels deep; not an experiment record")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise BrewputError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    if isinstance(document, dict) and document.get("brewput") == "experiment":
        check_record(document, str(path))
        return document
    if isinstance(document, dict) and "engine" in document and "classes" in document:
        check_results(document, str(path))
        return one_scenario_record(document, command=None)
    raise BrewputError(f"{path}: not a brewput experiment record (no \"brewput\": \"experiment\") "
                       f"nor a results dict (brewput simulate --json)")


def _read_text(path: Path) -> str:
    """A regular file's text, at most MAX_BYTES of it."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise BrewputError(f"{path}: is a folder; expected an experiment record (JSON)")
        if not stat.S_ISREG(mode):
            raise BrewputError(f"{path}: not a regular file; expected an experiment record (JSON)")
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise BrewputError(f"{path}: no such file") from None
    except OSError as e:
        raise BrewputError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise BrewputError(f"{path}: larger than {MAX_BYTES >> 20:,} MB; not an experiment record")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BrewputError(f"{path}: not UTF-8 text (byte {e.start})") from None
