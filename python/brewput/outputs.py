"""Where brewput writes: an output that could not be written is refused before any
work starts, with the true reason, and a write that fails anyway (a full disk) is
named by its file and the system's reason. One home, so that every command says
the same thing of the same path."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

from .errors import BrewputError


def file_problem(path: Path) -> Optional[str]:
    """Why a file could not be written at `path` (None if it could), in words
    that follow the path: `out/r.json: the folder out does not exist`."""
    path = Path(path)
    if path.is_dir():
        return "is a folder; expected a file"
    folder = path.parent
    if not folder.is_dir():
        existing = _nearest_existing(folder)
        if existing.is_dir():
            return f"the folder {folder} does not exist"
        return f"{existing} is a file, not a folder"
    refused = _folder_refuses(folder, "cannot write there")
    if refused is None and path.exists() and not os.access(path, os.W_OK):
        return "cannot write there (permission denied)"
    return refused


def folder_problem(folder: Path) -> Optional[str]:
    """Why a folder could not be made or written at `folder` (None if it could)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        return "is a file; expected a folder (created if missing)"
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        return f"{existing} is not a folder"
    return _folder_refuses(existing, f"cannot write in {existing}")


@contextmanager
def writing(path: Path, prefix: str = "") -> Iterator[None]:
    """Turns a failed write into one line naming the file that failed (or `path`,
    the file or folder being written, where the system names none: a full disk)."""
    try:
        yield
    except OSError as e:
        raise BrewputError(f"{prefix}{e.filename or path}: cannot write: {e.strerror or e}") from None


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _folder_refuses(folder: Path, cannot: str) -> Optional[str]:
    # Asked first: os.access also fails on a read-only mount, but for another reason.
    if os.statvfs(folder).f_flag & os.ST_RDONLY:
        return f"{cannot} (read-only file system)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{cannot} (permission denied)"
    # access() answers for root as if it could: /proc and /sys refuse new files all
    # the same. An empty file made and taken away is the one true answer.
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".brewput-")
    except OSError as e:
        return f"{cannot} ({(e.strerror or str(e)).lower()})"
    os.close(handle)
    os.unlink(probe)
    return None
