"""Hand-crafted evaluation: tapered middlegame/endgame sums of named terms.

Every term goes through one helper, :func:`_term`, which returns ``count ×
weight pair`` and, in the tracing build, adds ``count`` (negated for black)
to that pair's coefficient in a ``trace`` array.  The build is chosen by the type of
``trace``: the search passes ``None`` and :func:`record` compiles to nothing,
so its code is what it would be without tracing; :func:`trace_evaluation`
passes an array and gets, from the same source, the coefficients whose dot
product with the weights is the score (what the tuner fits, and what a test
checks on thousands of positions).  The one term that is not linear, king
danger (:func:`_king_danger`), goes through :func:`_danger_input` instead,
which traces its inputs per side; :func:`~jitfish.eval.params.score_from_trace`
puts the two parts together.

Each term's helper adds the (mg, eg) contribution of one colour;
:func:`evaluate_white` sums them from white's point of view and
:func:`evaluate` tapers by game phase (its weights and total are in the weight
file) and returns the score for the side to move.  Material and piece-square
tables (:func:`psq_score`) change little from move to move, so the search
keeps them per ply with :func:`psq_delta` and calls :func:`evaluate_with_psq`
for the rest.

A black piece uses the square mirrored vertically (``sq ^ 56``) and the
relative rank, so the evaluation is colour-symmetric by construction:
``evaluate(pos) == evaluate(colour-flipped mirror of pos)``.
"""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import overload

from jitfish.board import layout as L
from jitfish.board.attacks import bishop_attacks, rook_attacks
from jitfish.board.bitops import lsb, pop_lsb, popcount
from jitfish.board.moves import NO_CHANGE, SQUARE_BITS, SQUARE_MASK, move_changes
from jitfish.board.squares import (
    BISHOP,
    EMPTY,
    FILE_A,
    FILE_H,
    FULL,
    KING,
    KNIGHT,
    ONE,
    PAWN,
    QUEEN,
    ROOK,
    SHIFT_1,
    SHIFT_7,
    SHIFT_8,
    SHIFT_9,
    SHIFT_16,
    SHIFT_32,
    WHITE,
)
from jitfish.eval import params as P
from jitfish.runtime.jit import HELPER, kernel


def record(trace, index, count):
    """Add ``count`` to ``trace[index]``, unless ``trace`` is ``None`` (the search's build)."""
    if trace is not None:
        trace[index] += count


@overload(record, inline="always")
def _record_by_trace_type(trace, index, count):
    """Chosen at compile time from the type of ``trace``: no code at all for ``None``."""
    if isinstance(trace, types.NoneType):
        return lambda trace, index, count: None

    def add(trace, index, count):
        trace[index] += count

    return add


@kernel(hot=True, inline=True)
def _term(weights, trace, index, count, sign):
    """``count`` times weight pair ``index`` as (mg, eg) for one side; the tracing build also records it.

    ``sign`` (+1 white, -1 black) goes only into the trace: callers turn
    their sums to white's view once, as the search build always did, so that
    build computes exactly what it would without tracing.
    """
    record(trace, index, sign * count)
    return count * weights[2 * index], count * weights[2 * index + 1]


@kernel(hot=True)
def pawn_attacks_of(pawns, colour):
    """Squares attacked by ``pawns`` of ``colour``."""
    if colour == WHITE:
        return ((pawns & ~FILE_A) << SHIFT_7) | ((pawns & ~FILE_H) << SHIFT_9)
    return ((pawns & ~FILE_A) >> SHIFT_9) | ((pawns & ~FILE_H) >> SHIFT_7)


@kernel(hot=True)
def forward_ranks(rank, colour):
    """All squares on ranks strictly ahead of ``rank`` for ``colour``."""
    if colour == WHITE:
        if rank >= 7:
            return EMPTY
        return FULL << np.uint64(8 * (rank + 1))
    if rank <= 0:
        return EMPTY
    return FULL >> np.uint64(8 * (8 - rank))


@kernel(hot=True)
def adjacent_files(file):
    mask = EMPTY
    if file > 0:
        mask |= FILE_A << np.uint64(file - 1)
    if file < 7:
        mask |= FILE_A << np.uint64(file + 1)
    return mask


