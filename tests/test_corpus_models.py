"""The corpus (tests/corpus.py): malformed model files and the files they name.

Classes: files that are not readable text (not regular, too large, not UTF-8,
control characters), YAML too deep or too large, distribution parameters at
the edge of overflow, runaway `${...}` expressions, params that are not finite,
models whose classes together would exhaust memory, and a study given where a
model is expected."""
import pytest

from corpus import CLOSED, MODEL, Case, check, ids

PARAMS = MODEL.replace("stations:", "params: {x: 1}\nstations:")  # one line lower from `stations:` on
BIG = 5 * 1024 * 1024  # over the 4 MiB cap on every input file


def service(text):
    """MODEL with its step's service replaced (line 8)."""
    return {"m.yaml": MODEL.replace("exp(0.5)", text)}


def model_bytes(data: bytes):
    return {"m.yaml": data}


def many_closed_classes(count, population):
    classes = "".join(f"  c{i}: {{population: {population}, route: [{{station: desk, service: exp(1)}}]}}\n"
                      for i in range(count))
    return {"m.yaml": "brewput: 1\nstations: {desk: {}}\nclasses:\n" + classes}


SIMULATE = ["simulate", "m.yaml", "--customers", "1000", "--replications", "2"]
SOLVE = ["solve", "m.yaml"]
STUDY = "brewput: 1\nmodels: {m: m.yaml}\n"

