"""The teaching searches: plain minimax, plain alpha-beta, and one alpha-beta whose refinements switch on one at a time.

These are small recursive negamax kernels written to be read.  They reuse the
engine's board (``generate_moves``, ``make_move``/``unmake_move``) and its
evaluation, but none of the engine's search code: the engine's hot search
never branches on anything taught here.

Conventions (as in the engine): a score is in centipawns from the side to
move; a mate ``ply`` half-moves from the root scores ``MATE - ply``; every
kernel "fails soft" (it may return a value outside the window it was given).
Repetitions and the fifty-move rule are ignored: the value of a position at a
given depth then depends on the position only, which is what lets a
transposition table stay exact.

Statistics go to ``counters``: ``NODES`` counts every position visited (root,
interior, leaf, quiescence), ``LEAVES`` the positions scored without looking
further (depth 0, mate, stalemate, a quiescence stand-pat).  Plain minimax
visits exactly the perft tree: ``sum(perft(k) for k in 0..depth)`` nodes.

Why all the kernels share one file: Numba invalidates a cached kernel when
*its own* file changes, but not when a helper it calls from another file does
(the helper's old machine code stays linked into it).  The modules kernels
are built from are digested into the cache directory's name
(``jitfish.runtime.jit.kernel_sources``); no kernel file imports this one, so it is
not, and editing it never throws away the engine's compiled code.  Keeping every kernel and helper of these searches
here means Numba's own per-file check covers them all.  (UCT lives in
:mod:`jitfish.teach.mcts_kernels` under the same rule: it calls no kernel
of this file.)
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from jitfish.board.movegen import GEN_ALL, GEN_NOISY, generate_moves, is_in_check
from jitfish.board.moves import MAX_MOVES, MOVE_EN_PASSANT, move_from, move_kind, move_promotion, move_to
from jitfish.board.squares import BISHOP, KNIGHT, NO_PIECE, QUEEN, ROOK
from jitfish.eval.evaluation import evaluate
from jitfish.runtime.jit import kernel
from jitfish.types import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, INF, MATE_BOUND, mated_in

# Refinements of ``enhanced_search``, switched on by or-ing these flags.
TRANSPOSITION_TABLE = 1  # remember searched positions (with iterative deepening, by jitfish.teach.ladder)
PVS = 2  # principal variation search: later moves get a null window first
NULL_MOVE = 4  # null-move pruning (forward pruning: not exact)
REDUCTIONS = 8  # late-move reductions (forward pruning: not exact)
QUIESCENCE = 16  # at depth 0, play out captures before evaluating
BOUNDS = 32  # the table keeps a lower and an upper bound per position (MTD(f): each pass tightens one)

# ``counters``
NODES = 0
LEAVES = 1
TT_CUTOFFS = 2
COUNTERS_SIZE = 3

# Every margin of the forward-pruning rungs, named once.
NULL_MOVE_MIN_DEPTH = 3  # null move only this far from the leaves
NULL_MOVE_REDUCTION = 2  # R: the null move is searched to depth - 1 - R
LMR_MIN_DEPTH = 3  # late-move reductions only this far from the leaves
LMR_FULL_DEPTH_MOVES = 3  # the first moves of a node are never reduced
LMR_REDUCTION = 1  # plies taken off a late quiet move

# Buffers.
MAX_TEACH_PLY = 64  # deepest ply (quiescence included); the ladder's depth limit is far below
PV_STRIDE = MAX_TEACH_PLY + 1  # triangular PV: row ``ply`` holds its length, then its moves
TT_FIELDS = 4  # per entry: move, value, depth, bound
TT_MOVE, TT_VALUE, TT_DEPTH, TT_BOUND = 0, 1, 2, 3
TT_LOWER, TT_UPPER = TT_VALUE, TT_BOUND  # with ``BOUNDS``: two bounds in place of a value and its kind

# The event trace, read by ``jitfish.teach.chess_trace`` (which says what each kind's fields hold): a header (events
# written, an overflow flag), then per event kind, ply, move, alpha, beta, value, extra.  Only a longer array records.
TRACE_COUNT, TRACE_OVERFLOW, TRACE_HEADER, TRACE_FIELDS = 0, 1, 2, 7
EVENT_ENTER, EVENT_VALUE, EVENT_CUTOFF, EVENT_SPARED, EVENT_TABLE_HIT = 1, 2, 3, 4, 5

# Move ordering scores: hash move, then captures by MVV-LVA, then killers, then the rest.
ORDER_HASH_MOVE = 1 << 30
ORDER_CAPTURE = 1 << 20
ORDER_KILLER = 1 << 10
ORDER_VALUES = (1, 3, 3, 5, 9, 0)  # victim and attacker weights by piece type (P N B R Q K)


# ----------------------------------------------------------------------------
# Helpers shared by the searches
# ----------------------------------------------------------------------------


@kernel
def _generate(bbs, state, tables, moves, ply, mode):
    """Legal moves (``GEN_ALL``) or captures (``GEN_NOISY``) into this ply's slice of ``moves``."""
    return generate_moves(bbs, state, tables, moves, ply * MAX_MOVES, np.int64(mode))