@kernel(hot=True, inline=True)
def _piece_square(weights, trace, piece, sq):
    """(mg, eg) of ``piece`` (colour * 6 + type) standing on ``sq``, material included, from white's view."""
    colour = 1 if piece >= 6 else 0
    piece_type = piece - 6 * colour
    sign = 1 - 2 * colour
    a, b = _term(weights, trace, P.MATERIAL + piece_type, 1, sign)
    c, d = _term(weights, trace, P.PST + piece_type * 64 + (sq ^ (56 * colour)), 1, sign)
    return sign * (a + c), sign * (b + d)


@kernel(hot=True, inline=True)
def _material_and_squares(bbs, weights, trace):
    mg = 0
    eg = 0
    for piece in range(12):
        pieces = bbs[piece]
        while pieces:
            a, b = _piece_square(weights, trace, piece, lsb(pieces))
            pieces = pop_lsb(pieces)
            mg += a
            eg += b
    return mg, eg


@kernel(hot=True)
def psq_score(bbs, weights):
    """Material and piece-square tables of both sides, (mg, eg) from white's point of view."""
    return _material_and_squares(bbs, weights, None)


@kernel(hot=True, inline=True)
def _changed_psq(weights, change):
    """(mg, eg) of one piece :func:`~jitfish.board.moves.move_changes` reports, or (0, 0) for none."""
    if change == NO_CHANGE:
        return 0, 0
    return _piece_square(weights, None, change >> SQUARE_BITS, change & SQUARE_MASK)


@kernel(hot=True, llvm_inline=True, cold_start=HELPER)
def psq_delta(state, weights, move):
    """How ``move`` (not yet made) changes :func:`psq_score`: the search keeps that score per ply.

    Cheaper than summing every piece at each evaluation, and exact, so the
    incremental and the full evaluation agree to the centipawn.
    """
    removed_1, removed_2, added_1, added_2 = move_changes(state, move)
    a, b = _changed_psq(weights, added_1)
    c, d = _changed_psq(weights, added_2)
    e, f = _changed_psq(weights, removed_1)
    g, h = _changed_psq(weights, removed_2)
    return a + c - e - g, b + d - f - h


@kernel(hot=True)
def fill_north(bb):
    """``bb`` and every square above it on its file."""
    bb |= bb << SHIFT_8
    bb |= bb << SHIFT_16
    return bb | (bb << SHIFT_32)


@kernel(hot=True)
def fill_south(bb):
    """``bb`` and every square below it on its file."""
    bb |= bb >> SHIFT_8
    bb |= bb >> SHIFT_16
    return bb | (bb >> SHIFT_32)


@kernel(hot=True)
def neighbour_files(bb):
    """``bb`` moved one file to each side (not including ``bb`` itself)."""
    return ((bb & ~FILE_H) << SHIFT_1) | ((bb & ~FILE_A) >> SHIFT_1)


@kernel(hot=True)
def _pawn_structure(bbs, weights, trace, colour):
    """Doubled, isolated and passed pawns, found with file fills; each passer's details in :func:`_passed_pawn`."""
    sign = 1 - 2 * colour
    own = bbs[colour * 6 + PAWN]
    enemy = bbs[(colour ^ 1) * 6 + PAWN]
    # Doubled: a file with n pawns costs n - 1, one for each pawn with another of ours above it.
    doubled = popcount(own & fill_north(own << SHIFT_8))
    # Isolated: no pawn of ours on a neighbouring file.
    files = fill_north(own) | fill_south(own)
    isolated = popcount(own & ~neighbour_files(files))
    mg, eg = _term(weights, trace, P.DOUBLED_PAWN, doubled, sign)
    a, b = _term(weights, trace, P.ISOLATED_PAWN, isolated, sign)
    mg += a
    eg += b
    # Passed: no enemy pawn ahead on its own or a neighbouring file, i.e. outside the enemy's front spans.
    if colour == WHITE:
        front_spans = fill_south(enemy >> SHIFT_8)
    else:
        front_spans = fill_north(enemy << SHIFT_8)
    guarded = front_spans | neighbour_files(front_spans)
    passed = own & ~guarded
    while passed:
        sq = lsb(passed)
        passed = pop_lsb(passed)
        a, b = _passed_pawn(bbs, weights, trace, colour, sq)
        mg += a
        eg += b
    return mg, eg


