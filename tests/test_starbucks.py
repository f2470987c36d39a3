"""The Starbucks study (seed 000, docs/starbucks.md): the bar's two take rules
against a Markov chain solved here (tests/bar_chain.py), and the chain against
the M/M/c/K closed form.

Tolerances: conftest.py's rule (the 95 % interval widened to 99.9 %)."""
import math

import pytest
from scipy.stats import t as student_t

from bar_chain import bar_throughput
from conftest import check

import brewput

ESPRESSO, DRIP = 1.0, 0.3          # minutes, the bar's mean times in the study's models
BUFFER = 8


def mmck_throughput(rate, mean, c, k):
    """M/M/c/K's carried load: arrivals times the chance of finding room."""
    a = rate * mean
    p = [a ** n / math.factorial(n) if n <= c else a ** n / (math.factorial(c) * c ** (n - c)) for n in range(k + 1)]
    return rate * (1 - p[k] / sum(p))


@pytest.mark.parametrize("take", ["head", "first_fit"])
def test_the_chain_with_one_kind_of_drink_is_mmck(take):
    # all espresso: two machines, no choice to make, the take rule cannot matter
    made = bar_throughput(2.5, 1.0, ESPRESSO, DRIP, 2 + 1 + BUFFER, take)
    assert made["D"] == 0.0
    assert made["E"] == pytest.approx(mmck_throughput(2.5, ESPRESSO, 2, 2 + 1 + BUFFER), rel=1e-9)
    # all drip: the drip station alone, M/M/1/K
    made = bar_throughput(2.5, 0.0, ESPRESSO, DRIP, 2 + 1 + BUFFER, take)
    assert made["D"] == pytest.approx(mmck_throughput(2.5, DRIP, 1, 2 + 1 + BUFFER), rel=1e-9)


def bar(take, rate, share):
    """The study's bar alone, with exponential times so that the chain is its truth."""
    return brewput.Model.from_dict({
        "brewput": 1, "name": f"bar, {take}", "time_unit": "min",
        "stations": {"bar": {"servers": {"espresso_machine": 2, "drip_station": 1}, "buffer": BUFFER,
                             "take": take}},
        "classes": {
            "espresso": {"rate": rate * share,
                         "route": [{"station": "bar", "service": f"exp({ESPRESSO})",
                                    "served_by": ["espresso_machine"]}]},
            "drip": {"rate": rate * (1 - share),
                     "route": [{"station": "bar", "service": f"exp({DRIP})", "served_by": ["drip_station"]}]}}})


@pytest.mark.parametrize("take", ["head", "first_fit"])
@pytest.mark.parametrize("rate, share", [(3.0, 0.6), (6.0, 0.6), (6.0, 0.4)])
def test_the_simulated_bar_makes_what_the_chain_says(take, rate, share):
    truth = bar_throughput(rate, share, ESPRESSO, DRIP, 2 + 1 + BUFFER, take)
    res = brewput.simulate(bar(take, rate, share), seed=3, replications=5, customers=100_000)
    for cls, kind in (("espresso", "E"), ("drip", "D")):
        check(res, ("classes", cls, "throughput"), truth[kind], max_rel_width=0.02)


def test_reordering_raises_the_saturated_bar_by_what_the_chain_says():
    # the seed's claim in one number: beyond saturation FIFO's blocked line idles a unit
    fifo = sum(bar_throughput(20.0, 0.6, ESPRESSO, DRIP, 2 + 1 + BUFFER, "head").values())
    fit = sum(bar_throughput(20.0, 0.6, ESPRESSO, DRIP, 2 + 1 + BUFFER, "first_fit").values())
    # first fit keeps both machines busy: 2 espresso drinks a minute, and drip in proportion
    assert fit == pytest.approx(2 / 0.6, rel=1e-3)
    assert fifo < 0.95 * fit


# ---- the study, from one command, as docs/starbucks.md runs it --------------------