@kernel
def _no_move_value(bbs, state, tables, ply):
    """The value of a position without legal moves: mated, or stalemate (a draw)."""
    if is_in_check(bbs, state, tables):
        return mated_in(ply)
    return 0


@kernel
def _update_pv(pv, ply, move):
    """The PV of ``ply`` becomes ``move`` followed by the PV of the child."""
    row = ply * PV_STRIDE
    child = row + PV_STRIDE
    length = pv[child]
    pv[row + 1] = move
    for i in range(length):
        pv[row + 2 + i] = pv[child + 1 + i]
    pv[row] = length + 1


@kernel
def _is_quiet(state, move):
    """Neither a capture (en passant included) nor a promotion."""
    return (
        move_promotion(move) == 0
        and move_kind(move) != MOVE_EN_PASSANT
        and state[L.MAILBOX + move_to(move)] == NO_PIECE
    )


@kernel
def _order_moves(state, moves, scores, ply, count, hash_move, killers):
    """Sort this ply's moves best first: hash move, captures (most valuable victim, least valuable attacker), killers.

    Insertion sort: a node has a few dozen moves, and the code stays short.
    """
    start = ply * MAX_MOVES
    for i in range(start, start + count):
        move = np.int64(moves[i])
        if move == hash_move:
            score = ORDER_HASH_MOVE
        elif not _is_quiet(state, move):
            victim = state[L.MAILBOX + move_to(move)]
            if victim != NO_PIECE:
                victim_value = ORDER_VALUES[victim % 6]
            elif move_kind(move) == MOVE_EN_PASSANT:
                victim_value = ORDER_VALUES[0]  # en passant takes a pawn
            else:
                victim_value = 0  # a promotion onto an empty square
            if move_promotion(move) == QUEEN:
                victim_value += ORDER_VALUES[4]
            attacker_value = ORDER_VALUES[state[L.MAILBOX + move_from(move)] % 6]
            score = ORDER_CAPTURE + 16 * victim_value - attacker_value
        elif move == killers[2 * ply]:
            score = ORDER_KILLER + 1
        elif move == killers[2 * ply + 1]:
            score = ORDER_KILLER
        else:
            score = 0
        # Slide the move down to its place among the moves already sorted.
        j = i
        while j > start and scores[j - 1] < score:
            moves[j] = moves[j - 1]
            scores[j] = scores[j - 1]
            j -= 1
        moves[j] = move
        scores[j] = score


@kernel
def _store_killer(killers, ply, move):
    """Remember a quiet move that caused a cutoff: it often refutes the sibling positions too."""
    if killers[2 * ply] != move:
        killers[2 * ply + 1] = killers[2 * ply]
        killers[2 * ply] = move


@kernel
def _value_to_tt(value, ply):
    """Mate scores are stored as distances from this position, not from the root."""
    if value >= MATE_BOUND:
        return value + ply
    if value <= -MATE_BOUND:
        return value - ply
    return value


@kernel
def _value_from_tt(value, ply):
    if value >= MATE_BOUND:
        return value - ply
    if value <= -MATE_BOUND:
        return value + ply
    return value


