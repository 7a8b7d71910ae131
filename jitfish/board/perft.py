"""Perft: count the leaf nodes of the legal move tree, the move generator's proof.

The walk uses an explicit stack of per-ply move lists instead of recursion
(a cached kernel that calls a recursive one can crash Numba on the next
start).  With bulk counting the last ply is counted with popcounts instead of
being made move by move, as Stockfish's ``go perft`` does.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import (
    make_move,
    make_move_inlined,
    unmake_move,
    unmake_move_inlined,
)
from jitfish.board.movegen import GEN_ALL, GEN_COUNT, generate_moves
from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.runtime.jit import kernel

MAX_PERFT_DEPTH = 64
assert MAX_PERFT_DEPTH < L.SEARCH_HEADROOM  # perft's plies must fit above a full game


@kernel(hot=True)
def _perft_kernel(bbs, state, undo, key_history, tables, depth, bulk, moves, counts, cursors):  # type: ignore[no-untyped-def]
    """Leaf count below the position to ``depth``; ``moves``/``counts``/``cursors`` are per-ply buffers.
    Private: :func:`perft_position` is its typed wrapper."""
    if depth <= 0:
        return 1
    if bulk and depth == 1:
        return generate_moves(bbs, state, tables, moves, 0, GEN_COUNT)
    leaf_ply = depth - 1 if bulk else depth
    nodes = 0
    ply = 0
    counts[0] = generate_moves(bbs, state, tables, moves, 0, GEN_ALL)
    cursors[0] = 0
    while True:
        if cursors[ply] < counts[ply]:
            move = moves[ply * MAX_MOVES + cursors[ply]]
            cursors[ply] += 1
            make_move_inlined(bbs, state, undo, key_history, tables, move)
            if ply + 1 == leaf_ply:
                if bulk:
                    nodes += generate_moves(bbs, state, tables, moves, (ply + 1) * MAX_MOVES, GEN_COUNT)
                else:
                    nodes += 1
                unmake_move_inlined(bbs, state, undo, key_history, tables)
            else:
                ply += 1
                counts[ply] = generate_moves(bbs, state, tables, moves, ply * MAX_MOVES, GEN_ALL)
                cursors[ply] = 0
        elif ply == 0:
            return nodes
        else:
            ply -= 1
            unmake_move_inlined(bbs, state, undo, key_history, tables)


def perft_position(position: Position, depth: int, bulk: bool = True) -> int:
    """Perft from a :class:`Position`, which is left as it was."""
    if not 0 <= depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"perft depth must be between 0 and {MAX_PERFT_DEPTH}, got {depth}")
    moves = np.zeros((MAX_PERFT_DEPTH + 1) * MAX_MOVES, dtype=np.int32)
    counts = np.zeros(MAX_PERFT_DEPTH + 1, dtype=np.int64)
    cursors = np.zeros(MAX_PERFT_DEPTH + 1, dtype=np.int64)
    return int(
        _perft_kernel(
            position.bbs,
            position.state,
            position.undo,
            position.key_history,
            lookup_tables(),
            depth,
            bulk,
            moves,
            counts,
            cursors,
        )
    )


def divide_position(position: Position, depth: int, bulk: bool = True) -> dict[str, int]:
    """Perft per root move (UCI text to leaf count), in generation order."""
    if depth < 1:
        raise ValueError(f"divide needs depth >= 1, got {depth}")
    tables = lookup_tables()
    root_moves = np.zeros(MAX_MOVES, dtype=np.int32)
    count = generate_moves(position.bbs, position.state, tables, root_moves, 0, GEN_ALL)
    result = {}
    for move in root_moves[:count]:
        make_move(position.bbs, position.state, position.undo, position.key_history, tables, move)
        result[move_to_uci(int(move), position.chess960)] = perft_position(position, depth - 1, bulk)
        unmake_move(position.bbs, position.state, position.undo, position.key_history, tables)
    return result


def perft(fen: str, depth: int, chess960: bool = False, bulk: bool = True) -> int:
    """Leaf nodes of the legal move tree of ``fen`` to ``depth``."""
    return perft_position(Position.from_fen(fen, chess960), depth, bulk)


def perft_divide(fen: str, depth: int, chess960: bool = False, bulk: bool = True) -> dict[str, int]:
    """:func:`perft` split by root move, as ``go perft`` prints it."""
    return divide_position(Position.from_fen(fen, chess960), depth, bulk)
