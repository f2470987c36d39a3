"""Random valid models of one to three stations and classes, every distribution
at means from 1e-6 to 1e6 (and 0), servers from 1 to ten million, buffers,
disciplines, open and closed classes, solved by two methods each with numpy's
warnings turned into errors: each solve ends in an answer whose every number is
finite, or in one BrewputError; never another exception (the found ones: a roomy
buffer beside a large class elsewhere, a station that takes no time)."""
import json
import random
import warnings

import pytest

import brewput
from brewput.errors import BrewputError

METHODS = ["auto", "exact", "mva", "convolution", "linearizer", "bard-schweitzer"]


def number(rng, low, high):
    return float(f"{10 ** rng.uniform(low, high):.3g}")


def distribution(rng):
    mean = number(rng, -6, 6)
    return rng.choice([
        lambda: 0, lambda: mean, lambda: f"exp({mean})", lambda: f"erlang({rng.randint(1, 50)}, {mean})",
        lambda: f"gamma({mean}, {number(rng, -3, 2)})", lambda: f"lognormal({mean}, {number(rng, -3, 2)})",
        lambda: f"uniform({mean}, {mean * rng.uniform(1, 5):.3g})", lambda: f"normal({mean}, {number(rng, -3, 3)})",
        lambda: f"hyperexp({mean}, {rng.uniform(1, 50):.3g})", lambda: f"jitter({mean}, {mean * rng.uniform(0, 2):.3g})",
        lambda: f"empirical([{', '.join(str(number(rng, -6, 6)) for _ in range(rng.randint(1, 4)))}])",
    ])()


def random_model(rng):
    stations = {}
    for s in range(rng.randint(1, 3)):
        station = {"servers": rng.choice([1, 1, 2, 5, 100, 10_000_000, "inf"]),
                   "discipline": rng.choice(["fifo", "fifo", "lifo", "ps", "priority", "sjf"])}
        if rng.random() < 0.4:
            station["buffer"] = rng.choice([0, 1, 3, 50, 5000])
        stations[f"s{s}"] = station
    classes = {}
    for c in range(rng.randint(1, 3)):
        route = [{"station": rng.choice(list(stations)), "service": distribution(rng)} for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            job = {"rate": number(rng, -6, 3)} if rng.random() < 0.7 else {"arrivals": distribution(rng) or 1}
        else:
            job = {"population": rng.choice([1, 2, 5, 30, 1000, 10_000_000]), "think": distribution(rng)}
        classes[f"c{c}"] = {**job, "priority": rng.randint(0, 2), "route": route}
    return {"brewput": 1, "name": "fuzz", "stations": stations, "classes": classes}


@pytest.mark.parametrize("seed", range(4))
def test_random_models_are_answered_in_finite_numbers_or_refused_in_one_error(seed):
    rng = random.Random(seed)
    answered = refused = 0
    for _ in range(40):
        spec = random_model(rng)
        try:
            model = brewput.Model.from_dict(spec)
        except BrewputError:
            continue
        for method in rng.sample(METHODS, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    result = brewput.solve(model, method=method)
                except BrewputError:
                    refused += 1
                    continue
                except Exception as e:  # noqa: BLE001 - the point: nothing else may escape
                    pytest.fail(f"{type(e).__name__}: {e} with --method {method} on {json.dumps(spec)}")
            json.dumps(result, allow_nan=False)  # ValueError on any inf or nan
            answered += 1
    assert answered > 10 and refused > 10  # both kinds met
