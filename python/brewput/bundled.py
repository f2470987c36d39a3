"""The example models and studies that ship inside the package.

They are package data, found through importlib.resources wherever brewput is
installed; a checkout's top-level examples/ is a link to the same files.
"""
from importlib.resources import files
from pathlib import Path

# Installed wheels and editable installs keep the package as plain files, so the
# data has a real path: load_study resolves a study's model paths from it.
EXAMPLES = Path(str(files(__package__) / "examples"))
