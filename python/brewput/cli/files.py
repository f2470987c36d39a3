"""`brewput examples`: the example models and studies copied out of the package,
so that a user starts from files of their own."""
from __future__ import annotations

from pathlib import Path

import typer

from ..errors import BrewputError
from .common import app, out, user_errors


@app.command()
@user_errors
def examples(
    folder: Path = typer.Argument(Path("."), help="Where to put the examples/ folder."),
    force: bool = typer.Option(False, "--force", help="Overwrite example files that are already there."),
):
    """Copy the example models and studies into FOLDER/examples, to run and edit."""
    import shutil

    from ..bundled import EXAMPLES

    target = folder / "examples"
    sources = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*") if p.is_file())
    if not sources:
        raise BrewputError(f"{EXAMPLES}: the package's examples are missing (reinstall brewput)")
    blocked = [target / s for s in sources if (target / s).exists() or (target / s).is_symlink()]
    not_folder = [p for p in (folder, target, *{(target / s).parent for s in sources})
                  if p.exists() and not p.is_dir()]
    if not_folder:
        raise BrewputError(f"{not_folder[0]}: exists and is not a folder")
    folders = [p for p in blocked if p.is_dir()]
    if folders:
        raise BrewputError(f"{folders[0]}: a folder where an example file goes")
    if blocked and not force:
        more = f" and {len(blocked) - 1} more files already exist" if len(blocked) > 1 else " already exists"
        raise BrewputError(f"{blocked[0]}{more}: --force overwrites them")
    try:
        for source in sources:
            destination = target / source
            destination.parent.mkdir(parents=True, exist_ok=True)
            if destination.is_symlink():  # replace the link, never write through it
                destination.unlink()
            shutil.copyfile(EXAMPLES / source, destination)
    except OSError as e:
        raise BrewputError(f"{e.filename or target}: {e.strerror or e}") from None
    out.print(f"{len(sources)} example files in {target}; try: brewput simulate {target / 'mmc.yaml'}")
