"""The engine's golden results: every example model and a model for each
service-floor feature (typed servers, giving up, marks, fork/join, the dispatch
policies, preemption, blocking, resources, sjf, processor sharing), run with
fixed seeds straight through the Rust engine (src/bin/golden.rs, no Python
extension to rebuild), so that a change meant to move code and not behaviour can
be checked to give the same results bit for bit.

    python bench/engine-speed/golden.py record before   # before the change
    python bench/engine-speed/golden.py record after    # after it
    python bench/engine-speed/golden.py compare before after
    python bench/engine-speed/golden.py record base COMMIT   # the engine of a commit instead

The inputs are written once, on the first record, so that models others add to
examples/ meanwhile do not enter one side only (`golden.py inputs` writes them
again). Results go to $GOLDEN_DIR (default /tmp/engine-golden); the runner is
built in its own target folder, so it neither waits for nor disturbs the shared
one."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

from brewput.engine.simulate import run_settings
from brewput.model import Model, load

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(os.environ.get("GOLDEN_DIR", "/tmp/engine-golden"))
TARGET = GOLDEN / "target"
CUSTOMERS, WARMUP, REPLICATIONS, SEED = 20_000, 2_000, 2, 7


def model(stations, classes):
    return {"brewput": 1, "name": "golden", "stations": stations, "classes": classes}


def one_station(servers, step, rate=0.8, **station):
    return model({"s": {"servers": servers, **station}}, {"c": {"rate": rate, "route": [{"station": "s", **step}]}})


def n_model(take, assign="longest_idle"):
    return model({"bar": {"servers": {"x": 1, "y": 2}, "take": take, "assign": assign, "buffer": 30}},
                 {"a": {"rate": 0.9, "route": [{"station": "bar", "served_by": {"x": "exp(1)", "y": "exp(0.8)"}}]},
                  "b": {"rate": 1.2, "route": [{"station": "bar", "service": "gamma(0.8, 0.5)",
                                                "served_by": ["y"]}]}})


def forked(join, mark=False):
    coffee = {"station": "espresso", "service": "exp(1)", **({"mark": "coffee"} if mark else {})}
    return model({"espresso": {"servers": 1, "buffer": 5}, "steamer": {"servers": 1}, "counter": {"servers": 2}},
                 {"c": {"rate": 0.5, **({"measures": {"to_coffee": ["arrived", "coffee"]}} if mark else {}),
                        "route": [{"fork": {"coffee": [coffee],
                                            "milk": [{"station": "steamer", "service": "exp(1)"}],
                                            "foam": [{"station": "steamer", "service": "exp(0.2)"}]},
                                   "join": join},
                                  {"station": "counter", "service": "exp(1)"}]}})


def two_way(policy, **step):
    return model({"a": {"servers": 1}, "b": {"servers": 1}, "c": {"servers": 2, "buffer": 3}},
                 {"c": {"rate": 1.5, "route": [{"dispatch": {"a": [{"station": "a", "service": "exp(1)"}],
                                                             "b": [{"station": "b", "service": "exp(1)"}],
                                                             "c": [{"station": "c", "service": "exp(2)"}]},
                                                "policy": policy, **step}]}})


def prioritized(c, preempt, service="exp(1)"):
    station = {"servers": c, "discipline": "priority", **({"preempt": preempt} if preempt != "none" else {})}
    return model({"cpu": station},
                 {"high": {"rate": 0.35 * c, "priority": 2, "route": [{"station": "cpu", "service": service}]},
                  "mid": {"rate": 0.2 * c, "priority": 1, "route": [{"station": "cpu", "service": "exp(0.5)"}]},
                  "low": {"rate": 0.3 * c, "priority": 0, "route": [{"station": "cpu", "service": service}]}})


FLOOR = {
    "balk_threshold": one_station(2, {"service": "exp(1)", "balk": 3}, rate=2.5),
    "balk_probabilities": one_station(2, {"service": "exp(1)", "balk": [0, 0.2, 0.5, 0.9, 1]}, rate=2.5),
    "patience": one_station(3, {"service": "exp(1)", "patience": "exp(2)"}, rate=3.2),
    "patience_priority": model({"s": {"servers": 2, "discipline": "priority"}},
                               {"a": {"rate": 1.0, "priority": 1,
                                      "route": [{"station": "s", "service": "exp(1)", "patience": "exp(1)"}]},
                                "b": {"rate": 1.2, "route": [{"station": "s", "service": "exp(1)",
                                                              "patience": "uniform(0, 3)"}]}}),
    "closed_balking": model({"s": {"servers": 1}},
                            {"c": {"population": 8, "think": "exp(2)",
                                   "route": [{"station": "s", "service": "exp(0.5)", "balk": 2}]}}),
    "typed_first_fit": n_model("first_fit"),
    "typed_head": n_model("head"),
    "typed_in_order": n_model("first_fit", "in_order"),
    "typed_priority": model({"bar": {"servers": {"x": 1, "y": 1}, "take": "first_fit", "discipline": "priority"}},
                            {"a": {"rate": 0.5, "priority": 1, "route": [{"station": "bar", "service": "exp(0.8)"}]},
                             "b": {"rate": 0.6, "route": [{"station": "bar", "service": "exp(1)",
                                                           "served_by": ["y"]}]}}),
    "typed_closed_strict": model({"bar": {"servers": {"x": 1, "y": 1}, "take": "head"}},
                                 {"a": {"population": 2, "route": [{"station": "bar", "service": 1,
                                                                    "served_by": ["x"]}]},
                                  "b": {"population": 1, "route": [{"station": "bar", "service": 1.1,
                                                                    "served_by": ["y"]}]}}),
    "marks": model({"order": {"servers": 1}, "bar": {"servers": 1}},
                   {"c": {"rate": 0.5,
                          "measures": {"whole": ["arrived", "done"], "queue_to_order": ["arrived", "ordered"],
                                       "from_order": ["ordered", "done"]},
                          "route": [{"station": "order", "service": "exp(1)", "mark": "ordered"},
                                    {"station": "bar", "service": "exp(1.25)"}]}}),
    "fork_all": forked("all"),
    "fork_any": forked("any", mark=True),
    "fork_two_of_three": forked(2, mark=True),
    **{f"dispatch_{p}": two_way(p) for p in ("random", "round_robin", "shortest_queue", "least_utilized",
                                            "shared")},
    "dispatch_power_of_d": two_way("power_of_d", d=2),
    **{f"priority_{c}_{p}": prioritized(c, p) for c in (1, 2) for p in ("none", "resume", "restart")},
    "preempt_constant": prioritized(1, "resume", 1),
    "sjf": one_station(2, {"service": "gamma(0.5, 2)"}, rate=1.6, discipline="sjf"),
    "ps": one_station(2, {"service": "exp(1)"}, rate=1.6, discipline="ps"),
    "ps_unbounded": one_station("inf", {"service": "exp(1)"}, rate=1.6, discipline="ps"),
    "blocking_tandem": model({"a": {"servers": 1, "buffer": 1}, "b": {"servers": 1, "buffer": 0}},
                             {"c": {"rate": 0.7, "route": [{"station": "a", "service": "exp(1)"},
                                                           {"station": "b", "service": "exp(1.2)"}]}}),
}


def examples():
    """Every example model with its own params, and the coffee shop at 6 CPUs
    with the talk's noise (resources, blocking, dispatch at full load)."""
    found = {}
    for path in sorted(ROOT.glob("examples/**/*.yaml")):
        if "studies" in path.parts:
            continue
        name = "-".join(path.relative_to(ROOT / "examples").with_suffix("").parts)
        found[name] = load(path)
        if "coffee" in path.parts:
            found[f"{name}-6cpu"] = load(path, params={"cpus": 6, "noise": 0.5})
    return found


