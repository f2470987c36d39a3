"""What the charts draw, taken from an experiment record: its flat table in
display units, split into series (one per model, engine, class and the swept
params that are not on the x axis).

Times are shown in the unit of the record's first scenario; throughputs per
second where that unit is a second or shorter (the talk's lattes per second),
else per that unit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from ..errors import BrewputError
from ..units import WORDS, Display

if TYPE_CHECKING:
    import pandas

# Measured before simulated before solved: the first engine present is drawn
# solid, the others (the predictions) dashed, then dotted.
ENGINES = ("lab", "load", "simulate", "solve")
DASHES = ("solid", "dash", "dot")
# What the utilization chart draws: stations, their typed groups of servers, resources.
ELEMENTS = ("station", "server_type", "resource")
# The column of the share of a class's arrivals lost for a reason.
LOST = "share_lost_"


def _unstable(results: dict) -> bool:
    """Whether a scenario's figures are no steady state: a model whose open arrivals offer
    a station or resource 100 % or more (its queue grows for as long as the run lasts), or a
    measured run that did not hold its rate (the service fell behind: the wait grows with it)."""
    from ..analytic.traffic import UNSTABLE

    if any(UNSTABLE in warning for warning in results.get("warnings") or ()):
        return True
    load = results.get("load")
    if not load or not load.get("sent"):
        return False
    from ..loadtest.results import HELD_SHARE

    return load["achieved_rate"] < HELD_SHARE * load["target_rate"]


@dataclass(frozen=True)
class Series:
    """One line of a chart: its rows of the flat table (sorted along x)."""
    label: str
    base: str          # the label without the engine: one colour per base
    model: str
    engine: str
    dash: str
    rows: "pandas.DataFrame"


class ChartData:
    """The record's figures, ready to chart."""

    def __init__(self, record: dict):
        from ..experiment.record import flat_table

        scenarios = record["scenarios"]
        if not scenarios:
            raise BrewputError("the experiment record has no scenarios to report")
        self.record = record
        self.title = record.get("title") or "brewput report"
        self.swept: List[str] = list(record.get("sweep") or {})
        self.x: Optional[str] = self.swept[0] if self.swept else None
        self.units = Display.of(scenarios[0]["results"]["time_unit"])
        self.scenarios = {s["id"]: s for s in scenarios}
        engines_present = {s["engine"] for s in scenarios}
        self.engines = [e for e in ENGINES if e in engines_present] + sorted(engines_present - set(ENGINES))
        self.models = list(dict.fromkeys(s["model"] for s in scenarios))
        table = flat_table(record)
        if "utilization" not in table:   # no station to be busy (a load run with no model): read as unknown
            table = table.assign(utilization=float("nan"))
        unit = table["scenario"].map(lambda i: self.scenarios[i]["results"]["time_unit"])
        self.table = self._with_service_floor(self._to_display_units(table, unit))
        self.unstable = {s["id"] for s in scenarios if _unstable(s["results"])}

    def _to_display_units(self, table, unit):
        time = unit.map(self.units.time_from)
        rate = unit.map(self.units.rate_from)
        table = table.copy()
        for column in table.columns:
            base = column[:-len("_ci_low")] if column.endswith("_ci_low") else (
                column[:-len("_ci_high")] if column.endswith("_ci_high") else column)
            if base.startswith(("response_time", "waiting_time")) and table[column].dtype.kind == "f":
                table[column] = table[column] * time
            elif base == "throughput" and table[column].dtype.kind == "f":
                table[column] = table[column] * rate
        return table

    def _with_service_floor(self, table):
        """The table with what the flat table cannot name unambiguously (a type or a
        measure may have `_` in its name), read from each scenario's results: per class
        `share_lost_<reason>` (the share of arrivals lost for it) and `measure_<name>_<figure>`
        (display units); a row per typed group of servers (kind `server_type`, named
        `station · type`) with its utilization."""
        import pandas

        extra: dict = {}
        groups = []
        for i, row in table.iterrows():
            results = self.scenarios[row["scenario"]]["results"]
            if row["kind"] == "class":
                figures = results["classes"][row["name"]]
                for reason, share in (figures.get("loss_probability_by") or {}).items():
                    interval = (figures.get("loss_probability_by_ci") or {}).get(reason) or [None, None]
                    for column, value in ((f"{LOST}{reason}", share), (f"{LOST}{reason}_ci_low", interval[0]),
                                          (f"{LOST}{reason}_ci_high", interval[1])):
                        extra.setdefault(column, {})[i] = value
                factor = self.units.time_from(results["time_unit"])
                for name, times in (figures.get("measures") or {}).items():
                    for figure, value in times.items():
                        if not isinstance(value, (int, float)) or isinstance(value, bool):
                            continue  # the spectrum and the intervals, taken beside their figure
                        low, high = times.get(f"{figure}_ci") or [None, None]
                        for column, v in ((figure, value), (f"{figure}_ci_low", low), (f"{figure}_ci_high", high)):
                            extra.setdefault(f"measure_{name}_{column}", {})[i] = None if v is None else v * factor
            elif row["kind"] == "station":
                for kind, figures in (results["stations"][row["name"]].get("server_types") or {}).items():
                    low, high = figures.get("utilization_ci") or [None, None]
                    groups.append({**{c: row[c] for c in ("scenario", "model", "engine", "time_unit", *self.swept)},
                                   "kind": "server_type", "name": f"{row['name']} · {kind}",
                                   "utilization": figures.get("utilization"),
                                   "utilization_ci_low": low, "utilization_ci_high": high})
        table = table.assign(**{column: pandas.Series(values, dtype="float64") for column, values in extra.items()})
        if groups:
            table = pandas.concat([table, pandas.DataFrame(groups)], ignore_index=True)
        return table

    def measures(self) -> List[str]:
        """The names of the measures between marks that some class of the record has, in order."""
        names = (name for s in self.scenarios.values() for figures in s["results"]["classes"].values()
                 for name in figures.get("measures") or {})
        return list(dict.fromkeys(names))

    def loss_reasons(self) -> List[str]:
        """The reasons some customers were lost for in some scenario (full, balked, reneged)."""
        return [c[len(LOST):] for c in self.table.columns
                if c.startswith(LOST) and not c.endswith(("_ci_low", "_ci_high")) and (self.table[c] > 0).any()]

    # ---- the pieces of a chart ------------------------------------------------------

    def rate_label(self, what: str = "throughput") -> str:
        classes = self.table.loc[self.table["kind"] == "class", "name"].unique()
        noun = classes[0] if len(classes) == 1 else "customers"
        per = WORDS[self.units.rate]
        return f"{what} ({noun}s per {per})" if len(classes) == 1 else f"{what} (per {per})"

    def dash(self, engine: str) -> str:
        return DASHES[min(self.engines.index(engine), len(DASHES) - 1)]

    def class_series(self) -> List[Series]:
        return list(self._series("class", self._class_label))

    def element_series(self, model: str) -> List[Series]:
        """A model's stations (those with a utilization), their typed groups of servers
        and its resources, one series each."""
        rows = self.table[(self.table["model"] == model) & self.table["kind"].isin(ELEMENTS)]
        rows = rows[rows["utilization"].notna()]
        return list(self._series(rows, lambda key: " · ".join(map(str, (key[2],) + key[3:]))))

    def ran(self) -> list:
        """The values of the first swept param that some scenario ran, in the sweep's order:
        a sweep stopped early (a load sweep at its saturation point, Ctrl-C) ran fewer
        than it planned."""
        if self.x is None:
            return []
        ran = [s["params"].get(self.x) for s in self.scenarios.values()]
        return [v for v in self.record["sweep"][self.x] if v in ran]

    def last_x(self) -> Optional[Tuple[str, object]]:
        """The comparisons at one point of the sweep are at the last value that ran."""
        values = self.ran()
        return (self.x, values[-1]) if values else None

    def at_last_x(self, series: Series) -> Optional[dict]:
        """The series' row at the last swept value, or its only row without a sweep."""
        last = self.last_x()
        rows = series.rows if last is None else series.rows[series.rows[self.x] == last[1]]
        return None if rows.empty else rows.iloc[-1].to_dict()

    def thresholds(self) -> list:
        """The thresholds the record's load runs were judged by (loadtest/thresholds.py's
        Threshold, values in seconds, per second or a share), each once."""
        from ..loadtest.thresholds import parse_threshold

        texts = dict.fromkeys(judged["threshold"] for s in self.scenarios.values()
                              for judged in ((s["results"].get("load") or {}).get("thresholds") or ()))
        thresholds = []
        for text in texts:
            try:
                thresholds.append(parse_threshold(text))
            except BrewputError:
                continue  # a hand-edited record's: nothing to draw it at
        return thresholds

    def saturation(self) -> Optional[Tuple[object, str]]:
        """Where a load sweep stopped because a threshold broke: the swept value of the run
        at the record's saturation rate (per second; a study's swept rate may be in its
        model's unit) and the line `brewput load` prints for it."""
        from ..loadtest.show import saturation_line

        saturation = self.record.get("saturation")
        if not saturation or self.x is None:
            return None
        for s in self.scenarios.values():
            load = s["results"].get("load") or {}
            if s["engine"] == "load" and math.isclose(load.get("target_rate", math.nan), saturation["rate"]):
                return s["params"][self.x], saturation_line(saturation)
        return None

    def throughput_bounds(self, series: Series) -> Optional[List[Optional[float]]]:
        """The series' asymptotic upper bound on throughput at each of its rows, in display
        units, where its results hold analytic bounds (docs/solve.md)."""
        bounds = []
        for _, row in series.rows.iterrows():
            results = self.scenarios[row["scenario"]]["results"]
            bound = (results.get("bounds") or {}).get(row["name"]) or {}
            upper = (bound.get("throughput") or [None, None])[1]
            upper = bound.get("max_throughput") if upper is None else upper
            bounds.append(None if upper is None else upper * self.units.rate_from(results["time_unit"]))
        return bounds if any(b is not None for b in bounds) else None

    def spectra_at_last_x(self, series: List[Series]) -> Iterator[Tuple[Series, Tuple[list, list, Optional[list]]]]:
        """Each series with its response-time spectrum at the last swept value, where it has one."""
        for s in series:
            row = self.at_last_x(s)
            spectrum = self.spectrum(row) if row else None
            if spectrum is not None:
                yield s, spectrum

    def spectrum(self, row: dict) -> Optional[Tuple[list, list, Optional[list]]]:
        """(percents, values, intervals) of a class's response-time spectrum, in display units."""
        results = self.scenarios[row["scenario"]]["results"]
        times = results["classes"][row["name"]].get("response_time") or {}  # none in a solved day
        if not times.get("spectrum"):
            return None
        factor = self.units.time_from(results["time_unit"])
        percents = [p for p, _ in times["spectrum"]]
        values = [v * factor for _, v in times["spectrum"]]
        cis = times.get("spectrum_ci")
        intervals = None if not cis or None in cis else [[lo * factor, hi * factor] for lo, hi in cis]
        return percents, values, intervals

    # ---- series -------------------------------------------------------------------

    def _class_label(self, key) -> str:
        model, engine, name, *others = key
        many_classes = self.table[(self.table["kind"] == "class") & (self.table["model"] == model)]["name"].nunique() > 1
        parts = [model] + ([name] if many_classes else []) + [str(o) for o in others]
        return " · ".join(parts)

    def _series(self, rows, label_of) -> Iterator[Series]:
        if isinstance(rows, str):
            rows = self.table[self.table["kind"] == rows]
        others = self.swept[1:]
        keys = ["model", "engine", "name"] + others
        for key, group in rows.groupby(keys, sort=False, dropna=False):
            key = tuple(key)
            shown = key[:3] + tuple(f"{p}={v}" for p, v in zip(others, key[3:]))
            base = label_of(shown)
            label = f"{base} ({key[1]})" if len(self.engines) > 1 else base
            yield Series(label=label, base=base, model=key[0], engine=key[1], dash=self.dash(key[1]),
                         rows=group.sort_values(self.x) if self.x else group)
