"""The data tools' compiled side: play a searched move, replay and pack a stored game, link two positions.

The self-play loop (:mod:`tuning.datagen.selfplay`) crosses into compiled
code once per aspiration window (the search kernel's entry point ``negamax``
at ply 0, through :class:`~jitfish.search.worker.SearchWorker`) and once per
move (``play_move``: the move's number, the quiet test, the move, the game's
end).  The iteration loop itself stays in Python
(``SearchWorker.iterate_nodes``): a *cached* kernel that calls the recursive
``negamax`` crashes Numba on the next start (issue #6061; tried: the second
process segfaults), and measured, the Python around ``negamax`` is about 5%
of a worker's time, so an uncached loop compiled in every worker would gain
at most that (docs/nnue-data.md, "Throughput").

Moves are stored as their number among the legal moves sorted by
``from + 64 * to + 4096 * promotion`` (castling written king takes rook, as
the engine encodes it): that order depends on the rules only, not on the
order the move generator happens to emit moves in, so a file stays readable
when the generator changes.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.board.makemove import make_move, unmake_move
from jitfish.board.movegen import GEN_ALL, generate_moves, is_in_check
from jitfish.board.moves import (
    MAX_MOVES,
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    move_from_to,
    move_kind,
    move_promotion,
    move_to,
)
from jitfish.board.squares import BISHOP, KING, KNIGHT, NO_PIECE, NO_SQUARE, PAWN, QUEEN, ROOK
from jitfish.runtime.jit import kernel
from jitfish.types import MATE_BOUND

# How a position after a move stands (``play_move``'s last value).
PLAYING, CHECKMATE, STALEMATE, INSUFFICIENT, FIFTY_MOVES, THREEFOLD = range(6)
ENDING_NAMES = ("", "checkmate", "stalemate", "insufficient material", "fifty-move rule", "threefold repetition")


@kernel
def sorted_legal_moves(bbs, state, tables):
    """The legal moves in the file order (see the module docstring)."""
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    count = generate_moves(bbs, state, tables, moves, 0, GEN_ALL)
    keys = np.empty(count, dtype=np.int64)
    for i in range(count):
        keys[i] = move_from_to(moves[i]) + 4096 * move_promotion(moves[i])
    return moves[:count][np.argsort(keys)]


@kernel
def move_number(moves, move):
    """The number of ``move`` in ``moves`` (sorted legal moves); -1 if absent."""
    for i in range(len(moves)):
        if moves[i] == move:
            return i
    return -1


@kernel
def is_quiet_move(state, move):
    """Neither a capture (en passant included; castling takes no piece) nor a promotion."""
    kind = move_kind(move)
    if kind == MOVE_EN_PASSANT or move_promotion(move) != 0:
        return False
    return kind == MOVE_CASTLING or state[L.MAILBOX + move_to(move)] == NO_PIECE


@kernel
def threefold(bbs, state, key_history):
    """Whether the position has occurred twice before since the last irreversible move."""
    ply = state[L.GAME_PLY]
    oldest = max(0, ply - state[L.HALFMOVE_CLOCK])
    seen = 0
    i = ply - 4
    while i >= oldest:
        if key_history[i] == bbs[L.KEY]:
            seen += 1
        i -= 2
    return seen >= 2


DARK_SQUARES = np.uint64(0xAA55_AA55_AA55_AA55)
LIGHT_SQUARES = ~DARK_SQUARES


@kernel
def cannot_mate(bbs, colour):
    """Whether ``colour`` cannot mate by any sequence of moves, as python-chess judges it: a bare king, a
    king and one knight against at most queens, or bishops all on one colour of squares with no knight or
    pawn on the board."""
    own = bbs[L.OCCUPIED_WHITE + colour]
    other = bbs[L.OCCUPIED_WHITE + (colour ^ 1)]
    pawns = bbs[PAWN] | bbs[6 + PAWN]
    knights = bbs[KNIGHT] | bbs[6 + KNIGHT]
    bishops = bbs[BISHOP] | bbs[6 + BISHOP]
    if own & (pawns | bbs[ROOK] | bbs[6 + ROOK] | bbs[QUEEN] | bbs[6 + QUEEN]):
        return False
    if own & knights:
        kings_and_queens = bbs[KING] | bbs[6 + KING] | bbs[QUEEN] | bbs[6 + QUEEN]
        return popcount(own) <= 2 and (other & ~kings_and_queens) == 0
    if own & bishops:
        one_colour = (bishops & DARK_SQUARES) == 0 or (bishops & LIGHT_SQUARES) == 0
        return one_colour and pawns == 0 and knights == 0
    return True


@kernel
def ending(bbs, state, key_history, tables):
    """How the game stands in this position: ``PLAYING`` or the ending, checked as python-chess orders them."""
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    if generate_moves(bbs, state, tables, moves, 0, GEN_ALL) == 0:
        return CHECKMATE if is_in_check(bbs, state, tables) else STALEMATE
    if cannot_mate(bbs, 0) and cannot_mate(bbs, 1):
        return INSUFFICIENT
    if state[L.HALFMOVE_CLOCK] >= 100:
        return FIFTY_MOVES
    if threefold(bbs, state, key_history):
        return THREEFOLD
    return PLAYING


@kernel
def play_move(bbs, state, undo, key_history, tables, move, score):
    """Play ``move``, the search's best, scored ``score`` for the side to move: ``(its number in the file
    order, whether the position was quiet for it, the ending after it)``.

    Quiet as :mod:`tuning.datagen.quiet` has it: not in check, the best move neither a capture nor a
    promotion, the score not a mate.
    """
    number = move_number(sorted_legal_moves(bbs, state, tables), move)
    quiet = not is_in_check(bbs, state, tables) and is_quiet_move(state, move) and abs(score) < MATE_BOUND
    make_move(bbs, state, undo, key_history, tables, move)
    return number, quiet, ending(bbs, state, key_history, tables)


@kernel
def legal_en_passant(bbs, state, tables):
    """Whether an en-passant capture is legal (a FEN shows the square only then)."""
    if state[L.EN_PASSANT] == NO_SQUARE:
        return False
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    for i in range(generate_moves(bbs, state, tables, moves, 0, GEN_ALL)):
        if move_kind(moves[i]) == MOVE_EN_PASSANT:
            return True
    return False


@kernel
def pack_position(bbs, state, tables, row):
    """Write the position fields of a packed position (:mod:`tuning.datagen.records`) into ``row``
    (32 ``uint8``): all but the result (byte 27) and the score (bytes 30-31)."""
    occupied = bbs[L.OCCUPIED]
    for i in range(8):
        row[i] = (occupied >> np.uint64(8 * i)) & np.uint64(0xFF)
    for i in range(8, 24):
        row[i] = 0
    count = 0
    for square in range(64):
        if (occupied >> np.uint64(square)) & np.uint64(1):
            row[8 + count // 2] |= state[L.MAILBOX + square] << (4 * (count % 2))
            count += 1
    row[24] = state[L.SIDE_TO_MOVE] | (state[L.CASTLING_RIGHTS] << 1)
    row[25] = state[L.EN_PASSANT] if legal_en_passant(bbs, state, tables) else NO_SQUARE
    row[26] = state[L.HALFMOVE_CLOCK]
    row[28] = state[L.FULLMOVE_NUMBER] & 0xFF
    row[29] = state[L.FULLMOVE_NUMBER] >> 8


@kernel
def replay_game(bbs, state, undo, key_history, tables, numbers, scores, labelled, result_code, out):
    """Play a game record's moves from its start (the position arrays), packing each labelled position
    into the next row of ``out`` (``uint8``, 32 a row); the rows written, or -1 if a move number is not
    a legal move's."""
    written = 0
    for i in range(len(scores)):
        if labelled[i]:
            row = out[written]
            pack_position(bbs, state, tables, row)
            row[27] = result_code
            row[30] = scores[i] & 0xFF
            row[31] = (scores[i] >> 8) & 0xFF
            written += 1
        if i == len(numbers):
            break
        moves = sorted_legal_moves(bbs, state, tables)
        if numbers[i] >= len(moves):
            return -1
        make_move(bbs, state, undo, key_history, tables, moves[numbers[i]])
    return written


