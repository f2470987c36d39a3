"""A load that followed a model's day (`--day`), as people read it: a row per
interval of the day, what the requests due in it measured (over several days
`--days`, the mean of the days' own with its 95 % interval), and with
--predict each engine's mean beside it."""
from __future__ import annotations

from typing import List

from ..measured import LEVEL_TEXT, ci_text, is_inside
from .show import _ms, _predicted_cell


def print_day(console, results: dict) -> None:
    from rich.table import Table

    rows, day, predicted = results["intervals"], results["day"], results.get("predicted")
    engines = list(predicted["intervals"][0]["engines"]) if predicted else []
    over = f", {day['days']} days: their mean ± its {LEVEL_TEXT} interval" if day["days"] > 1 else ""
    table = Table(title=f"per interval of the day ({day['model']}{over}), ms")
    for column in ("interval", "target/s", "achieved/s", "answers", "mean"):
        table.add_column(column, justify="right")
    for engine in engines:
        table.add_column(f"{engine} mean", justify="right")
    for column in ("p50", "p99", "errors"):
        table.add_column(column, justify="right")
    notes = []
    for k, row in enumerate(rows):
        request = row["classes"]["request"]
        response = request["response_time"]
        cells = [row["label"], f"{request['target_rate']:,.1f}", f"{request['achieved_rate']:,.1f}",
                 f"{request['completed']:,.0f}", _ms(response.get("mean")) + ci_text(response.get("mean_ci"))]
        for engine in engines:
            figures = predicted["intervals"][k]["engines"][engine]
            cells.append(_predicted_cell(figures, "mean", response.get("mean_ci")))
            if "refused" in figures and k == 0:
                notes.append(f"{engine}: {figures['refused']}")
        error_rate = request["error_rate"]
        cells += [_ms(response.get(f)) + ci_text(response.get(f"{f}_ci")) for f in ("p50", "p99")]
        cells.append("-" if error_rate is None else f"{error_rate:.2%}")
        table.add_row(*cells)
    table.caption = (day["note"].split(";")[0]
                     + ("; * a predicted mean outside the measured interval" if predicted else "")
                     + ("" if day["days"] > 1 else "; one day: --days N gives each interval its interval"))
    console.print(table)
    for note in notes + (predicted.get("warnings", []) if predicted else []):
        console.print(note, soft_wrap=True)


def day_conclusions(results: dict) -> List[str]:
    """Per engine, in how many of the intervals with a measured interval its mean lies inside it."""
    lines = []
    rows, predicted = results["intervals"], results["predicted"]["intervals"]
    for engine in predicted[0]["engines"]:
        judged = [is_inside(row["classes"]["request"]["response_time"].get("mean_ci"), each["engines"][engine].get("mean"))
                  for row, each in zip(rows, predicted) if "refused" not in each["engines"][engine]]
        if not judged:
            continue
        known = [j for j in judged if j is not None]
        lines.append(f"{engine}'s mean response: inside the measured {LEVEL_TEXT} interval in {sum(known)} of the "
                     f"{len(known)} intervals that have one ({len(rows) - len(known)} without)")
    return lines
