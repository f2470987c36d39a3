"""The tables of a results dict: per class, per station, per resource, the
bounds, and `brewput compare` (text_table.py: printed without rich unless on a
terminal). Every header names its unit (units.py): times in the model's unit,
throughputs per second (or per the model's unit when slower)."""
from __future__ import annotations

from typing import Optional, Sequence

from ..figures import count, number, signed_percent, with_ci
from ..units import Display
from .text_table import Table


def figure(holder: dict, key: str, scale: float = 1.0) -> str:
    """A figure of a results dict, scaled into the unit shown, with its confidence
    interval when it has one worth showing."""
    value, ci = holder.get(key), holder.get(f"{key}_ci")
    if value is None:
        return number(None)
    return with_ci(value * scale, None if ci is None or None in ci else [v * scale for v in ci])


def exactness(holder: dict) -> str:
    """For analytic results: `exact (method)` or `≈ method`."""
    return f"exact ({holder['method']})" if holder["exact"] else f"≈ {holder['method']}"


def _table(title: str, columns: Sequence[str], left: int = 1) -> Table:
    """A table whose first `left` columns are names (left-aligned), the rest figures."""
    table = Table(title=title, title_justify="left")
    for k, column in enumerate(columns):
        table.add_column(column, justify="left" if k < left else "right")
    return table


def class_table(res: dict) -> Table:
    shown = Display.of(res["time_unit"])
    rate, unit = shown.rate_from(res["time_unit"]), shown.time
    solved = res["engine"] == "solve"
    columns = ["class", f"throughput ({shown.per})", f"mean response ({unit})", f"p50 ({unit})",
               f"p95 ({unit})", f"p99 ({unit})"] + (["method"] if solved else [f"max ({unit})", "lost"])
    table = _table(f"{res['model']}: classes (response time: arrival to completion)", columns)
    if solved:
        table.columns[-1].justify = "left"
    for name, c in res["classes"].items():
        rt = c["response_time"]
        cells = [name, figure(c, "throughput", rate)] + [figure(rt, k) for k in ("mean", "p50", "p95", "p99")]
        cells += [exactness(c)] if solved else [number(rt["max"]), count(c["lost"])]
        table.add_row(*cells)
    return table


def station_table(res: dict) -> Table:
    """Little's law names: L customers in the station (waiting and in service), Lq
    waiting, both counts; the response time is a time."""
    shown = Display.of(res["time_unit"])
    solved = res["engine"] == "solve"
    columns = ["station", "utilization", "busy servers", "in station (L)", "waiting (Lq)",
               f"response time ({shown.time})", f"throughput ({shown.per})"] + (["method"] if solved else [])
    table = _table("stations (L, Lq: mean number of customers)", columns)
    if solved:
        table.columns[-1].justify = "left"
    rate = shown.rate_from(res["time_unit"])
    for name, s in res["stations"].items():
        cells = [figure(s, k) for k in ("utilization", "busy_servers", "queue_length", "waiting", "response_time")]
        table.add_row(name, *cells, figure(s, "throughput", rate), *([exactness(s)] if solved else []))
    return table


def class_at_station_table(res: dict) -> Table:
    """Each class at each station it visits (the station's `classes` block): its
    share of the station's figures, and its time there per visit."""
    shown = Display.of(res["time_unit"])
    rate = shown.rate_from(res["time_unit"])
    table = _table("classes at stations (per visit; the shares of L, Lq and utilization add up to the station's)",
                   ["station", "class", "utilization", "in station (L)", "waiting (Lq)",
                    f"response time ({shown.time})", f"throughput ({shown.per})"], left=2)
    for station, s in res["stations"].items():
        for name, c in (s.get("classes") or {}).items():
            table.add_row(station, name, *(figure(c, k) for k in ("utilization", "queue_length", "waiting",
                                                                  "response_time")), figure(c, "throughput", rate))
    return table


