"""The corpus (tests/corpus.py) for `brewput balance`: each option out of its range,
not a number, not finite, not whole, missing or unknown; one line naming it."""
import pytest

from corpus import Case, check, ids


def balance(*args):
    return ["balance", *args]


CASES = [
    # Too few or too many centres: the busiest of one is itself; a million bounds time and memory.
    *(Case(f"centres-{name}", balance("--centres", value), names=["--centres"])
      for name, value in (("one", "1"), ("zero", "0"), ("negative", "-5"), ("over-limit", "1000001"),
                          ("huge", "1e300"))),
    # Not a whole number.
    *(Case(f"centres-{name}", balance("--centres", value), names=["--centres", "whole number"])
      for name, value in (("text", "many"), ("fraction", "2.5"), ("nan", "nan"), ("inf", "inf"),
                          ("empty", ""), ("beyond-float", "1e400"))),
    Case("centres-missing", balance("--sigma", "0.1"), names=["--centres"]),
    Case("centres-without-value", balance("--centres"), names=["--centres"]),
    # A spread that is no standard deviation of a utilization.
    *(Case(f"sigma-{name}", balance("--centres", "4", "--sigma", value), names=["--sigma"])
      for name, value in (("negative", "-0.1"), ("over-one", "1.5"), ("nan", "nan"), ("inf", "inf"),
                          ("text", "wide"), ("negative-inf", "-inf"))),
    # A mean that is no utilization.
    *(Case(f"mean-{name}", balance("--centres", "4", "--mean", value), names=["--mean"])
      for name, value in (("negative", "-0.5"), ("over-one", "1.01"), ("nan", "nan"), ("percent", "50%"),
                          ("inf", "inf"))),
    # Seeds numpy cannot take.
    *(Case(f"seed-{name}", balance("--centres", "4", "--seed", value), names=["--seed"])
      for name, value in (("negative", "-1"), ("too-large", str(2**64)), ("fraction", "1.5"), ("text", "abc"))),
    # A chart file that cannot be written: refused before any work.
    Case("chart-not-png", balance("--centres", "4", "--chart", "busiest.svg"), names=["--chart", ".png"]),
    Case("chart-is-a-folder", balance("--centres", "4", "--chart", "{dir}"), names=["--chart", "folder"]),
    Case("chart-folder-missing", balance("--centres", "4", "--chart", "{dir}/no/such/busiest.png"),
         names=["--chart", "does not exist"]),
    Case("chart-folder-is-a-file", balance("--centres", "4", "--chart", "f.txt/busiest.png"), {"f.txt": "x"},
         names=["--chart", "f.txt is a file, not a folder"]),
    Case("chart-empty-name", balance("--centres", "4", "--chart", ""), names=["--chart"]),
    Case("chart-without-value", balance("--centres", "4", "--chart"), names=["--chart"]),
    # What people type.
    Case("unknown-option", balance("--centers", "4"), names=["--centers"]),
    Case("centres-as-argument", balance("4"), names=["--centres"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
