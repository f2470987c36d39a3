# Two commands matter: `make demo` (build everything, run the coffee-shop study)
# and `make test` (every cargo and pytest test, and the release wheel installed as a user
# would). Everything else is a step of those.
VENV   ?= .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# maturin, and zig for the release wheel, are found on PATH
export PATH := $(abspath $(VENV))/bin:$(PATH)

# Every dependency is declared once, in pyproject.toml: the package's with its extras,
# the tools make runs (maturin, zig, auditwheel) in its `build` dependency group, the
# tests' and benchmarks' in its `test` and `bench` groups (not user extras).
EXTRAS := parquet,dask

.PHONY: demo test build rust-test py-test wheel wheel-test bench clean

demo: build
	$(VENV)/bin/brewput demo

test: build rust-test py-test wheel-test

# maturin develop, not pip's quiet editable build: cargo's own progress (a bar on a
# terminal, a line per crate in a log) shows the minutes of the first build.
build: $(STAMP)
	@echo "make: building brewput (the Rust engine, then the package) into $(VENV)"
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --extras $(EXTRAS) --group test,bench

$(STAMP): pyproject.toml
	@echo "make: a virtualenv in $(VENV), with pip and the build tools (maturin, zig, auditwheel)"
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet --group build
	touch $(STAMP)

rust-test:
	cargo test --workspace --release

# Two at a time (the tests spend half their time starting commands, and a machine has
# two cores at least), a file's tests together so that what they share is computed
# once; then the tests that measure this machine or race signals against deadlines,
# alone. `pytest` by itself runs everything in order, one at a time. The docs' pages are
# run by wheel-test, from the wheel (BREWPUT_DOCS_TESTS=wheel: not twice).
py-test:
	BREWPUT_DOCS_TESTS=wheel $(PYTHON) -m pytest -q --durations=30 -n 2 --dist loadfile -m "not alone"
	$(PYTHON) -m pytest -q --durations=15 -m alone

# The release wheel, linked by zig against manylinux2014's glibc 2.17 (no docker), so
# that it installs on older Linux; auditwheel shows the symbols it needs.
wheel: $(STAMP)
	rm -rf dist
	$(VENV)/bin/maturin build --release --zig --compatibility manylinux2014 --out dist
	$(VENV)/bin/auditwheel show dist/brewput-*.whl

# That wheel as a new user gets it: plain pip into a fresh venv, the README's commands.
wheel-test: wheel
	tests/wheel_smoke.sh dist/brewput-*.whl

bench: build
	$(PYTHON) bench/run.py
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/solve_speed.py >> bench/RESULTS.md
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/startup.py >> bench/RESULTS.md
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/sweep_scaling.py >> bench/RESULTS.md
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/replication_scaling.py >> bench/RESULTS.md
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/sweep_planning.py >> bench/RESULTS.md
	printf '\n## The lab: the coffee shop on this machine'"'"'s CPUs, beside its model\n\n' >> bench/RESULTS.md
	$(PYTHON) bench/lab_curves.py >> bench/RESULTS.md

clean:
	rm -rf $(VENV) target dist
