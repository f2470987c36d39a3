"""`brewput whatif`: a model beside variants of itself (pooled stations, more
servers, any field changed), each answered and shown with its change."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from .common import PageOption, WholeOption, app, command_line, err, parse_sets, show_all, user_errors


@app.command("whatif")
@user_errors
def whatif_command(
    model: Path = typer.Argument(..., help="Model file (YAML)."),
    merge: List[str] = typer.Option([], "--merge", metavar="A,B",
                                    help="Pool station B into station A: one queue in front of both stations' "
                                         "servers (repeatable; each its own case).  [default: none]"),
    add_server: List[str] = typer.Option([], "--add-server", metavar="STATION[+N]",
                                         help="One (or N) more servers at a station (repeatable; each its own "
                                              "case).  [default: none]"),
    case: List[str] = typer.Option([], "--case", metavar="'NAME: EDIT; EDIT'",
                                   help="A case of several edits: merge A,B, add-server A[+N], PATH=VALUE (a field "
                                        "by its path, e.g. classes.call.route.0.service=exp(20), or a param) "
                                        "(repeatable).  [default: none]"),
    set_: List[str] = typer.Option([], "--set", help="Override a model param: name=value (repeatable).  "
                                                     "[default: the model's params]"),
    seed: int = WholeOption(1, "--seed", help="Seed of the simulations, where no analytic method covers a case."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", metavar="FILE.json",
                                          help="Write every case's figures as JSON.  [default: none]"),
    report: Optional[Path] = PageOption,
    as_json: bool = typer.Option(False, "--json", help="Print the cases as JSON."),
):
    """The model beside variants of itself: what pooling, more servers or any change would do."""
    from ..model import load
    from ..planning.whatif import cases_from, check_cases, whatif
    from .scenarios import check_json_outputs, write_json

    check_json_outputs(output, report)
    loaded = load(model)
    params = parse_sets(set_)
    if params:
        loaded = loaded.with_params(**params)
    cases = cases_from(merge, add_server, case)
    check_cases(loaded, cases)
    record = whatif(loaded, cases, seed=seed)
    if as_json:
        print(json.dumps(record, indent=2))
    else:
        from ..planning.show import whatif_shown

        show_all(whatif_shown(record))
    if output is not None:
        write_json("whatif", output, record)
    if report is not None:
        from ..planning.report import write_whatif_report

        err.print(f"report: {write_whatif_report(report, record, command_line())}", soft_wrap=True)
