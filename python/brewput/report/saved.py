"""What brewput saves that `brewput report FILE -o DIR` reads: each kind of document (an
experiment record, one results dict, the record.json beside a page, an -o export), known by
its top-level keys, with how its page is drawn again from it alone, or, where it keeps too
little to draw its page, what to do instead. A page that saves a new kind of record adds
its kind to KINDS."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, FrozenSet, Optional

from ..experiment.record_schema import check_record, check_results

# (document, the folder, the command redrawing it) -> the page's index.html
Draw = Callable[[dict, Path, Optional[str]], Path]


@dataclass(frozen=True)
class Kind:
    what: str                                  # as a refusal names it
    keys: FrozenSet[str]                       # a document of this kind has these top-level keys
    draw: Optional[Draw] = None                # its page drawn again, or
    instead: Optional[Callable[[dict], str]] = None   # why not, and what to do
    check: Optional[Callable[[dict, str], None]] = None   # its shape checked whole (a schema), naming the file

    def holds(self, document: dict) -> bool:
        return self.keys <= document.keys()


def _experiment(record: dict, out: Path, command: Optional[str]) -> Path:
    from .html import write_report

    return write_report(record, out)


def _results(results: dict, out: Path, command: Optional[str]) -> Path:
    from ..experiment.record import one_scenario_record
    from .html import write_report

    return write_report(one_scenario_record(results, command=None), out)


def _rota(record: dict, out: Path, command: Optional[str]) -> Path:
    from .rota_page import write_rota_report

    return write_rota_report(out, record, command)


def _plan(record: dict, out: Path, command: Optional[str]) -> Path:
    from ..planning.report import write_plan_report

    return write_plan_report(out, record, command)


def _whatif(record: dict, out: Path, command: Optional[str]) -> Path:
    from ..planning.report import write_whatif_report

    return write_whatif_report(out, record, command)


def _doe(record: dict, out: Path, command: Optional[str]) -> Path:
    from ..planning.doe import pareto_chart
    from ..planning.report import write_doe_report

    return write_doe_report(out, record, command, pareto_chart(record, record["response"], record["response_unit"]))


def _usl(result: dict, out: Path, command: Optional[str]) -> Path:
    from .scalability import write_usl_report

    return write_usl_report(out, result, command)


def _usl_check(result: dict, where: str) -> None:
    from .scalability import usl_fit_of

    usl_fit_of(result, where)


def _balance(figures: dict, out: Path, command: Optional[str]) -> Path:
    from .busiest_page import write_busiest_report

    return write_busiest_report(out, figures, command)


def _balance_check(figures: dict, where: str) -> None:
    from .busiest_page import busiest_of

    busiest_of(figures, where)


def _talk_instead(record: dict) -> str:
    again = record.get("command") or "brewput lab talk --report DIR"
    return ("it keeps each point's figures, not the lab's intervals and this machine's CPUs its page shows: "
            f"run its command again, {again}")


def _rota_export_instead(plan: dict) -> str:
    return ("it keeps the rota but not the day's times, rates and objectives its page draws: redraw the "
            "record.json that plan --rota ... --report DIR writes")


#: Every kind, the first that holds a document is its kind (so a kind whose keys another's
#: hold comes before it).
KINDS = (
    Kind("an experiment record", frozenset({"brewput"}), _experiment, check=check_record),
    Kind("a results dict", frozenset({"engine", "classes"}), _results, check=check_results),
    Kind("a planned rota (plan --rota --report DIR's record.json)",
         frozenset({"method", "station", "intervals", "objectives", "rates", "time_unit"}), _rota),
    Kind("a rota as plan --rota -o or --json writes it", frozenset({"method", "station", "intervals", "server_hours"}),
         instead=_rota_export_instead),
    Kind("a plan (plan --report DIR's record.json, or plan -o)",
         frozenset({"options", "vary", "objectives", "chosen"}), _plan),
    Kind("a plan per scenario (plan --scenario --report DIR's record.json, or plan -o)",
         frozenset({"plans", "scenarios", "vary"}), _plan),
    Kind("a what-if (whatif --report DIR's record.json, or whatif -o)", frozenset({"cases", "classes", "stations"}),
         _whatif),
    Kind("an experiment of doe (doe --report DIR's record.json, or doe -o)",
         frozenset({"factors", "design", "responses", "coefficients", "response", "response_unit"}), _doe),
    Kind("a fit of the USL (fit usl --report DIR's record.json, or fit usl -o)",
         frozenset({"source", "n", "x", "open_loop", "points", "sigma", "kappa", "lambda"}), _usl, check=_usl_check),
    Kind("the busiest of centres (balance --report DIR's record.json)",
         frozenset({"centres", "mean", "sigma", "exact", "approximations", "simulated"}), _balance,
         check=_balance_check),
    Kind("the talk beside brewput (lab talk --report DIR's record.json, or lab talk -o)",
         frozenset({"title", "source", "rows"}), instead=_talk_instead),
)


def kind_of(document) -> Optional[Kind]:
    if not isinstance(document, dict):
        return None
    if "brewput" in document and document["brewput"] != "experiment":
        return None
    return next((kind for kind in KINDS if kind.holds(document)), None)
