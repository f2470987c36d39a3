"""`brewput doe`: two-level factorial designs and their analysis, against
truths built here: a model whose response is additive in two factors by
construction (two infinite-server stations in a row: the mean response is the
sum of their service means) recovers its coefficients within their standard
errors and finds no effect where there is none; the aliases of 2^(k-p) designs
follow from their generators; the least squares agree with numpy's."""
import json
import subprocess
import sys

import numpy as np
import pytest

import brewput
from brewput.planning.doe import (Factor, alias_groups, analyse, design, parse_generators, run_design,
                                  simulated, term_column, terms)
from brewput.planning.slo import parse_figure

ADDITIVE = """\
brewput: 1
time_unit: s
params: {s1: 1, s2: 2, rate: 1}
stations:
  first: {servers: inf}
  second: {servers: inf}
classes:
  job:
    rate: ${rate}
    route:
      - {station: first, service: 'exp(${s1})'}
      - {station: second, service: 'exp(${s2})'}
"""


def factors(*names):
    return [Factor(n, 0, 1) for n in names]


def test_a_response_additive_by_construction_gives_back_its_coefficients(tmp_path):
    path = tmp_path / "additive.yaml"
    path.write_text(ADDITIVE)
    model = brewput.load(path)
    # Coded: s1 = 2 + 1 x1, s2 = 3 + 1 x2; the rate does nothing to a mean response at infinite servers.
    chosen = [Factor("s1", 1, 3), Factor("s2", 2, 4), Factor("rate", 0.5, 1.0)]
    coded = design(chosen, {})
    figure = parse_figure("mean", model)
    responses = run_design(chosen, coded, simulated(model, customers=20_000, seed=7),
                           lambda r: figure.figures(r)[0][1], replications=4)
    fitted = {c["term"]: c for c in analyse(coded, [f.name for f in chosen], responses)["coefficients"]}
    truth = {"(Intercept)": 5.0, "s1": 1.0, "s2": 1.0}
    for term, c in fitted.items():
        expected = truth.get(term, 0.0)
        assert abs(c["estimate"] - expected) < 4 * c["std_error"], (term, c)
    assert fitted["s1"]["p"] < 1e-6 and fitted["s2"]["p"] < 1e-6
    # With no effect anywhere else, at most one of the six null terms may look significant at 1 %.
    null = [c for term, c in fitted.items() if term not in truth]
    assert sum(c["p"] < 0.01 for c in null) <= 1


@pytest.mark.parametrize("generators, expected", [
    (["D=ABC"], [["a:b", "c:d"], ["a:c", "b:d"], ["a:d", "b:c"]]),  # resolution IV
    (["d=a*b*c"], [["a:b", "c:d"], ["a:c", "b:d"], ["a:d", "b:c"]]),  # the same, by name
])
def test_a_half_fraction_of_four_factors_aliases_pairs_of_interactions(generators, expected):
    chosen = factors("a", "b", "c", "d")
    coded = design(chosen, parse_generators(generators, chosen))
    assert coded.shape == (8, 4)
    groups = [[":".join(t) for t, _ in g] for g in alias_groups(coded, ["a", "b", "c", "d"]) if len(g) > 1]
    assert groups == expected


def test_a_resolution_three_design_aliases_main_effects_with_interactions():
    chosen = factors("a", "b", "c")
    coded = design(chosen, parse_generators(["C=-AB"], chosen))
    groups = {g[0][0]: [(":".join(t), s) for t, s in g[1:]] for g in alias_groups(coded, ["a", "b", "c"])}
    assert groups[("a",)] == [("b:c", -1)] and groups[("b",)] == [("a:c", -1)] and groups[("c",)] == [("a:b", -1)]


def test_a_full_design_is_balanced_and_orthogonal():
    names = ["a", "b", "c", "d", "e"]
    coded = design(factors(*names), {})
    assert coded.shape == (32, 5) and len({tuple(r) for r in coded}) == 32
    x = np.column_stack([term_column(coded, names, t) for t in terms(names)])
    assert np.array_equal(x.T @ x, 32 * np.eye(x.shape[1]))


def test_the_fit_is_ordinary_least_squares():
    names = ["a", "b", "c"]
    coded = design(factors(*names), {})
    rng = np.random.default_rng(3)
    responses = rng.normal(size=(8, 3)) + 2 * coded[:, [0]] - coded[:, [1]] * coded[:, [2]]
    x = np.column_stack([np.ones(8)] + [term_column(coded, names, t) for t in terms(names)])
    beta, *_ = np.linalg.lstsq(np.tile(x, (3, 1)), responses.T.reshape(-1), rcond=None)
    fit = analyse(coded, names, responses)
    assert [c["estimate"] for c in fit["coefficients"]] == pytest.approx(list(beta), abs=1e-12)
    residuals = responses.T.reshape(-1) - np.tile(x, (3, 1)) @ beta
    dof = 24 - 7
    assert fit["residual_dof"] == dof
    assert fit["residual_std_error"] == pytest.approx(np.sqrt(residuals @ residuals / dof))
    assert fit["coefficients"][1]["std_error"] == pytest.approx(np.sqrt(residuals @ residuals / dof / 24))


