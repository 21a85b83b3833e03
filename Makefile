# Developer entry points. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: install demo test test-rust test-python lint fmt fuzz bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Builds the Rust extension (release) and installs wpiece with its test tools.
install: $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[test]"

# The main job on the bundled sample: load a vocab, encode, print tokens and
# stats, train a small vocab. Needs only the package itself.
demo: $(VENV)/bin/python
	$(PY) -m pip install -q -e .
	$(VENV)/bin/wpiece demo

test-rust:
	cargo test --quiet

test-python: install
	$(PY) -m pytest tests

lint: install
	cargo fmt --all -- --check
	cargo clippy --all-targets --quiet -- -D warnings
	cargo clippy --all-targets --features python --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches
	$(PY) -m mypy.stubtest wpiece._core

test: lint test-rust test-python

# The hostile-input campaign, longer than CI's run of it: 50x the property
# cases in Rust (proptest) and 20x the Hypothesis examples, plus the hostile
# files and Ctrl-C tests.
fuzz: install
	PROPTEST_CASES=20000 cargo test --release --quiet --test fuzz_encode --test fuzz_loaders --test fuzz_train
	WPIECE_FUZZ_SCALE=20 $(PY) -m pytest tests

fmt:
	cargo fmt --all
	$(VENV)/bin/ruff format python tests benches
	$(VENV)/bin/ruff check --fix python tests benches

bench: $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) benches/bench_encode.py
	$(PY) benches/bench_scaling.py
	$(PY) benches/bench_train.py

clean:
	rm -rf $(VENV) target