def server_type_table(res: dict) -> Table:
    """Each typed group of servers: how busy, and how many jobs of each class it served."""
    shown = Display.of(res["time_unit"])
    rate = shown.rate_from(res["time_unit"])
    classes = list(res["classes"])
    table = _table("server types (utilization: the share of the type's servers serving)",
                   ["station", "type", "utilization"] + [f"{name} served ({shown.per})" for name in classes], left=2)
    for station, s in res["stations"].items():
        for kind, t in (s.get("server_types") or {}).items():
            served = t.get("served") or {}
            cells = [with_ci(served[name] * rate, _scaled((t.get("served_ci") or {}).get(name), rate))
                     if name in served else number(None) for name in classes]
            table.add_row(station, kind, figure(t, "utilization"), *cells)
    return table


def lost_table(res: dict) -> Table:
    """The share of each class's arrivals lost, per reason."""
    reasons = list(dict.fromkeys(r for c in res["classes"].values() for r in c.get("loss_probability_by") or {}))
    table = _table("lost customers (% of arrivals)", ["class", *reasons, "all reasons"])
    for name, c in res["classes"].items():
        by, cis = c.get("loss_probability_by") or {}, c.get("loss_probability_by_ci") or {}
        cells = [with_ci(by[r] * 100, _scaled(cis.get(r), 100)) if r in by else number(None) for r in reasons]
        table.add_row(name, *cells, figure(c, "loss_probability", 100))
    return table


def measure_table(res: dict) -> Table:
    """Each class's measures between marks, like its response time."""
    unit = Display.of(res["time_unit"]).time
    table = _table("measures (time between marks)", ["class", "measure", f"mean ({unit})", f"p50 ({unit})",
                                                     f"p95 ({unit})", f"p99 ({unit})", "customers"], left=2)
    for name, c in res["classes"].items():
        for measure, times in (c.get("measures") or {}).items():
            measured = (c.get("measures_count") or {}).get(measure)
            table.add_row(name, measure, *(figure(times, k) for k in ("mean", "p50", "p95", "p99")),
                          number(None) if measured is None else count(measured))
    return table


def _scaled(pair, scale: float):
    return None if pair is None or None in pair else [v * scale for v in pair]


def service_level_table(res: dict) -> Table:
    """The quantiles and service levels P(time <= t) a run asked for (percentiles.py),
    of each class's waiting and response times; for solve, how each law is known."""
    from ..percentiles import name

    unit, asked = res["time_unit"], res["asked"]
    solved = res["engine"] == "solve"
    keys = [name(p) for p in asked["quantiles"]]
    columns = ["class", "time", *(f"{key} ({unit})" for key in keys),
               *(f"P(<= {number(t)} {unit})" for t in asked["within"])] + (["law"] if solved else [])
    table = _table(f"{res['model']}: quantiles and service levels", columns, left=2)
    if solved:
        table.columns[-1].justify = "left"
    for class_name, c in res["classes"].items():
        for label, block in (("wait", c["waiting_time"]), ("response", c["response_time"])):
            shares = dict(enumerate(block.get("within") or ()))
            cis = block.get("within_ci") or [None] * len(shares)
            levels = [with_ci(shares[k][1], cis[k]) if k in shares and shares[k][1] is not None else number(None)
                      for k in range(len(asked["within"]))]
            law = c.get("law")
            table.add_row(class_name, label, *(figure(block, key) for key in keys), *levels,
                          *([("not known" if law is None else exactness(law))] if solved else []))
    return table


def resource_table(res: dict) -> Table:
    table = _table("resources", ("resource", "utilization", "in use (tokens)"))
    for name, r in res["resources"].items():
        table.add_row(name, figure(r, "utilization"), figure(r, "in_use"))
    return table


def interval(pair, scale: float = 1.0) -> str:
    if pair is None:
        return "-"
    low, high = (None if v is None else v * scale for v in pair)
    return f"{number(low) if low is not None else '…'} .. {number(high) if high is not None else '…'}"


