# `make` builds build/; `make test` runs every check. Both set up .venv first.
# `make test-pythons` runs the test suite on every supported CPython.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
NPM_STAMP := tests/node_modules/.installed

.PHONY: all build bytecode test test-pythons conformance lint typecheck layers pytest npm clean fuzz adversarial docs

all: build

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the package metadata changes (the install is editable).
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,nox,docs]'
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

# The layers (docs/architecture.md), as the import-linter contract in pyproject.toml.
layers: $(VENV)/.installed
	$(BIN)/lint-imports

# A worker per core and one more (pytest-xdist; tests/conftest.py says why), a
# whole test file to one worker: a module's costly
# fixtures (the real runtimes loading a bundle, pre-commit's hook cache) then
# run once. xdist_group marks would spread finer, but pytest 9.2 makes xdist
# ignore them (pytest-xdist issue 1386). Files go out in collection order, the
# ones marked slow first (tests/conftest.py), not xdist's default of the files
# with the most tests first, which hands out the slow files of few tests last.
# A plain `pytest` runs in one process.
PYTEST_PARALLEL := -n auto --dist loadfile --no-loadscope-reorder

# The tests start many `promptc` processes: compiler/ is compiled first, or
# under PYTHONDONTWRITEBYTECODE each of them would compile it again. The
# variable is emptied for pytest (empty counts as unset) so that pytest saves
# the test modules it rewrites, for every worker and the next run to reuse.
pytest: $(VENV)/.installed npm bytecode
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest $(PYTEST_PARALLEL)

test: lint typecheck layers pytest
	$(BIN)/promptc check
	# Not --quiet: mkdocs then stops counting warnings, and --strict passes anything.
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The decision oracles (tests/oracles): each real runtime, offline, decides the
# tool calls a scripted model server on 127.0.0.1 makes it attempt; with them,
# the end-to-end runs of real tools (pip installing the wheel, pre-commit and
# the CI recipes, the benchmark scripts). Too slow for `make test` (an
# OpenCode run takes 20-40 s, the recipes 2 min), whose pytest leaves the
# `conformance` marker out (pyproject.toml's addopts); tests spread one by one
# over the cores, as a file holds many runs.
conformance: $(VENV)/.installed npm bytecode
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist load -m conformance

# The documentation site (mkdocs.yml, docs/) at http://127.0.0.1:8000, rebuilt on save.
# The spec schemas' runtime parts (tests/spec_schemas.py), then the rule and config
# references (tests/docs_pages.py) are generated first.
docs: $(VENV)/.installed
	$(BIN)/python -m tests.spec_schemas
	$(BIN)/python -m tests.docs_pages
	$(BIN)/mkdocs serve

# The versions noxfile.py lists; `make test-pythons PYTHONS=3.13` runs one.
# nox looks for python3.X on PATH. pyenv's shims there answer only for the
# versions `pyenv global` names, so pyenv's own builds of these versions go
# first; elsewhere python3.X is whatever PATH finds (a distribution's package,
# Homebrew, python.org).
PYTHONS := 3.11 3.12 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
PYENV_BINS := $(foreach v,$(PYTHONS),$(lastword $(wildcard $(PYENV_ROOT)/versions/$(v).*/bin)))
empty :=
space := $(empty) $(empty)
PYTHONS_PATH := $(subst $(space),,$(addsuffix :,$(PYENV_BINS)))$(PATH)

test-pythons: $(VENV)/.installed npm
	@for v in $(PYTHONS); do \
	  PATH="$(PYTHONS_PATH)" python$$v -c "" 2>/dev/null || { \
	    echo "make test-pythons: no python$$v on PATH, nor under $(PYENV_ROOT)/versions/$$v.*:" \
	      "install CPython $$v (for instance \`pyenv install $$v\`)" >&2; exit 1; }; \
	done
	PATH="$(PYTHONS_PATH)" $(BIN)/nox --python $(PYTHONS) -- $(PYTEST_PARALLEL)

# The long fuzz profile: fails unless the fuzz suites generate 100,000 examples.
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=fuzz FUZZ_MIN_EXAMPLES=100000 $(BIN)/pytest $(PYTEST_PARALLEL) tests/test_fuzz_*.py

# Every adversarial case in a fresh promptc process, under 2 s and 200 MB each.
adversarial: $(VENV)/.installed
	$(BIN)/python benchmarks/adversarial.py

clean:
	rm -rf $(VENV) tests/node_modules .pytest_cache .mypy_cache .ruff_cache site
