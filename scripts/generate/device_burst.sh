#!/usr/bin/env bash
# A burst on a lent machine with many cores and a GPU (docs/nnue-data.md, "A burst on a lent machine").
#
#   bash scripts/generate/device_burst.sh SEED [MINUTES [TRAIN_ARGS...]]
#
# Plays self-play with the shipped network as the teacher into data/nnue for MINUTES minutes (default 7;
# the kernels' compile, about a minute on a fresh machine, counts in them), the new seed's game file and
# manifest row rewritten after each chunk, then checks the data set and copies the new game file and the
# manifest to $OUT (default /tmp/burst-out). Copy both into data/nnue here, run
# `python -m tuning.datagen check data/nnue` and commit them.
#
# With TRAIN_ARGS (the arguments of `python -m tuning.nnue train`: committed game files and the recipe),
# a network trains beside the generator for the same minutes, on the GPU where PyTorch sees one, into
# /tmp/burst-train; its log, its best epoch exported (network.nnue) and its best and last checkpoints come
# back in $OUT, so that `python -m tuning.nnue train ... --out DIR` here resumes it from them.
# The generator then keeps two cores off its workers: one builds the trainer's batches, one is spare.
# python-chess travels as a wheel in .whl/ where the machine lacks it: `pip wheel --no-deps -w .whl chess`.
set -euo pipefail
seed=${1:?usage: device_burst.sh SEED [MINUTES [TRAIN_ARGS...]]}
minutes=${2:-7}
shift $(($# < 2 ? $# : 2))
out=${OUT:-/tmp/burst-out}
run=${BURST_TRAIN_DIR:-/tmp/burst-train}
mkdir -p "$out"
python=$(command -v python3 || command -v python)
if compgen -G ".whl/*.whl" >/dev/null && ! "$python" -c "import chess" 2>/dev/null; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
"$python" -c "import sys, numba, numpy, chess; print('python', sys.version.split()[0], 'numba', numba.__version__, 'numpy', numpy.__version__, 'chess', chess.__version__)"
spare=$((($# > 0) + 1))
workers=$(($(nproc) > spare + 1 ? $(nproc) - spare : 1))
echo "$workers workers for $minutes minutes"
trainer=
if [ $# -gt 0 ]; then
    # SIGINT ends the trainer inside an epoch; the epochs finished by then are checkpoints in $run.
    # Job control on: a script's background job would otherwise ignore SIGINT.
    set -m
    timeout --signal=INT "$((minutes * 60))" "$python" -m tuning.nnue train "$@" --out "$run" --quiet \
        >"$out/train.log" 2>&1 &
    trainer=$!
    set +m
fi
# The generator compiles its kernels once before it starts the workers, which load them from the cache.
# SIGINT at the end: the chunks finished by then are in the game file and the manifest.
timeout --signal=INT "$((minutes * 60))" "$python" -m tuning.datagen --positions 1000000000 --seed "$seed" \
    --workers "$workers" --data-dir data/nnue --quiet || true
"$python" -m tuning.datagen check data/nnue | tee "$out/check.txt"
cp data/nnue/selfplay-seed"$seed"-*.bin data/nnue/manifest.json "$out"/
if [ -n "$trainer" ]; then
    wait "$trainer" || true
    if [ ! -f "$run/network.nnue" ] && compgen -G "$run/epoch-*.pt" >/dev/null; then
        # Cut short: export the best epoch finished, as the trainer would have at its end.
        "$python" -m tuning.nnue export "$run" --output "$run/network.nnue" >>"$out/train.log" 2>&1 || true
    fi
    tail -n 3 "$out/train.log"
    # The trainer's own choice of checkpoints: the last (to resume) and the best (what network.nnue is).
    checkpoints=$("$python" -c "import sys; from pathlib import Path; from tuning.nnue.train import best_checkpoint, last_checkpoint
print(*{str(f(Path(sys.argv[1]))) for f in (last_checkpoint, best_checkpoint)} - {'None'})" "$run" 2>/dev/null || true)
    for file in "$run/network.nnue" $checkpoints; do
        [ ! -f "$file" ] || cp "$file" "$out"/
    done
fi
ls -la "$out"
