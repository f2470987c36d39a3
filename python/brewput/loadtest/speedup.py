"""`brewput load --day MODEL --speedup K`: a day run K times faster than the
model's clock. The day's clock is compressed, not its pace: each interval lasts
1/K of its model time, at the same rate per second (the service measured keeps
its own speed), so a day of 24 h in 1 h intervals runs in 24 h / K with each
hour's rate. The model that predicts such a run is the model's day compressed
the same way (`compressed`): its length, interval and piecewise linear times
divided by K, its rates and rota per interval unchanged (a CSV of counts given
as the rates it means), a curve's t multiplied by K, everything else as it was.
"""
from __future__ import annotations

import re

import yaml

#: The most a day may be sped up (a year into a minute is about 525,600).
MAX_SPEEDUP = 1e6


def compressed(model, speedup: float):
    """`model` (with a day) with its day's clock divided by `speedup`."""
    from ..model import Model

    if speedup == 1:
        return model
    document = yaml.safe_load(model.to_yaml())
    day = document["day"]
    day["length"] = model.day.length / speedup
    day["interval"] = model.day.interval / speedup
    for name, job in model.classes.items():
        if not job.time_varying:
            continue
        rate = job.rate
        if rate.form == "steps":
            document["classes"][name]["rate"] = list(rate.rates)
        elif rate.form == "linear":
            document["classes"][name]["rate"] = {"linear": [[t / speedup, r] for t, r in zip(rate.times, rate.rates)]}
        else:  # a curve: its rate at wall time t is the day's at K t
            document["classes"][name]["rate"] = {"curve": re.sub(r"\bt\b", f"(t*{speedup!r})", rate.text)}
    return Model.from_dict(document)