@kernel(hot=True, inline=True)
def distance(a, b):
    """King moves between squares ``a`` and ``b`` (Chebyshev distance)."""
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


@kernel(hot=True, inline=True)
def _passed_pawn(bbs, weights, trace, colour, sq):
    """One passed pawn: a bonus by rank, less when something stands in its way, and the kings' race to its path.

    The kings are measured to the square in front of the pawn (its stop
    square): in an endgame the defending king must reach the path, the own
    king escorts it.  Every count is per rank, so the tuner can weigh an
    advanced passer's race more than a young one's.
    """
    sign = 1 - 2 * colour
    rank_index = ((sq >> 3) if colour == WHITE else 7 - (sq >> 3)) - 1  # ranks 2 ... 7 as 0 ... 5
    stop = sq + 8 if colour == WHITE else sq - 8
    mg, eg = _term(weights, trace, P.PASSED_PAWN + rank_index, 1, sign)
    if bbs[L.OCCUPIED] & (ONE << np.uint64(stop)):
        a, b = _term(weights, trace, P.PASSED_BLOCKED + rank_index, 1, sign)
        mg += a
        eg += b
    own_king = lsb(bbs[colour * 6 + KING])
    enemy_king = lsb(bbs[(colour ^ 1) * 6 + KING])
    a, b = _term(weights, trace, P.PASSED_OWN_KING + rank_index, distance(own_king, stop), sign)
    c, d = _term(weights, trace, P.PASSED_ENEMY_KING + rank_index, distance(enemy_king, stop), sign)
    return mg + a + c, eg + b + d


@kernel(hot=True, inline=True)
def _mobility_and_attacks(bbs, tables, weights, trace, colour):
    """Mobility (safe squares attacked), king attacks and danger, rooks on open files, bishop pair, threats."""
    mg = 0
    eg = 0
    sign = 1 - 2 * colour
    them = colour ^ 1
    occupied = bbs[L.OCCUPIED]
    own = bbs[L.OCCUPIED_WHITE + colour]
    own_pawns = bbs[colour * 6 + PAWN]
    enemy_pawns = bbs[them * 6 + PAWN]
    area = ~own & ~pawn_attacks_of(enemy_pawns, them)
    enemy_king_sq = lsb(bbs[them * 6 + KING])
    king_zone = tables[L.KING_ATTACKS + enemy_king_sq]
    # Squares from which a piece would check the enemy king, and that the king cannot simply take.
    safe = area & ~king_zone
    knight_checks = tables[L.KNIGHT_ATTACKS + enemy_king_sq] & safe
    bishop_checks = bishop_attacks(enemy_king_sq, occupied, tables) & safe
    rook_checks = rook_attacks(enemy_king_sq, occupied, tables) & safe
    # King danger's inputs that do not depend on the pieces: a constant, and a side without its queen.
    units_mg, units_eg = _danger_input(weights, trace, colour, P.DANGER_BIAS, 1)
    # A plain value, not a conditional expression as the argument: that form, in a helper of
    # its own inlined here, lost these records in the tracing build (numba 0.68).
    no_queen = np.int64(bbs[colour * 6 + QUEEN] == EMPTY)
    a, b = _danger_input(weights, trace, colour, P.DANGER_NO_QUEEN, no_queen)
    units_mg += a
    units_eg += b

    minor_attacks = EMPTY
    rook_attacks_all = EMPTY
    for piece_type in range(KNIGHT, KING):
        pieces = bbs[colour * 6 + piece_type]
        while pieces:
            sq = lsb(pieces)
            pieces = pop_lsb(pieces)
            if piece_type == KNIGHT:
                attacks = tables[L.KNIGHT_ATTACKS + sq]
                m = P.KNIGHT_MOBILITY
                minor_attacks |= attacks
                checks = knight_checks
            elif piece_type == BISHOP:
                attacks = bishop_attacks(sq, occupied, tables)
                m = P.BISHOP_MOBILITY
                minor_attacks |= attacks
                checks = bishop_checks
            elif piece_type == ROOK:
                attacks = rook_attacks(sq, occupied, tables)
                m = P.ROOK_MOBILITY
                rook_attacks_all |= attacks
                checks = rook_checks
                file_mask = FILE_A << np.uint64(sq & 7)
                if not own_pawns & file_mask:
                    if not enemy_pawns & file_mask:
                        a, b = _term(weights, trace, P.ROOK_OPEN_FILE, 1, sign)
                    else:
                        a, b = _term(weights, trace, P.ROOK_SEMI_OPEN_FILE, 1, sign)
                    mg += a
                    eg += b
            else:
                attacks = bishop_attacks(sq, occupied, tables) | rook_attacks(sq, occupied, tables)
                m = P.QUEEN_MOBILITY
                checks = bishop_checks | rook_checks
            zone_attacks = popcount(attacks & king_zone)
            a, b = _term(weights, trace, m + popcount(attacks & area), 1, sign)
            c, d = _term(weights, trace, P.KING_ATTACK + piece_type - KNIGHT, zone_attacks, sign)
            mg += a + c
            eg += b + d
            a, b = _danger_input(weights, trace, colour, P.DANGER_ZONE + piece_type - KNIGHT, zone_attacks)
            c, d = _danger_input(
                weights, trace, colour, P.DANGER_CHECK + piece_type - KNIGHT, popcount(attacks & checks)
            )
            units_mg += a + c
            units_eg += b + d

    bishops = bbs[colour * 6 + BISHOP]
    if bishops & (bishops - ONE):
        a, b = _term(weights, trace, P.BISHOP_PAIR, 1, sign)
        mg += a
        eg += b
    a, b = _threats(bbs, weights, trace, colour, minor_attacks, rook_attacks_all)
    c, d = _king_danger(weights, units_mg, units_eg)
    return mg + a + c, eg + b + d


