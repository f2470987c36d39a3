# Two commands matter: `make demo` (build everything, run the coffee-shop study)
# and `make test` (every cargo and pytest test). Everything else is a step of those.
VENV   ?= .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# maturin, started by pip for the editable build, must be found on PATH
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: demo test build rust-test py-test bench clean

demo: build
	$(VENV)/bin/brewput demo

test: build rust-test py-test

build: $(STAMP)
	$(PYTHON) -m pip install --quiet --no-build-isolation --no-deps -e .

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet maturin 'pydantic>=2.5' 'pyyaml>=6' 'typer>=0.12' 'rich>=13' \
		'pytest>=7' 'scipy>=1.10' 'numpy>=1.24' 'simpy>=4' 'ciw>=3' \
		'pandas>=1.5' 'pyarrow>=12' 'matplotlib>=3.6' 'plotly>=5.15' 'distributed>=2023.1'
	touch $(STAMP)

rust-test:
	cargo test --workspace --release

py-test:
	$(PYTHON) -m pytest -q

bench: build
	$(PYTHON) bench/run.py
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/solve_speed.py >> bench/RESULTS.md
	printf '\n' >> bench/RESULTS.md && $(PYTHON) bench/sweep_scaling.py >> bench/RESULTS.md
	printf '\n## The lab: the coffee shop on this machine'"'"'s CPUs, beside its model\n\n' >> bench/RESULTS.md
	$(PYTHON) bench/lab_curves.py >> bench/RESULTS.md

clean:
	rm -rf $(VENV) target
