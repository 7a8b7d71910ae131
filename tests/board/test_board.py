"""The ``Board`` API: pushing and popping UCI moves, clocks, game-end queries, python-chess interop."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import chess
import chess.polyglot
import numpy as np
import pytest

import jitfish
from tests.reference import reference_uci_moves

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def snapshot(board: jitfish.Board) -> tuple:
    p = board.position
    return (p.bbs.copy(), p.state.copy(), p.undo.copy(), p.key_history.copy(), board.fen(), board.move_stack)


def assert_unchanged(board: jitfish.Board, before: tuple) -> None:
    after = snapshot(board)
    for old, new in zip(before[:4], after[:4]):
        assert np.array_equal(old, new)
    assert after[4:] == before[4:]


# --- push_uci and pop -----------------------------------------------------------


@pytest.mark.parametrize("uci", ["e2e5", "e1g1", "a1a2", "e7e5", "b1b3", "e2e4q", "0000"])
def test_illegal_move_raises_value_error_and_leaves_the_board_unchanged(uci):
    board = jitfish.Board()
    board.push_uci("d2d4")
    board.push_uci("d7d5")
    before = snapshot(board)
    with pytest.raises(ValueError, match="illegal move"):
        board.push_uci(uci)
    assert_unchanged(board, before)


@pytest.mark.parametrize("uci", ["", "e2", "e2e", "e2e4e4", "e2e9", "i2i4", "E2E4", "e7e8k", "e7e8Q", "e2-e4"])
def test_malformed_move_raises_value_error_and_leaves_the_board_unchanged(uci):
    board = jitfish.Board(KIWIPETE)
    before = snapshot(board)
    with pytest.raises(ValueError, match="invalid"):
        board.push_uci(uci)
    assert_unchanged(board, before)


def test_pop_on_an_empty_move_stack_raises_index_error():
    board = jitfish.Board()
    with pytest.raises(IndexError):
        board.pop()
    board.push_uci("e2e4")
    assert board.pop() == "e2e4"
    with pytest.raises(IndexError):
        board.pop()
    assert board.fen() == jitfish.STARTING_FEN


def test_pop_returns_the_moves_in_reverse_order():
    board = jitfish.Board(KIWIPETE)
    played = ["e1c1", "h3g2", "d5e6", "g2h1q", "e6f7", "e8d8", "d1h1"]  # castling, promotion, captures
    for uci in played:
        board.push_uci(uci)
    assert board.move_stack == played
    assert [board.pop() for _ in played] == played[::-1]
    assert board.fen() == KIWIPETE


def test_is_legal_accepts_exactly_the_legal_moves_and_king_takes_rook_castling():
    board = jitfish.Board(KIWIPETE)
    names = [f + r for r in "12345678" for f in "abcdefgh"]
    accepted = {a + b for a in names for b in names if board.is_legal(a + b)}
    assert accepted == set(board.legal_moves()) | {"e1h1", "e1a1"}
    assert len(accepted) == 48 + 2


# --- Castling notation ----------------------------------------------------------


def test_standard_castling_is_accepted_as_king_step_or_king_takes_rook():
    by_step, by_rook = jitfish.Board(KIWIPETE), jitfish.Board(KIWIPETE)
    by_step.push_uci("e1g1")
    by_rook.push_uci("e1h1")
    assert by_step.fen() == by_rook.fen() == "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1"
    assert by_step.move_stack == by_rook.move_stack == ["e1g1"]
    for long in ("e1c1", "e1a1"):
        board = jitfish.Board(KIWIPETE)
        board.push_uci(long)
        assert board.fen() == "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/2KR3R b kq - 1 1"
        assert board.move_stack == ["e1c1"]


def test_chess960_castling_is_king_takes_rook_only():
    board = jitfish.Board(KIWIPETE, chess960=True)
    with pytest.raises(ValueError, match="illegal move"):
        board.push_uci("e1g1")
    board.push_uci("e1h1")
    assert board.move_stack == ["e1h1"]
    assert board.fen() == "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1"


@pytest.mark.parametrize(
    "fen, text",
    [
        ("4k3/8/8/8/8/8/8/R2K4 w Q - 0 1", "d1c1"),  # long castling and the king's step to c1
        ("4k3/8/8/8/8/8/8/5K1R w K - 0 1", "f1g1"),  # short castling and the king's step to g1
    ],
)
def test_every_legal_move_has_its_own_uci_string_on_a_standard_board(fen, text):
    board = jitfish.Board(fen)
    moves = board.legal_moves()
    assert len(moves) == len(set(moves)) == board.perft(1), f"{text!r} appears {moves.count(text)} times"


# --- Clocks ---------------------------------------------------------------------


def test_halfmove_clock_and_fullmove_number_are_maintained_and_restored():
    board = jitfish.Board()
    expected = [  # (move, halfmove clock, fullmove number) after the move
        ("g1f3", 1, 1),
        ("g8f6", 2, 2),
        ("b1c3", 3, 2),
        ("e7e5", 0, 3),  # pawn move resets
        ("f3e5", 0, 3),
        ("b8c6", 1, 4),
        ("e5c6", 0, 4),
        ("d7c6", 0, 5),  # captures reset
        ("a1b1", 1, 5),
        ("f8b4", 2, 6),
    ]
    for uci, halfmove, fullmove in expected:
        board.push_uci(uci)
        assert (board.halfmove_clock, board.fullmove_number) == (halfmove, fullmove), uci
        assert board.fen().split()[4:] == [str(halfmove), str(fullmove)]
    for index in range(len(expected) - 1, 0, -1):
        board.pop()
        _, halfmove, fullmove = expected[index - 1]
        assert (board.halfmove_clock, board.fullmove_number) == (halfmove, fullmove)
    board.pop()
    assert (board.halfmove_clock, board.fullmove_number) == (0, 1)


def test_clocks_are_read_from_the_fen():
    board = jitfish.Board("4k3/8/8/8/8/8/8/4K2R b K - 37 81")
    assert (board.halfmove_clock, board.fullmove_number) == (37, 81)
    board.push_uci("e8d8")
    assert (board.halfmove_clock, board.fullmove_number) == (38, 82)


def test_turn_follows_the_side_to_move():
    board = jitfish.Board()
    assert board.turn is True
    board.push_uci("e2e4")
    assert board.turn is False


# --- Check, mate, stalemate -------------------------------------------------------


@pytest.mark.parametrize(
    "fen, check, checkmate, stalemate",
    [
        (jitfish.STARTING_FEN, False, False, False),
        ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", True, True, False),  # fool's mate
        ("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4", True, True, False),  # scholar's
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", False, False, False),
        ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", True, True, False),  # back rank
        ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", True, False, False),  # check, escapes
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", False, False, True),
        ("k7/P7/K7/8/8/8/8/8 b - - 0 1", False, False, True),
        ("8/8/8/8/8/2k5/1q6/K7 w - - 0 1", True, True, False),  # b2 protected
        ("8/8/8/8/8/8/1q6/K3k3 w - - 0 1", True, False, False),  # Kxb2 escapes
        ("8/8/8/8/8/1qk5/8/K7 w - - 0 1", False, False, True),
    ],
)
def test_check_checkmate_and_stalemate(fen, check, checkmate, stalemate):
    board = jitfish.Board(fen)
    assert (board.is_check(), board.is_checkmate(), board.is_stalemate()) == (check, checkmate, stalemate)
    theirs = chess.Board(fen)
    assert (theirs.is_check(), theirs.is_checkmate(), theirs.is_stalemate()) == (check, checkmate, stalemate)


def test_checkmate_is_found_after_pushed_moves():
    board = jitfish.Board()
    for uci in ["f2f3", "e7e5", "g2g4"]:
        board.push_uci(uci)
    assert not board.is_checkmate()
    board.push_uci("d8h4")
    assert board.is_check() and board.is_checkmate()
    assert board.legal_moves() == []
    board.pop()
    assert not board.is_check()


# --- Interop and copies ------------------------------------------------------------


def test_from_chess_copies_the_position_and_the_move_stack():
    theirs = chess.Board()
    for san in [
        "e4",
        "c5",
        "Nf3",
        "d6",
        "d4",
        "cxd4",
        "Nxd4",
        "Nf6",
        "Nc3",
        "a6",
        "Be2",
        "e5",
        "Nb3",
        "Be7",
        "O-O",
        "O-O",
    ]:
        theirs.push_san(san)
    ours = jitfish.Board.from_chess(theirs)
    assert ours.fen() == theirs.fen()
    assert ours.move_stack == [m.uci() for m in theirs.move_stack]
    assert ours.zobrist() == chess.polyglot.zobrist_hash(theirs)
    back = ours.to_chess()
    assert back.fen() == theirs.fen()
    assert back.move_stack == theirs.move_stack
    assert back.root().fen() == chess.STARTING_FEN
    for _ in range(16):
        ours.pop()
    assert ours.fen() == chess.STARTING_FEN


def test_chess960_boards_convert_both_ways():
    theirs = chess.Board.from_chess960_pos(123)
    for uci in ["b2b3", "g7g6", "b1b2"]:
        theirs.push_uci(uci)
    ours = jitfish.Board.from_chess(theirs)
    assert ours.chess960
    assert ours.fen() == theirs.fen()
    assert set(ours.legal_moves()) == reference_uci_moves(theirs)
    back = ours.to_chess()
    assert back.chess960 and back.fen() == theirs.fen() and back.move_stack == theirs.move_stack


def test_from_chess_keeps_a_root_position_other_than_the_start():
    theirs = chess.Board(KIWIPETE)
    theirs.push_uci("e1c1")
    ours = jitfish.Board.from_chess(theirs)
    assert ours.move_stack == ["e1c1"]
    ours.pop()
    assert ours.fen() == KIWIPETE


def test_copy_is_independent():
    board = jitfish.Board()
    board.push_uci("e2e4")
    other = board.copy()
    other.push_uci("e7e5")
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert other.move_stack == ["e2e4", "e7e5"]
    assert other.pop() == "e7e5" and other.pop() == "e2e4"
    assert board.move_stack == ["e2e4"]
    assert board == jitfish.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")


def test_str_draws_the_board_from_white_side():
    assert str(jitfish.Board()).splitlines() == [
        "r n b q k b n r",
        "p p p p p p p p",
        ". . . . . . . .",
        ". . . . . . . .",
        ". . . . . . . .",
        ". . . . . . . .",
        "P P P P P P P P",
        "R N B Q K B N R",
    ]
    assert repr(jitfish.Board(chess960=True)) == f"Board({jitfish.STARTING_FEN!r}, chess960=True)"


# --- Long games -------------------------------------------------------------------

KNIGHT_DANCE = ["g1f3", "g8f6", "f3g1", "f6g8"]


def test_pushing_past_the_undo_stack_raises_value_error():
    board = jitfish.Board()
    pushed = 0
    with pytest.raises(ValueError, match="game too long"):
        while True:
            board.push_uci(KNIGHT_DANCE[pushed % 4])
            pushed += 1
    assert pushed == 4095
    assert board.halfmove_clock == 4095
    board.pop()
    assert board.halfmove_clock == 4094


# Run in a child process: writing past the undo arrays corrupts the heap and
# kills the interpreter (SIGSEGV or abort), which must fail the test, not the run.
DEEP_STACK_PERFT = textwrap.dedent('''
    import jitfish
    board = jitfish.Board()
    for n in range(4095):
        board.push_uci(["g1f3", "g8f6", "f3g1", "f6g8"][n % 4])
    try:
        print(board.perft(4), sum(board.perft_divide(4).values()))
    except ValueError as error:
        print("refused:", error)
    for _ in range(4095):
        board.pop()
    print(board.fen())
''')


def test_perft_on_a_board_with_a_full_move_stack_counts_or_refuses_without_crashing():
    result = subprocess.run([sys.executable, "-c", DEEP_STACK_PERFT], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"exit code {result.returncode}: {result.stderr[-500:]}"
    lines = result.stdout.splitlines()
    assert lines[0] in ("231900 231900",) or lines[0].startswith("refused:")
    assert lines[-1] == jitfish.STARTING_FEN
