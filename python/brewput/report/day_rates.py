"""The arrival rate of each open class through a day, lambda(t), as the model the record
keeps gives it (model/timeline.py): a rate per interval as steps, a piecewise linear
rate or a curve in t sampled finely enough to draw, a constant rate held all day. Read
from the record's model file where it still holds the text that ran, else from that
text; none where neither can be read (a results dict reported on its own keeps no model)."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, NamedTuple

from ..errors import BrewputError

# Points a rate that is not steps is drawn through: a curve's bends show at this many per day.
SAMPLES = 480


class DayRate(NamedTuple):
    times: List[float]      # in the model's time unit from the start of the day
    rates: List[float]      # per time unit
    steps: bool             # each rate held until the next time


def model_rates(entry: dict, params: dict) -> Dict[str, DayRate]:
    """Each open class's rate through the day of the model a record's `models` entry keeps,
    with the scenario's `params`; {} where the model cannot be read again."""
    model = _model(entry, params)
    return {} if model is None else rates_of(model)


def rates_of(model) -> Dict[str, DayRate]:
    """Each open class's rate through a model's day ({} without a day)."""
    if model.day is None:
        return {}
    import numpy as np

    from ..model.timeline import Steps

    length = float(model.day.timeline.length)
    rates = {}
    for name, job_class in model.classes.items():
        if job_class.time_varying:
            rate = job_class.day_rate
            if isinstance(rate, Steps):
                rates[name] = DayRate(rate.edges.tolist(), rate.values.tolist() + [float(rate.values[-1])], True)
            else:  # the last point just inside the day, where the rate still holds
                t = np.minimum(np.linspace(0.0, length, SAMPLES + 1), np.nextafter(length, 0.0))
                rates[name] = DayRate(np.linspace(0.0, length, SAMPLES + 1).tolist(), rate.rate(t).tolist(), False)
        elif job_class.is_open and job_class.rate is not None:
            rates[name] = DayRate([0.0, length], [float(job_class.rate)] * 2, True)
    return rates


def _model(entry: dict, params: dict):
    from ..model import load
    from ..model.source import parse

    text, file = entry.get("text"), entry.get("file")
    if text is None:
        return None
    try:
        if file and Path(file).is_file() and Path(file).read_text(encoding="utf-8") == text:
            return load(file, params=params)   # where it ran: a CSV of counts beside it is found
        document, _ = parse(text, file)
        return load(document, params)
    except (BrewputError, OSError, ValueError):
        return None