@kernel
def _bound_from_tt(value, ply):
    """A stored bound; +-INF (no bound yet) stays as it is."""
    if value == INF or value == -INF:
        return value
    return _value_from_tt(value, ply)


@kernel
def _has_pieces(bbs, side):
    """Whether ``side`` has a piece besides pawns and king (null move is unsafe in pawn endings: zugzwang)."""
    base = side * 6
    return (bbs[base + KNIGHT] | bbs[base + BISHOP] | bbs[base + ROOK] | bbs[base + QUEEN]) != 0


@kernel
def _record(trace, kind, ply, move, alpha, beta, value, extra):
    """Append one event to ``trace``, if it records at all and has room (else flag the overflow)."""
    if len(trace) <= TRACE_HEADER:
        return
    at = TRACE_HEADER + trace[TRACE_COUNT] * TRACE_FIELDS
    if at + TRACE_FIELDS > len(trace):
        trace[TRACE_OVERFLOW] = 1
        return
    trace[at], trace[at + 1], trace[at + 2], trace[at + 3] = kind, ply, move, alpha
    trace[at + 4], trace[at + 5], trace[at + 6] = beta, value, extra
    trace[TRACE_COUNT] += 1


@kernel
def _record_enter(trace, state, undo, ply, alpha, beta, depth):
    """A node entered; the move that led here is the last on the undo stack (0 at the root, or a null move)."""
    game_ply = state[L.GAME_PLY]
    move = undo[(game_ply - 1) * L.UNDO_SIZE + L.UNDO_MOVE] if ply > 0 and game_ply > 0 else 0
    _record(trace, EVENT_ENTER, ply, move, alpha, beta, 0, depth)


@kernel
def _returns(trace, ply, alpha, beta, value, leaf):
    """Record the value a node returns (``leaf``: 1 where it counts as a leaf), and return it."""
    _record(trace, EVENT_VALUE, ply, 0, alpha, beta, value, leaf)
    return value


@kernel
def _table_returns(trace, ply, alpha, beta, value, bound):
    """The table settled the node: record it and the value it returns, and return it."""
    _record(trace, EVENT_TABLE_HIT, ply, 0, alpha, beta, value, bound)
    return _returns(trace, ply, alpha, beta, value, 0)


@kernel
def _record_cutoff(trace, moves, ply, i, count, alpha, beta, value):
    """A cutoff after move ``i`` of ``count``: the event, then each move it spared."""
    if len(trace) > TRACE_HEADER and i + 1 < count:
        _record(trace, EVENT_CUTOFF, ply, moves[ply * MAX_MOVES + i], alpha, beta, value, count - i - 1)
        for j in range(i + 1, count):
            _record(trace, EVENT_SPARED, ply, moves[ply * MAX_MOVES + j], 0, 0, 0, 0)


@kernel
def _last_move_was_null(state, undo):
    ply = state[L.GAME_PLY]
    return ply > 0 and undo[(ply - 1) * L.UNDO_SIZE + L.UNDO_MOVE] == 0


# ----------------------------------------------------------------------------
# Rung 1: minimax
# ----------------------------------------------------------------------------


@kernel
def minimax(bbs, state, undo, key_history, tables, weights, moves, pv, counters, trace, depth, ply):
    """The minimax value of the position to ``depth``, written as negamax.

    Negamax: the value of a position for the side to move is the best of the
    *negated* values of its children, because what is good for one side is
    equally bad for the other.  Every move is searched; nothing is pruned.
    ``trace`` records what the search does (see ``TRACE_HEADER``; the window
    recorded is always (-INF, INF): minimax has none).
    """
    # 1. Count the node and start an empty principal variation.
    counters[NODES] += 1
    pv[ply * PV_STRIDE] = 0
    _record_enter(trace, state, undo, ply, -INF, INF, depth)
    # 2. At the horizon, trust the static evaluation.
    if depth == 0:
        counters[LEAVES] += 1
        return _returns(trace, ply, -INF, INF, evaluate(bbs, state, tables, weights), 1)
    # 3. No legal move: the game is over (mate or stalemate).
    count = _generate(bbs, state, tables, moves, ply, GEN_ALL)
    if count == 0:
        counters[LEAVES] += 1
        return _returns(trace, ply, -INF, INF, _no_move_value(bbs, state, tables, ply), 1)
    # 4. Try every move; keep the best negated child value.
    best = -INF
    for i in range(count):
        move = np.int64(moves[ply * MAX_MOVES + i])
        make_move(bbs, state, undo, key_history, tables, move)
        value = -minimax(bbs, state, undo, key_history, tables, weights, moves, pv, counters, trace, depth - 1, ply + 1)
        unmake_move(bbs, state, undo, key_history, tables)
        if value > best:
            best = value
            _update_pv(pv, ply, move)
    return _returns(trace, ply, -INF, INF, best, 0)