@pytest.fixture(scope="module")
def study_report(tmp_path_factory):
    """The study's report folder, run as the page runs it (the study's own seed,
    replications and customers: the page's tables are its figures)."""
    import subprocess
    import sys

    from conftest import EXAMPLES

    report = tmp_path_factory.mktemp("starbucks") / "report"
    run = subprocess.run([sys.executable, "-m", "brewput", "run", str(EXAMPLES / "studies" / "starbucks.yaml"),
                          "--report", str(report)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return report


@pytest.fixture(scope="module")
def study_record(study_report):
    import json

    return json.loads((study_report / "record.json").read_text())


def test_the_study_runs_from_one_command_into_a_report_with_the_floor_charts(study_report, study_record):
    charts = {p.stem for p in (study_report / "charts").glob("*.png")}
    assert {"throughput", "utilization", "lost", "measures"} <= charts
    assert not study_record["failed"]
    assert {scenario["model"] for scenario in study_record["scenarios"]} == {"fifo", "first-fit", "early-order"}
    for scenario in study_record["scenarios"]:
        results = scenario["results"]
        bar = results["stations"]["bar"]
        types = bar["server_types"]
        # each kind of unit makes only its own drink, and the bar's drinks are the units' drinks
        assert types["espresso_machine"]["served"]["drip"] == 0 and types["drip_station"]["served"]["espresso"] == 0
        made = {"espresso": types["espresso_machine"]["served"]["espresso"],
                "drip": types["drip_station"]["served"]["drip"]}
        assert bar["throughput"] == pytest.approx(sum(made.values()), rel=1e-9)
        # every drink is one customer's completion: at the same moment when the drink is the last
        # step; with early ordering the customer completes once paid too, so drinks and
        # completions differ by the customers between the two at the run's edges (the interval)
        for cls, drinks in made.items():
            if scenario["model"] == "early-order":
                check(results, ("classes", cls, "throughput"), drinks)
            else:
                assert results["classes"][cls]["throughput"] == pytest.approx(drinks, rel=1e-9)


# ---- docs/starbucks.md: the early-ordering tables are the study's ------------------

@pytest.mark.parametrize("espresso_share", [0.4, 0.6, 0.8])
def test_the_page_holds_the_study_table_of_each_mix(study_record, espresso_share):
    from pathlib import Path

    from starbucks_tables import table

    page = (Path(__file__).resolve().parent.parent / "docs" / "starbucks.md").read_text()
    assert table(study_record, espresso_share) in page, table(study_record, espresso_share)


def test_espresso_and_drip_customers_give_up_alike(study_record):
    # the tables show the espresso customers' losses for both: nobody's patience or
    # balking depends on the drink, so the two classes' shares agree within their
    # 95 % intervals widened to 99.9 % (conftest.py's rule)
    for scenario in study_record["scenarios"]:
        results = scenario["results"]
        factor = student_t.ppf(0.9995, results["settings"]["replications"] - 1) / student_t.ppf(
            0.975, results["settings"]["replications"] - 1)
        for reason in ("balked", "reneged"):
            share, half = {}, {}
            for cls in ("espresso", "drip"):
                figures = results["classes"][cls]
                share[cls] = figures["loss_probability_by"][reason]
                low, high = figures["loss_probability_by_ci"][reason]
                half[cls] = (high - low) / 2 * factor
            assert abs(share["espresso"] - share["drip"]) <= half["espresso"] + half["drip"], (
                scenario["model"], scenario["params"], reason, share, half)


def test_the_line_before_ordering_is_longer_with_one_expediter(study_record):
    # the page's reason why early ordering loses more customers below the bar's capacity
    from brewput.figures import with_ci

    at = {s["model"]: s["results"]["stations"] for s in study_record["scenarios"]
          if s["params"] == {"rate": 4, "espresso_share": 0.4}}
    line = {"early-order": at["early-order"]["expediter"], "first-fit": at["first-fit"]["register"]}
    assert {m: with_ci(st["waiting"], st["waiting_ci"]) for m, st in line.items()} == {
        "early-order": "0.8884 ± 0.01", "first-fit": "0.5767 ± 0.013"}
    assert line["early-order"]["waiting_ci"][0] > line["first-fit"]["waiting_ci"][1]


# ---- docs/starbucks.md: every pasted output is what its command prints ------------

def _doc_commands():
    """(command, the output pasted under it) for each `$ brewput ...` line of the page,
    and each `$ cd tests && python -c '...'` whose quoted program runs over several lines."""
    from pathlib import Path

    lines = (Path(__file__).resolve().parent.parent / "docs" / "starbucks.md").read_text().splitlines()
    found, command, output, inside, quoted = [], None, [], False, False
    for line in lines + ["```"]:
        if quoted:
            command += "\n" + line
            quoted = not line.endswith("'")
            continue
        if line.startswith("```"):
            inside = not inside
        if command is not None and (line.startswith("$ ") or line.startswith("```")):
            found.append((command, "\n".join(output)))
            command, output = None, []
        if inside and line.startswith(("$ brewput ", "$ cd tests && python -c '")):
            command = line[2:]
            quoted = line.count("'") % 2 == 1
        elif command is not None:
            output.append(line)
    return found


def test_the_page_has_its_commands():
    # the parser above must find every command the page shows (a changed prompt would skip one)
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "starbucks.md").read_text()
    assert len(_doc_commands()) == page.count("\n$ ") >= 6


@pytest.mark.parametrize("command, pasted", _doc_commands(), ids=lambda c: c[:60])
def test_the_page_shows_what_its_commands_print(command, pasted):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    shell = (command.replace("brewput ", f"{sys.executable} -m brewput ", 1) if command.startswith("brewput ")
             else command.replace("&& python ", f"&& {sys.executable} ", 1))
    run = subprocess.run(shell, shell=True, capture_output=True, text=True, cwd=root,
                         env={**os.environ, "COLUMNS": "200"})
    assert run.stdout.rstrip("\n") == pasted, f"{command}\n{run.stdout}"
