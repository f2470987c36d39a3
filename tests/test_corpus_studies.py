"""The corpus (tests/corpus.py): malformed study files for `brewput run`.

Classes: study files that are not readable text or are too deep or large (the
same reader as model files), simulate settings that are infinite, not a number,
huge, negative, fractional or strings, params and sweeps that are not finite, a
model file given to `run`, and model files named by a study that cannot be read."""
import pytest

from corpus import STUDY_MODEL, Case, check, ids

STUDY = """\
brewput: 1
models: {m: m.yaml}
sweep: {n: 1..2}
engines: [simulate]
simulate:
  customers: 1000
  replications: 2
"""
"""A valid study of m.yaml (STUDY_MODEL, with its param `n`); `simulate:` is on line 5."""

RUN = ["run", "s.yaml"]


def study(text):
    return {"s.yaml": text, "m.yaml": STUDY_MODEL}


def simulate(settings):
    """STUDY with its simulate settings replaced (from line 6)."""
    return study(STUDY.replace("  customers: 1000\n  replications: 2\n", settings))


CASES = [
    # simulate settings: each field checked, named with its path.
    Case("study-seed-inf", RUN, simulate("  seed: .inf\n"), names=["s.yaml:6", "simulate.seed"]),
    Case("study-seed-negative", RUN, simulate("  seed: -1\n"), names=["s.yaml:6", "simulate.seed"]),
    Case("study-seed-huge", RUN, simulate("  seed: 1e30\n"), names=["s.yaml:6", "simulate.seed"]),
    Case("study-seed-string", RUN, simulate("  seed: abc\n"), names=["s.yaml:6", "simulate.seed", "'abc'"]),
    Case("study-customers-inf", RUN, simulate("  customers: .inf\n"), names=["s.yaml:6", "simulate.customers"]),
    Case("study-customers-nan", RUN, simulate("  customers: .nan\n"), names=["s.yaml:6", "simulate.customers"]),
    Case("study-customers-huge", RUN, simulate("  customers: 1e300\n"),
         names=["s.yaml:6", "simulate.customers", "too large"]),
    Case("study-customers-fraction", RUN, simulate("  customers: 10.5\n"), names=["s.yaml:6", "simulate.customers"]),
    Case("study-customers-bool", RUN, simulate("  customers: true\n"), names=["s.yaml:6", "simulate.customers"]),
    Case("study-replications-inf", RUN, simulate("  replications: .inf\n"),
         names=["s.yaml:6", "simulate.replications"]),
    Case("study-replications-huge", RUN, simulate("  replications: 1e300\n"),
         names=["s.yaml:6", "simulate.replications", "100,000"]),
    Case("study-replications-list", RUN, simulate("  replications: [1, 2]\n"),
         names=["s.yaml:6", "simulate.replications"]),
    Case("study-warmup-nan", RUN, simulate("  warmup: .nan\n"), names=["s.yaml:6", "simulate.warmup"]),
    Case("study-warmup-inf", RUN, simulate("  warmup: .inf\n"), names=["s.yaml:6", "simulate.warmup"]),
    Case("study-warmup-negative", RUN, simulate("  warmup: -5\n"), names=["s.yaml:6", "simulate.warmup"]),
    Case("study-warmup-fraction-of-customers", RUN, simulate("  customers: 100\n  warmup: 2.5\n"),
         names=["s.yaml:7", "simulate.warmup", "customers"]),
    Case("study-warmup-huge-with-horizon", RUN, simulate("  horizon: 10\n  warmup: 1e300\n"),
         names=["s.yaml:7", "simulate.warmup", "model time"]),
    Case("study-horizon-inf", RUN, simulate("  horizon: .inf\n"), names=["s.yaml:6", "simulate.horizon"]),
    Case("study-horizon-nan", RUN, simulate("  horizon: .nan\n"), names=["s.yaml:6", "simulate.horizon"]),
    Case("study-horizon-negative", RUN, simulate("  horizon: -3\n"), names=["s.yaml:6", "simulate.horizon"]),
    Case("study-horizon-string", RUN, simulate("  horizon: soon\n"), names=["s.yaml:6", "simulate.horizon"]),
    Case("study-customers-and-horizon", RUN, simulate("  customers: 10\n  horizon: 5\n"),
         names=["s.yaml:6", "simulate.customers", "horizon"]),
    Case("study-simulate-not-a-mapping", RUN, simulate("  - 3\n"), names=["s.yaml:5", "simulate", "mapping"]),

    # Params and sweeps: finite numbers.
    Case("study-set-inf", RUN, study(STUDY + "set: {n: .inf}\n"), names=["s.yaml:8", "set.n"]),
    Case("study-set-nan", RUN, study(STUDY + "set: {n: .nan}\n"), names=["s.yaml:8", "set.n"]),
    Case("study-set-huge", RUN, study(STUDY + "set: {n: 1e300}\n"), names=["s.yaml:8", "set.n"]),
    Case("study-model-set-inf", RUN, study(STUDY.replace("{m: m.yaml}", "{m: {file: m.yaml, set: {n: .inf}}}")),
         names=["s.yaml:2", "models.m.set.n"]),
    Case("study-sweep-inf", RUN, study(STUDY.replace("{n: 1..2}", "{n: .inf}")), names=["s.yaml:3", "sweep.n"]),
    Case("study-sweep-nan-in-list", RUN, study(STUDY.replace("{n: 1..2}", "{n: [1, .nan]}")),
         names=["s.yaml:3", "sweep.n"]),
    Case("study-charts-listed-many-times", RUN, study(STUDY + "charts: [" + "throughput, " * 60_000 + "throughput]\n"),
         names=["s.yaml:8", "charts[1]", "twice"], timeout=30),
    Case("study-too-many-models", RUN,
         study("brewput: 1\nmodels:\n" + "".join(f"  m{i}: m.yaml\n" for i in range(1001))),
         names=["s.yaml:2", "models", "at most 1,000"]),
    Case("study-title-not-text", RUN, study(STUDY + "title: [1]\n"), names=["s.yaml:8", "title", "string"]),
    Case("study-version-2", RUN, study(STUDY.replace("brewput: 1", "brewput: 2")), names=["s.yaml:1", "brewput"]),

    # The file itself: the model files' reader, the same caps and words.
    Case("study-is-dev-zero", ["run", "/dev/zero"], names=["/dev/zero", "study file", "not a regular file"]),
    Case("study-is-a-directory", ["run", "sub"], {"sub/s.yaml": STUDY}, names=["sub", "directory"]),
    Case("study-too-large", RUN, study(STUDY + "# " + "x" * (5 * 1024 * 1024) + "\n"),
         names=["s.yaml", "4 MiB"], memory_mb=1024),
    Case("study-nul-byte", RUN, {"s.yaml": STUDY.replace("engines", "eng\x00ines")}, names=["s.yaml", "U+0000"]),
    Case("study-invalid-utf8", RUN, {"s.yaml": STUDY.encode() + b"title: \xfe\n"}, names=["s.yaml", "not UTF-8"]),
    Case("study-escaped-esc-label", RUN, study(STUDY.replace("{m: m.yaml}", '{"m\\e": m.yaml}')),
         names=["s.yaml:2", "U+001B"]),
    Case("study-deep-nesting", RUN, {"s.yaml": "brewput: 1\ntitle: " + "[" * 50_000}, names=["s.yaml:2", "nested"]),
    Case("study-alias-bomb", RUN, {"s.yaml": "a: &a [1,2,3,4,5,6,7,8,9]\n" + "".join(
        f"{x}: &{x} [{','.join(['*' + y] * 9)}]\n" for y, x in zip("abcdef", "bcdefg"))},
        names=["s.yaml", "entries"], memory_mb=1024),

    # The wrong kind of file, and model files it names that cannot be read.
    Case("model-given-to-run", ["run", "m.yaml"], {"m.yaml": STUDY_MODEL}, names=["m.yaml", "model file", "simulate"]),
    Case("study-model-is-dev-zero", RUN,
         {"s.yaml": STUDY.replace("m.yaml", "/dev/zero").replace("sweep: {n: 1..2}\n", "")},
         names=["/dev/zero", "not a regular file"]),
    Case("study-model-is-a-study", RUN, {"s.yaml": STUDY.replace("m.yaml", "s.yaml")},
         names=["s.yaml:1", "study file", "brewput run"]),
    Case("study-model-not-utf8", RUN, {"s.yaml": STUDY, "m.yaml": STUDY_MODEL.encode() + b"\xff\n"},
         names=["m.yaml", "not UTF-8"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