def bounds_table(res: dict) -> Table:
    """Bottleneck, saturation population and the bounds of each class (analytic results)."""
    shown = Display.of(res["time_unit"])
    rate, per, unit = shown.rate_from(res["time_unit"]), shown.per, shown.time
    table = _table("bounds (asymptotic and balanced-job, against the population)",
                   ("class", "bottleneck", f"max throughput ({per})", "saturation population N*",
                    f"throughput ({per})", f"response time ({unit})", f"balanced throughput ({per})",
                    f"balanced response ({unit})"), left=2)
    for name, b in res["bounds"].items():
        table.add_row(name, b["bottleneck"], number(None if b["max_throughput"] is None else b["max_throughput"] * rate),
                      number(b["saturation_population"]), interval(b["throughput"], rate),
                      interval(b["response_time"]), interval(b["balanced_throughput"], rate),
                      interval(b["balanced_response_time"]))
    return table


def results_tables(res: dict) -> list:
    tables = [class_table(res)]
    if res.get("asked"):
        tables.append(service_level_table(res))
    if any(c.get("loss_probability") for c in res["classes"].values()):
        tables.append(lost_table(res))
    if any(c.get("measures") for c in res["classes"].values()):
        tables.append(measure_table(res))
    tables.append(station_table(res))
    if len(res["classes"]) > 1 and any(s.get("classes") for s in res["stations"].values()):
        tables.append(class_at_station_table(res))
    if any(s.get("server_types") for s in res["stations"].values()):
        tables.append(server_type_table(res))
    if res["resources"]:
        tables.append(resource_table(res))
    if res.get("bounds"):
        tables.append(bounds_table(res))
    tables.extend(interval_tables(res))
    return tables


def interval_tables(res: dict) -> list:
    """A day's figures per interval (docs/results.md "Intervals"): per class, the
    arrivals and the waits and abandonment of those who arrived in the interval;
    per station, the servers on, their utilization and the mean number waiting."""
    unit = Display.of(res["time_unit"]).time
    tables = []
    for name in res["classes"] if res.get("intervals") else ():
        table = _table(f"{name} per interval (waits and abandonment of those who arrived in it)",
                       ["interval", "arrivals", "completions", f"mean wait ({unit})", f"p90 wait ({unit})",
                        "abandoned (%)"])
        for i in res["intervals"]:
            c = i["classes"][name]
            table.add_row(i["label"], figure(c, "arrivals"), figure(c, "completions"), figure(c["waiting_time"], "mean"),
                          figure(c["waiting_time"], "p90"), figure(c, "abandonment", 100))
        tables.append(table)
    for name in res["stations"] if res.get("intervals") else ():
        table = _table(f"{name} per interval (L, Lq: mean number of customers)",
                       ["interval", "servers on", "utilization", "busy servers", "in station (L)", "waiting (Lq)"])
        for i in res["intervals"]:
            s = i["stations"][name]
            table.add_row(i["label"], number(s["servers"]), figure(s, "utilization"), figure(s, "busy_servers"),
                          figure(s, "queue_length"), figure(s, "waiting"))
        tables.append(table)
    return tables


def comparison_table(title: str, rows, level: float, time_unit: Optional[str] = None) -> Table:
    """`brewput compare`: analytic beside simulated, figure by figure, in the model's units."""
    from rich.text import Text  # colour on a terminal; compare simulates, its import is no burden

    inside = {None: Text("-"), True: Text("yes", style="green"), False: Text("no", style="red")}
    units = "" if time_unit is None else f" (times in {time_unit}, throughputs per {time_unit})"
    table = _table(title + units, ("figure", "solve", f"simulate ({level:.0%} CI)",
                                   "solve − simulate (% of simulate)", f"solve in {level:.0%} CI"))
    for row in rows:
        analytic = number(row.analytic) + ("" if row.exact else f" (≈ {row.method})")
        table.add_row(row.figure, analytic, with_ci(row.simulated, row.ci), signed_percent(row.relative_difference),
                      inside[row.inside])
    return table
