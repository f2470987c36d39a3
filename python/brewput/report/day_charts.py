"""The charts of a day (a model with a `day:`, docs/results.md "Intervals"), described once
(spec.py) from its results per interval: the demand and the servers on against the time
of day, and per class the waits, the service levels asked and the abandonment, the
simulation's with its 95 % band beside each solved method's line.

The x axis is the model's time from the start of the day, ticked with the intervals' clock
labels (`day.start`: 08:00, 08:30, ...). A figure of an interval (a wait of those who
arrived in it, a service level) is drawn at the interval's middle; what holds through an
interval (the rate, the servers on) is drawn as steps across it.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..percentiles import name as percentile_name
from ..figures import number
from ..units import SECONDS, Display
from .day_rates import DayRate, model_rates
from .spec import Chart, Line, Panel, color, marker
from .time_of_day import TimeOfDay

#: How each method solve answers a day by is named on the charts, in the order drawn.
METHOD_NAMES = {"transient": "transient", "psa": "PSA", "sipp": "SIPP", "lag-sipp": "lagged SIPP",
                "mol": "MOL"}
#: The simulation's line name (its colour the palette's first, each method's the next).
SIMULATED = "simulate"
# What each dash of a class's chart means (the PNG's small legend).
DASHES = (("solid", "simulated (95 % band)"), ("dash", "transient"), ("dot", "approximations"))
# The quantile of the wait drawn when none was asked (--quantile): the one simulate prints per interval.
DEFAULT_QUANTILE = 90.0
# A share of arrivals given up below this is no abandonment (the transient's rounding: 1e-13).
GAVE_UP = 1e-9


def method_label(results: dict) -> str:
    """A solved day's line name: the method, said exact where every figure is (the transient
    of a rota that never falls, or whose servers hand their jobs back) and marked ≈ where any
    is approximate."""
    name = METHOD_NAMES.get(results["method"], results["method"])
    exact = all(c.get("exact", False) for i in results["intervals"] for c in i["classes"].values())
    return f"exact {name}" if exact else f"{name} ≈"


def dash_of(results: dict) -> str:
    """The simulation solid with its band; the transient dashed and the approximations dotted
    beside it (spec.beside: drawn on top, with hollow markers)."""
    if results["engine"] != "solve":
        return "solid"
    return "dash" if results["method"] == "transient" else "dot"


def time_text(t: float, unit: str) -> str:
    """A time as people write it: in the largest unit where it is a whole number (a third of
    a minute is 20 s), else in the model's unit."""
    for shown in sorted(SECONDS, key=SECONDS.get, reverse=True):
        value = t * SECONDS[unit] / SECONDS[shown]
        if value >= 1 and abs(value - round(value)) <= 1e-9 * value:
            return f"{number(round(value))} {shown}"
    return f"{number(t)} {unit}"


class Day(TimeOfDay):
    """One model's day as the charts read it: the simulation (or none) and each solved method."""

    def __init__(self, simulated: Optional[dict], solved: Sequence[dict], rates: Optional[Dict[str, DayRate]] = None):
        self.simulated = simulated
        self.rates = rates or {}   # each class's lambda(t), where the record keeps the model
        self.solved = sorted(solved, key=lambda r: list(METHOD_NAMES).index(r["method"])
                             if r["method"] in METHOD_NAMES else len(METHOD_NAMES))
        first = simulated or self.solved[0]
        super().__init__(first["intervals"], first["time_unit"])
        self.intervals = first["intervals"]
        self.classes = list(self.intervals[0]["classes"])
        self.stations = list(self.intervals[0]["stations"])

    def engines(self) -> List[Tuple[str, dict]]:
        """(line name, results) of each engine, the simulation first, with its style index."""
        named = [(SIMULATED, self.simulated)] if self.simulated else []
        return named + [(method_label(r), r) for r in self.solved]

    def figures_panel(self, title: str, y_label: str, lines: List[Line]) -> Panel:
        """A panel of engines' lines, the PNG's small legend saying what each dash drawn means."""
        drawn = {line.dash for line in lines}
        return self.panel(title, y_label, lines, [(dash, name) for dash, name in DASHES if dash in drawn]
                          if len(drawn) > 1 else [])


def _figures(intervals: Sequence[dict], read) -> Tuple[List[Optional[float]], List[Optional[float]],
                                                        List[Optional[float]]]:
    """(value, low, high) per interval of what `read` takes from an interval ((value, ci) or None)."""
    values, lows, highs = [], [], []
    for interval in intervals:
        value, ci = read(interval) or (None, None)
        values.append(value)
        lows.append(None if ci is None or ci[0] is None else ci[0])
        highs.append(None if ci is None or ci[1] is None else ci[1])
    return values, lows, highs


