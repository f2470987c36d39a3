"""solve --from against the simulator: a day that starts with the same jobs (`day:
at_start`), simulated with replications, gives per interval the time-average number at
each station, which the chain's curve (on a fine grid, by the trapezoid rule) must fall
within the replications' interval of: the state the chain starts in is the simulator's."""
import numpy as np
import pytest

import brewput

#: How far outside the 95 % interval (in half-widths) a figure may fall: 1.5 is about 99.7 %.
HALF_WIDTHS = 1.5


def tandem(service_a):
    return {"brewput": 1, "name": "t", "time_unit": "s",
            "stations": {"a": {"servers": 2}, "b": {"servers": 1, "buffer": 4}},
            "classes": {"job": {"rate": 0.6, "route": [{"station": "a", "service": service_a},
                                                       {"station": "b", "service": "exp(0.9)"}]}}}


@pytest.mark.parametrize("service_a", ["exp(2)", "hyperexp(2, 2)", "erlang(3, 2)"])
def test_the_chain_from_a_state_is_the_simulated_day_that_starts_there(service_a):
    model = tandem(service_a)
    start = {"a": 7, "b": 3}
    simulated = brewput.simulate({**model, "day": {"length": 20, "interval": 2, "at_start": start}},
                                 replications=400, seed=3)
    solved = brewput.solve(model, from_state=start, over=20, bins=0.1)
    times = np.array([point["time"] for point in solved["from"]["points"]])
    for station in ("a", "b"):
        curve = np.array([point["stations"][station]["queue_length"] for point in solved["from"]["points"]])
        for interval in simulated["intervals"]:
            inside = (times >= interval["start"] - 1e-9) & (times <= interval["end"] + 1e-9)
            mean = np.trapezoid(curve[inside], times[inside]) / (interval["end"] - interval["start"])
            figures = interval["stations"][station]
            low, high = figures["queue_length_ci"]
            half = (high - low) / 2
            assert abs(mean - figures["queue_length"]) <= HALF_WIDTHS * half, (station, interval["start"])
