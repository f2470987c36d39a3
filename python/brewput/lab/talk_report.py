"""What `brewput lab talk` shows: per talk's table, a throughput and a latency table
(its figure, the model's and the relative error, and the lab's measurement when
asked), printed and on the report page as the same Grids, and the chart of throughput against CPUs per
implementation (the talk solid, predicted dashed, measured dotted)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ..figures import number, signed_percent
from ..measured import LEVEL_TEXT, concluded, is_inside
from ..report.grid import Grid
from ..report.spec import Chart, Line, Panel, color, marker
from .options import LIMITS
from .table import measured_cell, median_ci_ms, relative_error, throughput_ci_per_s
from .talk_compare import Comparison

# What varies along each table's rows beside the implementation (the talk's own layout).
KEYS = {"varycpu": ("cpus", lambda r: r.maxprocs), "jitter": ("jitter ms", lambda r: r.jitter_ms),
        "multi": ("customers", lambda r: r.par), "overload": ("customers", lambda r: r.par)}
TITLES = {"varycpu": "varycpu (customers = CPUs)", "jitter": "jitter (6 CPUs, stages ± J/2)",
          "multi": "multi (6 CPUs)", "overload": "overload (6 CPUs)"}
NO_MODEL = "no model"
SOURCE = "github.com/Sajmani/dotgo, coffee/ at cd10902 (2017-11-04), kept in examples/data/talk"
ERROR_NOTE = ("talk vs model = (talk - model) / model{lab}. The talk's latency starts when a worker takes the order "
              "(time in its request queue is not counted), brewput's when the customer orders: the same where "
              "customers = CPUs (nobody waits for a worker), not beyond.")
FIGURES = (("thru_per_s", "throughput, lattes/s"), ("p50_ms", "median latency, ms"))
# Each figure's interval in a lab measurement's results.
INTERVALS = {"thru_per_s": throughput_ci_per_s, "p50_ms": median_ci_ms}


def talk_grids(comparisons: Sequence[Comparison], measured: bool) -> List[Grid]:
    """Two Grids per table (throughput, then median latency), in the order the comparisons came."""
    grids: Dict[tuple, Grid] = {}
    for c in comparisons:
        for figure, title in FIGURES:
            if (c.table, figure) not in grids:
                lab = ["lab", "lab vs model"] if measured else []
                grids[c.table, figure] = Grid(f"{TITLES[c.table]}: {title}",
                                              ["implementation", KEYS[c.table][0], "talk", "model", "talk vs model",
                                               *lab])
            grids[c.table, figure].rows.append(_row(c, figure, measured))
    return list(grids.values())


def _row(c: Comparison, figure: str, measured: bool) -> List[str]:
    talk = getattr(c.talk, figure)
    model = None if c.predicted is None else getattr(c.predicted, figure)
    cells = [c.talk.mode, number(KEYS[c.table][1](c.talk)), number(talk), NO_MODEL if model is None else number(model),
             _error(talk, model)]
    if measured:
        lab = None if c.measured is None else getattr(c.measured, figure)
        ci = None if c.lab_results is None else INTERVALS[figure](c.lab_results)
        # The lab ± its interval, and its error against the model marked * when the model lies outside it.
        outside = "*" if is_inside(ci, model) is False else ""
        cells += ["-" if lab is None else measured_cell(lab, ci, None), _error(lab, model) + outside]
    return cells


def _error(value: Optional[float], model: Optional[float]) -> str:
    error = relative_error(value, model)
    return "" if error is None else signed_percent(error)


def talk_notes(comparisons: Sequence[Comparison], machine_cpus: Optional[int]) -> List[str]:
    """The lines under the tables: how to read them, and what was not measured and why."""
    notes = [ERROR_NOTE.format(lab="" if machine_cpus is None else ", lab vs model = (lab - model) / model")]
    missing = sorted({c.talk.mode for c in comparisons if c.predicted is None})
    if missing:
        notes.append(f"No model in examples/coffee (nor a lab implementation) for {', '.join(missing)}: "
                     "their rows show the talk's figures alone.")
    if machine_cpus is not None:
        over = sorted({c.talk.maxprocs for c in comparisons if c.talk.maxprocs > machine_cpus})
        measured = sorted({c.talk.maxprocs for c in comparisons if c.measured is not None})
        text = (f"lab: measured at {_counts(measured)} on this machine ({machine_cpus} CPUs)" if measured
                else f"lab: nothing measured on this machine ({machine_cpus} CPUs)")
        if over:
            text += f"; {_counts(over)} are model only here (a larger machine measures them)"
        crowded = sorted({c.talk.par for c in comparisons if c.talk.par > LIMITS["par"].high})
        if crowded:
            text += f"; {', '.join(f'{p:,}' for p in crowded)} customers are beyond the lab's limit"
        if measured:
            text += (f"; lab ± its {LEVEL_TEXT} interval over the repetitions, * where the model lies outside "
                     "it")
        if any(c.unmeasured == "interrupted" for c in comparisons):
            text += "; interrupted by Ctrl-C at the last row, the points after it not shown"
        notes.append(concluded(_busiest(comparisons), text + "."))
    return notes


def _busiest(comparisons: Sequence[Comparison]) -> Optional[float]:
    from .show import busiest

    return busiest({"scenarios": [{"engine": "lab", "results": c.lab_results}
                                  for c in comparisons if c.lab_results is not None]})


def _counts(values: List[int]) -> str:
    """`[3, 4, 5, 6]` -> `3-6 CPUs`, `[1]` -> `1 CPU`."""
    if len(values) > 1 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]} CPUs"
    return ", ".join(map(str, values)) + (" CPU" if values == [1] else " CPUs")


def throughput_chart(comparisons: Sequence[Comparison]) -> Optional[Chart]:
    """Throughput against CPUs (the varycpu table), a panel per family of implementations,
    a colour per implementation: the talk solid, brewput's model dashed, the lab dotted."""
    from ..report.labels import end_labels

    rows = [c for c in comparisons if c.table == "varycpu"]
    if not rows:
        return None
    modes = list(dict.fromkeys(c.talk.mode for c in rows))
    panels: Dict[str, Panel] = {}
    for mode in modes:
        mine = sorted((c for c in rows if c.talk.mode == mode), key=lambda c: c.talk.maxprocs)
        family = _family(mode)
        panel = panels.setdefault(family, Panel(family, "cpus", "lattes per second",
                                                engines=[("solid", "talk"), ("dash", "brewput's model"),
                                                         ("dot", "the lab")]))
        i = len({line.group for line in panel.items})   # a colour per implementation within its panel
        cpus = [c.talk.maxprocs for c in mine]
        for label, dash, values in (("talk", "solid", [c.talk.thru_per_s for c in mine]),
                                    ("model", "dash", [c.predicted and c.predicted.thru_per_s for c in mine]),
                                    ("lab", "dot", [c.measured and c.measured.thru_per_s for c in mine])):
            if any(v is not None for v in values):
                panel.items.append(Line(f"{mode} {label}", cpus, values, color(i), dash=dash, marker=marker(i),
                                        group=mode))
    for panel in panels.values():
        panel.x_ticks = [(k, str(k)) for k in sorted({x for line in panel.items for x in line.x})]
        panel.labels = end_labels(panel.items)
    return Chart("talk_throughput", "Throughput against CPUs: the talk, brewput's model and the lab",
                 "Each implementation in its colour: the talk's published figure solid, brewput's simulated "
                 "model dashed, the lab's measurement on this machine dotted (where measured).",
                 list(panels.values()))


