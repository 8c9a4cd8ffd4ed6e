# Entry points: `make run`, `make install`, `make test` (everything) and `make check` (the quick edit loop). Each
# creates .venv and installs the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The native solver kernel (core/_kernel.c, setup.py): pip builds it in place beside core/solver.py, and again when
# its source changes. Without a C compiler pip installs the project anyway and the pure solver runs.
KERNEL := $(VENV)/.kernel
INSTALLED := $(STAMP) $(KERNEL)

.PHONY: install run test check lint typecheck pytest bench clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP) $(KERNEL)

$(KERNEL): core/_kernel.c | $(STAMP)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(KERNEL)

# set up .venv (and the solver kernel, rebuilt when core/_kernel.c changed): the tripeaks command is then .venv/bin/tripeaks
install: $(INSTALLED)

# Ctrl-C reaches make, the shell and the bot alike: the trap keeps the shell waiting for the bot's clean stop, and a
# stop (130, 143) counts as success, so make ends without "make: *** [run] Error 130".
run: $(INSTALLED)
	@trap true INT; $(BIN)/tripeaks run; status=$$?; \
	if [ $$status -eq 130 ] || [ $$status -eq 143 ]; then exit 0; fi; exit $$status

# pytest-xdist runs the tests in one process a core (PYTEST_WORKERS=0: all in this one process).
PYTEST_WORKERS ?= auto
XDIST = -n $(PYTEST_WORKERS) --dist worksteal

test: $(INSTALLED) lint typecheck pytest

# The tests keep Python's bytecode cache on even where PYTHONDONTWRITEBYTECODE is set: they start some hundreds of
# Python processes (the tripeaks command, its solver workers, pytest's own workers), and without the cache each one
# compiles the project again (and each pytest worker rewrites every test module again: seconds each). The cache is
# the __pycache__ folders git ignores.
check pytest: export PYTHONDONTWRITEBYTECODE =

# Ruff, mypy and the unit tests: --unit leaves out the `e2e` modules and the `postgres` tests (tests/conftest.py).
check: $(INSTALLED) lint typecheck
	$(BIN)/pytest -q $(XDIST) --unit $(PYTEST_ARGS)

lint: $(INSTALLED)
	$(BIN)/ruff check core bot tests bench migrations

typecheck: $(INSTALLED)
	$(BIN)/mypy

pytest: $(INSTALLED)
	$(BIN)/pytest -q $(XDIST) $(PYTEST_ARGS)

bench: $(INSTALLED)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build core/_kernel.*.so
