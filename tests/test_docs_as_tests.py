"""The docs as tests (tests/docs_as_tests.py): how it reads a page, how it compares
what a page shows with what a command prints, and the pages themselves.

By default the runner's reading and checking are tested on pages written here, every
page of README.md and docs/ is read (its markers and blocks well formed, no command
block left unlabelled), and the quick pages are run. BREWPUT_DOCS_TESTS=all runs every
page (about 10 minutes; `make test` runs them all from the installed wheel in
tests/wheel_smoke.sh, and none here: BREWPUT_DOCS_TESTS=wheel).
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import docs_as_tests as runner  # noqa: E402

PAGES = runner.documents([])
# Pages whose every command ends within seconds: run by the default pytest.
QUICK = {"solve.md", "simulation.md", "model-language.md", "results.md", "compiled-model.md"}
BIN = Path(sys.executable).parent


def page(tmp_path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text)
    return path


def commands(tmp_path, text: str):
    return [c for b in runner.blocks_of(page(tmp_path, text)) if b.language in runner.RUN_LANGUAGES
            for c in runner.commands_of(b)]


def test_a_command_goes_on_over_backslashes_and_open_quotes_and_keeps_its_comment(tmp_path):
    found = commands(tmp_path, "```sh\nbrewput plan a.yaml \\\n    --vary x=1..3   # cheapest: 14 agents\n"
                               "python -c '\nprint(1)'\n# a comment line\n\nbrewput serve --for 5s &\n```\n")
    assert [c.text for c in found] == ["brewput plan a.yaml \\\n    --vary x=1..3", "python -c '\nprint(1)'",
                                       "brewput serve --for 5s"]
    assert found[0].comment == "cheapest: 14 agents" and runner.comment_figures(found[0].comment) == ["14"]
    assert [c.background for c in found] == [False, False, True]
    assert [c.line for c in found] == [2, 4, 8]


def test_a_console_block_gives_each_command_the_lines_after_it(tmp_path):
    found = commands(tmp_path, "<!-- docs-test: exit 2 -->\n```console\n$ brewput a\nline 1\nline 2\n$ brewput b\n```\n")
    assert [(c.text, c.shown, c.exit_codes) for c in found] == [("brewput a", ["line 1", "line 2"], (2,)),
                                                               ("brewput b", [], (2,))]


def test_an_exit_marker_names_the_commands_it_is_for(tmp_path):
    found = commands(tmp_path, '<!-- docs-test: exit 0,1 "brewput run" -->\n```sh\nbrewput serve &\nbrewput run s.yaml\n```\n')
    assert [c.exit_codes for c in found] == [(0,), (0, 1)]
    with pytest.raises(runner.DocError, match="names 'brewput load', which no command of the block holds"):
        commands(tmp_path, '<!-- docs-test: exit 1 "brewput load" -->\n```sh\nbrewput run s.yaml\n```\n')


def test_a_hash_inside_quotes_or_a_word_is_no_comment():
    line = "echo '# not' a#b \"#x\"  # yes"
    assert runner.comment_start(line) == line.index("# yes")
    assert runner.comment_start("brewput load http://h/#frag") is None


def test_an_unlabelled_block_that_starts_like_a_command_is_refused(tmp_path):
    with pytest.raises(runner.DocError, match="label it sh or console"):
        runner.blocks_of(page(tmp_path, "text\n\n```\n$ brewput simulate x.yaml\n```\n"))


def test_an_unknown_marker_is_refused_by_line(tmp_path):
    with pytest.raises(runner.DocError, match=r"page.md:1: unknown docs-test marker 'skipp'"):
        runner.blocks_of(page(tmp_path, "<!-- docs-test: skipp -->\n```sh\nbrewput x\n```\n"))


PRINTED = """\
┏━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┓
┃ station ┃      utilization ┃   p99   ┃
┡━━━━━━━━━╇━━━━━━━━━━━━━━━━━━╇━━━━━━━━━┩
│ cpu     │ 0.9587 ± 0.00077 │  1,471  │
│ disk    │   0.5 ± 0.01     │  20.5   │
└─────────┴──────────────────┴─────────┘
"""


def test_shown_figures_agree_when_their_intervals_overlap_or_they_are_equal():
    # another width of table, 0.9580 ± 0.0001 overlaps 0.9587 ± 0.00077 (0.00070 apart, 0.00087 allowed)
    assert runner.compare_output(["┃ station ┃ utilization ┃ p99 ┃", "│ cpu │ 0.958 ± 0.0001 │ 1471 │"],
                                 PRINTED, 0) == []
    assert runner.compare_output(["...", "│ disk │ 0.5 ± 0.01 │ 20.5 │"], PRINTED, 0) == []


def test_shown_figures_that_differ_are_named():
    # 0.95 ± 0.0001 is 0.0087 from 0.9587 ± 0.00077: the intervals do not meet
    problems = runner.compare_output(["│ cpu │ 0.95 ± 0.0001 │ 1,471 │"], PRINTED, 0)
    assert len(problems) == 1 and "'0.95 ± 0.0001'" in problems[0] and "'0.9587 ± 0.00077'" in problems[0]
    assert runner.compare_output(["│ disk │ 0.5 ± 0.01 │ 20.4 │"], PRINTED, 0) != []
    # within a stated tolerance: 20.4 is 0.49 % from 20.5
    assert runner.compare_output(["│ disk │ 0.5 ± 0.01 │ 20.4 │"], PRINTED, 0.005) == []
    assert runner.compare_output(["│ disk │ 0.5 ± 0.01 │ 20.4 │"], PRINTED, 0.004) != []


def test_a_shown_line_printed_nowhere_or_out_of_order_is_named():
    assert "shown but not printed" in runner.compare_output(["│ gpu │ 1 │ 2 │"], PRINTED, 0)[0]
    assert runner.compare_output(["│ disk │ 0.5 ± 0.01 │ 20.5 │", "│ cpu │ 0.9587 ± 0.00077 │ 1,471 │"],
                                 PRINTED, 0) != []


def test_a_comment_figure_must_be_printed():
    assert runner.check_comment("Erlang C, exact: 34.99 min", "mean 34.99 min") == []
    assert runner.check_comment("Erlang C, exact: 34.99 min", "mean 34.98 min") != []
    assert runner.check_comment("M/M/3 at 90 %, each figure with its 95 % CI", "nothing") == []


def test_a_page_runs_in_order_skips_by_name_and_fails_what_differs(tmp_path, capsys):
    text = """\
