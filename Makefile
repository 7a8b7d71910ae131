# OpenBench-style build (docs/openbench.md).
#
# `make EXE=<path>` writes Jitfish as one executable file (jitfish/bundle.py): it keeps working when it is
# moved and this tree is deleted, and needs only the Python that ran make (PYTHON=..., default python3) with
# the project's dependencies; make fails with one line saying what is missing.  It then runs `<path> bench`
# once, which compiles the search kernels into the cache (so that the first `bench` or `genfens` a client
# runs loads them in a second) and prints the node count.  `make executable EXE=<path>` only writes the file.
# TUNE=1 bakes `--tune` in: every search parameter is a UCI option (for OpenBench's SPSA).
# CC= and CXX= (which OpenBench's client passes) are ignored: there is nothing to compile ahead.
#
# `make launcher EXE=<path>` writes a small script that runs this checkout as it is now (edits included), and
# `make bench EXE=<path>` times `bench` through the executable and fails at BENCH_LIMIT seconds or more.

ROOT   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON ?= python3
EXE    ?= jitfish-engine
TUNE   ?=
PYTHON_PATH := $(shell command -v $(PYTHON) 2>/dev/null)
BENCH_LIMIT ?= 60

.PHONY: all executable launcher bench clean

all: executable
	@"$(abspath $(EXE))" bench

executable:
	@test -n "$(PYTHON_PATH)" || { echo "error: make needs Python 3.11 or newer as $(PYTHON) (or PYTHON=...)" >&2; exit 1; }
	@cd "$(ROOT)" && "$(PYTHON_PATH)" -m jitfish.bundle "$(abspath $(EXE))" $(if $(TUNE),--tune)
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

bench: executable
	@start=$$(date +%s); "$(abspath $(EXE))" bench || exit 1; \
	 elapsed=$$(( $$(date +%s) - start )); echo "bench took $${elapsed} s (limit $(BENCH_LIMIT) s)"; \
	 test $$elapsed -lt $(BENCH_LIMIT)

clean:
	rm -f jitfish-engine
