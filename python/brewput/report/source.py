"""What `brewput report` reads: a document brewput saved (an experiment record, one
results dict as `brewput simulate --json` prints it, or the record.json beside a page;
saved.py's KINDS), known by its shape, and its page drawn again from it alone. What is
not one, or keeps too little to draw its page, is refused in one line naming the file."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, TypeVar

from ..errors import BrewputError
from ..experiment.record_schema import check_record, read_json
from .saved import KINDS, Kind, kind_of

__all__ = ["Saved", "check_record", "read_saved"]

# What a page's drawing raises on a document of its kind but not of its shape (a field
# missing or of another type): said in one line, as any bad input.
SHAPE_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError)
T = TypeVar("T")


@dataclass(frozen=True)
class Saved:
    path: Path
    kind: Kind
    document: dict

    def draw(self, out_dir, command: Optional[str] = None) -> Path:
        """Its page into out_dir; its index.html."""
        return _shaped(self.path, self.kind, lambda: self.kind.draw(self.document, Path(out_dir), command))


def _shaped(path: Path, kind: Kind, read: Callable[[], T]) -> T:
    """What `read` gives of a document of `kind`, or one line where it is not of the kind's shape."""
    try:
        return read()
    except BrewputError:
        raise
    except SHAPE_ERRORS as e:
        problem = f"no {e.args[0]!r} where its page reads one" if isinstance(e, KeyError) else str(e)
        raise BrewputError(f"{path}: {kind.what}, but not as brewput writes it ({problem}); "
                           "write it again with the command that made it") from None


def read_saved(path) -> Saved:
    """The document in a JSON file and its kind, checked where its kind has a schema;
    refused where it is of no kind `report` draws."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".parquet"):
        raise BrewputError(f"{path}: a {path.suffix} export holds only the results table; "
                           f"report from the .json export (-o results.json), which holds the whole record")
    document = read_json(path)
    kind = kind_of(document)
    if kind is None:
        what = (f"keys {', '.join(sorted(map(str, document))[:6])}{', ...' if len(document) > 6 else ''}"
                if isinstance(document, dict) else f"a JSON {type(document).__name__}")
        raise BrewputError(f"{path}: not a brewput experiment record (-o results.json), results dict (--json) "
                           f"nor the record.json beside a page ({what}); docs/reports.md says what report draws")
    if kind.draw is None:
        raise BrewputError(f"{path}: {kind.what}: {_shaped(path, kind, lambda: kind.instead(document))}")
    if kind.check is not None:
        _shaped(path, kind, lambda: kind.check(document, str(path)))
    return Saved(path, kind, document)
