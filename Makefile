# OpenBench-style build: `make EXE=<path>` writes an executable launcher for Jitfish at <path>.
# The launcher runs `python -P -m jitfish` with this repository on PYTHONPATH, using the Python that ran make
# (override with PYTHON=...). -P (Python 3.11+) keeps the caller's working directory off sys.path: without it a
# launcher started from another Jitfish checkout would run that checkout's code. `make bench` runs `jitfish bench` through it and fails if it takes 60 s or more.

ROOT   := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PYTHON ?= python3
EXE    ?= jitfish-launcher
PYTHON_PATH := $(shell $(PYTHON) -c 'import sys; print(sys.executable)' 2>/dev/null)
BENCH_LIMIT ?= 60

.PHONY: all launcher bench clean

all: launcher

launcher:
	@test -n "$(PYTHON_PATH)" || { echo "no $(PYTHON) on PATH" >&2; exit 1; }
	@mkdir -p "$(dir $(abspath $(EXE)))"
	@printf '%s\n' '#!/bin/sh' \
		'# Jitfish launcher written by make; runs the engine from $(ROOT)' \
		'PYTHONPATH="$(ROOT)$${PYTHONPATH:+:$$PYTHONPATH}" exec "$(PYTHON_PATH)" -P -m jitfish "$$@"' \
		> "$(EXE)"
	@chmod +x "$(EXE)"
	@echo "wrote $(EXE)"

bench: launcher
	@start=$$(date +%s); "$(abspath $(EXE))" bench || exit 1; \
	 elapsed=$$(( $$(date +%s) - start )); echo "bench took $${elapsed} s (limit $(BENCH_LIMIT) s)"; \
	 test $$elapsed -lt $(BENCH_LIMIT)

clean:
	rm -f jitfish-launcher
