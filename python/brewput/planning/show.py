"""Plans and what-ifs as a manager reads them: a plan's options with their
figures and costs, the chosen one marked, then the simulation that confirms
it; a what-if's cases beside the model as it is, with the change in each
figure. Prints through the console it is given."""
from __future__ import annotations

from typing import List, Optional

from ..figures import number
from ..units import SECONDS, rate_unit


def figure_text(kind: str, value: Optional[float], time_unit: str) -> str:
    """A figure in the model's time unit (times), as a percentage (shares) or per second or hour (rates)."""
    if value is None:
        return "-"
    if kind == "time":
        return f"{number(value)} {time_unit}"
    if kind == "share":
        return f"{value:.1%}"
    shown = rate_unit(time_unit)
    return f"{number(value * SECONDS[shown] / SECONDS[time_unit])}/{shown}"


def _values(values: dict) -> str:
    return ", ".join(f"{name}={number(value)}" for name, value in values.items())


def shown_options(record: dict, most: int) -> List[int]:
    """All options when they are few; else the chosen one, the option just
    below it and the cheapest others that meet every objective, in order."""
    options = record["options"]
    if len(options) <= most:
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


def print_plan(console, record: dict, shown: int) -> None:
    from rich.table import Table

    unit = record["time_unit"]
    priced = bool(record["costs"])
    rows = shown_options(record, shown)
    title = f"{record['model']}: options against {', '.join(record['objectives'])}"
    if len(rows) < len(record["options"]):
        title += f" ({len(rows)} of {len(record['options'])} shown; -o FILE keeps all)"
    table = Table(title=title, title_justify="left")
    for name in record["vary"]:
        table.add_column(name, justify="right")
    table.add_column("engine")
    for text in record["objectives"]:
        table.add_column(text, justify="right")
    if priced:
        years, rate = record["years"], record["discount_rate"]
        table.add_column("purchase", justify="right")
        table.add_column("running a year", justify="right")
        table.add_column(f"present value ({years} y at {rate:.0%})", justify="right")
    else:
        table.add_column("units", justify="right")
    shrinkage = record["shrinkage"]
    if shrinkage:
        table.add_column(f"scheduled (+{shrinkage:.0%} shrinkage)", justify="right")
    table.add_column("")
    for i in rows:
        option = record["options"][i]
        cells = [number(v) for v in option["values"].values()]
        cells.append(option["engine"] + ("" if option["exact"] else " (approx.)"))
        if option["problem"]:
            cells += [_short(option["problem"])] * len(record["objectives"])
        else:
            cells += [f"{figure_text(f['kind'], f['figure'], unit)} {'ok' if f['held'] else 'NO'}"
                      for f in option["figures"]]
        if priced:
            cells += [number(option["purchase"]), number(option["running"]), number(option["cost"])]
        else:
            cells.append(number(option["cost"]))
        if shrinkage:
            cells.append(_values(option["scheduled"]))
        cells.append("<- chosen" if i == record["chosen"] else "")
        table.add_row(*cells)
    console.print(table)
    if record["confirmed"]:
        print_confirmed(console, record)
    if record["chosen"] is not None:
        console.print(summary(record))


def _short(problem: str) -> str:
    """A problem in a cell: `unstable` for an open model with no steady state
    (the whole message is in the JSON), else its first clause."""
    return "unstable" if "unstable" in problem else problem.split(";")[0]


def print_confirmed(console, record: dict) -> None:
    from rich.table import Table

    unit = record["time_unit"]
    table = Table(title="Confirmed by simulation (95 % intervals)", title_justify="left")
    table.add_column("option")
    for text in record["objectives"]:
        table.add_column(text, justify="right")
    for confirmed in record["confirmed"]:
        cells = [_values(confirmed["values"])]
        for f in confirmed["figures"]:
            interval = "" if f["interval"] is None else " [" + ", ".join(
                figure_text(f["kind"], end, unit) for end in f["interval"]) + "]"
            cells.append(f"{figure_text(f['kind'], f['figure'], unit)}{interval} {f['verdict']}")
        table.add_row(*cells)
    console.print(table)


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


def print_whatif(console, record: dict) -> None:
    from rich.table import Table

    from .whatif import change

    unit = record["time_unit"]
    base = record["cases"][0]
    table = Table(title=f"{record['model']}: what if (change from the model as it is)", title_justify="left")
    table.add_column("case")
    table.add_column("engine")
    columns = [("classes", c, "mean", "time", f"{c} mean") for c in record["classes"]]
    columns += [("classes", c, "p95", "time", f"{c} p95") for c in record["classes"]]
    columns += [("stations", s, "utilization", "share", f"{s} utilization") for s in record["stations"]]
    for *_, header in columns:
        table.add_column(header, justify="right")
    for row in record["cases"]:
        cells = [row["name"], "-" if row["engine"] is None else row["engine"] + ("" if row["exact"] else
                                                                                 " (approx.)")]
        for kind, part, figure, shape, _ in columns:
            if row["problem"]:
                cells.append(_short(row["problem"]))
                continue
            value = row[kind].get(part, {}).get(figure)
            if part not in row[kind]:
                cells.append("pooled" if kind == "stations" else "-")
                continue
            delta = None if row is base else change(value, base[kind].get(part, {}).get(figure))
            cells.append(figure_text(shape, value, unit) + ("" if delta is None else f" ({delta:+.1%})"))
        table.add_row(*cells)
    console.print(table)


def print_doe(console, record: dict) -> None:
    from rich.table import Table

    names = [f["name"] for f in record["factors"]]
    runs = Table(title=f"{record['model']}: {len(record['design'])} runs x {record['replications']} replications, "
                       f"response {record['response']}", title_justify="left")
    runs.add_column("run", justify="right")
    for name in names:
        runs.add_column(name, justify="right")
    unit = f" ({record['response_unit']})" if record["response_unit"] else ""
    runs.add_column(f"mean {record['response']}{unit}", justify="right")
    for i, (row, responses) in enumerate(zip(record["design"], record["responses"]), start=1):
        levels = [number(f["low"] if c < 0 else f["high"]) for f, c in zip(record["factors"], row)]
        runs.add_row(str(i), *levels, number(sum(responses) / len(responses)))
    console.print(runs)
    for group in record["aliases"]:
        console.print("aliased: " + " = ".join(("-" if sign < 0 else "") + term for term, sign in group)
                      + f" (estimated as {group[0][0]})")
    table = Table(title="Coefficients (factors coded -1 low, +1 high)", title_justify="left")
    for header in ("", "Estimate", "Std. Error", "t value", "Pr(>|t|)", ""):
        table.add_column(header, justify="left" if header == "" else "right")
    for c in record["coefficients"]:
        p = c["p"]
        table.add_row(c["term"], f"{c['estimate']:.6g}", "-" if c["std_error"] is None else f"{c['std_error']:.6g}",
                      "-" if c["t"] is None else f"{c['t']:.3f}", "-" if p is None else f"{p:.3g}",
                      "" if p is None else _stars(p))
    console.print(table)
    console.print("Signif. codes: 0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1")
    if record["residual_std_error"] is not None:
        console.print(f"Residual standard error: {record['residual_std_error']:.4g} on {record['residual_dof']} "
                      f"degrees of freedom; R-squared {record['r_squared']:.4f}, adjusted "
                      f"{record['adjusted_r_squared']:.4f}")
    console.print(f"{record['response']} = {record['equation']}", soft_wrap=True)


def _stars(p: float) -> str:
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "." if p < 0.1 else ""