@kernel(hot=True, inline=True)
def _danger_input(weights, trace, colour, which, count):
    """``count`` times king-danger input ``which``'s units (mg, eg) for ``colour``'s attack; traced per side."""
    record(trace, P.DANGER_TRACE + colour * P.DANGER_INPUTS + which, count)
    pair = P.KING_DANGER + which
    return count * weights[2 * pair], count * weights[2 * pair + 1]


@kernel(hot=True, inline=True)
def _king_danger(weights, units_mg, units_eg):
    """A side's attack on the enemy king from its attack units: clamped at 0, squared in the middlegame.

    Attack units add up: the squares next to the king attacked by each
    piece, the safe checks each piece has, less for a side without its
    queen, and a negative constant, so that one piece near the king adds
    nothing and several at once add more than the sum of their parts.  The
    endgame half is the units divided, not squared.  The per-input units are
    tuned through this function (:mod:`tuning.texel` follows its gradient).
    """
    units_mg = max(units_mg, 0)
    units_eg = max(units_eg, 0)
    return units_mg * units_mg // weights[P.KING_DANGER_SCALE], units_eg // weights[P.KING_DANGER_SCALE + 1]


@kernel(hot=True, inline=True)
def _threats(bbs, weights, trace, colour, minor_attacks, rook_attacks_all):
    """Enemy pieces attacked by a less valuable piece of ours: a pawn on N B R Q, a minor on R Q, a rook on Q."""
    sign = 1 - 2 * colour
    them = (colour ^ 1) * 6
    pawn_attacks = pawn_attacks_of(bbs[colour * 6 + PAWN], colour)
    mg = 0
    eg = 0
    for victim in range(KNIGHT, KING):
        a, b = _term(
            weights, trace, P.THREAT_BY_PAWN + victim - KNIGHT, popcount(pawn_attacks & bbs[them + victim]), sign
        )
        mg += a
        eg += b
    for victim in range(ROOK, KING):
        a, b = _term(
            weights, trace, P.THREAT_BY_MINOR + victim - ROOK, popcount(minor_attacks & bbs[them + victim]), sign
        )
        mg += a
        eg += b
    a, b = _term(weights, trace, P.THREAT_BY_ROOK, popcount(rook_attacks_all & bbs[them + QUEEN]), sign)
    return mg + a, eg + b


