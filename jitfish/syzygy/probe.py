"""Compiled Syzygy WDL probing on the engine's position arrays.

``probe_wdl`` answers win (2), cursed win (1), draw (0), blessed loss (-1) or
loss (-2) for the side to move, assuming the position arose right after a
capture or pawn move (the rule-50 counter at zero), or ``TB_FAILED`` when it
cannot (a table missing, castling rights, more pieces than the tables hold,
data that does not decode).

A table stores only positions in which the side to move has no winning
capture to look at, so the probe first plays every capture (an alpha-beta
search over captures only, into smaller tables) and takes the best of those
and the stored value; en passant is never stored, so it is tried on top
(where a losing en passant still counts when it is the only legal move).
The capture search is iterative, over frames in a caller's ``scratch`` array
(:data:`jitfish.syzygy.layout.SCRATCH_SIZE` ``int32``): kernels must not
recurse (Numba #6061) nor allocate.

A stored value is found by numbering the position (:func:`_encode_pieces`,
:func:`_encode_pawns`: mirror it into a canonical half or triangle, then rank
the placements of each group of like pieces), finding the block that holds
that number, and decoding the block's Huffman symbols until the number's run.

The file bytes are read through raw addresses into memory maps the Python
side keeps alive (see :mod:`jitfish.syzygy.layout`); every address read was
checked against its file's length when the file was loaded, and the values a
kernel derives from file data (block numbers, symbols) are checked again
before use, so a corrupt file yields ``TB_FAILED`` rather than a stray read.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from jitfish.board import layout as L
from jitfish.board.bitops import lsb, pop_lsb, popcount
from jitfish.board.makemove import make_move, unmake_move
from jitfish.board.movegen import GEN_ALL, generate_moves
from jitfish.board.moves import MOVE_EN_PASSANT, move_kind, move_to, piece_colour
from jitfish.board.squares import BLACK, KING, NO_SQUARE, WHITE
from jitfish.runtime.jit import kernel
from jitfish.syzygy import layout as T

# The move generator and make_move are shared with the search, which passes int64 values (see
# jitfish.search.context): a literal or an int32 move here would compile them once more.
ALL_MOVES = np.int64(GEN_ALL)
LIST_START = np.int64(0)
# The capture search's window and first frame, as int64s: a literal argument would make Numba compile
# the callee once more for each literal value (see jitfish.search.context, "Typed constants").
WDL_LOSS = np.int64(-2)
WDL_WIN = np.int64(2)
ROOT_FRAME = np.int64(0)
EN_PASSANT_FRAME = np.int64(1)
NO_FLIP = np.int64(0)
NONE_GATHERED = np.int64(0)  # squares gathered so far, to begin with
NO_SKIP = np.bool_(False)


# --- Reading mapped file bytes by address ---


def _loader(width: int, big_endian: bool):
    """An intrinsic that loads an unaligned ``width``-bit unsigned integer from an address."""

    @intrinsic
    def load(typingctx, address):
        signature = types.uint64(types.int64)

        def codegen(context, builder, sig, args):
            pointer = builder.inttoptr(args[0], ir.IntType(width).as_pointer())
            value = builder.load(pointer, align=1)
            if big_endian and width > 8:
                value = builder.bswap(value)
            return builder.zext(value, ir.IntType(64)) if width < 64 else value

        return signature, codegen

    return load


load_u8 = _loader(8, False)
load_u16 = _loader(16, False)
load_u32 = _loader(32, False)
load_u32_be = _loader(32, True)
load_u64_be = _loader(64, True)


# --- Numbering a position ---


@kernel(hot=True, inline=True)
def _offdiag(sq):
    return (sq >> 3) - (sq & 7)


@kernel(hot=True, inline=True)
def _flip_all(squares, n, mask):
    for i in range(n):
        squares[i] ^= mask


@kernel(hot=True, inline=True)
def _flip_diagonal(squares, n):
    for i in range(n):
        squares[i] = ((squares[i] >> 3) | (squares[i] << 3)) & 63


@kernel(hot=True)
def _rank_groups(tb, squares, n, first, row, slot_at, skip_pawn_ranks):
    """Add each group's placement rank (like pieces sorted, squares already taken skipped) times its factor.

    Groups start at ``first``; ``skip_pawn_ranks`` is set for the second
    colour's pawns, which can only stand on 48 squares.
    """
    index = 0
    i = first
    n_groups = 0
    while i < n:
        size = tb[row + slot_at + T.S_NORM + i]
        for j in range(i, i + size):
            for k in range(j + 1, i + size):
                if squares[j] > squares[k]:
                    squares[j], squares[k] = squares[k], squares[j]
        rank = 0
        for m in range(i, i + size):
            sq = squares[m]
            below = 0
            for earlier in range(i):
                below += sq > squares[earlier]
            rank += tb[T.BINOM + (sq - below - (8 if skip_pawn_ranks and n_groups == 0 else 0)) * 8 + m - i + 1]
        index += rank * tb[row + slot_at + T.S_FACTOR + i]
        i += size
        n_groups += 1
    return index


@kernel(hot=True)
def _encode_pieces(tb, squares, n, row, slot_at):
    """The index of a pawnless position, the pivot pieces first in ``squares``."""
    enc_type = tb[row + T.T_ENC_TYPE]
    if squares[0] & 4:
        _flip_all(squares, n, 7)
    if squares[0] & 32:
        _flip_all(squares, n, 56)
    # Mirror in the a1-h8 diagonal when the first pivot piece off it stands above it.
    pivots = 3 if enc_type == 0 else 2
    for i in range(n):
        if _offdiag(squares[i]) != 0:
            if i < pivots and _offdiag(squares[i]) > 0:
                _flip_diagonal(squares, n)
            break
    if enc_type == 0:
        s0, s1, s2 = squares[0], squares[1], squares[2]
        a = 1 if s1 > s0 else 0
        b = (1 if s2 > s0 else 0) + (1 if s2 > s1 else 0)
        if _offdiag(s0) != 0:
            index = tb[T.TRIANGLE + s0] * 63 * 62 + (s1 - a) * 62 + (s2 - b)
        elif _offdiag(s1) != 0:
            index = 6 * 63 * 62 + tb[T.DIAG + s0] * 28 * 62 + tb[T.LOWER + s1] * 62 + s2 - b
        elif _offdiag(s2) != 0:
            index = 6 * 63 * 62 + 4 * 28 * 62 + tb[T.DIAG + s0] * 7 * 28 + (tb[T.DIAG + s1] - a) * 28 + tb[T.LOWER + s2]
        else:
            index = (
                6 * 63 * 62
                + 4 * 28 * 62
                + 4 * 7 * 28
                + tb[T.DIAG + s0] * 7 * 6
                + (tb[T.DIAG + s1] - a) * 6
                + tb[T.DIAG + s2]
                - b
            )
    else:
        index = tb[T.KK_IDX + tb[T.TRIANGLE + squares[0]] * 64 + squares[1]]
    return index * tb[row + slot_at + T.S_FACTOR] + _rank_groups(tb, squares, n, pivots, row, slot_at, NO_SKIP)


@kernel(hot=True)
def _encode_pawns(tb, squares, n, row, slot_at):
    """The index of a position with pawns, the leading pawns first in ``squares``."""
    if squares[0] & 4:
        _flip_all(squares, n, 7)
    leading = tb[row + T.T_PAWNS]
    for i in range(1, leading):
        for j in range(i + 1, leading):
            if tb[T.PTWIST + squares[i]] < tb[T.PTWIST + squares[j]]:
                squares[i], squares[j] = squares[j], squares[i]
    last = leading - 1
    index = tb[T.PAWNIDX + last * 24 + tb[T.FLAP + squares[0]]]
    for i in range(last, 0, -1):
        index += tb[T.BINOM + tb[T.PTWIST + squares[i]] * 8 + last - i + 1]
    index *= tb[row + slot_at + T.S_FACTOR]
    return index + _rank_groups(tb, squares, n, leading, row, slot_at, tb[row + T.T_PAWNS + 1] > 0)


# --- Decoding a stored value ---


@kernel(hot=True)
def decode_symbol(tb, pairs, index):
    """The leaf symbol that holds position ``index`` in the pairs row at ``tb[pairs:]``, or -1 when the data
    does not decode.  Its value is the first byte of its pattern (WDL; DTZ takes 12 bits)."""
    idxbits = tb[pairs + T.P_IDXBITS]
    main = index >> idxbits
    offset = (index & ((1 << idxbits) - 1)) - (1 << (idxbits - 1))
    entry = tb[pairs + T.P_INDEX_TABLE] + 6 * main
    block = np.int64(load_u32(entry))
    offset += np.int64(load_u16(entry + 4))
    # Walk from the indexed block to the one that holds the value.
    sizes = tb[pairs + T.P_SIZE_TABLE]
    num_blocks = tb[pairs + T.P_NUM_BLOCKS]
    if block >= num_blocks:
        return -1
    while offset < 0:
        block -= 1
        if block < 0:
            return -1
        offset += np.int64(load_u16(sizes + 2 * block)) + 1
    while block < num_blocks and offset > np.int64(load_u16(sizes + 2 * block)):
        offset -= np.int64(load_u16(sizes + 2 * block)) + 1
        block += 1
    if block >= num_blocks:
        return -1
    at = tb[pairs + T.P_DATA] + (block << tb[pairs + T.P_BLOCKSIZE])
    end = tb[pairs + T.P_FILE_END]
    min_len = tb[pairs + T.P_MIN_LEN]
    max_len = tb[pairs + T.P_MAX_LEN]
    base = tb[pairs + T.P_BASE]
    symlen = tb[pairs + T.P_SYMLEN]
    lowest = tb[pairs + T.P_LOWEST_SYM]
    num_syms = tb[pairs + T.P_NUM_SYMS]
    if at + 8 > end:
        return -1
    code = load_u64_be(at)
    at += 8
    empty_bits = 0
    while True:
        length = min_len
        while code < np.uint64(tb[base + length - min_len]):
            length += 1
            if length > max_len:
                return -1
        sym = np.int64(load_u16(lowest + 2 * (length - min_len)))
        sym += np.int64((code - np.uint64(tb[base + length - min_len])) >> np.uint64(64 - length))
        if sym >= num_syms or sym < 0:
            return -1
        run = tb[symlen + sym] + 1
        if offset < run:
            break
        offset -= run
        code <<= np.uint64(length)
        empty_bits += length
        if empty_bits >= 32:
            empty_bits -= 32
            if at + 4 > end:
                return -1
            code |= load_u32_be(at) << np.uint64(empty_bits)
            at += 4
    # Descend the pair tree to the leaf that covers ``offset``.
    sympat = tb[pairs + T.P_SYMPAT]
    while tb[symlen + sym]:
        pattern = sympat + 3 * sym
        left = np.int64(load_u8(pattern)) | (np.int64(load_u8(pattern + 1)) & 15) << 8
        if offset < tb[symlen + left] + 1:
            sym = left
        else:
            offset -= tb[symlen + left] + 1
            sym = np.int64(load_u8(pattern + 2)) << 4 | np.int64(load_u8(pattern + 1)) >> 4
        if sym >= num_syms:
            return -1
    return sym


@kernel(hot=True)
def _decompress(tb, pairs, index):
    """The stored WDL symbol at position ``index``, or -1 when the data does not decode."""
    if tb[pairs + T.P_CONSTANT]:
        return tb[pairs + T.P_MIN_LEN]
    sym = decode_symbol(tb, pairs, index)
    if sym < 0:
        return -1
    return np.int64(load_u8(tb[pairs + T.P_SYMPAT] + 3 * sym))


@kernel(hot=True, inline=True)
def material_signature(bbs, mirrored):
    """Four bits per (colour, piece type) count, kings left out; ``mirrored`` swaps the colours."""
    signature = np.int64(0)
    for colour in range(2):
        for kind in range(5):
            count = popcount(bbs[colour * 6 + kind])
            signature |= count << (4 * ((colour ^ mirrored) * 5 + kind))
    return signature


@kernel(hot=True)
def _find_table(tb, signature):
    """``table * 2 + mirrored`` for a material signature, or -1."""
    hashed = tb[T.HEADER + T.H_HASH]
    slot = np.int64((np.uint64(signature) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(52)) & (T.HASH_SIZE - 1)
    while tb[hashed + 2 * slot]:
        if tb[hashed + 2 * slot] == signature + 1:
            return tb[hashed + 2 * slot + 1]
        slot = (slot + 1) & (T.HASH_SIZE - 1)
    return -1


@kernel(hot=True)
def _gather(bbs, squares, at, code, colour_flip, square_flip):
    """Append the squares of the engine piece a Syzygy ``code`` names (colours swapped by ``colour_flip``)."""
    colour = ((code ^ colour_flip) >> 3) & 1
    bitboard = bbs[colour * 6 + (code & 7) - 1]
    while bitboard:
        squares[at] = lsb(bitboard) ^ square_flip
        at += 1
        bitboard = pop_lsb(bitboard)
    return at


@kernel(hot=True)
def probe_table(tb, bbs, side_to_move, squares):
    """The stored WDL value (-2..2) of the position as it stands, or ``TB_FAILED``.

    ``squares`` is scratch for ``MAX_TB_PIECES`` squares.
    """
    if bbs[L.OCCUPIED] == bbs[KING] | bbs[6 + KING]:
        return 0
    found = _find_table(tb, material_signature(bbs, 0))
    if found < 0:
        return T.TB_FAILED
    row = tb[T.HEADER + T.H_TABLES] + (found >> 1) * T.TABLE_ROW
    # Orient the position as the table stores it: the colours swapped (and the
    # board turned over) when the material is the mirror of the table's key,
    # or, for a symmetric table, when black is to move.
    if tb[row + T.T_SYMMETRIC]:
        colour_flip = 8 if side_to_move == BLACK else 0
        side = 0
    elif found & 1:
        colour_flip = 8
        side = 1 if side_to_move == WHITE else 0
    else:
        colour_flip = 0
        side = 1 if side_to_move == BLACK else 0
    square_flip = 56 if colour_flip else 0
    n = tb[row + T.T_NUM]
    if tb[row + T.T_HAS_PAWNS]:
        lead_code = tb[row + T.TABLE_HEAD_SIZE + T.S_PIECES]
        count = _gather(bbs, squares, NONE_GATHERED, lead_code, colour_flip, square_flip)
        # The leading pawn closest to the a/h file's edge of its half picks the file block.
        for i in range(1, count):
            if tb[T.FLAP + squares[0]] > tb[T.FLAP + squares[i]]:
                squares[0], squares[i] = squares[i], squares[0]
        file = min(squares[0] & 7, 7 - (squares[0] & 7))
        slot_at = T.TABLE_HEAD_SIZE + (file * 2 + side) * T.SLOT_SIZE
        at = count
        while at < n:
            at = _gather(bbs, squares, at, tb[row + slot_at + T.S_PIECES + at], colour_flip, square_flip)
        index = _encode_pawns(tb, squares, n, row, slot_at)
    else:
        slot_at = T.TABLE_HEAD_SIZE + side * T.SLOT_SIZE
        at = NONE_GATHERED
        while at < n:
            at = _gather(bbs, squares, at, tb[row + slot_at + T.S_PIECES + at], colour_flip, NO_FLIP)
        index = _encode_pieces(tb, squares, n, row, slot_at)
    if index < 0:
        return T.TB_FAILED  # two kings side by side: not a position
    pairs = tb[T.HEADER + T.H_PAIRS] + tb[row + slot_at + T.S_PAIRS] * T.PAIRS_ROW
    value = _decompress(tb, pairs, index)
    if value < 0 or value > 4:
        return T.TB_FAILED
    return value - 2


# --- The capture search and en passant ---


@kernel(hot=True, inline=True)
def _frame(depth):
    return depth * T.SCRATCH_FRAME


@kernel(hot=True)
def _captures(bbs, state, tables, scratch, depth):
    """Write the legal captures (en passant left out) into frame ``depth``; return how many."""
    at = _frame(depth)
    count = generate_moves(bbs, state, tables, scratch, at, ALL_MOVES)
    them = state[L.SIDE_TO_MOVE] ^ 1
    kept = 0
    for i in range(count):
        move = scratch[at + i]
        if piece_colour(state[L.MAILBOX + move_to(move)]) == them:
            scratch[at + kept] = move
            kept += 1
    return kept


@kernel(hot=True)
def _capture_search(bbs, state, undo, key_history, tables, tb, scratch, alpha, beta, first):
    """The best of the stored value and every capture line, in a window, from frame ``first`` on.

    Each frame holds its captures and four counters after them: how many,
    the next to try, and the frame's alpha and beta.
    """
    squares = scratch[_frame(T.MAX_FRAMES - 1) :]  # the last frame's move area, free during a probe
    depth = first
    top = _frame(depth) + T.MOVES_PER_FRAME
    scratch[top] = _captures(bbs, state, tables, scratch, depth)
    scratch[top + 1] = 0
    scratch[top + 2] = alpha
    scratch[top + 3] = beta
    while True:
        top = _frame(depth) + T.MOVES_PER_FRAME
        if scratch[top + 1] < scratch[top] and depth + 1 < T.MAX_FRAMES - 1:
            move = np.int64(scratch[_frame(depth) + scratch[top + 1]])
            scratch[top + 1] += 1
            make_move(bbs, state, undo, key_history, tables, move)
            depth += 1
            child = _frame(depth) + T.MOVES_PER_FRAME
            scratch[child] = _captures(bbs, state, tables, scratch, depth)
            scratch[child + 1] = 0
            scratch[child + 2] = -scratch[top + 3]
            scratch[child + 3] = -scratch[top + 2]
            continue
        # Every capture tried: the stored value competes with the best of them.
        stored = probe_table(tb, bbs, state[L.SIDE_TO_MOVE], squares)
        if stored == T.TB_FAILED:
            for _ in range(depth - first):
                unmake_move(bbs, state, undo, key_history, tables)
            return T.TB_FAILED
        result = max(scratch[top + 2], stored)
        # Return ``result`` to the parent frames, as far as it cuts them off.
        returning = True
        while returning and depth > first:
            unmake_move(bbs, state, undo, key_history, tables)
            depth -= 1
            parent = _frame(depth) + T.MOVES_PER_FRAME
            result = -result
            if result < scratch[parent + 3]:
                scratch[parent + 2] = max(scratch[parent + 2], result)
                returning = False
        if returning:
            return result


@kernel(hot=True)
def probe_wdl(bbs, state, undo, key_history, tables, tb, scratch):
    """The WDL value (-2..2) of the position for the side to move, or ``TB_FAILED``.

    The position is left as it was (moves tried are unmade).
    """
    pieces = popcount(bbs[L.OCCUPIED])
    if state[L.CASTLING_RIGHTS] or pieces > tb[T.HEADER + T.H_MAX_PIECES]:
        return T.TB_FAILED
    value = _capture_search(bbs, state, undo, key_history, tables, tb, scratch, WDL_LOSS, WDL_WIN, ROOT_FRAME)
    if value == T.TB_FAILED or state[L.EN_PASSANT] == NO_SQUARE:
        return value
    # En passant is not in the tables: try each legal one on top.
    count = generate_moves(bbs, state, tables, scratch, LIST_START, ALL_MOVES)
    best_ep = -3
    others = 0
    for i in range(count):
        move = np.int64(scratch[i])
        if move_kind(move) != MOVE_EN_PASSANT:
            others += 1
            continue
        make_move(bbs, state, undo, key_history, tables, move)
        after = _capture_search(bbs, state, undo, key_history, tables, tb, scratch, WDL_LOSS, WDL_WIN, EN_PASSANT_FRAME)
        unmake_move(bbs, state, undo, key_history, tables)
        if after == T.TB_FAILED:
            return T.TB_FAILED
        best_ep = max(best_ep, -after)
        # generate_moves wrote frame 0 only; the probe used frames from 1, so the list is intact.
    if best_ep > -3 and (best_ep >= value or (value == 0 and others == 0)):
        return best_ep
    return value


@kernel(hot=True)
def probe_batch(bbs_rows, state_rows, undo, key_history, tables, tb, scratch, out):
    """Probe each position of a batch (one ``bbs`` and one ``state`` row each) into ``out``.

    One call for many probes keeps Python out of the loop: the tests compare
    10,000 positions this way and ``scripts/bench/bench_syzygy.py`` times it.
    """
    for i in range(bbs_rows.shape[0]):
        out[i] = probe_wdl(bbs_rows[i], state_rows[i], undo, key_history, tables, tb, scratch)
