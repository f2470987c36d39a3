"""brewput as a package: its examples inside it, `brewput examples`, the version's
one home, the metadata a package index shows, help and shell completion.

The installed wheel itself, run as a new user would, is tests/wheel_smoke.sh
(`make wheel-test`, part of `make test`)."""
import filecmp
import json
import os
import re
import subprocess
import sys
from importlib.metadata import metadata, requires, version
from pathlib import Path

import pytest

import brewput
import brewput.bundled

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGE = Path(brewput.__file__).resolve().parent


def brewput_cli(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "brewput", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "100", **(env or {})}, timeout=60)


def files_below(folder: Path):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_the_examples_are_package_data_and_the_checkouts_examples_link_to_them():
    assert brewput.bundled.EXAMPLES.resolve() == PACKAGE / "examples"
    assert (CHECKOUT / "examples").resolve() == PACKAGE / "examples"
    shipped = files_below(brewput.bundled.EXAMPLES)
    assert "studies/coffee.yaml" in shipped and "coffee/finelocking.yaml" in shipped and "mmc.yaml" in shipped
    # models and studies, the measured data sets the planning commands read (with their source), and
    # a day's forecast of counts beside its model (`rate: {counts: FILE}`)
    assert all(name.endswith(".yaml") or (name.startswith("data/") and name.endswith((".csv", ".md")))
               or (name.startswith("rush/") and name.endswith(".csv")) for name in shipped), shipped


