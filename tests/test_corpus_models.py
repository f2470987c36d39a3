"""The corpus (tests/corpus.py): malformed model files."""
import pytest

from corpus import MODEL, Case, check, ids

CASES = [
    Case("model-missing-file", ["simulate", "nope.yaml"], names=["nope.yaml"]),
    Case("model-unknown-station", ["simulate", "m.yaml"], {"m.yaml": MODEL.replace("station: desk", "station: dsk")},
         names=["m.yaml:8", "classes.c.route[0].station"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