@kernel(hot=True)
def _king_shelter(bbs, tables, weights, trace, colour):
    """Own pawns on the king's and neighbouring files, one or two ranks ahead of it."""
    king_sq = lsb(bbs[colour * 6 + KING])
    rank = king_sq >> 3
    files = adjacent_files(king_sq & 7) | (FILE_A << np.uint64(king_sq & 7))
    ahead = forward_ranks(rank, colour)
    if colour == WHITE:
        near = ahead & ~forward_ranks(rank + 2, colour)
    else:
        near = ahead & ~forward_ranks(rank - 2, colour)
    count = popcount(bbs[colour * 6 + PAWN] & files & near)
    return _term(weights, trace, P.KING_SHELTER, count, 1 - 2 * colour)


@kernel(hot=True)
def game_phase(bbs, weights):
    """The middlegame share of the taper: from ``phase_total`` with all pieces on the board to 0 with none."""
    phase = 0
    for piece_type in range(KNIGHT, KING):
        phase += weights[P.PHASE + piece_type - KNIGHT] * popcount(bbs[piece_type] | bbs[6 + piece_type])
    return min(phase, weights[P.PHASE_TOTAL])


@kernel(hot=True, inline=True)
def _positional_terms(bbs, state, tables, weights, trace):
    """(mg, eg) from white's point of view of every term but material and piece-square tables."""
    mg = 0
    eg = 0
    for colour in range(2):
        sign = 1 - 2 * colour
        a, b = _pawn_structure(bbs, weights, trace, colour)
        c, d = _mobility_and_attacks(bbs, tables, weights, trace, colour)
        e, f = _king_shelter(bbs, tables, weights, trace, colour)
        mg += sign * (a + c + e)
        eg += sign * (b + d + f)
    sign = 1 - 2 * state[L.SIDE_TO_MOVE]
    a, b = _term(weights, trace, P.TEMPO, 1, sign)
    return mg + sign * a, eg + sign * b


@kernel(hot=True)
def evaluate_white(bbs, state, tables, weights):
    """(mg, eg) from white's point of view, tempo included for the side to move."""
    mg, eg = psq_score(bbs, weights)
    c, d = _positional_terms(bbs, state, tables, weights, None)
    return mg + c, eg + d


@kernel(hot=True)
def trace_evaluation(bbs, state, tables, weights, trace):
    """The tracing build of :func:`evaluate_white`: also adds each pair's coefficient to ``trace``.

    ``trace`` (``int64``, ``TRACE_SIZE`` slots, zeroed by the caller)
    receives white's count minus black's of each weight pair, then each
    side's king-danger input counts, so that
    :func:`~jitfish.eval.params.score_from_trace` of them is the returned
    (mg, eg).  Returns (mg, eg, phase).
    """
    mg, eg = _material_and_squares(bbs, weights, trace)
    c, d = _positional_terms(bbs, state, tables, weights, trace)
    return mg + c, eg + d, game_phase(bbs, weights)


@kernel(hot=True, inline=True)
def _taper(bbs, state, weights, mg, eg):
    phase = game_phase(bbs, weights)
    total = weights[P.PHASE_TOTAL]
    # Turn to the side to move before dividing, so that rounding is colour-symmetric.
    sign = 1 - 2 * state[L.SIDE_TO_MOVE]
    return (sign * (mg * phase + eg * (total - phase))) // total


@kernel(hot=True)
def evaluate(bbs, state, tables, weights):
    """The tapered score in centipawns for the side to move."""
    mg, eg = evaluate_white(bbs, state, tables, weights)
    return _taper(bbs, state, weights, mg, eg)


@kernel(hot=True, cold_start=HELPER)
def evaluate_with_psq(bbs, state, tables, weights, psq_mg, psq_eg):
    """:func:`evaluate`, given the position's :func:`psq_score` (as the search keeps it)."""
    mg, eg = _positional_terms(bbs, state, tables, weights, None)
    return _taper(bbs, state, weights, mg + psq_mg, eg + psq_eg)
