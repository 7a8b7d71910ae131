# OpenBench-style build (docs/openbench.md).
#
# `make EXE=<path>` writes Jitfish as one executable file (jitfish/runtime/bundle.py): it keeps working when it is
# moved and this tree is deleted, and needs only the Python that ran make (PYTHON=..., default python3) with
# the project's dependencies; make fails with one line saying what is missing.  The file carries the search's
# kernels, compiled now for a named CPU as the wheel ships them (about a minute): where they fit the machine,
# a client's first `bench` or `genfens` loads them, even from an empty cache.  It then runs `<path> bench`
# once and prints the node count.  `make executable EXE=<path>` only writes the file, without kernels.
# TUNE=1 bakes `--tune` in: every search parameter is a UCI option (for OpenBench's SPSA).
# CC= and CXX= (which OpenBench's client passes) are ignored: there is nothing to compile ahead.
#
# `make launcher EXE=<path>` writes a small script that runs this checkout as it is now (edits included), and
# `make bench EXE=<path>` times `bench` through the executable and fails at BENCH_LIMIT seconds or more.
#
# `make check` is the test command (README, *Working on Jitfish*; .ci/run runs it after its installs): lint,
# format and type check (.ci/lint), the fast tests, the slow tests, then the wheel built, installed in a fresh
# virtual environment and used from outside the tree (scripts/check/check_wheel.py).  It needs the project
# installed editable with its test extra first: pip install -e '.[test]' (the other extras' tests skip
# without them).  `make test` runs the fast tests alone, for the edit loop.  Both suites run on JOBS
# worker processes (pytest-xdist; default: one a core), a test module to a worker.

ROOT   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON ?= python3
EXE    ?= jitfish-engine
TUNE   ?=
PYTHON_PATH := $(shell command -v $(PYTHON) 2>/dev/null)
BENCH_LIMIT ?= 60
JOBS ?= auto
PYTEST = "$(PYTHON_PATH)" -m pytest -q -n $(JOBS) --dist loadscope

.PHONY: all executable launcher bench test check clean

all: KERNELS = --kernels
all: executable
	@"$(abspath $(EXE))" bench

executable:
	@test -n "$(PYTHON_PATH)" || { echo "error: make needs Python 3.11 or newer as $(PYTHON) (or PYTHON=...)" >&2; exit 1; }
	@cd "$(ROOT)" && "$(PYTHON_PATH)" -m jitfish.runtime.bundle "$(abspath $(EXE))" $(if $(TUNE),--tune) $(KERNELS)
	@echo "wrote $(EXE)"

launcher:
	@test -n "$(PYTHON_PATH)" || { echo "error: make needs Python 3.11 or newer as $(PYTHON) (or PYTHON=...)" >&2; exit 1; }
	@mkdir -p "$(dir $(abspath $(EXE)))"
	@printf '%s\n' '#!/bin/sh' \
		'# Jitfish launcher written by make; runs the engine from $(ROOT)' \
		'PYTHONPATH="$(ROOT)$${PYTHONPATH:+:$$PYTHONPATH}" exec "$(PYTHON_PATH)" -P -m jitfish "$$@"' \
		> "$(EXE)"
	@chmod +x "$(EXE)"
	@echo "wrote $(EXE)"

bench: KERNELS = --kernels
bench: executable
	@start=$$(date +%s); "$(abspath $(EXE))" bench || exit 1; \
	 elapsed=$$(( $$(date +%s) - start )); echo "bench took $${elapsed} s (limit $(BENCH_LIMIT) s)"; \
	 test $$elapsed -lt $(BENCH_LIMIT)

test:
	@test -n "$(PYTHON_PATH)" || { echo "error: make test needs Python 3.11 or newer as $(PYTHON) (or PYTHON=...)" >&2; exit 1; }
	cd "$(ROOT)" && $(PYTEST)

# pytest exits 5 when it selects no test at all (a tree whose slow tests are all gone); that is no failure.
check:
	@test -n "$(PYTHON_PATH)" || { echo "error: make check needs Python 3.11 or newer as $(PYTHON) (or PYTHON=...)" >&2; exit 1; }
	cd "$(ROOT)" && .ci/lint
	cd "$(ROOT)" && $(PYTEST)
	cd "$(ROOT)" && { $(PYTEST) -m slow || test $$? -eq 5; }
	cd "$(ROOT)" && "$(PYTHON_PATH)" -m scripts.check.check_wheel

clean:
	rm -f jitfish-engine
