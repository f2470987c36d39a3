"""How a plan or a what-if answers one option (planning/answer.py): solve where it
covers the model, an exact Markov chain included, but not a chain of phase-type fits,
whose stated error can be large: there the simulation answers."""
from pathlib import Path

import brewput
from brewput.planning.answer import answer_work, answered

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
# three customers cycling through two exponential stations, the second with no room to wait:
# the formulas refuse a finite buffer inside a network, the chain answers it exactly
BLOCKING = {"brewput": 1, "stations": {"a": {}, "b": {"buffer": 0}},
            "classes": {"c": {"population": 3, "route": [{"station": "a", "service": "exp(1)"},
                                                      {"station": "b", "service": "exp(1)"}]}}}


def test_an_exact_chain_is_taken():
    results, engine = answered(brewput.Model.from_dict(BLOCKING))
    assert engine == "solve" and results["method"] == "ctmc"
    assert all(c["exact"] for c in results["classes"].values())
    assert answer_work(brewput.Model.from_dict(BLOCKING)).seconds == 0


def test_a_chain_of_fitted_constant_stages_is_simulated_instead():
    kitchen = brewput.load(EXAMPLES / "coffee" / "finelocking.yaml")
    solved = brewput.solve(kitchen)
    assert solved["method"] == "ctmc" and not solved["classes"]["latte"]["exact"]
    results, engine = answered(kitchen)
    assert engine == "simulate"
    # the simulation's 4 cpus give the grinder's 1 latte a ms (the talk's), the fit 0.75
    assert abs(results["classes"]["latte"]["throughput"] - 1.0) < 0.01
    assert answer_work(kitchen).seconds > 0