# ----------------------------------------------------------------------------
# Rung 2: alpha-beta
# ----------------------------------------------------------------------------


@kernel
def alphabeta(bbs, state, undo, key_history, tables, weights, moves, pv, counters, trace, alpha, beta, depth, ply):
    """Minimax with alpha-beta pruning, moves in the generator's order.

    ``alpha`` is what the side to move is already sure of elsewhere in the
    tree, ``beta`` what the opponent is sure of.  Once a move scores
    ``>= beta`` the opponent will never let this position arise, so the
    remaining moves cannot change the result at the root and are skipped.
    With the window (-INF, INF) at the root the value is exactly minimax's.
    ``trace`` records what the search does (see ``TRACE_HEADER``).
    """
    # 1. Count the node and start an empty principal variation.
    counters[NODES] += 1
    pv[ply * PV_STRIDE] = 0
    _record_enter(trace, state, undo, ply, alpha, beta, depth)
    # 2. At the horizon, trust the static evaluation.
    if depth == 0:
        counters[LEAVES] += 1
        return _returns(trace, ply, alpha, beta, evaluate(bbs, state, tables, weights), 1)
    # 3. No legal move: the game is over.
    count = _generate(bbs, state, tables, moves, ply, GEN_ALL)
    if count == 0:
        counters[LEAVES] += 1
        return _returns(trace, ply, alpha, beta, _no_move_value(bbs, state, tables, ply), 1)
    # 4. Try the moves; the window narrows as better moves are found.
    best = -INF
    for i in range(count):
        move = np.int64(moves[ply * MAX_MOVES + i])
        make_move(bbs, state, undo, key_history, tables, move)
        value = -alphabeta(
            bbs,
            state,
            undo,
            key_history,
            tables,
            weights,
            moves,
            pv,
            counters,
            trace,
            -beta,
            -alpha,
            depth - 1,
            ply + 1,
        )
        unmake_move(bbs, state, undo, key_history, tables)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                _update_pv(pv, ply, move)
            # 5. Beta cutoff: the opponent avoids this position; the other moves cannot matter.
            if value >= beta:
                _record_cutoff(trace, moves, ply, i, count, alpha, beta, value)
                break
    return _returns(trace, ply, alpha, beta, best, 0)


# ----------------------------------------------------------------------------
# Rungs 3-7: alpha-beta with move ordering, and the refinements in ``features``
# ----------------------------------------------------------------------------
# (Its four recursive calls keep several arguments to a line, not one a line as ruff would: the file stays short.)