def _points(day: Day, label: str, k: int, dash: str, intervals, read, scale: float = 1.0,
            floor: Optional[float] = 0.0, ceiling: Optional[float] = None) -> Optional[Line]:
    """A figure per interval at the intervals' middles, with its band when simulated (solid); None
    where the engine gives none. The band is clipped to what the figure can be (a share
    from 0 to 100 %)."""
    values, lows, highs = _figures(intervals, read)
    if all(v is None for v in values):
        return None

    def scaled(seq, clip: bool):
        out = [None if v is None else v * scale for v in seq]
        if clip:
            out = [None if v is None else max(v, floor) if floor is not None else v for v in out]
            out = [None if v is None else min(v, ceiling) if ceiling is not None else v for v in out]
        return out

    band = dash == "solid" and any(v is not None for v in lows)
    # at the middles of the engine's own intervals (a simulation's --bins may differ from the model's)
    return Line(label=label, x=[(i["start"] + i["end"]) / 2 for i in intervals], y=scaled(values, False),
                points=[i["label"] for i in intervals],
                low=scaled(lows, True) if band else None, high=scaled(highs, True) if band else None,
                color=color(k), marker=marker(k), dash=dash)


def demand_chart(day: Day) -> Chart:
    """The arrival rate of each class and the servers on at each station, through the day."""
    unit = Display.of(day.time_unit)
    per = unit.rate_from(day.time_unit)   # rates per second for a model in ms, as every rate the report shows
    rate_lines, server_lines = [], []
    for c, name in enumerate(day.classes):
        many = len(day.classes) > 1
        label = f"{name} rate" if many else "rate"
        if name in day.rates:   # the model's own rate, lambda(t)
            rate = day.rates[name]
            rate_lines.append(Line(label=label, x=rate.times, y=[r * per for r in rate.rates], color=color(2 * c),
                                   marker=None, steps=rate.steps))
        elif day.solved:  # else its expected arrivals over each interval, as solve gives them
            arrivals = [i["classes"][name].get("arrivals") for i in day.solved[0]["intervals"]]
            widths = [i["end"] - i["start"] for i in day.solved[0]["intervals"]]
            rate_lines.append(day.steps(label, [None if a is None else a / w * per for a, w in zip(arrivals, widths)],
                                        2 * c, intervals=day.solved[0]["intervals"]))
        if day.simulated:
            line = _points(day, f"{name} arrivals (simulate)" if many else "arrivals (simulate)",
                           2 * c + 1, "solid", day.simulated["intervals"],
                           lambda i: _rate(i["classes"][name], (i["end"] - i["start"]) / per))
            if line is not None:
                rate_lines.append(line)
    source = day.solved[0] if day.solved else day.simulated
    for s, name in enumerate(day.stations):
        on = [i["stations"][name].get("servers") for i in source["intervals"]]
        if any(v is not None for v in on):   # none at a station of infinitely many servers
            server_lines.append(day.steps(f"{name} servers on", on, 2 * s, intervals=source["intervals"]))
        if day.simulated:
            busy = _points(day, f"{name} busy (simulate)", 2 * s + 1, "solid", day.simulated["intervals"],
                           lambda i: _with_ci(i["stations"][name], "busy_servers"))
            if busy is not None:
                server_lines.append(busy)
    panels = [day.panel("arrival rate", f"arrivals {unit.per}", rate_lines),
              day.panel("servers on", "servers", server_lines)]
    return Chart("day_demand", "The day: demand and servers",
                 "The arrival rate through the day (the model's rate, or where the record keeps no model the "
                 "expected arrivals in each interval over its length, as solve gives them; points: the simulated "
                 "arrivals per interval over its length, with their 95 % band) and the servers the rota puts on "
                 "(steps) beside the simulated busy servers.", panels)


def _rate(figures: dict, width: float) -> Optional[Tuple[float, Optional[list]]]:
    """An interval's simulated arrivals per unit of time (`width`: the interval's length in
    that unit), with its interval."""
    if figures.get("arrivals") is None:
        return None
    ci = figures.get("arrivals_ci")
    return figures["arrivals"] / width, None if ci is None else [None if v is None else v / width for v in ci]


def _with_ci(holder: dict, key: str) -> Optional[Tuple[float, Optional[list]]]:
    return None if holder.get(key) is None else (holder[key], holder.get(f"{key}_ci"))


