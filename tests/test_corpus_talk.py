"""The corpus (tests/corpus.py): `brewput lab talk`'s options. Each class of bad
value (an unknown or empty table, a mode no asked table has, CPU counts out of
bounds or not the talk's, a bad run length, an output that cannot be written) in
several variants: one line naming the option, exit 2, before any prediction
(so each case takes well under a second of CPU)."""
import pytest

from corpus import Case, check, ids


def talk(case_id, *args, names, files=None):
    return Case(f"lab-talk-{case_id}", ["lab", "talk", *args], files or {}, names=names, timeout=30, max_lines=1)


CASES = [
    # --table: the talk's four tables, comma-separated, or all.
    talk("table-unknown", "--table", "speedup", names=["--table speedup", "varycpu"]),
    talk("table-empty", "--table", "", names=["--table"]),
    talk("table-commas", "--table", ",,", names=["--table ,,"]),
    talk("table-older-run", "--table", "finelocking", names=["--table finelocking"]),
    talk("table-all-and-one", "--table", "all,jitter", names=["--table all,jitter"]),
    talk("table-case", "--table", "VARYCPU", names=["--table VARYCPU"]),
    talk("table-unicode", "--table", "värycpu", names=["--table värycpu"]),
    # --impl: modes of the tables asked for.
    talk("impl-unknown", "--impl", "mocha", names=["--impl mocha", "ideal"]),
    talk("impl-empty", "--impl", "", names=["--impl"]),
    talk("impl-commas", "--impl", ",", names=["--impl ,"]),
    talk("impl-not-in-the-table", "--table", "jitter", "--impl", "multi-2", names=["--impl multi-2", "jitter"]),
    talk("impl-lab-only", "--impl", "multipipe-8", names=["--impl multipipe-8"]),
    talk("impl-one-of-two-unknown", "--impl", "ideal,latte-art", names=["--impl ideal,latte-art"]),
    # --cpus: whole numbers the talk measured the tables at.
    talk("cpus-zero", "--cpus", "0", names=["--cpus 0"]),
    talk("cpus-negative", "--cpus", "-2", names=["--cpus -2"]),
    talk("cpus-not-the-talks", "--cpus", "8", names=["--cpus 8", "1, 2, 3, 4, 5, 6"]),
    talk("cpus-huge-range", "--cpus", "1..99999999999", names=["--cpus 1..99999999999"]),
    talk("cpus-backwards", "--cpus", "6..1", names=["--cpus 6..1"]),
    talk("cpus-garbage", "--cpus", "many", names=["--cpus many"]),
    talk("cpus-empty", "--cpus", "", names=["--cpus"]),
    talk("cpus-fraction", "--cpus", "1.5", names=["--cpus 1.5"]),
    talk("cpus-jitter-at-one", "--table", "jitter", "--cpus", "1", names=["--cpus 1", "6"]),
    # --dur: a time the lab accepts, checked even without --measure.
    talk("dur-zero", "--dur", "0s", names=["--dur 0s"]),
    talk("dur-negative", "--dur", "-1s", names=["--dur -1s"]),
    talk("dur-no-unit", "--dur", "5", names=["--dur 5"]),
    talk("dur-infinite", "--dur", "1e400s", names=["--dur 1e400s"]),
    talk("dur-nan", "--dur", "nans", names=["--dur"]),
    talk("dur-garbage", "--dur", "a while", names=["--dur a while"]),
    talk("dur-week", "--dur", "168h", names=["--dur 168h"]),
    # -o and --report: writable, of a known format, checked before the run.
    talk("output-unknown-suffix", "-o", "rows.txt", names=["-o", "rows.txt"]),
    talk("output-no-folder", "-o", "missing/rows.csv", names=["-o", "missing"]),
    talk("output-is-a-folder", "-o", "here", files={"here/x": ""}, names=["-o", "here"]),
    talk("report-is-a-file", "--report", "taken", files={"taken": "a file"}, names=["--report", "taken"]),
    talk("report-below-a-file", "--report", "taken/page", files={"taken": "a file"}, names=["--report", "taken"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_corpus(case, tmp_path):
    check(case, tmp_path)
