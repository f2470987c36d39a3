"""Plans, what-ifs and experiments as a manager reads them. Each table is built
once, as text cells (`Grid`), and then printed through a rich console or put on
an HTML page (report.py; report/grid.py), so that the terminal and the report never disagree:

- a plan's options with their figures and costs, the chosen one marked, then
  the simulation that confirms it;
- a what-if's cases beside the model as it is, with the change in each figure;
- an experiment's runs, its aliases and its coefficients in R's shape.
"""
from __future__ import annotations

from typing import List, Optional, Tuple, Union

from ..figures import number
from ..report.grid import Grid
from ..units import SECONDS, TYPED_SECONDS, rate_unit


def in_unit(kind: str, value: float, time_unit: str, unit: str = "") -> Tuple[float, str]:
    """A figure of a model in `time_unit` as (number, unit) in `unit`, the one its
    objective was written in (slo.Objective.unit): a time's, `%` or `fraction`, `/s`.
    Without one: times in the model's unit, shares as percentages, rates per second
    or per the model's unit (units.rate_unit)."""
    if kind == "time":
        shown = unit or time_unit
        return value * SECONDS[time_unit] / TYPED_SECONDS[shown], shown
    if kind == "share":
        return (value, "") if unit == "fraction" else (value * 100, "%")
    shown = "s" if unit == "/s" else rate_unit(time_unit)
    return value * SECONDS[shown] / SECONDS[time_unit], f"/{shown}"


def figure_text(kind: str, value: Optional[float], time_unit: str, unit: str = "") -> str:
    """A figure as `in_unit` gives it, with its unit: `17.12 s`, `76.9%`, `0.0031`, `12/s`."""
    if value is None:
        return "-"
    shown, word = in_unit(kind, value, time_unit, unit)
    if kind == "share" and word == "%":
        return f"{value:.1%}"
    return f"{number(shown)}{' ' if kind == 'time' else ''}{word}"


def objective_units(record: dict) -> List[str]:
    """The unit each objective of a plan was written in ("" in a record from before they were kept)."""
    return record.get("objective_units") or [""] * len(record["objectives"])


def _values(values: dict) -> str:
    return ", ".join(f"{name}={number(value)}" for name, value in values.items())


def _short(problem: str) -> str:
    """A problem in a cell: `unstable` for an open model with no steady state
    (the whole message is in the JSON), else its first clause."""
    return "unstable" if "unstable" in problem else problem.split(";")[0]


# The plan.

def shown_options(record: dict, most: Optional[int]) -> List[int]:
    """All options when they are few (or `most` is None); else the chosen one, the
    option just below it and the cheapest others that meet every objective, in order."""
    options = record["options"]
    if most is None or len(options) <= most:
        return list(range(len(options)))
    picked = set() if record["chosen"] is None else {record["chosen"]}
    picked |= {i for i, o in enumerate(options) if any(o["values"] == c["values"] for c in record["confirmed"])}
    meeting = sorted((o["cost"], i) for i, o in enumerate(options) if o["meets"])
    for _, i in meeting:
        if len(picked) >= most:
            break
        picked.add(i)
    if not picked:  # nothing meets: the options that come closest are the largest ones
        picked = set(range(len(options) - most, len(options)))
    return sorted(picked)


def options_grid(record: dict, most: Optional[int]) -> Grid:
    unit = record["time_unit"]
    written = objective_units(record)
    priced = bool(record["costs"])
    shrinkage = record["shrinkage"]
    rows = shown_options(record, most)
    title = f"{record['model']}: options against {', '.join(record['objectives'])}"
    if len(rows) < len(record["options"]):
        title += f" ({len(rows)} of {len(record['options'])} shown; -o FILE keeps all)"
    columns = [*record["vary"], "engine", *record["objectives"]]
    if priced:
        columns += ["purchase", "running a year",
                    f"present value ({record['years']} y at {record['discount_rate']:.0%})"]
    else:
        columns.append("units")
    if shrinkage:
        columns.append(f"scheduled (+{shrinkage:.0%} shrinkage)")
    grid = Grid(title, columns + [""], left=0)
    for i in rows:
        option = record["options"][i]
        cells = [number(v) for v in option["values"].values()]
        cells.append(option["engine"] + ("" if option["exact"] else " (approx.)"))
        if option["problem"]:
            cells += [_short(option["problem"])] * len(record["objectives"])
        else:
            cells += [f"{figure_text(f['kind'], f['figure'], unit, shown)} {'ok' if f['held'] else 'NO'}"
                      for f, shown in zip(option["figures"], written)]
        if priced:
            cells += [number(option["purchase"]), number(option["running"]), number(option["cost"])]
        else:
            cells.append(number(option["cost"]))
        if shrinkage:
            cells.append(_values(option["scheduled"]))
        cells.append("<- chosen" if i == record["chosen"] else "")
        grid.rows.append(cells)
    return grid