def _family(mode: str) -> str:
    """The panel a mode is drawn in: its name without the number (multi-N), or the locks."""
    head, _, number_part = mode.rpartition("-")
    return f"{head}-N" if head and number_part.isdigit() else "one kitchen"


def write_talk_page(out_dir: Path, comparisons: Sequence[Comparison], grids: Sequence[Grid], notes: Sequence[str],
                    command: Optional[str]) -> Path:
    from ..report.grid import grids_html
    from ..report.page import write_page

    chart = throughput_chart(comparisons)
    record = talk_record(comparisons, command)
    return write_page(out_dir, record["title"], f"the talk's measurements: {record['source']}",
                      [chart] if chart else [], grids_html(grids), record, command, notes)


def talk_record(comparisons: Sequence[Comparison], command: Optional[str]) -> dict:
    """What the command computed, as -o FILE.json and the page's record.json hold it."""
    return {"title": "The talk's published tables beside brewput", "command": command, "source": SOURCE,
            "rows": [c.to_dict() for c in comparisons]}


def write_talk_file(path: Path, comparisons: Sequence[Comparison], command: Optional[str]) -> Path:
    """-o: the record as .json, or a flat row per point as .csv or .parquet (the formats
    experiment/record.py writes, checked by its check_path before the run)."""
    import json

    import pandas as pd

    from ..errors import BrewputError

    path = Path(path)
    try:
        if path.suffix.lower() == ".json":
            path.write_text(json.dumps(talk_record(comparisons, command), indent=1) + "\n", encoding="utf-8")
            return path
        flat = pd.DataFrame([_flat(c) for c in comparisons])
        if path.suffix.lower() == ".csv":
            flat.to_csv(path, index=False)
        else:
            flat.to_parquet(path, index=False)
    except OSError as e:
        raise BrewputError(f"{path}: cannot write: {e.strerror or e}") from None
    return path


def _flat(c: Comparison) -> dict:
    row = {"table": c.table, "mode": c.talk.mode, "cpus": c.talk.maxprocs, "par": c.talk.par,
           "jitter_ms": c.talk.jitter_ms, "talk_throughput_per_s": c.talk.thru_per_s, "talk_p50_ms": c.talk.p50_ms}
    for engine, figures in (("predicted", c.predicted), ("measured", c.measured)):
        row[f"{engine}_throughput_per_s"] = None if figures is None else figures.thru_per_s
        row[f"{engine}_p50_ms"] = None if figures is None else figures.p50_ms
    return row