def test_the_command_runs_a_fraction_and_draws_the_effects(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "brewput", "doe", "examples/coffee/linearpipe-1.yaml", "--factor", "cpus=1,4",
         "--factor", "noise=0,0.5", "--factor", "stations.espresso.servers=1,2", "--fraction", "C=AB",
         "--replications", "2", "--customers", "2000", "--chart", str(tmp_path / "e.png"), "--json"],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert len(record["design"]) == 4 and len(record["responses"][0]) == 2
    assert [[t for t, _ in g] for g in record["aliases"]] == [
        ["cpus", "noise:stations.espresso.servers"], ["noise", "cpus:stations.espresso.servers"],
        ["stations.espresso.servers", "cpus:noise"]]
    assert (tmp_path / "e.png").stat().st_size > 10_000


UNSTABLE_AT_HIGH_RATE = """\
brewput: 1
name: one desk
params: {rate: 0.5, c: 1}
stations:
  s: {servers: '${c}'}
classes:
  c: {rate: '${rate}', route: [{station: s, service: exp(1)}]}
"""


def test_a_run_beyond_saturation_is_warned_of_beside_the_fit(tmp_path):
    """rate 1.17 at one server is 117 % load: its mean measures only the run's
    length, and the coefficients fitted to it are said to include it, as simulate says."""
    (tmp_path / "m.yaml").write_text(UNSTABLE_AT_HIGH_RATE)
    argv = [sys.executable, "-m", "brewput", "doe", "m.yaml", "--factor", "rate=0.5,1.17", "--factor", "c=1,2",
            "--response", "mean", "--customers", "2000", "--replications", "2"]
    shown = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    warnings = [line for line in shown.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2, shown.stderr
    assert warnings[0].startswith("warning: run rate=1.17, c=1: station s: open arrivals offer utilization 1.17")
    assert "fitted to these runs" in warnings[1]
    record = json.loads(subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=300,
                                       cwd=tmp_path).stdout)
    assert [w.split(":")[0] for w in record["warnings"]] == ["run rate=1.17, c=1"]


@pytest.mark.parametrize("response", ["p95", "throughput"])
def test_the_coffee_experiment_in_docs_planning_is_what_the_command_gives(response):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "planning.md").read_text()
    done = subprocess.run(
        [sys.executable, "-m", "brewput", "doe", "examples/coffee/linearpipe-1.yaml", "--factor", "cpus=1,4",
         "--factor", "noise=0,0.5", "--factor", "stations.espresso.servers=1,2", "--factor",
         "stations.steamer.buffer=0,10", "--response", response, "--replications", "3", "--customers", "20000",
         "--json"], capture_output=True, text=True, timeout=600, cwd=root)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    for c in record["coefficients"]:
        p = c["p"]
        stars = "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else "." if p < 0.1 else ""
        row = f"| {c['term']} | {c['estimate']:.6g} | {c['std_error']:.6g} | {c['t']:.3f} | {p:.3g} | {stars} |"
        assert row in doc, row
    means = {tuple(r): sum(v) / len(v) for r, v in zip(record["design"], record["responses"])}
    if response == "p95":
        assert means[(-1, -1, -1, -1)] == means[(1, -1, -1, -1)] == 4.0  # lockstep without noise
    else:
        assert means[(-1, -1, -1, -1)] == 0.25 and means[(1, -1, -1, -1)] == 1.0  # 0.25 per ms per CPU


@pytest.mark.alone  # it measures this machine
def test_the_lab_as_the_engine_gives_back_the_stage_times_it_burns():
    """The ideal kitchen on one CPU, one customer: a latte's median is the CPU its
    four stages burn, so grinding 1 -> 2 ms and pressing 1 -> 3 ms have the coded
    effects 0.5 and 1.0 ms and nothing together. Measurements share this machine:
    the structural check gets three attempts (tests/test_lab_coffee.py's rule)."""
    args = [sys.executable, "-m", "brewput", "doe", "--lab", "coffee", "--impl", "ideal", "--cpus", "1",
            "--factor", "grind=1,2", "--factor", "press=1,3", "--response", "p50", "--replications", "2",
            "--dur", "150ms", "--warmup", "30ms", "--json"]
    seen = []
    for _ in range(3):
        done = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        record = json.loads(done.stdout)
        assert record["engine"] == "lab" and record["model"] == "lab coffee ideal"
        fitted = {c["term"]: c["estimate"] for c in record["coefficients"]}
        seen.append(fitted)
        if (abs(fitted["grind"] - 0.5) < 0.05 and abs(fitted["press"] - 1.0) < 0.1
                and abs(fitted["grind:press"]) < 0.05 and abs(fitted["(Intercept)"] - 5.5) < 0.3):
            return
    pytest.fail(f"the stage times were not given back in 3 attempts: {seen}")
