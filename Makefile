# `make` builds build/; `make test` runs every check. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NPM_STAMP := tests/node_modules/.installed

.PHONY: all build bytecode test lint typecheck pytest npm clean fuzz adversarial

all: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the package metadata changes (the install is editable).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

# An editable install runs compiler/ from source, and with PYTHONDONTWRITEBYTECODE
# set no run writes bytecode: without this, every `promptc` run would compile
# every module first. compileall rewrites only what changed since last time.
bytecode: $(VENV)/.installed
	$(BIN)/python -m compileall -q compiler

build: bytecode
	$(BIN)/promptc build

# `npm ci` insists on every platform build of opencode being resolvable, and
# the registry mirror may carry only the ones for this machine; `npm install
# --no-save` installs exactly the locked versions and never rewrites the lock.
$(NPM_STAMP): tests/package.json tests/package-lock.json
	cd tests && npm install --no-save --no-audit --no-fund --loglevel=error
	touch $@

npm: $(NPM_STAMP)

lint: $(VENV)/.installed
	$(BIN)/ruff check compiler tests benchmarks
	$(BIN)/ruff format --check compiler tests benchmarks

typecheck: $(VENV)/.installed
	$(BIN)/mypy

pytest: $(VENV)/.installed npm
	$(BIN)/pytest

test: lint typecheck pytest bytecode
	$(BIN)/promptc check

# The long fuzz profile: fails unless the fuzz suites generate 100,000 examples.
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=fuzz FUZZ_MIN_EXAMPLES=100000 $(BIN)/pytest tests/test_fuzz_*.py

# Every adversarial case in a fresh promptc process, under 2 s and 200 MB each.
adversarial: $(VENV)/.installed
	$(BIN)/python benchmarks/adversarial.py

clean:
	rm -rf $(VENV) tests/node_modules .pytest_cache .mypy_cache .ruff_cache