def write_inputs(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    models = {**examples(), **{f"floor-{k}": Model.from_dict(v) for k, v in FLOOR.items()}}
    for name, m in models.items():
        settings = run_settings(SEED, REPLICATIONS, CUSTOMERS, None, WARMUP, 1)
        (folder / f"{name}.json").write_text(json.dumps({"model": m.compile(), "settings": settings}))
    return len(models)


def record(label: str, commit: Optional[str] = None):
    """Runs the inputs through the engine of the working tree, or of `commit`."""
    inputs = GOLDEN / "inputs"
    if not inputs.exists():
        write_inputs(inputs)
    tree = ROOT
    if commit:
        tree = GOLDEN / f"tree-{commit}"
        if not tree.exists():
            tree.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        # The runner of today, so that commits from before it can be run too.
        runner = Path("bench/engine-speed/src/bin/golden.rs")
        (tree / runner).parent.mkdir(parents=True, exist_ok=True)
        (tree / runner).write_text((ROOT / runner).read_text())
    # A target folder per tree: cargo tells a build fresh by its sources' times, and
    # another tree's unchanged files would pass the working tree's for built already.
    target = TARGET / (commit or "work")
    env = {**os.environ, "CARGO_TARGET_DIR": str(target), "CARGO_PROFILE_RELEASE_LTO": "false",
           "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16"}
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "engine-speed", "--bin", "golden"],
                   cwd=tree, env=env, check=True)
    subprocess.run([str(target / "release" / "golden"), str(inputs), str(GOLDEN / label)], check=True)
    print(f"{len(list(inputs.glob('*.json')))} models -> {GOLDEN / label}")


def compare(a: str, b: str) -> int:
    """Bit for bit on the figures both sides have; a block one side adds (a change that
    adds figures, such as each station's per-class `classes`) is listed once, not
    counted as a difference."""
    left, right = GOLDEN / a, GOLDEN / b
    names = sorted({p.name for p in left.glob("*.json")} | {p.name for p in right.glob("*.json")})
    differ, one_side = [], set()
    for n in names:
        if not (left / n).exists() or not (right / n).exists():
            differ.append(n)
        elif not _same(_read(left / n), _read(right / n), "", one_side):
            differ.append(n)
    errors = [n for n in names if (right / n).exists() and (right / n).read_text().startswith("error")]
    for n in differ:
        print(f"DIFFERS {n}")
    for n in errors:
        print(f"error in {b}: {n}: {(right / n).read_text()}")
    for where in sorted(one_side):
        print(f"on one side only (not compared): {where}")
    print(f"{len(names) - len(differ)} of {len(names)} identical")
    return 1 if differ else 0


def _read(path: Path):
    text = path.read_text()
    return text if text.startswith("error") else json.loads(text)


def _same(x, y, where: str, one_side: set) -> bool:
    """Whether x and y are equal where both have a key (exactly: floats as written);
    the paths of keys on one side only, with list positions as [], go to `one_side`."""
    if isinstance(x, dict) and isinstance(y, dict):
        for key in x.keys() ^ y.keys():
            one_side.add(f"{where}.{key}")
        return all(_same(x[k], y[k], f"{where}.{k}", one_side) for k in x.keys() & y.keys())
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_same(u, v, f"{where}[]", one_side) for u, v in zip(x, y))
    return x == y and type(x) is type(y)


if __name__ == "__main__":
    if sys.argv[1:2] == ["inputs"]:
        print(f"{write_inputs(GOLDEN / 'inputs')} models -> {GOLDEN / 'inputs'}")
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "record":
        record(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
