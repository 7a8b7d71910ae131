"""Moves as people type them, read against python-chess on random positions: every legal move's SAN and UCI
reads back as that move, SAN without its needed disambiguation is called ambiguous, and each bad input is
one line naming the closest legal moves."""

from __future__ import annotations

import random

import chess
import pytest

from jitfish.play.moves import MoveError, closest_moves, parse_move


def random_positions(count: int, seed: int) -> list[chess.Board]:
    """Positions of random games (plies 0 to 80), each with its legal moves."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(0, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if any(board.legal_moves):
            boards.append(board)
    return boards


POSITIONS = random_positions(60, seed=129)
# Positions rich in disambiguation, promotion and castling.
SPECIAL = [
    chess.Board("4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1"),
    chess.Board("4k3/8/8/3R4/8/8/8/3RK3 w - - 0 1"),
    chess.Board("4k3/8/8/8/8/8/8/Q3Q1K1 w - - 0 1"),
    chess.Board("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1"),
    chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),
    chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"),
]


@pytest.mark.parametrize("board", POSITIONS + SPECIAL, ids=lambda board: board.fen())
def test_every_legal_move_reads_back_from_its_san_and_uci(board):
    for move in board.legal_moves:
        san = board.san(move)
        assert parse_move(board, san) == move, san
        assert parse_move(board, move.uci()) == move, move.uci()
        assert parse_move(board, san.rstrip("+#")) == move, san
        assert parse_move(board, f"  {san}  ") == move


@pytest.mark.parametrize("board", POSITIONS + SPECIAL, ids=lambda board: board.fen())
def test_san_without_its_disambiguation_is_ambiguous_as_python_chess_says(board):
    for move in board.legal_moves:
        san = board.san(move).rstrip("+#")
        piece = board.piece_type_at(move.from_square)
        if piece == chess.PAWN or san.startswith("O-O"):
            continue
        bare = f"{san[0]}{'x' if board.is_capture(move) else ''}{chess.square_name(move.to_square)}"
        try:
            expected = board.parse_san(bare)
        except chess.AmbiguousMoveError:
            with pytest.raises(MoveError, match=rf"^{bare} is ambiguous: .*{san}"):
                parse_move(board, bare)
        else:
            assert parse_move(board, bare) == expected


def test_castling_promotion_and_lowercase_spellings():
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert parse_move(board, "0-0") == parse_move(board, "O-O") == chess.Move.from_uci("e1g1")
    assert parse_move(board, "o-o-o") == chess.Move.from_uci("e1c1")
    promotion = chess.Board("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert parse_move(promotion, "a8=Q") == chess.Move.from_uci("a7a8q")
    assert parse_move(promotion, "axb8=N") == chess.Move.from_uci("a7b8n")
    assert parse_move(promotion, "a7a8r") == chess.Move.from_uci("a7a8r")
    assert parse_move(chess.Board(), "nf3") == chess.Move.from_uci("g1f3")
    assert parse_move(chess.Board(), "Ng1-f3") == chess.Move.from_uci("g1f3")


@pytest.mark.parametrize(
    "fen, text, message",
    [
        (chess.STARTING_FEN, "xyz", "xyz is neither a move nor a command (help lists them) (closest: "),
        (chess.STARTING_FEN, "Rh9", "Rh9 is neither a move nor a command"),
        (chess.STARTING_FEN, "e5", "e5 is not legal here: no pawn of yours can go to e5 (closest: "),
        (chess.STARTING_FEN, "O-O", "O-O is not legal here: you cannot castle now"),
        (chess.STARTING_FEN, "e7e5", "e7e5 is not legal here: the piece on e7 is not yours"),
        (chess.STARTING_FEN, "e3e4", "e3e4 is not legal here: there is no piece on e3"),
        ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "Nc3", "Nc3 is not legal here: it leaves your king in check"),
        ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "d1e1", "d1e1 is not legal here: there is no piece on d1"),
        ("4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1", "Nd2", "Nd2 is ambiguous: Nbd2 or Nfd2"),
        ("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8", "a8 needs the piece to promote to: a8=Q, a8=R, a8=B or a8=N"),
        ("1q2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8", "a7a8 needs the piece to promote to: a7a8q"),
        (chess.STARTING_FEN, "", "type a move"),
    ],
)
def test_a_bad_move_is_one_line_saying_why(fen, text, message):
    with pytest.raises(MoveError) as raised:
        parse_move(chess.Board(fen), text)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_the_closest_moves_share_the_squares_typed():
    board = chess.Board()
    assert closest_moves(board, "e2e5")[:2] == ["e3", "e4"]
    assert "Nf3" in closest_moves(board, "Nf4")
    assert len(closest_moves(board, "zz")) == 3
