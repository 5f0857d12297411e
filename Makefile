# One command sets up and runs the example; one sets up and runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: setup demo test bench fixtures clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,asr]'
	rm -f $(VENV)/.installed-* && touch $@

demo: setup
	bash scripts/demo.sh

test: setup
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/scan_throughput.py
	$(BIN)/python bench/fix_cost.py
	$(BIN)/python bench/repair_real.py

fixtures: setup
	$(BIN)/python scripts/make_seed_fixtures.py
	$(BIN)/python scripts/make_shape_fixtures.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
