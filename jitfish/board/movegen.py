"""Legal move generation with bitboards: pins, check evasions, en passant, castling.

One generator serves three modes, so counting and listing can never disagree:

* ``GEN_ALL``: every legal move;
* ``GEN_NOISY``: legal captures (en passant included) and queen promotions,
  for quiescence search;
* ``GEN_COUNT``: only the number of legal moves, counted with popcounts and
  without writing any move (bulk counting at perft leaves).

Legality is decided while generating: pieces pinned to the king move only
along the pin line, in check only moves that capture the checker or block
its line are kept (only king moves in double check), the king never steps
onto an attacked square, and en passant is tried on the occupancy it leaves
behind (which catches the pawn pair pinned along a rank).
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.attacks import attackers_to, bishop_attacks, is_square_attacked, rook_attacks
from jitfish.board.bitops import lsb, pop_lsb, popcount
from jitfish.board.moves import (
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    MOVE_NORMAL,
    castling_squares,
    encode_move,
    is_special_move,
    move_from,
    move_kind,
    move_promotion,
    move_to,
    piece_colour,
    piece_type,
)
from jitfish.board.squares import (
    BISHOP,
    EMPTY,
    FILE_A,
    FILE_H,
    FULL,
    KING,
    KNIGHT,
    NO_PIECE,
    NO_SQUARE,
    ONE,
    PAWN,
    QUEEN,
    RANK_1,
    RANK_3,
    RANK_6,
    RANK_8,
    ROOK,
    SHIFT_7,
    SHIFT_8,
    SHIFT_9,
    WHITE,
)
from jitfish.runtime.jit import ENGINE_FIRST, kernel

GEN_ALL = 0
GEN_NOISY = 1
GEN_COUNT = 2


@kernel(hot=True, inline=True)
def lone_blockers(king_sq, slider_colour, blocker_colour, bbs, tables):
    """Pieces of ``blocker_colour`` that stand alone between ``king_sq`` and a slider of ``slider_colour``.

    With the king's own colour as blockers these are the pinned pieces; with
    the sliders' colour, the pieces whose move uncovers a check.
    """
    occupied = bbs[L.OCCUPIED]
    base = slider_colour * 6
    snipers = (rook_attacks(king_sq, EMPTY, tables) & (bbs[base + ROOK] | bbs[base + QUEEN])) | (
        bishop_attacks(king_sq, EMPTY, tables) & (bbs[base + BISHOP] | bbs[base + QUEEN])
    )
    found = EMPTY
    while snipers:
        sniper = lsb(snipers)
        snipers = pop_lsb(snipers)
        blockers = tables[L.BETWEEN + sniper * 64 + king_sq] & occupied
        if blockers and pop_lsb(blockers) == EMPTY:
            found |= blockers & bbs[L.OCCUPIED_WHITE + blocker_colour]
    return found


@kernel(hot=True)
def pinned_pieces(king_sq, us, bbs, tables):
    """Pieces of colour ``us`` that stand alone between their king and an enemy slider."""
    return lone_blockers(king_sq, us ^ 1, us, bbs, tables)


@kernel(hot=True, inline=True)
def _emit(moves, n, from_sq, targets, mode):
    """Add a move from ``from_sq`` to each target (or just count them)."""
    if mode == GEN_COUNT:
        return n + popcount(targets)
    while targets:
        moves[n] = encode_move(from_sq, lsb(targets), 0, MOVE_NORMAL)
        n += 1
        targets = pop_lsb(targets)
    return n


@kernel(hot=True, inline=True)
def _emit_pawn(moves, n, targets, delta, promotion_rank, mode):
    """Add pawn moves to ``targets`` from ``target - delta``, expanding promotions."""
    promotions = targets & promotion_rank
    plain = targets ^ promotions
    if mode == GEN_COUNT:
        return n + popcount(plain) + 4 * popcount(promotions)
    # In GEN_NOISY the caller has already kept only captures and promotion-rank pushes, so the
    # plain moves left here are captures: they belong to both lists.
    while plain:
        to_sq = lsb(plain)
        moves[n] = encode_move(to_sq - delta, to_sq, 0, MOVE_NORMAL)
        n += 1
        plain = pop_lsb(plain)
    while promotions:
        to_sq = lsb(promotions)
        from_sq = to_sq - delta
        moves[n] = encode_move(from_sq, to_sq, QUEEN, MOVE_NORMAL)
        n += 1
        if mode == GEN_ALL:
            moves[n] = encode_move(from_sq, to_sq, KNIGHT, MOVE_NORMAL)
            moves[n + 1] = encode_move(from_sq, to_sq, ROOK, MOVE_NORMAL)
            moves[n + 2] = encode_move(from_sq, to_sq, BISHOP, MOVE_NORMAL)
            n += 3
        promotions = pop_lsb(promotions)
    return n


@kernel(hot=True)
def _pawn_moves(bbs, state, tables, moves, n, us, king_sq, checkers, pinned, check_mask, mode):
    them = us ^ 1
    occupied = bbs[L.OCCUPIED]
    enemies = bbs[L.OCCUPIED_WHITE + them]
    empty = ~occupied
    pawns = bbs[us * 6 + PAWN]
    free = pawns & ~pinned
    if us == WHITE:
        up = 8
        promotion_rank = RANK_8
        double_rank = RANK_3
        push = (free << SHIFT_8) & empty
        double = ((push & double_rank) << SHIFT_8) & empty
        west = ((free & ~FILE_A) << SHIFT_7) & enemies
        east = ((free & ~FILE_H) << SHIFT_9) & enemies
    else:
        up = -8
        promotion_rank = RANK_1
        double_rank = RANK_6
        push = (free >> SHIFT_8) & empty
        double = ((push & double_rank) >> SHIFT_8) & empty
        west = ((free & ~FILE_A) >> SHIFT_9) & enemies
        east = ((free & ~FILE_H) >> SHIFT_7) & enemies
    if mode == GEN_NOISY:
        push &= promotion_rank
        double = EMPTY
    n = _emit_pawn(moves, n, push & check_mask, up, promotion_rank, mode)
    n = _emit_pawn(moves, n, double & check_mask, 2 * up, promotion_rank, mode)
    n = _emit_pawn(moves, n, west & check_mask, up - 1, promotion_rank, mode)
    n = _emit_pawn(moves, n, east & check_mask, up + 1, promotion_rank, mode)

    # Pinned pawns move only along the line through their king.
    stuck = pawns & pinned
    while stuck:
        from_sq = lsb(stuck)
        stuck = pop_lsb(stuck)
        line = tables[L.LINE + king_sq * 64 + from_sq]
        allowed = line & check_mask
        one = (ONE << np.uint64(from_sq + up)) & empty & line
        two = EMPTY
        if one and ((ONE << np.uint64(from_sq)) & (RANK_1 << SHIFT_8 if us == WHITE else RANK_8 >> SHIFT_8)):
            two = (ONE << np.uint64(from_sq + 2 * up)) & empty
        if mode == GEN_NOISY:
            one &= promotion_rank
            two = EMPTY
        n = _emit_pawn(moves, n, one & allowed, up, promotion_rank, mode)
        n = _emit_pawn(moves, n, two & allowed, 2 * up, promotion_rank, mode)
        captures = tables[L.PAWN_ATTACKS + us * 64 + from_sq] & enemies & allowed
        while captures:
            to_sq = lsb(captures)
            captures = pop_lsb(captures)
            n = _emit_pawn(moves, n, ONE << np.uint64(to_sq), to_sq - from_sq, promotion_rank, mode)

    ep_sq = state[L.EN_PASSANT]
    if ep_sq != NO_SQUARE:
        captured_sq = ep_sq - up
        captured_bit = ONE << np.uint64(captured_sq)
        ep_bit = ONE << np.uint64(ep_sq)
        diagonal = bbs[them * 6 + BISHOP] | bbs[them * 6 + QUEEN]
        straight = bbs[them * 6 + ROOK] | bbs[them * 6 + QUEEN]
        # Knight and pawn checks survive en passant unless the pawn taken is the checker.
        leaper_checks = checkers & ~captured_bit & (bbs[them * 6 + KNIGHT] | bbs[them * 6 + PAWN])
        candidates = tables[L.PAWN_ATTACKS + them * 64 + ep_sq] & pawns
        while candidates and not leaper_checks:
            from_sq = lsb(candidates)
            candidates = pop_lsb(candidates)
            after = (occupied ^ (ONE << np.uint64(from_sq)) ^ captured_bit) | ep_bit
            if (rook_attacks(king_sq, after, tables) & straight) or (bishop_attacks(king_sq, after, tables) & diagonal):
                continue
            if mode != GEN_COUNT:
                moves[n] = encode_move(from_sq, ep_sq, 0, MOVE_EN_PASSANT)
            n += 1
    return n


@kernel(hot=True)
def _castling_moves(bbs, state, tables, moves, n, us, king_sq, mode):
    them = us ^ 1
    occupied = bbs[L.OCCUPIED]
    king_bit = ONE << np.uint64(king_sq)
    rights = state[L.CASTLING_RIGHTS]
    back_rank = king_sq & 56
    for right in range(2 * us, 2 * us + 2):
        if not rights & (1 << right):
            continue
        rook_sq = state[L.CASTLING_ROOK + right]
        if rook_sq > king_sq:
            king_to = back_rank | 6
            rook_to = back_rank | 5
        else:
            king_to = back_rank | 2
            rook_to = back_rank | 3
        rook_bit = ONE << np.uint64(rook_sq)
        others = occupied ^ king_bit ^ rook_bit
        king_path = tables[L.BETWEEN + king_sq * 64 + king_to]
        path = (
            king_path
            | tables[L.BETWEEN + rook_sq * 64 + rook_to]
            | (ONE << np.uint64(king_to))
            | (ONE << np.uint64(rook_to))
        )
        if others & path:
            continue
        safe = True
        without_king = occupied ^ king_bit
        while king_path:
            if is_square_attacked(lsb(king_path), them, without_king, bbs, tables):
                safe = False
                break
            king_path = pop_lsb(king_path)
        # The destination is tested with the rook already moved: in Chess960
        # the castling rook may have been shielding it.
        if safe and not is_square_attacked(king_to, them, others | (ONE << np.uint64(rook_to)), bbs, tables):
            if mode != GEN_COUNT:
                moves[n] = encode_move(king_sq, rook_sq, 0, MOVE_CASTLING)
            n += 1
    return n


@kernel(hot=True, cold_start=ENGINE_FIRST)
def generate_moves(bbs, state, tables, moves, start, mode):
    """Write the legal moves (per ``mode``) to ``moves[start:]``; return how many.

    With ``GEN_COUNT`` nothing is written and the count is returned.
    """
    us = state[L.SIDE_TO_MOVE]
    them = us ^ 1
    own = bbs[L.OCCUPIED_WHITE + us]
    enemies = bbs[L.OCCUPIED_WHITE + them]
    occupied = bbs[L.OCCUPIED]
    king_sq = lsb(bbs[us * 6 + KING])
    checkers = attackers_to(king_sq, occupied, bbs, tables) & enemies
    n = start

    king_targets = tables[L.KING_ATTACKS + king_sq] & ~own
    if mode == GEN_NOISY:
        king_targets &= enemies
    without_king = occupied ^ (ONE << np.uint64(king_sq))
    while king_targets:
        to_sq = lsb(king_targets)
        king_targets = pop_lsb(king_targets)
        if not is_square_attacked(to_sq, them, without_king, bbs, tables):
            if mode != GEN_COUNT:
                moves[n] = encode_move(king_sq, to_sq, 0, MOVE_NORMAL)
            n += 1
    if checkers & (checkers - ONE):
        return n - start  # double check: only the king may move

    if checkers:
        check_mask = tables[L.BETWEEN + lsb(checkers) * 64 + king_sq] | checkers
    else:
        check_mask = FULL
    pinned = pinned_pieces(king_sq, us, bbs, tables)
    targets = ~own & check_mask
    if mode == GEN_NOISY:
        targets &= enemies

    pieces = bbs[us * 6 + KNIGHT] & ~pinned  # a pinned knight can never move
    while pieces:
        from_sq = lsb(pieces)
        pieces = pop_lsb(pieces)
        n = _emit(moves, n, from_sq, tables[L.KNIGHT_ATTACKS + from_sq] & targets, mode)
    pieces = bbs[us * 6 + BISHOP] | bbs[us * 6 + QUEEN]
    while pieces:
        from_sq = lsb(pieces)
        pieces = pop_lsb(pieces)
        attacks = bishop_attacks(from_sq, occupied, tables) & targets
        if pinned & (ONE << np.uint64(from_sq)):
            attacks &= tables[L.LINE + king_sq * 64 + from_sq]
        n = _emit(moves, n, from_sq, attacks, mode)
    pieces = bbs[us * 6 + ROOK] | bbs[us * 6 + QUEEN]
    while pieces:
        from_sq = lsb(pieces)
        pieces = pop_lsb(pieces)
        attacks = rook_attacks(from_sq, occupied, tables) & targets
        if pinned & (ONE << np.uint64(from_sq)):
            attacks &= tables[L.LINE + king_sq * 64 + from_sq]
        n = _emit(moves, n, from_sq, attacks, mode)

    n = _pawn_moves(bbs, state, tables, moves, n, us, king_sq, checkers, pinned, check_mask, mode)
    if mode != GEN_NOISY and not checkers and state[L.CASTLING_RIGHTS] & (3 << (2 * us)):
        n = _castling_moves(bbs, state, tables, moves, n, us, king_sq, mode)
    return n - start


@kernel(hot=True)
def is_legal_normal_move(bbs, state, tables, move):
    """Whether ``move`` is one of :func:`generate_moves`' moves here that neither castles nor takes en passant.

    The generator's rules for one move: a move from another position (a TT move) can be searched before the
    rest are generated.  Castling and en passant, rare as TT moves, are left to the generator: False.
    """
    from_sq = move_from(move)
    to_sq = move_to(move)
    promotion = move_promotion(move)
    if move != encode_move(from_sq, to_sq, promotion, MOVE_NORMAL):
        return False  # castling, en passant, or bits no move has
    us = state[L.SIDE_TO_MOVE]
    them = us ^ 1
    piece = state[L.MAILBOX + from_sq]
    to_bit = ONE << np.uint64(to_sq)
    if piece == NO_PIECE or piece_colour(piece) != us or bbs[L.OCCUPIED_WHITE + us] & to_bit:
        return False
    occupied = bbs[L.OCCUPIED]
    kind = piece_type(piece)
    if kind == KING:
        return (
            promotion == 0
            and tables[L.KING_ATTACKS + from_sq] & to_bit != EMPTY
            and not is_square_attacked(to_sq, them, occupied ^ (ONE << np.uint64(from_sq)), bbs, tables)
        )
    if kind == PAWN:
        up = 8 if us == WHITE else -8
        last_rank = RANK_8 if us == WHITE else RANK_1
        if not (KNIGHT <= promotion <= QUEEN if to_bit & last_rank else promotion == 0):
            return False
        if to_bit & bbs[L.OCCUPIED_WHITE + them]:
            reaches = tables[L.PAWN_ATTACKS + us * 64 + from_sq] & to_bit != EMPTY
        else:
            start_rank = RANK_1 << SHIFT_8 if us == WHITE else RANK_8 >> SHIFT_8
            reaches = to_sq == from_sq + up or (
                to_sq == from_sq + 2 * up
                and (ONE << np.uint64(from_sq)) & start_rank != EMPTY
                and occupied & (ONE << np.uint64(from_sq + up)) == EMPTY
            )
    elif promotion != 0:
        return False
    elif kind == KNIGHT:
        reaches = tables[L.KNIGHT_ATTACKS + from_sq] & to_bit != EMPTY
    else:
        attacks = EMPTY
        if kind != ROOK:
            attacks |= bishop_attacks(from_sq, occupied, tables)
        if kind != BISHOP:
            attacks |= rook_attacks(from_sq, occupied, tables)
        reaches = attacks & to_bit != EMPTY
    if not reaches:
        return False
    king_sq = lsb(bbs[us * 6 + KING])
    checkers = attackers_to(king_sq, occupied, bbs, tables) & bbs[L.OCCUPIED_WHITE + them]
    if checkers:
        if checkers & (checkers - ONE):
            return False  # double check: only the king may move
        if not to_bit & (tables[L.BETWEEN + lsb(checkers) * 64 + king_sq] | checkers):
            return False
    if pinned_pieces(king_sq, us, bbs, tables) & (ONE << np.uint64(from_sq)):
        return tables[L.LINE + king_sq * 64 + from_sq] & to_bit != EMPTY
    return True


@kernel(hot=True)
def is_in_check(bbs, state, tables):
    us = state[L.SIDE_TO_MOVE]
    king_sq = lsb(bbs[us * 6 + KING])
    return is_square_attacked(king_sq, us ^ 1, bbs[L.OCCUPIED], bbs, tables)


@kernel(hot=True, llvm_inline=True, cold_start=ENGINE_FIRST)
def _gives_check_exactly(bbs, state, tables, move):
    """Whether the legal ``move`` checks the opponent's king, worked out from the occupancy it leaves.

    A check is direct (the moved or promoted piece attacks the king from its
    target square; the rook, when castling) or discovered (a slider of ours
    sees the king once the move has emptied a square on the line).
    """
    us = state[L.SIDE_TO_MOVE]
    them = us ^ 1
    from_sq = move_from(move)
    to_sq = move_to(move)
    kind = move_kind(move)
    king_bit = bbs[them * 6 + KING]
    king_sq = lsb(king_bit)
    from_bit = ONE << np.uint64(from_sq)
    if kind == MOVE_CASTLING:
        # The king leaves its square and the rook the target square; the rook checks from its new square.
        king_to, rook_to = castling_squares(from_sq, to_sq)
        vacated = from_bit | (ONE << np.uint64(to_sq))
        occupied = (bbs[L.OCCUPIED] & ~vacated) | (ONE << np.uint64(king_to)) | (ONE << np.uint64(rook_to))
        direct = rook_attacks(rook_to, occupied, tables)
    else:
        vacated = from_bit
        occupied = (bbs[L.OCCUPIED] & ~from_bit) | (ONE << np.uint64(to_sq))
        if kind == MOVE_EN_PASSANT:
            occupied &= ~(ONE << np.uint64(to_sq - 8 if us == WHITE else to_sq + 8))
        moved = move_promotion(move)
        if moved == 0:
            moved = piece_type(state[L.MAILBOX + from_sq])
        if moved == PAWN:
            direct = tables[L.PAWN_ATTACKS + us * 64 + to_sq]
        elif moved == KNIGHT:
            direct = tables[L.KNIGHT_ATTACKS + to_sq]
        elif moved == BISHOP:
            direct = bishop_attacks(to_sq, occupied, tables)
        elif moved == ROOK:
            direct = rook_attacks(to_sq, occupied, tables)
        elif moved == QUEEN:
            direct = bishop_attacks(to_sq, occupied, tables) | rook_attacks(to_sq, occupied, tables)
        else:
            direct = EMPTY
    if direct & king_bit:
        return True
    base = us * 6
    diagonal = (bbs[base + BISHOP] | bbs[base + QUEEN]) & ~vacated
    straight = (bbs[base + ROOK] | bbs[base + QUEEN]) & ~vacated
    return (
        (bishop_attacks(king_sq, occupied, tables) & diagonal) | (rook_attacks(king_sq, occupied, tables) & straight)
    ) != 0


@kernel(hot=True, inline=True)
def check_squares(bbs, state, tables):
    """What a node's moves need to tell checks cheaply (see :func:`gives_check_given`).

    Returns the opponent's king square, our pieces that alone block a line
    from one of our sliders to that king (moving one off the line
    uncovers a check), and the squares from which a bishop and a rook
    would attack the king.
    """
    us = state[L.SIDE_TO_MOVE]
    king_sq = lsb(bbs[(us ^ 1) * 6 + KING])
    occupied = bbs[L.OCCUPIED]
    discoverers = lone_blockers(king_sq, us, us, bbs, tables)
    return king_sq, discoverers, bishop_attacks(king_sq, occupied, tables), rook_attacks(king_sq, occupied, tables)


@kernel(hot=True, inline=True)
def gives_check_given(bbs, state, tables, move, king_sq, discoverers, diagonal_checks, straight_checks):
    """:func:`gives_check` with the node's :func:`check_squares` computed once for all its moves.

    A plain move checks directly when it lands on a square from which its
    piece attacks the king (the occupancy before the move serves: a piece
    never blocks its own line to the king), and by discovery when a
    discoverer leaves the line it blocks.  Castling, en passant and
    promotions change more squares and take the exact route.
    """
    if is_special_move(move):
        return _gives_check_exactly(bbs, state, tables, move)
    from_sq = move_from(move)
    to_sq = move_to(move)
    to_bit = ONE << np.uint64(to_sq)
    moved = piece_type(state[L.MAILBOX + from_sq])
    if moved == PAWN:
        direct = tables[L.PAWN_ATTACKS + (state[L.SIDE_TO_MOVE] ^ 1) * 64 + king_sq]
    elif moved == KNIGHT:
        direct = tables[L.KNIGHT_ATTACKS + king_sq]
    elif moved == BISHOP:
        direct = diagonal_checks
    elif moved == ROOK:
        direct = straight_checks
    elif moved == QUEEN:
        direct = diagonal_checks | straight_checks
    else:
        direct = EMPTY
    if direct & to_bit:
        return True
    return ((discoverers >> np.uint64(from_sq)) & ONE) != EMPTY and (
        tables[L.LINE + king_sq * 64 + from_sq] & to_bit
    ) == EMPTY


@kernel(hot=True)
def gives_check(bbs, state, tables, move):
    """Whether the legal ``move`` checks the opponent's king, found without making it."""
    king_sq, discoverers, diagonal_checks, straight_checks = check_squares(bbs, state, tables)
    return gives_check_given(bbs, state, tables, move, king_sq, discoverers, diagonal_checks, straight_checks)
