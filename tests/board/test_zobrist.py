"""Zobrist keys: the Polyglot key for standard chess, kept incrementally through make and unmake."""

from __future__ import annotations

import chess
import chess.polyglot
import pytest

import jitfish
from jitfish.board.makemove import key_after
from jitfish.board.tables import lookup_tables

# The test keys published with the Polyglot book format.
POLYGLOT_KEYS = [
    ([], 0x463B96181691FC9C),
    (["e2e4"], 0x823C9B50FD114196),
    (["e2e4", "d7d5"], 0x0756B94461C50FB0),
    (["e2e4", "d7d5", "e4e5"], 0x662FAFB965DB29D4),
    (["e2e4", "d7d5", "e4e5", "f7f5"], 0x22A48B5A8E47FF78),
    (["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"], 0x652A607CA3F242C1),
    (["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"], 0x00FDD303C946BDD9),
    (["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"], 0x3C8123EA7B067637),
    (["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"], 0x5C3F9B829B279560),
]


@pytest.mark.parametrize("moves, key", POLYGLOT_KEYS, ids=[" ".join(m) or "start" for m, _ in POLYGLOT_KEYS])
def test_key_is_the_published_polyglot_key(moves, key):
    board = jitfish.Board()
    for uci in moves:
        board.push_uci(uci)
    assert board.zobrist() == key
    assert board.zobrist_from_scratch() == key
    # The same position set up from its FEN, with no history, has the same key.
    assert jitfish.Board(board.fen()).zobrist() == key


def test_key_survives_push_and_pop():
    board = jitfish.Board()
    keys = [board.zobrist()]
    game = ["e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8d2", "b1d2", "b7c6", "g1f3", "c6b5", "e1g1"]
    for uci in game:
        board.push_uci(uci)
        assert board.zobrist() == board.zobrist_from_scratch() == chess.polyglot.zobrist_hash(board.to_chess())
        keys.append(board.zobrist())
    assert len(set(keys)) == len(keys)
    while board.move_stack:
        keys.pop()
        board.pop()
        assert board.zobrist() == keys[-1]


def test_transpositions_share_a_key():
    one, two = jitfish.Board(), jitfish.Board()
    for uci in ["g1f3", "g8f6", "b1c3", "b8c6"]:
        one.push_uci(uci)
    for uci in ["b1c3", "b8c6", "g1f3", "g8f6"]:
        two.push_uci(uci)
    assert one.zobrist() == two.zobrist()


def test_side_to_move_castling_rights_and_en_passant_change_the_key():
    base = "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1"
    variants = [
        base,
        base.replace(" b ", " w ").replace(" e3 ", " - "),
        base.replace("KQkq", "Kkq"),
        base.replace("KQkq", "KQk"),
        base.replace(" e3 ", " - "),
    ]
    keys = [jitfish.Board(fen).zobrist() for fen in variants]
    assert len(set(keys)) == len(keys)
    assert keys == [chess.polyglot.zobrist_hash(chess.Board(fen)) for fen in variants]


def test_en_passant_file_is_hashed_when_a_pawn_is_ready_even_if_the_capture_is_illegal():
    """Polyglot hashes the en-passant file whenever a pawn stands beside the pawn that moved two."""
    pinned = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2"  # b5xc6 would expose the king on a5
    without = "8/8/8/KPp4r/8/8/8/4k3 w - - 0 2"
    assert jitfish.Board(pinned).fen() == without  # not shown: the capture is illegal
    assert jitfish.Board(pinned).zobrist() == chess.polyglot.zobrist_hash(chess.Board(pinned)) == 0x3D665CC1F5DA1059
    assert jitfish.Board(without).zobrist() == 0x3D5CCF19475A793B


def test_en_passant_file_is_not_hashed_when_no_pawn_can_take():
    after_e4 = jitfish.Board()
    after_e4.push_uci("e2e4")
    from_fen = jitfish.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    from_fen_without = jitfish.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert after_e4.zobrist() == from_fen.zobrist() == from_fen_without.zobrist() == 0x823C9B50FD114196


def test_chess960_castling_rights_change_the_key_and_stay_incremental():
    board = jitfish.Board("1r2k1r1/1p4p1/8/8/8/8/1P4P1/1R2K1R1 w KQkq - 0 1", chess960=True)
    keys = {board.zobrist()}
    for uci in ["e1g1", "e8b8"]:  # white castles short, black long, king takes rook
        board.push_uci(uci)
        assert board.zobrist() == board.zobrist_from_scratch()
        keys.add(board.zobrist())
    assert board.fen() == "2kr2r1/1p4p1/8/8/8/8/1P4P1/1R3RK1 w - - 2 2"
    assert len(keys) == 3
    fewer_rights = [
        jitfish.Board(f"1r2k1r1/1p4p1/8/8/8/8/1P4P1/1R2K1R1 w {rights} - 0 1", chess960=True).zobrist()
        for rights in ("KQkq", "Qkq", "Kkq", "KQq", "KQk", "-")
    ]
    assert len(set(fewer_rights)) == 6


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # Kiwipete
        "r3k2r/8/8/8/3pP3/8/8/R3K2R b KQkq e3 0 1",  # en passant to take, castling both ways
        "8/2P5/8/8/8/8/k1p4K/1N6 w - - 0 1",  # promotions, and one by capture
        "rnbqkb1r/pp1p1ppp/5n2/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 4",
    ],
)
def test_key_after_is_the_key_the_move_makes_but_for_castling_and_en_passant_squares(fen):
    """The search prefetches the child's TT bucket by ``key_after``: exact for every move that neither castles,
    nor takes en passant, nor changes castling rights, nor leaves an en-passant square."""
    board = jitfish.Board(fen)
    position, exact = board.position, 0
    for move in position.legal_moves():
        after = board.copy()
        after.push(int(move))
        expected = after.zobrist()
        predicted = int(key_after(position.bbs, position.state, lookup_tables(), move))
        before, then = chess.Board(fen), after.to_chess()
        played = chess.Move.from_uci(after.move_stack[-1])
        if before.is_castling(played) or before.is_en_passant(played) or then.ep_square is not None:
            continue
        if then.castling_rights != before.castling_rights:
            continue
        assert predicted == expected, after.move_stack[-1]
        exact += 1
    assert exact > 0
