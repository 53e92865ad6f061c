# Every install step lives here: CI runs `make test` on a clean clone.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# The engine's hot modules compiled by mypyc, in place (replay/engine/*.so, see tools/compile_engine.py), and
# the PTCGL importer's walk (replay/sources/ptcgl/*.so); each manifest is written last, once its part is built.
# `make install PRIZECHECK_COMPILE=0` keeps plain Python.
PRIZECHECK_COMPILE ?= 1
COMPILED := replay/engine/_compiled.manifest
COMPILED_IMPORTER := replay/sources/ptcgl/_compiled.manifest

.PHONY: install lock test-latest dist compile demo test lint typecheck unit bench clean browser ocr screenshots test-long test-faults sheet-images

# Every extra, at the exact versions and hashes of requirements.lock (make lock writes it), so that a release
# upstream never changes what a fresh clone runs; then the checkout itself, editable, with no dependency of its
# own resolved (--no-deps) and built by the locked setuptools (--no-build-isolation: no unpinned download).
# make test-latest sets LATEST=1: the newest versions pyproject.toml's ranges allow, in .venv-latest.
LOCK   := requirements.lock
LATEST ?= 0
EXTRAS := service,dev,scan,archive

# The lock is installed by uv (itself installed first by pip, from the lock's own hashes): pip took 52 s to
# install the lock's 108 packages from its warm cache on this 2-core machine, uv 5 s from a cold cache and
# under 1 s from a warm one (2026-12-07), a minute of every fresh clone's 15-minute bar.
UV_SYNC = $(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --no-deps

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
ifeq ($(LATEST),1)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[$(EXTRAS)]'
else
	awk '/^uv==/ { keep = 1; print; next } keep && /^ +--hash=/ { print; next } { keep = 0 }' $(LOCK) > $(VENV)/uv.lock
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(VENV)/uv.lock \
	  || $(BIN)/python -m pip install --quiet --no-cache-dir --require-hashes --no-deps -r $(VENV)/uv.lock
	$(UV_SYNC) -r $(LOCK) \
	  || { echo 'make install: a download above did not match its locked hash (a file cut short or spoiled on the' \
	            'way); fetching everything once more, past the cache. The hashes are still checked.' >&2; \
	       $(UV_SYNC) --no-cache -r $(LOCK); }
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e .
endif
	touch $(STAMP)

# Refreshes the lock from pyproject.toml's ranges: the newest versions they allow, for Python 3.11 on every
# platform (--universal), each with the hashes of all its files. Commit it with the change that needed it.
# requirements-service.lock is the Docker image's: the service extra and the setuptools that builds the
# package (tools/image-build.in), nothing of the tests.
UV_COMPILE = $(BIN)/uv pip compile --universal --python-version 3.11 --generate-hashes --quiet \
	  --custom-compile-command 'make lock'

lock: $(STAMP)
	$(UV_COMPILE) pyproject.toml --all-extras -o $(LOCK)
	$(UV_COMPILE) pyproject.toml tools/image-build.in --extra service -o requirements-service.lock

# The suite on the newest versions the ranges allow, in a venv of its own: drift found on purpose, not by CI.
# Green here and red on a fresh `make lock` means a range needs an upper bound; red here, a fix before the
# next lock.
test-latest:
	rm -f .venv-latest/.installed-stamp
	$(MAKE) --no-print-directory test VENV=.venv-latest LATEST=1

ifeq ($(PRIZECHECK_COMPILE),1)
install: $(STAMP) $(COMPILED) $(COMPILED_IMPORTER)
else
install: $(STAMP)
endif

# Rebuilt whenever an engine source changes: a stale .so would shadow the edited .py.
$(COMPILED): $(STAMP) tools/compile_engine.py $(wildcard replay/engine/*.py) replay/engine/_link.c
	$(BIN)/python tools/compile_engine.py --part engine

# The importer's part, whenever one of its package's modules changes (those compiled read the others' types).
$(COMPILED_IMPORTER): $(STAMP) tools/compile_engine.py $(wildcard replay/sources/ptcgl/*.py) replay/sources/table.py replay/sources/common.py
	$(BIN)/python tools/compile_engine.py --part importer

compile: $(COMPILED) $(COMPILED_IMPORTER)

# The demo runs the compiled engine when it can be built (a C compiler and Python's headers), else says so
# and runs it as plain Python.
demo: $(STAMP)
ifeq ($(PRIZECHECK_COMPILE),1)
	@$(MAKE) --no-print-directory compile || echo "make demo: the engine could not be compiled (mypyc needs a C compiler and Python's headers): it runs as plain Python"
endif
	$(BIN)/prizecheck demo

lint: $(STAMP)
	$(BIN)/ruff check replay streams schemas tests bench tools
	$(BIN)/ruff format --check replay streams schemas tests bench tools
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict replay streams schemas

# Debian's packages the tests need are installed with apt-get, which holds one lock for the whole machine: a
# second apt-get running meanwhile (make's -j2, a helper's install, the machine's own updates) failed at once
# with "Could not get lock" on a fresh machine (2026-12-07). So `ocr` waits for `browser` (one apt-get at a
# time within make), and each apt-get waits up to 10 minutes for the lock instead of failing.
APT := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600

# The web pages are tested in a real browser: Debian's chromium (Playwright's own download cannot work
# here), with Debian's Noto CJK fonts for the pages in Japanese and Korean. Installed once; needs root, as
# on the CI machine.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  $(APT) update -qq && $(APT) install -y -qq chromium >/dev/null; }
	@fc-list 2>/dev/null | grep -q "Noto Sans CJK" || { \
	  echo "installing Debian's fonts-noto-cjk: the pages in Japanese and Korean (tests/streams/http/test_i18n_pages.py)"; \
	  $(APT) update -qq && $(APT) install -y -qq fonts-noto-cjk >/dev/null; }

# A scanned sheet whose two QR codes cannot be read is named from its printed match id, read by Debian's
# tesseract-ocr (replay/sources/scan/printed.py; its English model, tesseract-ocr-eng, comes with it), and
# its printed players' names, in Japanese and Korean too (tesseract-ocr-jpn, tesseract-ocr-kor: 1-1.4 MB
# each). Installed once; needs root, as on the CI machine; without it such a sheet is refused (as before).
ocr: browser
	@[ "$$(tesseract --list-langs 2>/dev/null | grep -cxE 'jpn|kor')" = 2 ] || { \
	  echo "installing Debian's tesseract-ocr, with its Japanese and Korean models: scanned sheets named from their printed header (tests/scan)"; \
	  $(APT) update -qq && $(APT) install -y -qq tesseract-ocr tesseract-ocr-jpn tesseract-ocr-kor >/dev/null; }

# Three processes on two cores: a third of the suite's time is spent waiting (brokers, browsers, subprocesses),
# which a third worker fills (7.7 min against ~9.6 for two, measured 2026-12-02). A test file stays on one
# worker (its module fixtures: brokers, servers, browsers); the longest files start first (tests/conftest.py
# LONGEST_FIRST: xdist's own order, by number of tests, left one-test files of a minute to the end). The 25
# slowest tests are printed: where the time goes.
unit: install browser ocr
	PRIZECHECK_EXPECT_COMPILED=$(PRIZECHECK_COMPILE) $(BIN)/python -m pytest -q -n 3 --dist loadfile --no-loadscope-reorder --durations=25

# lint first (seconds: a red lint needs no suite); then the type check beside the suite (-j2): on a fresh
# clone mypy's ~20 s of CPU fill the suite's waits instead of adding to its wall time (the 15-minute budget).
test: lint
	@$(MAKE) --no-print-directory -j2 typecheck unit

# The screenshots in docs/web.md and docs/console.md, taken by the browser tests of the pages (docs/img/*.png),
# the pages in Japanese and Korean among them (docs/img/i18n-*.png).
screenshots: install browser
	PRIZECHECK_SCREENSHOTS=docs/img $(BIN)/python -m pytest -q -p no:cacheprovider tests/streams/http/test_pages.py \
	  tests/streams/http/test_review.py tests/streams/http/test_overlay.py tests/report/test_report_browser.py \
	  tests/streams/http/test_console_game.py tests/streams/http/test_console_touch.py \
	  tests/streams/http/test_console_restart.py tests/streams/http/test_console_keys.py \
	  tests/streams/http/test_i18n_pages.py tests/streams/http/test_import_browser.py

# The long runs of what make test samples: hidden information over 2,500 games, schemathesis with 50
# examples per operation and role, every edge of every numeric field, every example of the fuzz and
# property tests (make test draws a quarter: tests/sampling.py), the serve bench at full size (1,000
# viewers, 64 writers), 240 generated photos of filled game sheets read back (make test reads 30), and the
# sheets named from their printed header in every case (make test reads an English and a Japanese one).
test-long: install
	PRIZECHECK_HIDDEN_GAMES=2500 PRIZECHECK_SCHEMATHESIS_EXAMPLES=50 PRIZECHECK_NUMBER_EDGES=full \
	  $(BIN)/python -m pytest -q tests/streams/http/test_hidden.py tests/streams/http/test_openapi.py \
	  tests/streams/http/test_numbers.py
	PRIZECHECK_LONG=1 $(BIN)/python -m pytest -q -n 2 --dist loadfile $$(grep -rl 'examples(' tests --include='test_*.py')
	$(BIN)/python bench/serve.py
	PRIZECHECK_SCAN_SHEETS=80 $(BIN)/python -m pytest -q -n 2 --dist loadfile tests/scan/test_scan_accuracy_a.py \
	  tests/scan/test_scan_accuracy_b.py tests/scan/test_scan_accuracy_c.py
	PRIZECHECK_SCAN_HALL=40 $(BIN)/python -m pytest -q -s -n 2 tests/scan/test_scan_hall.py
	PRIZECHECK_SCAN_TWO=8 $(BIN)/python -m pytest -q -s -n 2 tests/scan/test_scan_two.py
	PRIZECHECK_LONG=1 $(BIN)/python -m pytest -q -n 2 tests/scan/test_scan_printed.py tests/scan/test_scan_match.py

# docs/importers.md's printed sheet and filled photo (docs/img/sheet-*), and the record block it shows
sheet-images: install
	PRIZECHECK_SHEET_IMAGES=docs/img $(BIN)/python -m pytest -q -s -p no:cacheprovider tests/scan/test_docs_images.py

# The whole fault suite (tests/faults: real processes killed, restarted, tampered with; make test runs the
# cases marked ci), the checker's own tests, and every command under every fault (tests/cli/test_faults.py;
# make test runs a sample with each command and each fault); a run of every case rewrites docs/reliability.md's
# figures.
test-faults: install
	PRIZECHECK_FAULTS=full $(BIN)/python -m pytest -q tests/faults tests/streams/test_check.py tests/cli/test_faults.py

bench: install
	$(BIN)/python bench/engine.py
	@if [ -f bench/importers.py ]; then $(BIN)/python bench/importers.py; fi
	$(BIN)/python bench/validation.py
	@if [ -f bench/pipeline.py ]; then $(BIN)/python bench/pipeline.py; fi
	$(BIN)/python bench/report.py
	$(BIN)/python bench/report.py --parquet 100000,1000000
	$(BIN)/python bench/archive.py
	@if [ -f bench/pipeline.py ]; then $(BIN)/python bench/pipeline.py --workers 1,2,4; fi
	$(BIN)/python bench/serve.py
	$(BIN)/python bench/console.py
	$(BIN)/python bench/review.py
	$(BIN)/python bench/scan.py
	$(BIN)/python bench/import_page.py
	$(BIN)/python bench/search.py

# The embedded store (the records make demo and serve keep) is data, not a build product: clean leaves it
# and says where it is. A checkout keeps its own (streams/settings.py): PRIZECHECK_DATA_DIR, else ./prizecheck-data.
STORE = $(abspath $(or $(PRIZECHECK_DATA_DIR),prizecheck-data))

# A wheel of the checkout (plain Python: the engine is compiled in place, never into the wheel), for an
# install outside it: pip install 'dist/prizecheck-VERSION-py3-none-any.whl[service]' (README, "Install").
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation -w dist .
	@ls dist/*.whl

clean:
	rm -rf $(VENV) .venv-latest dist build prizecheck-demo-report.html prizecheck-demo-league.tdf prizecheck-demo-league.jsonl \
	  .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .hypothesis *.egg-info
	rm -f replay/engine/*.so replay/engine/_compiled.manifest replay/sources/ptcgl/*.so replay/sources/table.*.so replay/sources/walk__mypyc.*.so replay/sources/ptcgl/_compiled.manifest
	@if [ -e "$(STORE)" ]; then echo "make clean keeps the embedded store (the games make demo and serve stored) in $(STORE); remove it with: rm -rf $(STORE)"; fi
