"""The planning commands' reports: one HTML page each (report/page.py), with
the tables the command prints (show.py) and the charts people would rather look
at: a plan's figures against their bounds and its cost over the options, a
what-if's figures per case, an experiment's effects."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..report.page import write_page
from ..report.spec import Bars, Chart, Line, Panel, color, marker
from ..report.grid import grids_html
from .show import (coefficients_grid, doe_notes, in_unit, objective_units, plan_grids, runs_grid, scenario_label,
                   scenario_records, summary, whatif_grid)


def plan_chart(record: dict) -> Chart:
    """Each objective's figure over the options, its bound dashed, and the cost:
    where the first option that meets them all lies, and what it costs."""
    options = record["options"]
    single = len(record["vary"]) == 1
    name = next(iter(record["vary"])) if single else "option"
    x = [next(iter(o["values"].values())) if single else i + 1 for i, o in enumerate(options)]
    panels = []
    for k, (text, written) in enumerate(zip(record["objectives"], objective_units(record))):
        kind = next((o["figures"][k]["kind"] for o in options if o["figures"]), "time")

        def shown(value: Optional[float]) -> Optional[float]:
            return None if value is None else in_unit(kind, value, record["time_unit"], written)[0]

        y = [shown(o["figures"][k]["figure"]) if o["figures"] else None for o in options]
        unit = in_unit(kind, 1.0, record["time_unit"], written)[1]
        label = "" if not unit else f" (per {unit[1:]})" if unit.startswith("/") else f" ({unit})"
        bound = shown(_bound(text, record))
        panels.append(Panel(text, name, f"{text.split('<')[0].split('>')[0]}{label}", [
            Line(label="figure", x=x, y=y, color=color(k), marker=marker(k)),
            Line(label="bound", x=x, y=[bound] * len(x), color=color(k), marker=None, dash="dash")]))
    cost_label = "present value" if record["costs"] else "units"
    panels.append(Panel(cost_label, name, cost_label, [
        Line(label=cost_label, x=x, y=[o["cost"] for o in options], color=color(len(panels)),
             marker=marker(len(panels)))]))
    chosen = "" if record["chosen"] is None else f" The chosen option is {x[record['chosen']]}."
    return Chart("plan", "The options against the objectives",
                 "Each objective's figure over the options (solved, or simulated where theory does not reach), "
                 f"its bound dashed; the last panel is each option's cost.{chosen}", panels)


def _bound(text: str, record: dict) -> float:
    """An objective's bound in the record's units, read back from the options' judgement."""
    for option in record["options"]:
        for judged in option["figures"]:
            if judged["slo"] == text and "bound" in judged:
                return judged["bound"]
    return float("nan")


def whatif_chart(record: dict) -> Chart:
    """Each class's mean response time per case: the what-ifs side by side."""
    names = [row["name"] for row in record["cases"]]
    panels = []
    for k, cls in enumerate(record["classes"]):
        y = [row["classes"].get(cls, {}).get("mean") for row in record["cases"]]
        panels.append(Panel(f"{cls}: mean response time", "case", f"mean response ({record['time_unit']})",
                            [Bars(label="", categories=names, y=y, colors=[color(k)] * len(names))]))
    return Chart("whatif", "What if", "Each class's mean response time in each case; the first is the model as "
                 "it is.", panels)


def scenarios_chart(record: dict) -> Chart:
    """The cheapest option of each scenario: each decision's value and the cost, one
    bar per scenario (none where no option meets every objective)."""
    labels = [scenario_label(one["scenario"]) for one in record["plans"]]
    chosen = [None if one["chosen"] is None else one["options"][one["chosen"]] for one in record["plans"]]
    cost_label = "present value" if record["costs"] else "units"
    rows = [(name, [None if o is None else o["values"][name] for o in chosen]) for name in record["vary"]]
    rows.append((cost_label, [None if o is None else o["cost"] for o in chosen]))
    panels = [Panel(name, "scenario", name, [Bars(label="", categories=labels, y=y, colors=[color(k)] * len(y))])
              for k, (name, y) in enumerate(rows)]
    return Chart("plan", "The cheapest option for each scenario",
                 f"For each scenario of {', '.join(record['scenarios'])}, the option chosen and its cost; a "
                 "scenario with no bar has no option that meets every objective in the values tried.", panels)


def write_plan_report(out_dir, record: dict, command: Optional[str]) -> Path:
    if "plans" in record:
        notes = [f"{scenario_label(one['scenario'])}: " + (summary(alone) if one["chosen"] is not None
                                                             else "no option meets every objective.")
                 for one, alone in zip(record["plans"], scenario_records(record))]
        charts = [scenarios_chart(record)]
    else:
        notes = [summary(record)] if record["chosen"] is not None else ["No option meets every objective."]
        charts = [plan_chart(record)]
    return write_page(out_dir, f"Plan: {record['model']}", _meta(record), charts,
                      grids_html(plan_grids(record, None)), record, command, notes)


def write_whatif_report(out_dir, record: dict, command: Optional[str]) -> Path:
    return write_page(out_dir, f"What if: {record['model']}", _meta(record), [whatif_chart(record)],
                      grids_html([whatif_grid(record)]), record, command)


def write_doe_report(out_dir, record: dict, command: Optional[str], chart: Chart) -> Path:
    return write_page(out_dir, f"Experiment: {record['model']}", _meta(record), [chart],
                      grids_html([runs_grid(record), coefficients_grid(record)]), record, command,
                      doe_notes(record))


def _meta(record: dict) -> str:
    return f"model {record['model']}, times in {record['time_unit']}"

