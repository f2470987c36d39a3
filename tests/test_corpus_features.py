"""The corpus (tests/corpus.py): models using a feature outside solve's allow-list
(analytic/support.py's SOLVABLE_FEATURES), refused in one line naming the file,
the field where the model first uses it and the feature, with `brewput simulate`
suggested: whatever the kind of model, the step or class using it, and however
solve is reached (a sweep, compare, --json)."""
import pytest

from corpus import Case, check, ids

TOKENS = "a step that holds a server and resource tokens at once (simultaneous possession)"


def with_tokens(first: str, second: str = "", tokens_at: int = 1, resources: str = "{cups: 2}") -> str:
    """Stations desk and bar; class `a` (`first`: its arrivals or population) visits
    desk then bar, and the step at `tokens_at` uses tokens of every resource; a
    second class `b` (`second`) visits the desk alone."""
    uses = ", uses: [" + ", ".join(name.split(":")[0].strip() for name in resources.strip("{}").split(",")) + "]"
    steps = [f"      - {{station: desk, service: exp(0.5){uses if tokens_at == 0 else ''}}}",
             f"      - {{station: bar, service: exp(0.2){uses if tokens_at == 1 else ''}}}"]
    text = (f"brewput: 1\nparams: {{n: 1}}\nresources: {resources}\nstations:\n  desk: {{servers: '${{n}}'}}\n"
            f"  bar: {{servers: 2}}\nclasses:\n  a:\n    {first}\n    route:\n" + "\n".join(steps) + "\n")
    if second:
        text += f"  b:\n    {second}\n    route:\n      - {{station: desk, service: exp(0.1)}}\n"
    return text


CASES = [
    Case("solve-tokens-open", ["solve", "m.yaml"], {"m.yaml": with_tokens("rate: 1")},
         names=["m.yaml", "classes.a.route[1].uses", TOKENS, "brewput simulate"]),
    Case("solve-tokens-mixed", ["solve", "m.yaml"], {"m.yaml": with_tokens("population: 3", "rate: 0.5")},
         names=["classes.a.route[1].uses", TOKENS]),
    Case("solve-tokens-several-resources", ["solve", "m.yaml"],
         {"m.yaml": with_tokens("rate: 1", resources="{cups: 2, milk: 1}")}, names=["classes.a.route[1].uses", TOKENS]),
    Case("solve-tokens-sweep", ["solve", "m.yaml", "--sweep", "n=1..3"], {"m.yaml": with_tokens("rate: 1")},
         names=["n=1", "classes.a.route[1].uses", TOKENS]),
    Case("compare-tokens", ["compare", "m.yaml"], {"m.yaml": with_tokens("rate: 1")},
         names=["classes.a.route[1].uses", TOKENS]),
    Case("solve-tokens-set", ["solve", "m.yaml", "--set", "n=3"], {"m.yaml": with_tokens("rate: 1", tokens_at=0)},
         names=["classes.a.route[0].uses", TOKENS]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