@kernel
def _squares_apart(state, target_state):
    differ = 0
    for square in range(64):
        if state[L.MAILBOX + square] != target_state[L.MAILBOX + square]:
            differ += 1
    return differ


@kernel
def find_line(bbs, state, undo, key_history, tables, target_bbs, target_state, depth, line):
    """Moves (into ``line``) that lead in exactly ``depth`` plies to the position of ``target_bbs`` (same
    Zobrist key); True if found.  The position is left as it was.

    A depth-first search pruned by the squares on which the two boards differ: a move changes at
    most four (castling), so a branch that differs on more than four per ply left is dropped.
    """
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    counts = np.zeros(depth, dtype=np.int64)
    following = np.zeros(depth, dtype=np.int64)
    counts[0] = generate_moves(bbs, state, tables, moves[0], 0, GEN_ALL)
    ply = 0
    while ply >= 0:
        if following[ply] == counts[ply]:
            ply -= 1
            if ply >= 0:
                unmake_move(bbs, state, undo, key_history, tables)
            continue
        move = moves[ply, following[ply]]
        following[ply] += 1
        make_move(bbs, state, undo, key_history, tables, move)
        line[ply] = move
        left = depth - ply - 1
        if left == 0:
            if bbs[L.KEY] == target_bbs[L.KEY]:
                for _ in range(depth):
                    unmake_move(bbs, state, undo, key_history, tables)
                return True
            unmake_move(bbs, state, undo, key_history, tables)
        elif _squares_apart(state, target_state) <= 4 * left:
            ply += 1
            counts[ply] = generate_moves(bbs, state, tables, moves[ply], 0, GEN_ALL)
            following[ply] = 0
        else:
            unmake_move(bbs, state, undo, key_history, tables)
    return False
