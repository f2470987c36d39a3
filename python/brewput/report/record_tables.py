"""Rich tables of an experiment record: a figure against the first swept param
(one row per model, the way the talk's charts read), and every scenario's figures.

Figures are shown in the units of the record's first scenario (units.py): a
record mixing a model in ms with one in minutes still reads in one unit."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from rich.table import Table

from ..figures import number
from ..units import Display
from .table import figure

# A figure of a class: its value in the display units, given the scenario's results.
Value = Callable[[Display, dict, dict], Optional[float]]


def throughput(shown: Display, res: dict, cls: dict) -> Optional[float]:
    x = cls["throughput"]
    return None if x is None else x * shown.rate_from(res["time_unit"])


def median_latency(shown: Display, res: dict, cls: dict) -> Optional[float]:
    x = (cls.get("response_time") or {}).get("p50")  # none in a solved day
    return None if x is None else x * shown.time_from(res["time_unit"])


def lost_share(shown: Display, res: dict, cls: dict) -> Optional[float]:
    x = cls.get("loss_probability")
    return None if x is None else 100 * x


# name: (its title in the display units, the figure)
FIGURES: Dict[str, tuple] = {
    "throughput": (lambda shown: f"Throughput ({shown.per})", throughput),
    "latency": (lambda shown: f"Median latency ({shown.time})", median_latency),
    "lost": (lambda shown: "Lost customers (% of arrivals)", lost_share),
}


def lost_any(record: dict) -> bool:
    """Whether some scenario lost customers (then the lost table is worth printing)."""
    return any(cls.get("loss_probability") for s in record["scenarios"] for cls in s["results"]["classes"].values())


def display_units(record: dict) -> Display:
    return Display.of(record["scenarios"][0]["results"]["time_unit"])


def pivot_table(record: dict, figure_name: str, title: Optional[str] = None,
                column_label: Optional[Callable[[object], str]] = None, row_header: str = "model") -> Table:
    """`figure_name` (throughput | latency | lost) of every class, one row per model (and
    engine, class and other swept params where there are several), one column per
    value of the first swept param (headed `name=value` unless `column_label` says)."""
    title_of, value_of = FIGURES[figure_name]
    scenarios = record["scenarios"]
    shown = display_units(record)
    swept = list(record["sweep"])
    across, others = (swept[0], swept[1:]) if swept else (None, [])
    columns = record["sweep"][across] if across else [None]
    several_engines = len({s["engine"] for s in scenarios}) > 1
    several_classes = any(len(s["results"]["classes"]) > 1 for s in scenarios)

    rows: Dict[tuple, Dict] = {}
    for s in scenarios:
        for name, cls in s["results"]["classes"].items():
            key = (s["model"],) + ((s["engine"],) if several_engines else ()) \
                + ((name,) if several_classes else ()) + tuple(f"{p}={s['params'][p]}" for p in others)
            rows.setdefault(key, {})[s["params"].get(across)] = value_of(shown, s["results"], cls)

    table = Table(title=title or title_of(shown), title_justify="left")
    table.add_column(row_header)
    for value in columns:
        label = column_label(value) if column_label else "" if across is None else f"{across}={value}"
        table.add_column(label, justify="right")
    for key, cells in rows.items():
        table.add_row(" ".join(key), *(number(cells.get(value)) for value in columns))
    return table


def scenario_table(record: dict) -> Table:
    """Every scenario's classes: the swept params, throughput and response times,
    with confidence intervals where the engine gives them, in the record's display units."""
    shown = display_units(record)
    swept = list(record["sweep"])
    several_models = len(record["models"]) > 1
    unit = shown.time
    table = Table(title=f"{record['title']}: {len(record['scenarios'])} scenarios (response time: arrival to "
                        f"completion)", title_justify="left")
    headers: List[str] = (["model"] if several_models else []) + swept + [
        "class", f"throughput ({shown.per})", f"mean response ({unit})", f"p50 ({unit})", f"p95 ({unit})",
        f"p99 ({unit})"]
    for header in headers:
        table.add_column(header, justify="left" if header in ("model", "class") else "right")
    for s in record["scenarios"]:
        res = s["results"]
        rate, time = shown.rate_from(res["time_unit"]), shown.time_from(res["time_unit"])
        for name, cls in res["classes"].items():
            rt = cls.get("response_time") or {}  # a solved day answers waits per interval, no response time
            table.add_row(*([s["model"]] if several_models else []),
                          *(number(s["params"][p]) for p in swept), name, figure(cls, "throughput", rate),
                          *(figure(rt, k, time) for k in ("mean", "p50", "p95", "p99")))
    return table


def measured_table(record: dict) -> Optional[Table]:
    """Each load scenario's response times beside its model's predictions at the
    same params, with the relative error (measured − predicted) / predicted; None
    when nothing was measured. The model's first class stands for the requests."""
    from ..loadtest.predict import relative_errors

    scenarios = record["scenarios"]
    measured = [s for s in scenarios if s["engine"] == "load"]
    if not measured:
        return None
    shown = display_units(record)
    predicted = {(s["model"], _params_key(s), s["engine"]): s for s in scenarios if s["engine"] != "load"}
    engines = sorted({engine for _, _, engine in predicted})
    swept = list(record["sweep"])
    unit = shown.time
    table = Table(title=f"Response time ({unit}), measured beside predicted (relative error)", title_justify="left")
    for header in ["model", *swept, "achieved /s", "measured mean", "measured p99",
                   *(f"{engine} {figure}" for engine in engines for figure in ("mean", "p99"))]:
        table.add_column(header, justify="left" if header == "model" else "right")
    for s in measured:
        times = _in_display(shown, s["results"], next(iter(s["results"]["classes"].values()))["response_time"])
        cells = [s["model"], *(number(s["params"][p]) for p in swept), number(s["results"]["load"]["achieved_rate"]),
                 number(times.get("mean")), number(times.get("p99"))]
        for engine in engines:
            other = predicted.get((s["model"], _params_key(s), engine))
            if other is None:
                cells += ["-", "-"]
                continue
            guess = _in_display(shown, other["results"],
                                next(iter(other["results"]["classes"].values()))["response_time"])
            errors = relative_errors(times, guess)
            cells += [number(guess.get(f)) + ("" if errors[f] is None else f" ({errors[f]:+.0%})")
                      for f in ("mean", "p99")]
        table.add_row(*cells)
    return table


def _params_key(scenario: dict) -> tuple:
    return tuple(sorted(scenario["params"].items()))


def _in_display(shown: Display, res: dict, times: dict) -> Dict[str, Optional[float]]:
    factor = shown.time_from(res["time_unit"])
    return {k: None if times.get(k) is None else times[k] * factor for k in ("mean", "p50", "p90", "p99")}