<!-- docs-test: skip "needs a six-CPU machine" -->
```sh
false
```

```sh
ls examples/mmc.yaml > listed.txt
python -c 'import time; time.sleep(60)  # docs-test-background-7391' &
```

```python
print(open("listed.txt").read().strip(), 6 * 7)
```

```console
$ echo 'mean 3.5 ± 0.1'
mean 3.45 ± 0.1
$ echo 'mean 3.5 ± 0.1'
mean 3.2 ± 0.1
$ exit 3
```

<!-- docs-test: exit 3 -->
```sh
exit 3
```
"""
    outcomes = runner.run_document(page(tmp_path, text), BIN, timeout=30, say=print)
    assert [o.status for o in outcomes] == ["skip", "ok", "ok", "ok", "ok", "FAIL", "FAIL", "ok"]
    assert outcomes[0].detail == "needs a six-CPU machine" and "page.md:2" in outcomes[0].name
    assert "shown '3.2 ± 0.1', printed '3.5 ± 0.1'" in outcomes[5].detail
    assert "exit code 3, expected 0" in outcomes[6].detail
    assert "skip  page.md:2 (sh block): needs a six-CPU machine" in capsys.readouterr().out
    # the python block (ok above) read the file a shell command wrote in the same folder, or it
    # had failed with a traceback; the background job was stopped with the page
    assert not running("docs-test-background-7391")


def running(token: str) -> bool:
    """Whether any process's command line holds the token."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if token in cmdline.read_text():
                return True
        except OSError:
            pass
    return False


def test_a_command_past_its_time_fails_saying_so(tmp_path):
    outcomes = runner.run_document(page(tmp_path, "```sh\nsleep 30\n```\n"), BIN, timeout=1, say=lambda _: None)
    assert outcomes[0].status == "FAIL" and "did not end within 1 s" in outcomes[0].detail


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_every_page_reads(path):
    """Its markers are known, its blocks closed, no command block unlabelled."""
    for block in runner.blocks_of(path):
        if block.language in runner.RUN_LANGUAGES:
            runner.commands_of(block)


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_every_command_of_the_page_runs_as_written(path):
    if os.environ.get("BREWPUT_DOCS_TESTS") == "wheel":
        pytest.skip("make test runs every page from the installed wheel (tests/wheel_smoke.sh)")
    if path.name not in QUICK and os.environ.get("BREWPUT_DOCS_TESTS") != "all":
        pytest.skip("a long page: BREWPUT_DOCS_TESTS=all runs it (make test runs every page from the wheel)")
    outcomes = runner.run_document(path, BIN, timeout=240, say=lambda _: None)
    failed = [runner.report_line(o) for o in outcomes if o.status == "FAIL"]
    assert not failed, "\n".join(failed)


def test_a_shown_line_that_the_width_wrapped_is_found_across_lines():
    printed = "fit of a.csv: load ->\nthroughput, 7 points   \n│ σ │ 0.02773 │\n"
    assert runner.compare_output(["fit of a.csv: load -> throughput, 7 points", "│ σ │ 0.02773 │"], printed, 0) == []
    assert runner.compare_output(["fit of a.csv: load -> throughput, 8 points"], printed, 0) != []


def test_a_table_quoting_a_run_has_each_interval_figure_printed(tmp_path):
    text = """\
```sh
echo '│ cpu │ 0.9587 ± 7.7e-05 │ 8.096 ± 0.0079 │'
```

<!-- docs-test: figures of "echo" -->
| figure | MVA | brewput |
|---|---|---|
| cpu | 0.9588 / 8.102 | 0.9587 ± 0.000077 / 8.096 ± 0.0079 |
"""
    outcomes = runner.run_document(page(tmp_path, text), BIN, timeout=30, say=lambda _: None)
    assert [o.status for o in outcomes] == ["ok", "ok"] and "figures of 'echo'" in outcomes[1].name
    # the users=10 table under the users=20 command: 0.8134 is nowhere near 0.9587
    wrong = text.replace("0.9587 ± 0.000077", "0.8134 ± 0.00017")
    outcomes = runner.run_document(page(tmp_path, wrong), BIN, timeout=30, say=lambda _: None)
    assert outcomes[1].status == "FAIL" and "the table's 0.8134 ± 0.00017: printed nowhere" in outcomes[1].detail
