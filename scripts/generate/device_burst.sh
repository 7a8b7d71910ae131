#!/usr/bin/env bash
# A data-generation burst on a lent machine with many cores (docs/nnue-data.md, "A burst on a lent machine").
#
#   bash scripts/generate/device_burst.sh SEED [MINUTES]
#
# Plays self-play with the shipped network as the teacher on every core but one into data/nnue for
# MINUTES minutes (default 7; the kernels' compile, about a minute on a fresh machine, counts in them),
# the new seed's game file and manifest row rewritten after each chunk, then checks the data set and
# copies the new game file and the manifest to $OUT (default /tmp/burst-out).
# Copy both into data/nnue here, run `python -m tuning.datagen check data/nnue` and commit them.
# python-chess travels as a wheel in .whl/ where the machine lacks it: `pip wheel --no-deps -w .whl chess`.
set -euo pipefail
seed=${1:?usage: device_burst.sh SEED [MINUTES]}
minutes=${2:-7}
out=${OUT:-/tmp/burst-out}
mkdir -p "$out"
python=$(command -v python3 || command -v python)
if compgen -G ".whl/*.whl" >/dev/null && ! "$python" -c "import chess" 2>/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
"$python" -c "import sys, numba, numpy, chess; print('python', sys.version.split()[0], 'numba', numba.__version__, 'numpy', numpy.__version__, 'chess', chess.__version__)"
workers=$(($(nproc) > 2 ? $(nproc) - 1 : 1))
echo "$workers workers for $minutes minutes"
# The generator compiles its kernels once before it starts the workers, which load them from the cache.
# SIGINT at the end: the chunks finished by then are in the game file and the manifest.
timeout --signal=INT "$((minutes * 60))" "$python" -m tuning.datagen --positions 1000000000 --seed "$seed" \
    --workers "$workers" --data-dir data/nnue --quiet || true
"$python" -m tuning.datagen check data/nnue | tee "$out/check.txt"
cp data/nnue/selfplay-seed"$seed"-*.bin data/nnue/manifest.json "$out"/
ls -la "$out"