@kernel
def enhanced_search(
    bbs,
    state,
    undo,
    key_history,
    tables,
    weights,
    features,
    moves,
    scores,
    killers,
    tt_keys,
    tt_entries,
    pv,
    counters,
    trace,
    alpha,
    beta,
    depth,
    ply,
):
    """Alpha-beta with move ordering (always), plus the refinements or-ed into ``features``.

    ``TRANSPOSITION_TABLE`` and ``PVS`` keep the value exact: a table entry
    is used only when it was searched to exactly the depth needed here (an
    engine would take deeper entries too, and gain strength but lose the
    equality with minimax), and PVS re-searches any move its null window
    cannot settle.  ``NULL_MOVE`` and ``REDUCTIONS`` are forward pruning:
    they skip or shorten lines on the strength of a shallower search, which
    is usually right and sometimes not.  ``QUIESCENCE`` changes what a leaf
    is worth, so its values are not minimax's at all (they are better).
    ``BOUNDS`` (for MTD(f)) keeps a lower and an upper bound per entry, so
    that a zero-window pass does not overwrite what the one before learnt.
    ``trace`` records what the search does (see ``TRACE_HEADER``).
    """
    # 1. Count the node and start an empty principal variation.
    counters[NODES] += 1
    pv[ply * PV_STRIDE] = 0
    _record_enter(trace, state, undo, ply, alpha, beta, depth)
    in_quiescence = depth <= 0
    # 2. At the horizon: evaluate, unless quiescence will play out the captures first.
    if (in_quiescence and features & QUIESCENCE == 0) or ply >= MAX_TEACH_PLY - 1:
        counters[LEAVES] += 1
        return _returns(trace, ply, alpha, beta, evaluate(bbs, state, tables, weights), 1)

    # 3. Transposition table: the same position, searched to the same depth, needs no new search.
    hash_move = 0
    slot = 0
    if features & TRANSPOSITION_TABLE and not in_quiescence:
        key = bbs[L.KEY]
        slot = np.int64(key & np.uint64(len(tt_keys) - 1))
        if tt_keys[slot] == key:
            entry = slot * TT_FIELDS
            hash_move = tt_entries[entry + TT_MOVE]
            if tt_entries[entry + TT_DEPTH] == depth and features & BOUNDS:
                # 3a. Two bounds, each left by an earlier search: either may already settle this window.
                lower = _bound_from_tt(tt_entries[entry + TT_LOWER], ply)
                upper = _bound_from_tt(tt_entries[entry + TT_UPPER], ply)
                if lower >= beta or lower == upper:
                    counters[TT_CUTOFFS] += 1
                    return _table_returns(trace, ply, alpha, beta, lower, 0)
                if upper <= alpha:
                    counters[TT_CUTOFFS] += 1
                    return _table_returns(trace, ply, alpha, beta, upper, 0)
            elif tt_entries[entry + TT_DEPTH] == depth:
                value = _value_from_tt(tt_entries[entry + TT_VALUE], ply)
                bound = tt_entries[entry + TT_BOUND]
                if (
                    bound == BOUND_EXACT
                    or (bound == BOUND_LOWER and value >= beta)
                    or (bound == BOUND_UPPER and value <= alpha)
                ):
                    counters[TT_CUTOFFS] += 1
                    return _table_returns(trace, ply, alpha, beta, value, bound)

    # 4. Quiescence: the side to move may "stand pat" on the evaluation instead of capturing.
    #    (A simplification for reading: the engine does not stand pat in check, it searches the evasions.)
    best = -INF
    if in_quiescence:
        counters[LEAVES] += 1
        best = evaluate(bbs, state, tables, weights)
        if best >= beta:
            return _returns(trace, ply, alpha, beta, best, 1)
        alpha = max(alpha, best)

    # 5. Null move: let the opponent move twice.  If we still reach beta after a
    #    shallower search, a real move would most likely too.  Unsound in zugzwang,
    #    hence not in pawn endings, not in check, and not twice in a row.
    in_check = False
    if features & (NULL_MOVE | REDUCTIONS) and not in_quiescence:
        in_check = is_in_check(bbs, state, tables)
    if (
        features & NULL_MOVE
        and not in_quiescence
        and ply > 0
        and depth >= NULL_MOVE_MIN_DEPTH
        and beta - alpha == 1
        and not in_check
        and not _last_move_was_null(state, undo)
        and _has_pieces(bbs, state[L.SIDE_TO_MOVE])
        and evaluate(bbs, state, tables, weights) >= beta
    ):
        make_null_move(bbs, state, undo, key_history, tables)
        # fmt: off
        value = -enhanced_search(
            bbs, state, undo, key_history, tables, weights, features, moves, scores, killers, tt_keys, tt_entries, pv,
            counters, trace, -beta, -beta + 1, depth - 1 - NULL_MOVE_REDUCTION, ply + 1,
        )
        # fmt: on
        unmake_null_move(bbs, state, undo, key_history, tables)
        if value >= beta:
            return _returns(trace, ply, alpha, beta, beta, 0)

    # 6. Generate the moves (captures only in quiescence) and order them best first.
    count = _generate(bbs, state, tables, moves, ply, GEN_NOISY if in_quiescence else GEN_ALL)
    if count == 0:
        if in_quiescence:
            return _returns(trace, ply, alpha, beta, best, 1)
        counters[LEAVES] += 1
        return _returns(trace, ply, alpha, beta, _no_move_value(bbs, state, tables, ply), 1)
    _order_moves(state, moves, scores, ply, count, hash_move, killers)

    # 7. Search the moves.
    original_alpha = alpha
    best_move = 0
    for i in range(count):
        move = np.int64(moves[ply * MAX_MOVES + i])
        quiet = _is_quiet(state, move)
        make_move(bbs, state, undo, key_history, tables, move)
        # 7a. Late-move reduction: a late quiet move is first searched less deeply with a
        #     null window; only if it surprises (beats alpha) is it searched in full.
        reduction = 0
        if (
            features & REDUCTIONS
            and depth >= LMR_MIN_DEPTH
            and i >= LMR_FULL_DEPTH_MOVES
            and quiet
            and not in_check
            and not is_in_check(bbs, state, tables)
            and move != killers[2 * ply]
            and move != killers[2 * ply + 1]
        ):
            reduction = LMR_REDUCTION
        needs_full_window = True
        value = -INF
        if reduction > 0:
            # fmt: off
            value = -enhanced_search(
                bbs, state, undo, key_history, tables, weights, features, moves, scores, killers, tt_keys, tt_entries,
                pv, counters, trace, -alpha - 1, -alpha, depth - 1 - reduction, ply + 1,
            )
            # fmt: on
            needs_full_window = value > alpha
        # 7b. PVS: after the first move, expect every move to fail low and prove it with a
        #     null window (alpha, alpha + 1); only a move that lands inside the window is searched again.
        if needs_full_window and features & PVS and i > 0 and not in_quiescence:
            # fmt: off
            value = -enhanced_search(
                bbs, state, undo, key_history, tables, weights, features, moves, scores, killers, tt_keys, tt_entries,
                pv, counters, trace, -alpha - 1, -alpha, depth - 1, ply + 1,
            )
            # fmt: on
            needs_full_window = alpha < value < beta
        # 7c. The full-window search.
        if needs_full_window:
            # fmt: off
            value = -enhanced_search(
                bbs, state, undo, key_history, tables, weights, features, moves, scores, killers, tt_keys, tt_entries,
                pv, counters, trace, -beta, -alpha, depth - 1, ply + 1,
            )
            # fmt: on
        unmake_move(bbs, state, undo, key_history, tables)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                best_move = move
                _update_pv(pv, ply, move)
            # 7d. Beta cutoff; a quiet move that caused it becomes a killer at this ply.
            if value >= beta:
                if quiet:
                    _store_killer(killers, ply, move)
                _record_cutoff(trace, moves, ply, i, count, alpha, beta, value)
                break

    # 8. Remember the result: exact, or a bound when the window cut it short.
    if features & TRANSPOSITION_TABLE and not in_quiescence:
        entry = slot * TT_FIELDS
        if best <= original_alpha:
            best_move = hash_move
        if features & BOUNDS:
            # 8a. Keep the other bound if the entry is this position's at this depth; tighten this one.
            if tt_keys[slot] != bbs[L.KEY] or tt_entries[entry + TT_DEPTH] != depth:
                tt_entries[entry + TT_LOWER] = -INF
                tt_entries[entry + TT_UPPER] = INF
            if best > original_alpha:
                tt_entries[entry + TT_LOWER] = _value_to_tt(best, ply)
            if best < beta:
                tt_entries[entry + TT_UPPER] = _value_to_tt(best, ply)
        else:
            bound = BOUND_EXACT
            if best >= beta:
                bound = BOUND_LOWER
            elif best <= original_alpha:
                bound = BOUND_UPPER
            tt_entries[entry + TT_VALUE] = _value_to_tt(best, ply)
            tt_entries[entry + TT_BOUND] = bound
        tt_keys[slot] = bbs[L.KEY]
        tt_entries[entry + TT_MOVE] = best_move
        tt_entries[entry + TT_DEPTH] = depth
    return _returns(trace, ply, original_alpha, beta, best, 1 if in_quiescence else 0)
