# Every install step lives here: CI runs `make test` on a clean clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install demo test lint typecheck unit bench clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[service,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/prizecheck demo

lint: $(STAMP)
	$(BIN)/ruff check replay streams schemas tests bench
	$(BIN)/ruff format --check replay streams schemas tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict replay schemas

# The web pages are tested in a real browser: Debian's chromium (Playwright's own download cannot work
# here). Installed once; needs root, as on the CI machine.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

unit: $(STAMP) browser
	$(BIN)/python -m pytest -q

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	@if [ -f bench/importers.py ]; then $(BIN)/python bench/importers.py; fi
	$(BIN)/python bench/validation.py
	@if [ -f bench/pipeline.py ]; then $(BIN)/python bench/pipeline.py; fi

clean:
	rm -rf $(VENV) prizecheck-data .pytest_cache .mypy_cache .ruff_cache
