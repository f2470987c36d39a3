"""The model language's vocabulary has one home, the engine's (crates/sim/src/vocabulary.rs),
and the two languages agree on it: every word is accepted by Python's validation and by
the engine through a compiled model, a word outside it is refused by both naming the same
words, the JSON Schema offers exactly its words, and each bound holds at exactly the same
number on both sides."""
import json
import re

import pytest

import brewput.model.schema as schema
from brewput import _native, vocabulary
from brewput.analytic import dispatch as analytic_dispatch
from brewput.analytic.support import SOLVABLE_FEATURES
from brewput.errors import ModelError
from brewput.model import Model, json_schema
from brewput.model.features import FEATURES, FIELDS
from brewput.vocabulary import DEFAULTS, MAX_BALK_PROBABILITIES, MAX_BRANCH_DEPTH, WORDS

SETTINGS = json.dumps({"seed": 1, "replications": 1, "threads": 1,
                       "stop": {"kind": "customers", "count": 200}, "warmup": {"kind": "customers", "count": 0}})


def model(stations, route, **top):
    return Model.from_dict({"brewput": 1, "name": "m", **top, "stations": stations,
                            "classes": {"c": {"rate": 0.5, "route": route}}})


def engine(compiled):
    """The engine's summary of a compiled model (200 customers): it raises on a model it refuses."""
    return json.loads(_native.simulate(json.dumps(compiled), SETTINGS, _native.Control("simulate")))


def completed(compiled) -> bool:
    """Whether the engine runs the compiled model through to its 200 customers."""
    return engine(compiled)["classes"][0]["completed"] == 200


def engine_refusal(compiled) -> str:
    with pytest.raises(Exception) as caught:
        engine(compiled)
    return str(caught.value)


def python_refusal(build) -> str:
    with pytest.raises(ModelError) as caught:
        build()
    return str(caught.value)


SERVE = [{"station": "s", "service": "exp(1)"}]


def dispatching(policy, depth=1):
    """A dispatch by `policy` whose first branch holds another dispatch, `depth` deep."""
    inner = SERVE
    for _ in range(depth):
        inner = [{"dispatch": {"a": inner, "b": [{"station": "t", "service": "exp(1)"}]}, "policy": policy}]
    return model({"s": {"servers": 2}, "t": {}}, inner)


#: A model using each word of each field, for the field's words.
USING = {
    "discipline": lambda word: model({"s": {"discipline": word}}, SERVE),
    "take": lambda word: model({"s": {"servers": {"a": 1, "b": 1}, "take": word}}, SERVE),
    "assign": lambda word: model({"s": {"servers": {"a": 1, "b": 1}, "assign": word}}, SERVE),
    "preempt": lambda word: model({"s": {"discipline": "priority", "preempt": word}}, SERVE),
    # A day long enough for the engine's 200 customers, a server going off half-way.
    "off_shift": lambda word: Model.from_dict({"brewput": 1, "name": "m", "day": {"length": 400, "interval": 200},
                                               "stations": {"s": {"servers": [2, 1], "off_shift": word}},
                                               "classes": {"c": {"rate": 1, "route": SERVE}}}),
    "policy": dispatching,
    "tie": lambda word: model({"s": {}, "t": {}}, [{"dispatch": {"a": SERVE, "b": [{"station": "t", "service": "exp(1)"}]},
                                                    "policy": "shortest_queue", "tie": word}]),
}


def test_every_field_that_takes_a_word_is_tried():
    assert set(USING) == set(WORDS) == set(DEFAULTS)


@pytest.mark.parametrize("field, word", [(field, word) for field, words in WORDS.items() for word in words])
def test_every_word_is_accepted_by_python_and_by_the_engine(field, word):
    m = USING[field](word)
    compiled = m.compile()
    assert word in json.dumps(compiled) or word == DEFAULTS[field]  # a default is left out, the engine's too
    assert completed(compiled)
    brought = vocabulary.feature(field, word)
    assert brought is None or brought in m.features()


def _listed(message: str) -> list:
    """The words a refusal lists as the known ones, in its order: Python's
    `expected one of a, b, got 'x'`, serde's `expected one of `a`, `b`` (or `a` or `b`)."""
    known = re.search(r"expected (?:one of )?(.*?)(?:, got| at line|$)", message).group(1)
    return re.findall(r"`(\w+)`", known) if "`" in known else known.split(", ")