def test_no_module_reads_files_from_the_checkout():
    # `Path(__file__).parents[N]` reaches out of the package: fine in a checkout,
    # a missing file after `pip install`.
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if re.search(r"parents\[\d\]|\.parent\.parent", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_examples_copies_every_example_byte_for_byte(tmp_path):
    done = brewput_cli("examples", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    copied = tmp_path / "examples"
    assert files_below(copied) == files_below(brewput.bundled.EXAMPLES)
    match, mismatch, errors = filecmp.cmpfiles(copied, brewput.bundled.EXAMPLES, files_below(copied), shallow=False)
    assert (mismatch, errors) == ([], [])
    assert f"{len(match)} example files" in done.stdout


def test_examples_makes_the_folder_and_the_copies_run(tmp_path):
    done = brewput_cli("examples", "new/place", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # a study finds its models relative to itself, in the copy too
    run = brewput_cli("run", "new/place/examples/studies/coffee.yaml", "--customers", "500",
                      "--replications", "2", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "new/place/examples/coffee/finelocking.yaml" in run.stdout


def test_examples_never_overwrites_unless_forced(tmp_path):
    mine = tmp_path / "examples" / "mmc.yaml"
    mine.parent.mkdir()
    mine.write_text("my own model\n")
    refused = brewput_cli("examples", ".", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip() == "error: examples/mmc.yaml already exists: --force overwrites them"
    assert mine.read_text() == "my own model\n"
    assert files_below(tmp_path) == ["examples/mmc.yaml"]  # all or nothing: nothing else copied

    forced = brewput_cli("examples", ".", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert mine.read_bytes() == (brewput.bundled.EXAMPLES / "mmc.yaml").read_bytes()


def test_examples_replaces_a_link_instead_of_writing_through_it(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("not an example\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "mmc.yaml").symlink_to(outside)
    assert brewput_cli("examples", "--force", cwd=tmp_path).returncode == 0
    assert outside.read_text() == "not an example\n"
    assert not (tmp_path / "examples" / "mmc.yaml").is_symlink()


def cargo_version():
    workspace = (CHECKOUT / "Cargo.toml").read_text()
    package = workspace[workspace.index("[workspace.package]"):]
    return re.search(r'^version\s*=\s*"([^"]+)"', package, re.M).group(1)


def test_the_version_comes_from_cargo(tmp_path):
    assert brewput.__version__ == cargo_version()
    done = brewput_cli("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"brewput {cargo_version()}\n", "")


def test_the_metadata_a_package_index_shows():
    meta = metadata("brewput")
    assert meta["License-Expression"] == "MIT"
    assert (CHECKOUT / "LICENSE").read_text().startswith("MIT License")
    assert meta["Description-Content-Type"].startswith("text/markdown")
    assert meta["Description"].startswith("# brewput")  # the README
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert (PACKAGE / "py.typed").is_file()
    # a Python version classifier for each minor version from requires-python's to 3.13
    oldest = int(re.fullmatch(r">=3\.(\d+)", meta["Requires-Python"]).group(1))
    assert [c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)] \
        == [f"3.{minor}" for minor in range(oldest, 14)]
    assert oldest == 10  # typer 0.26, which brewput pins, needs 3.10
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert any(c.startswith("Topic :: ") for c in classifiers)
    # the license as an SPDX expression, which replaces the License classifiers (PEP 639)
    assert not any(c.startswith("License :: ") for c in classifiers)
    # the extras a user may want, which the CLI's one-line hints name; the test suite's
    # and the benchmarks' tools are development groups (pyproject's dependency-groups)
    assert set(meta.get_all("Provides-Extra")) == {"parquet", "dask"}
    assert not any("extra ==" in r and ("test" in r or "bench" in r) for r in requires("brewput"))
    assert any(r.startswith("typer") and "<" in r for r in requires("brewput"))


def test_make_build_installs_the_development_groups_here():
    # The test suite and the benchmarks run in the environment `make build` made:
    # every requirement of the test and bench groups is installed in it.
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    from packaging.requirements import Requirement

    groups = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["dependency-groups"]
    assert {"build", "test", "bench"} <= set(groups)
    for requirement in map(Requirement, groups["test"] + groups["bench"]):
        assert requirement.specifier.contains(version(requirement.name), prereleases=True), requirement


def test_help_shows_flags_bare_and_defaults_unescaped(tmp_path):
    help_text = brewput_cli("simulate", "--help", cwd=tmp_path).stdout
    json_line = next(line for line in help_text.splitlines() if line.strip().startswith("--json"))
    assert json_line.split()[1] == "Print", json_line  # no `<bool>` or BOOLEAN after the flag
    assert "[default: 1]" in help_text and "\\[" not in help_text
    assert "Usage: brewput simulate [OPTIONS] MODEL" in help_text
    # an argument's help, between its name and its default
    examples_help = " ".join(brewput_cli("examples", "--help", cwd=tmp_path).stdout.split())
    assert "[FOLDER] Where to put the examples/ folder. [default: .]" in examples_help


@pytest.mark.parametrize("words, expected", [("brewput si", "simulate"), ("brewput simulate --rep", "--replications"),
                                             ("brewput exa", "examples")])
def test_shell_completion_completes_commands_and_options(words, expected, tmp_path):
    env = {"_BREWPUT_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    done = brewput_cli(cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout.split()


def test_dir_lists_the_public_api_for_tab_completion_without_loading_it(tmp_path):
    # What IPython, Jupyter and the Python prompt (rlcompleter) offer after `brewput.`:
    # dir() of the module, before any public name is loaded.
    code = ("import json, rlcompleter, sys, brewput\n"
            "listed = dir(brewput)\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('brewput.'))\n"
            "completer = rlcompleter.Completer({'brewput': brewput})\n"
            "offered = [completer.complete('brewput.s', i) for i in range(3)]\n"
            "print(json.dumps({'listed': listed, 'loaded': loaded, 'offered': offered}))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    public = [name for name in seen["listed"] if not name.startswith("_")]
    assert public == ["BrewputError", "CancelledError", "DeadlockError", "EngineError", "Model", "ModelError",
                      "OptionError", "UnstableError", "load", "simulate", "solve", "sweep", "table"]
    assert {"__version__", "__doc__", "__all__", "__name__"} <= set(seen["listed"])
    assert seen["loaded"] == []  # listing loads nothing: start-up stays cheap
    assert seen["offered"] == ["brewput.simulate(", "brewput.solve(", "brewput.sweep("]
    # every name listed is there
    assert all(hasattr(brewput, name) for name in seen["listed"])
