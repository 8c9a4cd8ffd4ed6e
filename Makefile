# Two entry points: `make run` and `make test`. Both create .venv and install the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

# set up .venv and nothing else: the tripeaks command is then .venv/bin/tripeaks
install: $(STAMP)

run: $(STAMP)
	$(BIN)/tripeaks run

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check core bot tests bench migrations

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