@pytest.mark.parametrize("field", sorted(WORDS))
def test_a_word_outside_the_vocabulary_is_refused_by_both_naming_the_same_words(field):
    told = python_refusal(lambda: USING[field]("edf"))
    assert f".{field}: expected one of {', '.join(WORDS[field])}, got 'edf'" in told
    compiled = USING[field](DEFAULTS[field]).compile()
    place = compiled["classes"][0]["steps"][0] if field in ("policy", "tie") else compiled["stations"][0]
    place[field] = "edf"
    refused = engine_refusal(compiled)
    assert "unknown variant `edf`" in refused
    assert _listed(told) == _listed(refused) == list(WORDS[field])


def test_the_json_schema_offers_exactly_the_vocabularys_words_and_defaults():
    defs = json_schema()["$defs"]
    offered = {**{field: defs["Station"]["properties"][field]
                  for field in ("discipline", "take", "assign", "preempt", "off_shift")},
               **{field: defs["DispatchStep"]["properties"][field] for field in ("policy", "tie")}}
    for field, words in WORDS.items():
        enums = [choice["enum"] for choice in offered[field]["anyOf"] if "enum" in choice]
        assert enums == [list(words)]
        assert offered[field]["default"] == DEFAULTS[field]
    balk = next(choice for choice in defs["Step"]["properties"]["balk"]["anyOf"] if choice.get("type") == "array")
    assert balk["maxItems"] == MAX_BALK_PROBABILITIES


def test_the_features_of_the_words_are_the_vocabularys():
    for field, words in WORDS.items():
        for word, brought in words.items():
            if brought is not None:
                assert FEATURES[brought[0]] == brought[1]
        part = "dispatch" if field in ("policy", "tie") else "station"
        assert FIELDS[part][field] == tuple(b[0] for b in words.values() if b is not None)
    assert SOLVABLE_FEATURES <= set(FEATURES)


def test_solves_dispatch_policies_are_words_of_the_vocabulary():
    assert set(analytic_dispatch.POLICIES) <= set(WORDS["policy"])
    solvable = {name for name in SOLVABLE_FEATURES if name.startswith("dispatch-")}
    assert solvable == {vocabulary.feature("policy", p) for p in analytic_dispatch.POLICIES}


def test_branches_nest_exactly_as_deep_on_both_sides(monkeypatch):
    deepest = dispatching("random", MAX_BRANCH_DEPTH)
    assert completed(deepest.compile())
    told = python_refusal(lambda: dispatching("random", MAX_BRANCH_DEPTH + 1))
    assert f"forks and dispatches nest at most {MAX_BRANCH_DEPTH} deep" in told
    monkeypatch.setattr(schema, "MAX_BRANCH_DEPTH", MAX_BRANCH_DEPTH + 1)  # to hand the engine one level more
    too_deep = dispatching("random", MAX_BRANCH_DEPTH + 1).compile()
    assert "branches nested too deep" in engine_refusal(too_deep)


def test_balk_lists_are_as_long_on_both_sides():
    longest = [0.0] * (MAX_BALK_PROBABILITIES - 1) + [0.5]
    m = model({"s": {}}, [{"station": "s", "service": "exp(1)", "balk": longest}])
    compiled = m.compile()
    assert completed(compiled)
    told = python_refusal(lambda: model({"s": {}}, [{"station": "s", "service": "exp(1)", "balk": [*longest, 1]}]))
    assert f"at most {MAX_BALK_PROBABILITIES:,} allowed, got {MAX_BALK_PROBABILITIES + 1:,}" in told
    compiled["classes"][0]["steps"][0]["balk"]["probabilities"].append(1.0)
    assert f"balk probabilities: 1 to {MAX_BALK_PROBABILITIES} numbers" in engine_refusal(compiled)


def test_the_policies_reading_first_stations_are_the_same_on_both_sides(monkeypatch):
    fork = {"fork": {"x": SERVE, "y": [{"station": "t", "service": "exp(1)"}]}}

    def starting_with_a_fork(policy):
        return model({"s": {"servers": 2}, "t": {}}, [{"dispatch": {"a": [fork], "b": SERVE}, "policy": policy}])

    refused = {p for p in WORDS["policy"] if "reads each branch's first station" in _told(starting_with_a_fork, p)}
    assert refused == set(vocabulary.READS_FIRST_STATIONS)
    monkeypatch.setattr(schema, "READS_FIRST_STATIONS", ())  # to hand each to the engine
    for policy in WORDS["policy"]:
        compiled = starting_with_a_fork(policy).compile()
        if policy in refused:
            assert "a branch that starts with a fork or dispatch: not simulated yet" in engine_refusal(compiled)
        else:
            assert completed(compiled)


def _told(build, *args) -> str:
    """What Python says of the model `build(*args)`: its refusal, or "" when it accepts it."""
    try:
        build(*args)
    except ModelError as e:
        return str(e)
    return ""