CASES = [
    Case("model-missing-file", ["simulate", "nope.yaml"], names=["nope.yaml"]),
    Case("model-unknown-station", ["simulate", "m.yaml"], {"m.yaml": MODEL.replace("station: desk", "station: dsk")},
         names=["m.yaml:8", "classes.c.route[0].station"]),

    # Not a regular file: refused before anything is read.
    Case("model-is-dev-zero", ["simulate", "/dev/zero"], names=["/dev/zero", "not a regular file"]),
    Case("model-is-dev-stdin", ["solve", "/dev/stdin"], names=["/dev/stdin", "not a regular file"]),
    Case("model-is-a-directory", ["simulate", "sub"], {"sub/x.txt": "x"}, names=["sub", "directory"]),
    Case("model-is-dev-urandom", ["compare", "/dev/urandom"], names=["/dev/urandom", "not a regular file"]),
    Case("model-too-large", SOLVE, {"m.yaml": "brewput: 1\n# " + "x" * BIG + "\n"}, names=["m.yaml", "4 MiB"]),

    # Bytes no model has.
    Case("model-nul-byte", SOLVE, model_bytes(b"brewput: 1\x00\n"), names=["m.yaml", "U+0000", "line 1"]),
    Case("model-esc-byte", SOLVE, model_bytes(MODEL.replace("desk:", "de\x1bsk:", 1).encode()),
         names=["m.yaml", "U+001B", "line 3"]),
    Case("model-c1-control", SOLVE, model_bytes(MODEL.encode().replace(b"rate", b"ra\xc2\x9bte")),
         names=["m.yaml", "U+009B", "line 6"]),
    Case("model-bell-and-backspace", SOLVE, model_bytes(b"brewput: 1\nname: \x07\x08\n"), names=["m.yaml", "U+0007"]),
    Case("model-invalid-utf8", SOLVE, model_bytes(b"brewput: 1\nname: caf\xe9\n"),
         names=["m.yaml", "not UTF-8", "line 2"]),
    Case("model-utf16", SOLVE, model_bytes(MODEL.encode("utf-16")), names=["m.yaml", "not UTF-8"]),
    Case("model-encoded-surrogate", SOLVE, model_bytes(b"brewput: 1\nname: \xed\xb0\x80\n"),
         names=["m.yaml", "not UTF-8"]),
    Case("model-bom-inside", SOLVE, model_bytes(MODEL.encode().replace(b"classes:", b"\xef\xbb\xbfclasses:")),
         names=["m.yaml", "U+FEFF", "line 4"]),
    Case("model-escaped-esc", SOLVE, {"m.yaml": MODEL.replace("desk: {", '"de\\esk": {', 1)},
         names=["m.yaml:3", "U+001B"]),
    Case("model-escaped-lone-surrogate", SOLVE, {"m.yaml": MODEL + 'name: "\\ud800"\n'},
         names=["m.yaml:9", "name", "U+D800"]),
    Case("model-escaped-nul", SOLVE, {"m.yaml": MODEL.replace("station: desk, ", 'station: "desk\\0", ')},
         names=["m.yaml:8", "U+0000"]),

    # Scalars YAML cannot make into a value of ours.
    Case("scalar-5000-digits", SOLVE, {"m.yaml": MODEL.replace("servers: 1", "servers: " + "9" * 5000)},
         names=["m.yaml:3", "stations.desk.servers", "too large"]),
    Case("scalar-huge-hex", SIMULATE, {"m.yaml": MODEL.replace("servers: 1", "servers: 0x" + "f" * 3000)},
         names=["m.yaml:3", "stations.desk.servers", "too large"]),
    Case("scalar-huge-base-60", SOLVE, {"m.yaml": MODEL.replace("rate: 1", "rate: 1" + ":59" * 2000)},
         names=["m.yaml:6", "classes.c.rate", "too large"]),
    Case("scalar-bad-int-tag", SOLVE, {"m.yaml": MODEL.replace("servers: 1", "servers: !!int many")},
         names=["m.yaml:3", "stations.desk.servers", "int"]),
    Case("scalar-bad-float-tag", SOLVE, {"m.yaml": MODEL.replace("rate: 1", "rate: !!float fast")},
         names=["m.yaml:6", "classes.c.rate", "float"]),
    Case("scalar-binary-tag", SOLVE, {"m.yaml": MODEL + "name: !!binary aGVsbG8=\n"},
         names=["m.yaml:9", "name", "binary"]),
    Case("scalar-impossible-date", SOLVE, {"m.yaml": MODEL.replace("servers: 1", "servers: 2001-13-45")},
         names=["m.yaml:3", "stations.desk.servers", "2001-13-45"]),

    # YAML too deep or too large: refused while composing, in bounded time and memory.
    Case("model-deep-brackets", SOLVE, {"m.yaml": "brewput: " + "[" * 100_000}, names=["m.yaml:1", "nested more"]),
    Case("model-deep-braces", SOLVE, {"m.yaml": "a: " + "{b: " * 20_000 + "1" + "}" * 20_000},
         names=["m.yaml:1", "nested more"]),
    Case("model-deep-blocks", SOLVE, {"m.yaml": "".join(" " * i + "a:\n" for i in range(1500))},
         names=["m.yaml:64", "nested more"]),
    Case("model-deep-block-lists", SOLVE, {"m.yaml": "".join("  " * i + "- \n" for i in range(1500))},
         names=["m.yaml", "nested more"]),
    Case("model-self-alias", SOLVE, {"m.yaml": "a: &a [*a]\n"}, names=["m.yaml", "nested more"]),
    Case("model-alias-bomb", SOLVE, {"m.yaml": "a: &a [1,2,3,4,5,6,7,8,9]\n" + "".join(
        f"{x}: &{x} [{','.join(['*' + y] * 9)}]\n" for y, x in zip("abcdef", "bcdefg"))},
        names=["m.yaml", "more than 100,000 entries"], memory_mb=1024),
    Case("model-millions-of-stations", SOLVE, {"m.yaml": "brewput: 1\nstations: [" + "1," * 3_000_000 + "1]\n"},
         names=["m.yaml", "4 MiB"], memory_mb=1024),
    Case("model-a-million-list-items", SOLVE, {"m.yaml": "brewput: 1\nstations: [" + "1," * 1_000_000 + "1]\n"},
         names=["m.yaml:2", "more than 100,000 entries"], memory_mb=1024),
    Case("model-many-stations", SOLVE, {"m.yaml": "brewput: 1\nstations:\n" + "".join(
        f"  s{i}: {{}}\n" for i in range(120_000))}, names=["m.yaml", "more than 100,000 entries"], memory_mb=1024),

    # The files a model names go through the same reader.
    Case("empirical-dev-zero", SOLVE, service("empirical(/dev/zero)"),
         names=["m.yaml:8", "classes.c.route[0].service", "/dev/zero", "not a regular file"]),
    Case("empirical-directory", SOLVE, {**service("empirical(sub)"), "sub/x": "1"},
         names=["m.yaml:8", "empirical file 'sub'", "directory"]),
    Case("empirical-huge", SOLVE, {**service("empirical(t.csv)"), "t.csv": "1\n" * (BIG // 2)},
         names=["m.yaml:8", "t.csv", "4 MiB"], memory_mb=1024),
    Case("empirical-not-utf8", SOLVE, {**service("empirical(t.csv)"), "t.csv": b"1\n2\xff\n"},
         names=["m.yaml:8", "t.csv", "not UTF-8", "line 2"]),
    Case("empirical-nul", SOLVE, {**service("empirical(t.csv)"), "t.csv": b"1\n\x002\n"},
         names=["m.yaml:8", "t.csv", "U+0000"]),
    Case("empirical-too-many-in-all", SOLVE, {
        "m.yaml": MODEL.replace("exp(0.5)}", "empirical(t.csv)}\n      - {station: desk, service: empirical(t.csv)}"),
        "t.csv": "0.5\n" * 600_000}, names=["m.yaml:9", "classes.c.route[1].service", "empirical values"]),

    # Numbers at the edge of overflow: each refused naming its parameter.
    Case("lognormal-huge-cv", SOLVE, service("'lognormal(1, 1e200)'"), names=["m.yaml:8", "service", "cv"]),
    Case("gamma-tiny-cv", SIMULATE, service("'gamma(1, 1e-200)'"), names=["m.yaml:8", "service", "cv"]),
    Case("gamma-tiny-cv-mapping", SOLVE, service("{dist: gamma, mean: 1, cv: 1e-200}"),
         names=["m.yaml:8", "classes.c.route[0].service.cv"]),
    Case("normal-huge-sd", SOLVE, service("'normal(1, 1e200)'"), names=["m.yaml:8", "service", "sd"]),
    Case("empirical-huge-values", SOLVE, service("'empirical([1e308, 1e308])'"), names=["m.yaml:8", "values"]),
    Case("uniform-huge-b", SOLVE, service("'uniform(0, 1e200)'"), names=["m.yaml:8", "service", "b must"]),
    Case("hyperexp-huge-cv", SOLVE, service("'hyperexp(1, 1e200)'"), names=["m.yaml:8", "cv"]),
    Case("erlang-huge-mean", SOLVE, service("'erlang(2, 1e300)'"), names=["m.yaml:8", "mean"]),
    Case("jitter-huge", SOLVE, service("'jitter(1e300, 1e300)'"), names=["m.yaml:8", "mean"]),
    Case("exp-subnormal-mean", SIMULATE, service("exp(1e-320)"), names=["m.yaml:8", "mean"]),
    Case("rate-subnormal", SOLVE, {"m.yaml": MODEL.replace("rate: 1", "rate: 1e-320")},
         names=["m.yaml:6", "classes.c.rate", "rate"]),
    Case("think-huge", SOLVE, {"m.yaml": CLOSED.replace("population: 3", "population: 3\n    think: 1e300")},
         names=["m.yaml:7", "classes.c.think"]),

    # Params and ${...}: finite, and bounded work.
    Case("param-infinite-expression", SOLVE + ["--json"], {"m.yaml": PARAMS.replace("x: 1", "x: '${1e999}'")},
         names=["m.yaml:2", "params.x", "too large"]),
    Case("param-set-infinite", SOLVE + ["--set", "x=1e999"], {"m.yaml": PARAMS}, names=["params.x", "too large"]),
    Case("param-set-nan", SOLVE + ["--set", "x=nan"], {"m.yaml": PARAMS}, names=["params.x"]),
    Case("param-yaml-inf", SOLVE, {"m.yaml": PARAMS.replace("x: 1", "x: .inf")}, names=["m.yaml:2", "params.x"]),
    Case("expression-round-huge-digits", SOLVE, service("'${round(5, -10**18)}'"),
         names=["m.yaml:8", "service", "round"], timeout=20),
    Case("expression-thousand-terms", SOLVE, service("'${" + "+".join(["1"] * 1000) + "}'"),
         names=["m.yaml:8", "service", "longer than"]),
    Case("expression-many-terms", SOLVE, service("'${" + "+".join(["1"] * 400) + "}'"),
         names=["m.yaml:8", "service", "terms"]),
    Case("expression-deep-unary", SOLVE, service("'${" + "-" * 150 + "1}'"), names=["m.yaml:8", "nested more"]),
    Case("expression-long-unary", SOLVE, service("'${" + "-" * 900 + "1}'"), names=["m.yaml:8", "terms"]),
    Case("expression-deep-parentheses", SOLVE, service("'${" + "(" * 400 + "1" + ")" * 400 + "}'"),
         names=["m.yaml:8", "service"]),
    Case("expression-huge-power", SOLVE, service("'${9**9**9}'"), names=["m.yaml:8", "too large"], timeout=20),
    Case("expression-huge-floor", SOLVE, service("'${floor(1e300)}'"), names=["m.yaml:8", "too large"]),

    # Sizes within their own limits that together would exhaust memory.
    Case("closed-classes-together", SIMULATE, many_closed_classes(30, 1_000_000),
         names=["m.yaml:14", "classes.c10.population", "10,000,000"], memory_mb=2048),
    Case("closed-classes-many-small", SIMULATE, many_closed_classes(2000, 6000),
         names=["classes.c1666.population", "10,000,000"], memory_mb=2048),

    # Long routes are checked in linear time (a 10,000-step loop took minutes).
    Case("route-long-loop-never-exits", SOLVE, {"m.yaml": CLOSED.replace(
        "      - {station: desk, service: exp(0.5)}\n", "      - {station: desk, service: 1, id: s0}\n"
        + "      - {station: desk, service: 1}\n" * 9_998 + "      - {station: desk, service: 1, next: s0}\n")},
        names=["m.yaml:8", "classes.c.route[0]", "never exit"], timeout=30),
    Case("step-uses-listed-many-times", SOLVE, {"m.yaml": MODEL.replace("stations:", "resources: {cpu: 1}\nstations:")
         .replace("service: exp(0.5)}", "service: 1, uses: [" + "cpu, " * 60_000 + "cpu]}")},
         names=["m.yaml:9", "classes.c.route[0].uses[1]", "twice"], timeout=30),

    # What people type.
    Case("study-given-to-simulate", ["simulate", "s.yaml"], {"s.yaml": STUDY}, names=["s.yaml", "study file", "run"]),
    Case("study-given-to-solve", ["solve", "s.yaml"], {"s.yaml": STUDY}, names=["s.yaml", "brewput run"]),
    Case("study-given-to-compare", ["compare", "s.yaml"], {"s.yaml": STUDY}, names=["s.yaml", "brewput run"]),
    Case("call-piece-left-over", SOLVE, service("exp(0.5), 1)"), names=["m.yaml:8", "1)", "quote"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
