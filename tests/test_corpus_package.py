"""The corpus (tests/corpus.py): `brewput examples` into places it cannot or must not write."""
import pytest

from corpus import Case, check, ids

CASES = [
    Case("examples-folder-is-a-file", ["examples", "f"], {"f": "mine"}, names=["f", "not a folder"]),
    Case("examples-folder-is-dev-null", ["examples", "/dev/null"], names=["/dev/null", "not a folder"]),
    Case("examples-examples-is-a-file", ["examples", "."], {"examples": "mine"}, names=["examples", "not a folder"]),
    Case("examples-subfolder-is-a-file", ["examples"], {"examples/coffee": "mine"},
         names=["examples/coffee", "not a folder"]),
    Case("examples-below-a-file", ["examples", "f/sub"], {"f": "mine"}, names=["f/sub"]),
    Case("examples-cannot-create", ["examples", "/proc/brewput-examples"], names=["/proc/brewput-examples"]),
    Case("examples-one-file-exists", ["examples", "."], {"examples/mmc.yaml": "mine"},
         names=["examples/mmc.yaml", "already exists", "--force"]),
    Case("examples-two-files-exist", ["examples"], {"examples/mmc.yaml": "mine", "examples/studies/coffee.yaml": "mine"},
         names=["1 more", "--force"]),
    Case("examples-force-onto-a-folder", ["examples", "--force"], {"examples/mmc.yaml/mine": "mine"},
         names=["examples/mmc.yaml", "a folder"]),
    Case("examples-unknown-option", ["examples", "--forse"], names=["--forse"]),
    Case("examples-two-folders", ["examples", "a", "b"], names=["b"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
