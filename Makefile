# Developer entry points. `make test` is what CI runs (.ci/run); `make help` lists them.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.DEFAULT_GOAL := help
.PHONY: help install demo test test-rust test-python java lint fmt fuzz bench clean wheel test-wheel test-sdist FORCE

help: ## List the targets
	@echo "make TARGET, one of:"
	@awk 'BEGIN { FS = ":.*## " } /^[a-zA-Z_-]+:.*## / { printf "  %-12s %s\n", $$1, $$2 }' \
		$(MAKEFILE_LIST)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# What the installed extension is built from. Folders are listed too, since their
# time changes when a file in them is added, removed or renamed.
RUST_SOURCES := $(shell find src -name '*.rs' -o -type d)
INSTALLED := $(VENV)/.installed
# With no built extension beside the Python sources, install whatever the stamp says.
ifeq ($(wildcard python/wpiece/_core*.so python/wpiece/_core*.pyd),)
INSTALLED_FORCE := FORCE
endif

# Builds the Rust extension (release) and installs wpiece with its test tools, only
# when a build input changed since the last install (rm $(INSTALLED) to force one).
$(INSTALLED): Cargo.toml Cargo.lock pyproject.toml python/wpiece/_core.pyi $(RUST_SOURCES) \
		$(INSTALLED_FORCE) | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[test]"
	@touch $@

install: $(INSTALLED) ## Build the extension and install wpiece with its test tools, if needed

FORCE:

# The main job on the bundled sample: load a vocab, encode, print tokens and
# stats, train a small vocab. Needs only the package itself.
demo: $(VENV)/bin/python ## Encode and train on the bundled sample (installs the package)
	$(PY) -m pip install -q -e .
	$(VENV)/bin/wpiece demo

test-rust: ## Rust tests (cargo test)
	cargo test --quiet

# Spark's JVM (Java 17 for Spark 4): Debian's JRE, installed when missing.
java:
	@command -v java >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		$$SUDO apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless; }

test-python: $(INSTALLED) java ## Python tests (pytest), Spark and Ray ones included
	$(PY) -m pytest tests --durations=15

lint: $(INSTALLED) ## rustfmt, clippy, ruff, mypy (strict) and stubtest
	cargo fmt --all -- --check
	cargo clippy --all-targets --quiet -- -D warnings
	cargo clippy --all-targets --features python --quiet -- -D warnings
	cargo clippy --lib --features abi3 --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests benches tools
	$(VENV)/bin/ruff format --check python tests benches tools
	$(PY) -m mypy
	$(PY) -m mypy.stubtest wpiece._core

test: lint test-rust test-python ## What CI runs: lint, then the Rust and Python tests

# Wheels: one stable-ABI (abi3, CPython >= 3.9) wheel per platform. zig (from PyPI)
# links against glibc 2.17, so this machine makes manylinux2014 wheels.
DIST := dist
WHEEL_TOOLS := "maturin==1.16.0" "ziglang==0.13.0" "auditwheel==6.8.2"

wheel: | $(VENV)/bin/python ## Build the abi3 manylinux2014 wheel and the sdist into dist/, tag checked
	$(PY) -m pip install -q $(WHEEL_TOOLS)
	rm -rf $(DIST)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PY) -m maturin build --release --features abi3 --zig \
		--compatibility manylinux2014 \
		--interpreter $(PY) -o $(DIST)
	$(PY) -m maturin sdist -o $(DIST)
	@ls $(DIST)/wpiece-*-cp39-abi3-manylinux*_x86_64.whl >/dev/null || \
		{ echo "wheel tag is not cp39-abi3-manylinux: $$(ls $(DIST))"; exit 1; }
	$(VENV)/bin/auditwheel show $(DIST)/*.whl | tee $(DIST)/auditwheel.txt
	@grep -q 'manylinux_2_17_x86_64' $(DIST)/auditwheel.txt || \
		{ echo "auditwheel: not manylinux2014-compatible"; exit 1; }

# The Python tests against the wheel, in a fresh venv with no Rust toolchain on PATH.
WHEEL_VENV := .venv-wheel
NO_RUST_PATH := $(CURDIR)/$(WHEEL_VENV)/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
test-wheel: wheel java ## Install the wheel in a fresh venv without Rust on PATH, run the Python tests
	rm -rf $(WHEEL_VENV)
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install -q "$$(ls $(DIST)/*.whl)[test]"
	cd tests && env PATH=$(NO_RUST_PATH) ../$(WHEEL_VENV)/bin/python -c \
		"import shutil, wpiece._core as c; assert shutil.which('cargo') is None, 'cargo on PATH'; \
		assert c.__file__.endswith('.abi3.so') and '$(WHEEL_VENV)' in c.__file__, c.__file__"
	cd tests && env PATH=$(NO_RUST_PATH) ../$(WHEEL_VENV)/bin/python -m pytest . -p no:cacheprovider

test-sdist: wheel ## Build and install the sdist in a fresh venv, then import and encode with it
	rm -rf .venv-sdist
	$(PYTHON) -m venv .venv-sdist
	.venv-sdist/bin/pip install -q $(DIST)/wpiece-*.tar.gz
	cd /tmp && $(CURDIR)/.venv-sdist/bin/wpiece demo

# The hostile-input campaign, longer than CI's run of it: 50x the property
# cases in Rust (proptest) and 20x the Hypothesis examples, plus the hostile
# files and Ctrl-C tests.
fuzz: $(INSTALLED) ## Longer property and hostile-input runs (Rust and Python)
	PROPTEST_CASES=20000 cargo test --release --quiet --test fuzz_encode --test fuzz_loaders --test fuzz_train \
		--test pieces --test counts_files --test fast_paths
	WPIECE_FUZZ_SCALE=20 $(PY) -m pytest tests

fmt: ## Format Rust and Python, apply ruff's fixes
	cargo fmt --all
	$(VENV)/bin/ruff format python tests benches tools
	$(VENV)/bin/ruff check --fix python tests benches tools

bench: $(VENV)/bin/python ## Encode, scaling and training benchmarks
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) benches/bench_cold.py
	$(PY) benches/bench_encode.py
	$(PY) benches/bench_scaling.py
	$(PY) benches/bench_train.py

clean: ## Remove the virtualenv and Rust build output
	rm -rf $(VENV) $(WHEEL_VENV) .venv-sdist $(DIST) target
