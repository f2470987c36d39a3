"""`brewput schema model|study`: the JSON Schema of model or study files, for editors."""
from __future__ import annotations

import json

import typer

from ..errors import BrewputError
from .common import app, user_errors

KINDS = ("model", "study")


@app.command()
@user_errors
def schema(kind: str = typer.Argument(..., help="model or study: which kind of file.")):
    """Print the JSON Schema of model or study files (for yaml-language-server and other editors)."""
    if kind == "model":
        from ..model.schema import json_schema
    elif kind == "study":
        from ..experiment.study import json_schema
    else:
        raise BrewputError(f"schema {kind}: expected one of {', '.join(KINDS)}")
    print(json.dumps(json_schema(), indent=2))