def _level(waiting: dict, k: int) -> Optional[Tuple[float, Optional[list]]]:
    """The k-th service level asked (P(wait <= t)), with its interval when simulated."""
    levels = waiting.get("within") or []
    if len(levels) <= k or levels[k][1] is None:
        return None
    cis = waiting.get("within_ci")
    return levels[k][1], cis[k] if cis else None


def class_chart(day: Day, name: str) -> Chart:
    """A class's waits through the day: the mean wait, each service level and quantile asked,
    the abandonment where customers gave up; the simulation's with its band beside each
    solved method's line."""
    unit = Display.of(day.time_unit).time
    engines = day.engines()
    first_waiting = day.intervals[0]["classes"][name].get("waiting_time") or {}
    within = [t for t, _ in first_waiting.get("within") or []]
    asked = (day.simulated or {}).get("asked") or {}
    # the quantiles asked, else the 90th percentile simulate's table shows per interval
    quantiles = list(asked.get("quantiles") or []) or ([DEFAULT_QUANTILE] if day.simulated else [])

    def lines(read, scale: float = 1.0, ceiling: Optional[float] = None) -> List[Line]:
        drawn = []
        for k, (label, results) in enumerate(engines):
            line = _points(day, label, k + (0 if day.simulated else 1), dash_of(results), results["intervals"],
                           lambda i: read(i["classes"][name]), scale, ceiling=ceiling)
            if line is not None and results["engine"] == "solve":  # on hover: is each interval's figure exact
                line.points = [f"{i['label']} {'exact' if i['classes'][name].get('exact') else '≈'}"
                               for i in results["intervals"]]
            if line is not None:
                drawn.append(line)
        return drawn

    panels = [day.figures_panel("mean wait", f"mean wait ({unit})",
                                lines(lambda c: _with_ci(c.get("waiting_time") or {}, "mean")))]
    for k, t in enumerate(within):
        panels.append(day.figures_panel(f"P(wait ≤ {time_text(t, day.time_unit)})", "served within (%)",
                                        lines(lambda c, k=k: _level(c.get("waiting_time") or {}, k), 100.0, 100.0)))
    for p in quantiles:
        key = percentile_name(p)
        panels.append(day.figures_panel(f"wait p{p:g}", f"p{p:g} wait ({unit})",
                                        lines(lambda c, key=key: _with_ci(c.get("waiting_time") or {}, key))))
    gave_up = any((c.get("abandonment") or 0) > GAVE_UP for _, r in engines for i in r["intervals"]
                  for c in (i["classes"][name],))
    if gave_up:
        panels.append(day.figures_panel("abandoned", "abandoned (% of arrivals)",
                                        lines(lambda c: _with_ci(c, "abandonment"), 100.0, 100.0)))
    panels = [p for p in panels if p.items]
    station = next((r["classes"][name].get("station") for r in day.solved), None)
    at = f" at {station}" if station else ""
    return Chart(f"day_{name}", f"{name}{at} through the day",
                 f"Of the customers of {name} who arrived in each interval: the mean wait"
                 + (", the share served within each time asked" if within else "")
                 + (f", the wait's {', '.join(f'p{q:g}' for q in quantiles)} (simulated)" if quantiles else "")
                 + (" and the share who gave up (balked or reneged)" if gave_up else "")
                 + ". Simulated: solid, with its 95 % band across replications; solved: the transient "
                   "dashed (marked ≈ where the rota's fall makes it approximate), the approximations (PSA, SIPP, lagged SIPP, MOL) dotted, marked ≈. A gap is an "
                   "interval a method has no figure for (an approximation where the interval alone is overloaded).",
                 panels)


def day_charts(day: Day) -> List[Chart]:
    """The demand chart, then one chart per class."""
    return [demand_chart(day)] + [class_chart(day, name) for name in day.classes]


def days_of(scenarios: Sequence[dict], models: Optional[Dict[str, dict]] = None) -> Dict[str, Day]:
    """Each model's day from an experiment record's scenarios with intervals: its simulation
    (the first, when several), its solved methods (one each) and, where the record's
    `models` keep the model, each class's rate through the day."""
    by_model: Dict[str, Tuple[Optional[dict], Dict[str, dict]]] = {}
    for s in scenarios:
        results = s["results"]
        if not results.get("intervals"):
            continue
        simulated, solved = by_model.setdefault(s["model"], (None, {}))
        if results["engine"] == "solve":
            solved.setdefault(results["method"], results)
        elif simulated is None and results["engine"] == "simulate":
            by_model[s["model"]] = (results, solved)
    params = {s["model"]: s["params"] for s in scenarios}
    return {model: Day(simulated, list(solved.values()), model_rates((models or {}).get(model, {}), params[model]))
            for model, (simulated, solved) in by_model.items() if simulated or solved}