def confirmed_grid(record: dict) -> Grid:
    unit = record["time_unit"]
    grid = Grid("Confirmed by simulation (95 % intervals)", ["option", *record["objectives"]])
    for confirmed in record["confirmed"]:
        cells = [_values(confirmed["values"])]
        for f, shown in zip(confirmed["figures"], objective_units(record)):
            interval = "" if f["interval"] is None else " [" + ", ".join(
                figure_text(f["kind"], end, unit, shown) for end in f["interval"]) + "]"
            cells.append(f"{figure_text(f['kind'], f['figure'], unit, shown)}{interval} {f['verdict']}")
        grid.rows.append(cells)
    return grid


def plan_grids(record: dict, most: Optional[int]) -> List[Grid]:
    """A plan's tables; a plan per scenario's: the answers, then each scenario's options (`most` None: all)."""
    if "plans" in record:
        return [scenarios_grid(record), *(grid for one in scenario_records(record)
                                          for grid in plan_grids(one, most))]
    return [options_grid(record, most)] + ([confirmed_grid(record)] if record["confirmed"] else [])


def plan_shown(record: dict, shown: int) -> List[Union[Grid, str]]:
    """What `brewput plan` prints: its tables, then the chosen option in a line; with
    scenarios, the one table of each scenario's answer (-o and --report keep the options)."""
    if "plans" in record:
        return [scenarios_grid(record)]
    return [*plan_grids(record, shown), *([summary(record)] if record["chosen"] is not None else [])]


# A plan per scenario.

def scenario_label(scenario: dict) -> str:
    return _values(scenario)


def scenario_records(record: dict) -> List[dict]:
    """Each scenario's plan as a plan's record of its own (the model named with its scenario)."""
    shared = {k: v for k, v in record.items() if k not in ("plans", "scenarios")}
    return [{**shared, **{k: v for k, v in one.items() if k != "scenario"},
             "model": f"{record['model']} at {scenario_label(one['scenario'])}"} for one in record["plans"]]


def unanswered(record: dict) -> List[str]:
    """The scenarios under which no option meets every objective."""
    return [scenario_label(one["scenario"]) for one in record["plans"] if one["chosen"] is None]


def scenarios_grid(record: dict) -> Grid:
    """One row per scenario: its cheapest option, the option's figures and cost,
    and whether simulation confirms it; or that no option meets every objective."""
    unit = record["time_unit"]
    priced = bool(record["costs"])
    shrinkage = record["shrinkage"]
    costs = ["purchase", "running a year", f"present value ({record['years']} y at {record['discount_rate']:.0%})"] \
        if priced else ["units"]
    columns = [*record["scenarios"], *record["vary"], "engine", *record["objectives"], *costs]
    if shrinkage:
        columns.append(f"scheduled (+{shrinkage:.0%} shrinkage)")
    grid = Grid(f"{record['model']}: the cheapest option for each scenario of "
                f"{', '.join(record['scenarios'])}, against {', '.join(record['objectives'])}",
                [*columns, "confirmed"], left=0)
    for one in record["plans"]:
        cells = [number(v) for v in one["scenario"].values()]
        if one["chosen"] is None:
            grid.rows.append(cells + ["-"] * (len(columns) - len(cells)) + ["no option meets every objective"])
            continue
        option = one["options"][one["chosen"]]
        cells += [number(v) for v in option["values"].values()]
        cells.append(option["engine"] + ("" if option["exact"] else " (approx.)"))
        cells += [figure_text(f["kind"], f["figure"], unit, shown)
                  for f, shown in zip(option["figures"], objective_units(record))]
        cells += [number(option["purchase"]), number(option["running"]), number(option["cost"])] if priced \
            else [number(option["cost"])]
        if shrinkage:
            cells.append(_values(option["scheduled"]))
        grid.rows.append(cells + [_confirmed(one["confirmed"])])
    return grid


def _confirmed(confirmed: List[dict]) -> str:
    """Whether simulation confirms a scenario's chosen option: every objective held
    within its 95 % interval, or which were not."""
    if not confirmed:
        return "not simulated"
    first = confirmed[0]
    if first["meets"]:
        return "yes"
    return "not: " + ", ".join(f"{f['slo']} {f['verdict']}" for f in first["figures"] if f["verdict"] != "held")