def _preempting(**top):
    """A priority station (typed with `typed`) preempting by resume (None: not preempting)."""
    def build(preempt, typed=False):
        station = {"discipline": "priority", **({"servers": {"a": 1, "b": 1}} if typed else {}),
                   **({"preempt": preempt} if preempt else {})}
        return model({"s": station}, SERVE, **top)
    return build


def _giving_up_in_a_fork(balk):
    branch = [{"station": "s", "service": "exp(1)", **({"balk": balk} if balk else {})}]
    return model({"s": {}, "t": {}}, [{"fork": {"a": branch, "b": [{"station": "t", "service": "exp(1)"}]}}])


#: For each refusal, (the model Python refuses, where, and the subject it names),
#: and its neighbour that both accept, with the engine's compiled model turned
#: into the one refused.
NOT_MODELLED = {
    "preempt-at-typed-servers": (lambda: _preempting()("resume", typed=True), "stations.s.preempt", "preempt: resume",
                                 lambda: _preempting()(None, typed=True).compile(),
                                 lambda c: c["stations"][0].update(preempt="resume")),
    "preempt-with-resources": (lambda: _preempting(resources={"r": 1})("resume"), "stations.s.preempt",
                               "preempt: resume", lambda: _preempting(resources={"r": 1})(None).compile(),
                               lambda c: c["stations"][0].update(preempt="resume")),
    "giving-up-in-a-fork": (lambda: _giving_up_in_a_fork(2), "classes.c.route[0].fork.a[0].balk", "balk",
                            lambda: _giving_up_in_a_fork(None).compile(),
                            lambda c: c["classes"][0]["steps"][1].update(balk={"threshold": 2})),
}


def test_every_refusal_of_the_vocabulary_is_tried():
    assert set(NOT_MODELLED) == set(vocabulary.NOT_MODELLED)


@pytest.mark.parametrize("name", sorted(NOT_MODELLED))
def test_what_is_not_modelled_is_refused_by_both_in_the_same_words(name):
    refused_model, site, subject, neighbour, turn = NOT_MODELLED[name]
    sentence = vocabulary.not_modelled(name, subject)
    assert f"{site}: {sentence}" in python_refusal(refused_model)
    compiled = neighbour()
    assert completed(compiled)
    turn(compiled)
    assert sentence in engine_refusal(compiled)


def test_the_seed_and_the_level_are_the_engines():
    assert vocabulary.MAX_SEED == 2**64 - 1 and vocabulary.CONFIDENCE == _native.CONFIDENCE
    from brewput.engine.simulate import run_settings
    from brewput.errors import OptionError
    assert run_settings(vocabulary.MAX_SEED, 1, 10, None, None, 1)["seed"] == vocabulary.MAX_SEED
    with pytest.raises(OptionError):
        run_settings(vocabulary.MAX_SEED + 1, 1, 10, None, None, 1)


#: A service of each distribution kind of the model language (distributions.py's KINDS).
SERVICES = {"const": "const(1)", "exp": "exp(1)", "erlang": "erlang(2, 1)", "gamma": "gamma(1, 0.5)",
            "lognormal": "lognormal(1, 0.5)", "uniform": "uniform(0.5, 1.5)", "normal": "normal(1, 0.2)",
            "hyperexp": "hyperexp(1, 2)", "jitter": "jitter(1, 0.5)", "empirical": "empirical([0.5, 1.5])"}


@pytest.mark.parametrize("kind", sorted(SERVICES))
def test_every_distribution_kind_compiles_to_one_the_engine_draws_from(kind):
    from brewput.model.distributions import KINDS
    assert set(SERVICES) == set(KINDS)
    m = model({"s": {}}, [{"station": "s", "service": SERVICES[kind]}])
    assert type(m.classes["c"].route[0].service).kind == kind
    assert completed(m.compile())


def test_the_marks_every_class_has_are_the_same_on_both_sides():
    m = model({"s": {}}, [{"station": "s", "service": "exp(1)", "mark": "served"}])
    compiled = m.compile()
    assert compiled["classes"][0]["marks"] == [*vocabulary.MARKED, "served"] and completed(compiled)
    told = python_refusal(lambda: model({"s": {}}, [{"station": "s", "service": "exp(1)", "mark": vocabulary.MARKED[1]}]))
    assert f"'{vocabulary.MARKED[1]}' is a mark every class has" in told
    compiled["classes"][0]["marks"][0] = "start"
    assert f"marks must start with {', '.join(vocabulary.MARKED)}" in engine_refusal(compiled)
