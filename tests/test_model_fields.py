"""model/fields.py: the walker of model and study files, on a part declared here."""
import math

import jsonschema
import pytest

from brewput.errors import FieldError
from brewput.model.fields import Field, ListOf, MapOf, Maybe, Problems, Shorthand, Strict, Text, Value
from brewput.model.values import count, name, number


def _wrap(value):
    return {"size": value} if isinstance(value, int) else value


def _some(boxes):
    if not boxes:
        raise FieldError("needs a box")
    return boxes


_some.limits = (1, None)


class Box(Strict):
    """A part for these tests."""
    size = Field(Value(count(1, 10, infinite=True)), default="inf")
    label = Field(Maybe(Value(name)), default=None)


class Shelf(Strict):
    boxes = Field(MapOf(Value(name), Shorthand(Box, Value(count(1, 10)), _wrap), after=_some))
    weights = Field(ListOf(Value(number(0, 1))), default=[])
    owner = Field(Text)


def problems(data):
    with pytest.raises((Problems, FieldError)) as caught:
        Shelf.check(data)
    e = caught.value
    return e.found if isinstance(e, Problems) else [(e.path, str(e))]


def test_defaults_are_checked_as_if_given_and_given_fields_are_known():
    shelf = Shelf.check({"boxes": {"a": {}, "b": 3, "c": {"size": 2, "label": "x"}}, "owner": "me"})
    assert shelf.boxes["a"].size == math.inf and shelf.boxes["a"].label is None  # "inf" made inf
    assert shelf.boxes["b"] == Box.check({"size": 3})
    assert shelf.boxes["c"].given == {"size", "label"} and shelf.boxes["a"].given == set()
    assert shelf.weights == [] and shelf.as_dict()["boxes"]["b"].size == 3
    with pytest.raises(AttributeError):
        shelf.owner = "you"


def test_every_problem_is_collected_with_its_path():
    assert problems({"boxes": {"a": {"size": 0}, 5: "x"}, "weights": [0.5, 2, "h"]}) == [
        (("boxes", "a", "size"), "expected a positive integer or inf, got 0"),
        (("boxes", 5), "expected a name, got 5"),  # the key before its value
        (("boxes", 5), "expected a mapping, got 'x'"),  # a mapping, or its short spelling: a number
        (("weights", 1), "expected a number from 0 to 1, got 2"),
        (("weights", 2), "expected a number, got 'h'"),
        (("owner",), "missing required field"),
    ]


def test_the_wrong_container_and_unknown_fields():
    assert problems({"boxes": [], "weights": {}, "owner": 1}) == [
        (("boxes",), "expected a mapping, got []"), (("weights",), "expected a list, got {}"),
        (("owner",), "expected a string, got 1")]
    assert problems({"owner": "me", "colour": 1}) == [
        (("colour",), "unknown field (expected one of: boxes, weights, owner)")]
    assert problems(7) == [((), "expected a mapping, got 7")]


def test_the_json_schema_comes_from_the_same_declarations():
    schema = Shelf.json_schema("shelf")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["boxes", "owner"] and schema["$defs"]["Box"]["properties"]["size"]["default"] == "inf"
    good = {"boxes": {"a": {}, "b": 3, "c": {"size": "inf", "label": "x"}}, "weights": [0, 1], "owner": "me"}
    jsonschema.validate(good, schema)
    Shelf.check(good)
    for bad in ({**good, "colour": 1}, {**good, "boxes": {}}, {**good, "boxes": {"a": 11}},
                {**good, "weights": [2]}, {**good, "boxes": {"a": {"size": 0}}}, {"boxes": {"a": 1}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises((Problems, FieldError)):
            Shelf.check(bad)