def summary(record: dict) -> str:
    option = record["options"][record["chosen"]]
    if record["costs"]:
        cost = (f"present value {number(option['cost'])} over {record['years']} years at "
                f"{record['discount_rate']:.0%} (purchase {number(option['purchase'])}, running "
                f"{number(option['running'])} a year)")
    else:
        cost = f"{number(option['cost'])} units"
    line = f"chosen: {_values(option['values'])}, {cost}"
    if record["shrinkage"]:
        line += f", {_values(option['scheduled'])} scheduled"
    if record["confirmed"]:
        first = record["confirmed"][0]
        if first["meets"]:
            line += "; confirmed: every objective held within its 95 % interval"
        else:
            doubtful = [f["slo"] for f in first["figures"] if f["verdict"] != "held"]
            line += f"; simulation does not confirm {', '.join(doubtful)} (see the intervals)"
    return line


# The what-if.

def whatif_grid(record: dict) -> Grid:
    from .whatif import change

    unit = record["time_unit"]
    base = record["cases"][0]
    columns = [("classes", c, "mean", "time", f"{c} mean") for c in record["classes"]]
    columns += [("classes", c, "p95", "time", f"{c} p95") for c in record["classes"]]
    columns += [("stations", s, "utilization", "share", f"{s} utilization") for s in record["stations"]]
    grid = Grid(f"{record['model']}: what if (change from the model as it is)",
                ["case", "engine", *(header for *_, header in columns)], left=2)
    for row in record["cases"]:
        cells = [row["name"], "-" if row["engine"] is None else row["engine"] + ("" if row["exact"] else
                                                                                 " (approx.)")]
        for kind, part, figure, shape, _ in columns:
            if row["problem"]:
                cells.append(_short(row["problem"]))
            elif part not in row[kind]:
                cells.append("pooled" if kind == "stations" else "-")
            else:
                value = row[kind][part].get(figure)
                delta = None if row is base else change(value, base[kind].get(part, {}).get(figure))
                cells.append(figure_text(shape, value, unit) + ("" if delta is None else f" ({delta:+.1%})"))
        grid.rows.append(cells)
    return grid


def whatif_shown(record: dict) -> List[Union[Grid, str]]:
    return [whatif_grid(record)]


# The experiment.

def runs_grid(record: dict) -> Grid:
    unit = f" ({record['response_unit']})" if record["response_unit"] else ""
    grid = Grid(f"{record['model']}: {len(record['design'])} runs x {record['replications']} replications, "
                f"response {record['response']}",
                ["run", *(f["name"] for f in record["factors"]), f"mean {record['response']}{unit}"], left=0)
    for i, (row, responses) in enumerate(zip(record["design"], record["responses"]), start=1):
        levels = [number(f["low"] if c < 0 else f["high"]) for f, c in zip(record["factors"], row)]
        grid.rows.append([str(i), *levels, number(sum(responses) / len(responses))])
    return grid


def coefficients_grid(record: dict) -> Grid:
    grid = Grid("Coefficients (factors coded -1 low, +1 high)",
                ["", "Estimate", "Std. Error", "t value", "Pr(>|t|)", ""])
    for c in record["coefficients"]:
        p = c["p"]
        grid.rows.append([c["term"], f"{c['estimate']:.6g}",
                          "-" if c["std_error"] is None else f"{c['std_error']:.6g}",
                          "-" if c["t"] is None else f"{c['t']:.3f}", "-" if p is None else f"{p:.3g}",
                          "" if p is None else _stars(p)])
    return grid


def doe_notes(record: dict) -> List[str]:
    """The aliases, the fit's quality and the equation: the lines under the tables."""
    notes = ["aliased: " + " = ".join(("-" if sign < 0 else "") + term for term, sign in group)
             + f" (estimated as {group[0][0]})" for group in record["aliases"]]
    notes.append("Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1")
    if record["residual_std_error"] is not None:
        notes.append(f"Residual standard error: {record['residual_std_error']:.4g} on {record['residual_dof']} "
                     f"degrees of freedom; R-squared {record['r_squared']:.4f}, adjusted "
                     f"{record['adjusted_r_squared']:.4f}")
    notes.append(f"{record['response']} = {record['equation']}")
    return notes


def doe_shown(record: dict) -> List[Union[Grid, str]]:
    """What `brewput doe` prints: the runs, the aliases, the coefficients, the fit."""
    notes = doe_notes(record)
    aliases = len(record["aliases"])
    return [runs_grid(record), *notes[:aliases], coefficients_grid(record), *notes[aliases:]]


def _stars(p: float) -> str:
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "." if p < 0.1 else ""
