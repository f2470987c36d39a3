"""`brewput lab talk`: the talk's published tables (examples/data/talk) read into
typed rows, each point's prediction checked against closed forms where one
exists, the printed relative errors recomputed from the printed figures, the
report page and -o files, and --measure at 1 CPU."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from brewput.bundled import EXAMPLES
from brewput.errors import BrewputError
from brewput.lab.talk import TABLES, TALK_DATA, go_duration_ms, read_table, talk_tables
from brewput.lab.talk_compare import compare, has_model, predict, why_unmeasurable

pytestmark = pytest.mark.alone  # it measures this machine or holds signals to deadlines

ROOT = Path(__file__).resolve().parent.parent


def brewput(*args, cwd=ROOT):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "brewput", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env)


# ---- the data and its loader ------------------------------------------------------------------------------------

def test_the_talks_files_are_package_data_with_their_source_and_license():
    assert TALK_DATA == EXAMPLES / "data" / "talk"
    shipped = sorted(p.name for p in TALK_DATA.iterdir())
    assert shipped == ["README.md", "finelocking.csv", "jitter.csv", "multi.csv", "overload.csv", "varycpu.csv"]
    readme = (TALK_DATA / "README.md").read_text(encoding="utf-8")
    for words in ("github.com/Sajmani/dotgo", "cd10902", "2017-11-04", "BSD 3-clause",
                  "Copyright (c) 2009 The Go Authors"):
        assert words in readme


def test_every_table_reads_with_its_row_count_and_the_shape_generate_sh_gave_it():
    tables = talk_tables(TABLES + ("finelocking",))
    assert {name: len(rows) for name, rows in tables.items()} == {
        "varycpu": 126, "jitter": 28, "multi": 40, "overload": 84, "finelocking": 30}
    varycpu = tables["varycpu"]
    # 21 modes at each of 1..6 CPUs, with as many customers as CPUs (--par=0), no jitter, 10 s runs
    assert sorted({r.maxprocs for r in varycpu}) == [1, 2, 3, 4, 5, 6]
    assert all(sum(r.maxprocs == k for r in varycpu) == 21 for k in range(1, 7))
    assert all(r.par == r.maxprocs and r.jitter_ms == 0 and r.duration_ms == 10_000 for r in varycpu)
    assert sorted({r.jitter_ms for r in tables["jitter"]}) == [0.5, 1.0, 1.5, 2.0]
    assert all(r.maxprocs == 6 and r.par == 6 for r in tables["jitter"])
    assert {r.par for r in tables["multi"]} == {r.par for r in tables["overload"]} == {10, 100, 1000, 10_000}
    assert {r.mode for r in tables["multi"]} == {f"multi-{n}" for n in range(1, 11)}
    assert all(r.duration_ms == 4000 for r in tables["finelocking"])


def test_values_read_by_eye_from_the_csvs():
    tables = talk_tables(TABLES + ("finelocking",))
    first = tables["varycpu"][0]   # varycpu.csv line 2 (line 1 is blank)
    assert (first.mode, first.par, first.maxprocs, first.ops, first.thru_per_s) == ("ideal", 1, 1, 2553, 248.0)
    assert first.latency_ms == {"min": 3.981, "p05": 3.983, "p25": 3.984, "p50": 3.987, "p75": 3.997,
                                "p90": 4.107, "p95": 4.266, "p99": 4.345, "max": 4.404}
    assert first.cpu_busy == pytest.approx(0.99)
    locking = tables["jitter"][1]  # locking,6,6,...,250,...,23.747,...,500µs
    assert (locking.mode, locking.thru_per_s, locking.p50_ms, locking.jitter_ms) == ("locking", 250.0, 23.747, 0.5)
    assert locking.cpu_busy == pytest.approx(1.01)
    slow = next(r for r in tables["multi"] if r.mode == "multi-1" and r.par == 10_000)
    assert (slow.ops, slow.thru_per_s, slow.p50_ms) == (19450, 948.0, 10301.941)
    steam = next(r for r in tables["jitter"] if r.mode == "linearpipe-0" and r.jitter_ms == 1.5)
    assert (steam.thru_per_s, steam.p50_ms) == (725.0, 8.230)
    assert tables["finelocking"][2].mode == "finelocking" and tables["finelocking"][2].thru_per_s == 248.0


@pytest.mark.parametrize("text, ms", [("10s", 10_000), ("1m17.28s", 77_280), ("500µs", 0.5), ("500us", 0.5),
                                      ("0s", 0), ("1.5ms", 1.5), ("2ms", 2), ("10.275650864s", 10_275.650864),
                                      ("1h2m", 3_720_000), ("250ns", 0.00025)])
def test_go_durations(text, ms):
    assert go_duration_ms(text) == pytest.approx(ms)


@pytest.mark.parametrize("text", ["", "10", "s", "1.s", "-1s", "1e3s", "10 s", "10sec", "nan", "1s2", "1m-2s"])
def test_go_durations_refused(text):
    with pytest.raises(ValueError, match="Go duration"):
        go_duration_ms(text)


GOOD = "ideal,1,1,0,10s,0s,2553,0,248,0,10.275650864s,10.192s,99%,99%,3.981,3.983,3.984,3.987,3.997,4.107,4.266,4.345,4.404,0s"


@pytest.mark.parametrize("bad, words", [
    (GOOD.replace(",0s", "", 1).rsplit(",", 1)[0], "expected 24 columns"),
    (GOOD.replace("2553", "many"), "ops: expected a whole number, got 'many'"),
    (GOOD.replace(",1,1,", ",-1,1,", 1), "par: expected a whole number, got '-1'"),
    (GOOD.replace(",248,", ",inf,"), "thru: expected a number from 0, got 'inf'"),
    (GOOD.replace(",248,", ",nan,"), "thru: expected a number from 0, got 'nan'"),
    (GOOD.replace("3.987", "fast"), "p50: expected a number, got 'fast'"),
    (GOOD[:-2] + "half", "jitter: expected a Go duration"),
    (GOOD.replace("99%,99%", "99,99%"), "util: expected a percentage like 99%, got '99'"),
    (GOOD.replace("ideal", ""), "mode: empty"),
])
def test_a_malformed_table_is_one_error_naming_file_line_and_column(tmp_path, bad, words):
    path = tmp_path / "t.csv"
    path.write_text(f"\n{GOOD}\n{bad}\n", encoding="utf-8")
    with pytest.raises(BrewputError) as caught:
        read_table(path)
    assert str(caught.value).startswith(f"{path}:3: ") and words in str(caught.value)


def test_par_0_means_as_many_customers_as_cpus_as_in_the_talk(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(GOOD.replace("ideal,1,1,", "ideal,0,4,") + "\n", encoding="utf-8")
    (row,) = read_table(path)
    assert (row.par, row.maxprocs) == (4, 4)
    path.write_text(GOOD.replace("ideal,1,1,", "ideal,0,0,") + "\n", encoding="utf-8")
    with pytest.raises(BrewputError, match=r"t.csv:1: maxprocs: expected at least 1 CPU"):
        read_table(path)


def test_an_unreadable_table_is_one_error_naming_the_file(tmp_path):
    with pytest.raises(BrewputError, match="missing.csv: cannot read"):
        read_table(tmp_path / "missing.csv")
    (tmp_path / "latin.csv").write_bytes(GOOD.replace("0s", "500\xb5s").encode("latin-1"))
    with pytest.raises(BrewputError, match="latin.csv: cannot read"):
        read_table(tmp_path / "latin.csv")


# ---- predictions against closed forms ---------------------------------------------------------------------------

# Deterministic stages: a throughput is off its closed form only by the lattes in flight
# at the ends of the measured window (at most K of the 45,000 counted): rel 2e-4.
EDGE = 2e-4


def row(mode, cpus, par=None, table="varycpu"):
    rows = talk_tables((table,))[table]
    return next(r for r in rows if r.mode == mode and r.maxprocs == cpus and (par is None or r.par == par))


@pytest.mark.parametrize("cpus", range(1, 7))
def test_ideal_with_as_many_customers_as_cpus_is_k_over_4_per_ms_and_4_ms(cpus):
    # nothing is shared but the CPUs and every customer has one: four 1 ms stages back to back
    predicted = predict(row("ideal", cpus))
    assert predicted.thru_per_s == pytest.approx(cpus * 250, rel=EDGE)
    assert predicted.p50_ms == pytest.approx(4.0, rel=1e-6)


@pytest.mark.parametrize("cpus", range(1, 7))
def test_locking_is_250_per_second_at_any_cpu_count_and_waits_for_every_other_customer(cpus):
    # one lock held 4 ms per latte: 250/s; with K customers each waits for the K - 1 ahead of it
    predicted = predict(row("locking", cpus))
    assert predicted.thru_per_s == pytest.approx(250, rel=EDGE)
    assert predicted.p50_ms == pytest.approx(4.0 * cpus, rel=1e-6)


@pytest.mark.parametrize("par", [10, 100, 1000, 10_000])
def test_locking_overloaded_turns_customers_into_latency(par):
    # a closed loop of N customers at one 4 ms lock: 250/s, and each latte takes 4N ms from its order
    predicted = predict(row("locking", 6, par, "overload"))
    assert predicted.thru_per_s == pytest.approx(250, rel=1e-3)
    assert predicted.p50_ms == pytest.approx(4.0 * par, rel=1e-3)


@pytest.mark.parametrize("par", [10, 100, 1000, 10_000])
def test_many_shops_at_six_cpus_are_held_to_the_cpus_bound(par):
    # multi-6 at 6 CPUs: every shop busy, so the CPUs are the bottleneck: 6 CPUs / 4 ms = 1500/s,
    # and by Little's law the N customers of the closed loop take N / 1500 s each on average
    # (10,000 customers need many rounds each to leave the start, when all order at once, behind)
    from brewput.lab import CoffeeSettings
    from brewput.lab.predict import predict_coffee

    assert predict(row("multi-6", 6, par, "multi")).thru_per_s == pytest.approx(1500, rel=5e-3)
    results = predict_coffee("multi-6", 6, par, CoffeeSettings())
    assert results["classes"]["latte"]["response_time"]["mean"] == pytest.approx(par / 1.5, rel=5e-3)


@pytest.mark.parametrize("table", ["multi", "overload"])
def test_two_shops_with_a_crowd_keep_six_cpus_busy(table):
    # multi-2: each shop makes at most 1000/s (1 ms per machine), two make 2000/s, so with
    # thousands of customers split between them the 6 CPUs are the bound, 1500/s; the start,
    # when every customer orders at once, must be left behind (it cost 3 % at 10,000)
    for par in (1000, 10_000):
        assert predict(row("multi-2", 6, par, table)).thru_per_s == pytest.approx(1500, rel=5e-3)


def test_the_jitter_keeps_the_mean_stage_so_ideal_stays_at_1500():
    # uniform noise around each 1 ms stage leaves its mean at 1 ms: ideal at 6 CPUs makes 1500/s
    for r in talk_tables(("jitter",))["jitter"]:
        if r.mode == "ideal":
            assert predict(r).thru_per_s == pytest.approx(1500, rel=0.01)


def test_modes_with_no_model_are_rows_without_a_prediction_never_dropped():
    tables = talk_tables(("varycpu",))
    missing = {r.mode for r in tables["varycpu"] if not has_model(r.mode)}
    assert missing == {"americano", "espresso", "americanopipe-0", "americanopipe-1", "espressopipe-0",
                       "espressopipe-1"}
    americano = {"varycpu": [r for r in tables["varycpu"] if r.mode == "americano"]}
    comparisons = compare(americano)
    assert len(comparisons) == 6 and all(c.predicted is None for c in comparisons)
    assert why_unmeasurable(americano["varycpu"][0], 64) == "no lab implementation"


def test_cpu_counts_above_the_machine_and_crowds_above_the_lab_are_model_only():
    assert why_unmeasurable(row("ideal", 6), 2) == "model only: 6 CPUs, this machine has 2"
    assert why_unmeasurable(row("ideal", 2), 2) is None
    crowd = row("ideal", 6, 10_000, "overload")
    assert why_unmeasurable(crowd, 64) == "model only: 10,000 customers, the lab runs at most 4,096"
    assert why_unmeasurable(row("ideal", 6, 1000, "overload"), 64) is None


# ---- the command ------------------------------------------------------------------------------------------------

def printed_tables(stdout):
    """{title: [[cell, ...], ...]} of the tables the command printed."""
    tables, title, lines = {}, None, stdout.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("┏"):
            title = " ".join(l.strip() for l in lines[:k][::-1][:2][::-1] if l.strip() and not l.startswith("└"))
            tables[title] = []
        elif line.startswith("│") and title is not None:
            tables[title].append([cell.strip() for cell in line.strip("│").split("│")])
    return tables


def figure(text):
    """A printed figure, without the ± of its interval."""
    return float(text.split(" ± ")[0].replace(",", ""))


def test_the_tables_and_their_relative_errors_recomputed_from_the_printed_figures():
    run = brewput("lab", "talk", "--table", "varycpu,overload", "--impl", "ideal,locking,multi-2,americano")
    assert run.returncode == 0, run.stderr
    tables = printed_tables(run.stdout)
    assert len(tables) == 4, run.stdout
    talk = {(r.mode, r.maxprocs, r.par): r for name in ("varycpu", "overload") for r in talk_tables((name,))[name]}
    checked = 0
    for title, rows in tables.items():
        table = "varycpu" if title.startswith("varycpu") else "overload"
        latency = "median latency" in title
        assert len(rows) == (4 * 6 if table == "varycpu" else 4 * 4), title
        for mode, key, talk_text, model_text, error_text in rows:
            k = int(key.replace(",", ""))
            published = talk[(mode, k, k) if table == "varycpu" else (mode, 6, k)]
            assert figure(talk_text) == pytest.approx(published.p50_ms if latency else published.thru_per_s,
                                                      rel=5e-4)
            if mode == "americano":
                assert (model_text, error_text) == ("no model", "")
                continue
            # the error printed to two significant digits, from figures printed to four
            recomputed = figure(talk_text) / figure(model_text) - 1
            printed = float(error_text.rstrip("%")) / 100
            assert printed == pytest.approx(recomputed, rel=0.06, abs=6e-4), (title, mode, key)
            checked += 1
    assert checked == 2 * (3 * 6 + 3 * 4)
    assert "No model in examples/coffee (nor a lab implementation) for americano" in run.stdout
    assert "customers = CPUs (nobody waits for a worker)" in " ".join(run.stdout.split())


def test_the_model_only_tables_at_1_to_6_cpus_show_each_truth():
    run = brewput("lab", "talk", "--table", "varycpu", "--impl", "ideal,locking")
    assert run.returncode == 0, run.stderr
    throughput, latency = printed_tables(run.stdout).values()
    assert [(r[0], r[1], r[3]) for r in throughput] == [
        (mode, str(k), f"{k * 250 if mode == 'ideal' else 250:,}".replace(",", "")) for k in range(1, 7)
        for mode in ("ideal", "locking")]
    assert [(r[0], r[3]) for r in latency] == [(mode, str(4 if mode == "ideal" else 4 * k)) for k in range(1, 7)
                                               for mode in ("ideal", "locking")]


def test_tables_left_without_points_by_impl_and_cpus_are_said_not_dropped_silently():
    run = brewput("lab", "talk", "--impl", "ideal", "--cpus", "1")
    assert run.returncode == 0, run.stderr
    assert list(printed_tables(run.stdout)) == ["varycpu (customers = CPUs): throughput, lattes/s",
                                                "varycpu (customers = CPUs): median latency, ms"]
    assert ("No points in the talk's jitter/multi/overload tables for the --impl and --cpus asked for."
            in " ".join(run.stdout.split()))


def test_report_writes_the_page_with_the_tables_and_the_chart_and_o_writes_the_rows(tmp_path):
    run = brewput("lab", "talk", "--table", "varycpu,jitter", "--impl", "ideal,linearpipe-0",
                  "--report", tmp_path / "page", "-o", tmp_path / "rows.csv")
    assert run.returncode == 0, run.stderr
    page = (tmp_path / "page" / "index.html").read_text(encoding="utf-8")
    for words in ("varycpu (customers = CPUs): throughput, lattes/s", "jitter (6 CPUs, stages ± J/2): median latency",
                  "Throughput against CPUs", "charts/talk_throughput.png", "github.com/Sajmani/dotgo",
                  "<td>linearpipe-0</td>", "brewput lab talk --table varycpu,jitter"):
        assert words in page, words
    assert (tmp_path / "page" / "charts" / "talk_throughput.png").stat().st_size > 10_000
    record = json.loads((tmp_path / "page" / "record.json").read_text())
    assert len(record["rows"]) == 2 * 6 + 2 * 4
    rows = pd.read_csv(tmp_path / "rows.csv")
    assert len(rows) == 20 and set(rows["table"]) == {"varycpu", "jitter"}
    ideal6 = rows[(rows["mode"] == "ideal") & (rows["cpus"] == 6) & (rows["table"] == "varycpu")].iloc[0]
    assert (ideal6["talk_throughput_per_s"], ideal6["talk_p50_ms"]) == (1513, 3.881)
    assert ideal6["predicted_throughput_per_s"] == pytest.approx(1500, rel=EDGE)
    assert rows["measured_throughput_per_s"].isna().all()
    as_json = brewput("lab", "talk", "--table", "jitter", "--impl", "locking", "-o", tmp_path / "rows.json")
    assert as_json.returncode == 0, as_json.stderr
    saved = json.loads((tmp_path / "rows.json").read_text())
    assert [r["jitter_ms"] for r in saved["rows"]] == [0.5, 1.0, 1.5, 2.0]
    assert all(r["predicted"]["throughput_per_s"] == pytest.approx(250, rel=1e-3) for r in saved["rows"])


def test_measure_at_one_cpu_runs_and_says_what_is_model_only():
    pytest.importorskip("brewput._native")
    run = brewput("lab", "talk", "--table", "varycpu", "--impl", "ideal,americano", "--cpus", "1,6", "--measure",
                  "--dur", "100ms")
    assert run.returncode == 0, run.stderr
    throughput, latency = printed_tables(run.stdout).values()
    assert [r[0:2] for r in throughput] == [["ideal", "1"], ["americano", "1"], ["ideal", "6"], ["americano", "6"]]
    ideal1 = throughput[0]
    # one CPU burning 4 ms per latte makes at most 250 a second, whatever else the machine does
    assert 0 < figure(ideal1[5]) <= 250 * 1.02
    assert " ± " in ideal1[5]  # the lab's interval over its three repetitions
    assert ideal1[6].rstrip("*") == f"{(figure(ideal1[5]) / 250 - 1) * 100:+.2g}%" or ideal1[6].rstrip("*").endswith("%")
    assert figure(latency[0][5]) >= 4 * 0.98
    assert [r[5] for r in throughput[1:]] == ["-", "-", "-"]   # no lab implementation; 6 CPUs model only here
    text = " ".join(run.stdout.split())
    machine = len(os.sched_getaffinity(0))
    if machine < 6:
        assert f"lab: measured at 1 CPU on this machine ({machine} CPUs); 6 CPUs are model only here" in text


def test_ctrl_c_during_a_measurement_prints_what_finished_and_exits_130(tmp_path):
    import signal
    import time

    pytest.importorskip("brewput._native")
    run = subprocess.Popen([sys.executable, "-m", "brewput", "lab", "talk", "--table", "varycpu", "--cpus", "1",
                            "--impl", "ideal,locking", "--measure", "--dur", "20s", "-o", str(tmp_path / "rows.json")],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
    time.sleep(4.0)  # start-up and the first prediction done, ideal's first measurement under way
    run.send_signal(signal.SIGINT)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    throughput, _ = printed_tables(stdout).values()
    assert throughput == [["ideal", "1", "248", "250", "-0.8%", "-", ""]]   # locking's point never started
    assert "interrupted by Ctrl-C at the last row" in " ".join(stdout.split())
    saved = json.loads((tmp_path / "rows.json").read_text())
    assert [(r["mode"], r["unmeasured"]) for r in saved["rows"]] == [("ideal", "interrupted")]
