"""Same model, same seed: the same numbers, bit for bit, on every run, every worker
count and through the CLI; different seeds and different replications draw
different random numbers.
"""
import json
import subprocess
import sys
from pathlib import Path

import brewput
from conftest import EXAMPLES

MODEL = str(EXAMPLES / "tandem.yaml")  # random arrivals and service at three stations
RUN = dict(replications=3, customers=20_000)


def test_same_seed_same_numbers():
    assert brewput.simulate(MODEL, seed=5, **RUN) == brewput.simulate(MODEL, seed=5, **RUN)


def test_thread_count_does_not_matter():
    one = brewput.simulate(MODEL, seed=5, threads=1, **RUN)
    assert one == brewput.simulate(MODEL, seed=5, threads=2, **RUN)


def test_different_seeds_differ():
    a = brewput.simulate(MODEL, seed=5, **RUN)["classes"]["customer"]
    b = brewput.simulate(MODEL, seed=6, **RUN)["classes"]["customer"]
    assert a["throughput"] != b["throughput"]
    assert a["response_time"]["mean"] != b["response_time"]["mean"]


def test_replications_are_independent():
    # Identical replications would give a zero-width interval.
    res = brewput.simulate(MODEL, seed=5, **RUN)
    for figures in (res["classes"]["customer"], res["stations"]["brew"]):
        lo, hi = figures["throughput_ci"]
        assert lo < hi
    lo, hi = res["classes"]["customer"]["response_time"]["mean_ci"]
    assert lo < hi


def test_cli_json_is_the_api_result():
    cli = Path(sys.executable).with_name("brewput")
    out = subprocess.run(
        [str(cli), "simulate", str(EXAMPLES / "mmc.yaml"), "--set", "c=2", "--set", "rate=1.5",
         "--seed", "9", "--replications", "2", "--customers", "5000", "--json"],
        capture_output=True, text=True, check=True).stdout
    api = brewput.simulate(str(EXAMPLES / "mmc.yaml"), params={"c": 2, "rate": 1.5},
                           seed=9, replications=2, customers=5000)
    assert json.loads(out) == json.loads(json.dumps(api))
