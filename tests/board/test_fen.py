"""FEN in and out: round trips against python-chess, X-FEN and Shredder-FEN, and every kind of bad FEN."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import chess
import pytest

import jitfish
from tests.perft_data import SUITES

# --- Round trips ------------------------------------------------------------


@pytest.mark.parametrize("suite", SUITES.values(), ids=SUITES.keys())
def test_suite_positions_print_as_python_chess_prints_them(suite):
    cases = suite.cases()
    wrong = []
    for case in cases:
        ours = jitfish.Board(case.fen, chess960=case.chess960)
        theirs = chess.Board(case.fen, chess960=case.chess960)
        fen, shredder = ours.fen(), ours.fen(shredder=True)
        if fen != theirs.fen() or shredder != theirs.fen(shredder=True):
            wrong.append(
                f"{case.name}: {case.fen!r} -> {fen!r} / {shredder!r}, "
                f"python-chess {theirs.fen()!r} / {theirs.fen(shredder=True)!r}"
            )
            continue
        for text in (fen, shredder):  # what we print, we read back to the same position
            again = jitfish.Board(text, chess960=case.chess960)
            if again.fen() != fen or sorted(again.legal_moves()) != sorted(ours.legal_moves()):
                wrong.append(f"{case.name}: {text!r} reads back as {again.fen()!r}")
    assert len(cases) > 0
    assert not wrong, "\n".join(wrong)


def test_start_position_round_trips():
    board = jitfish.Board()
    assert board.fen() == jitfish.STARTING_FEN
    assert board.fen(shredder=True) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    assert jitfish.Board(board.fen(shredder=True)).fen() == jitfish.STARTING_FEN


@pytest.mark.parametrize(
    "fen, expected",
    [
        ("4k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("4k3/8/8/8/8/8/8/4K3 b - - 7", "4k3/8/8/8/8/8/8/4K3 b - - 7 1"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("  4k3/8/8/8/8/8/8/4K3   w - -  3  42 ", "4k3/8/8/8/8/8/8/4K3 w - - 3 42"),
    ],
)
def test_missing_clocks_default_like_python_chess(fen, expected):
    assert jitfish.Board(fen).fen() == expected
    assert chess.Board(fen.strip()).fen() == expected


@pytest.mark.parametrize(
    "fen, shown",
    [
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "-"),  # no pawn can take
        ("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "e3"),  # d4 pawn can take
        ("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2", "-"),  # the capture is illegal
    ],
)
def test_en_passant_square_is_shown_only_when_the_capture_is_legal(fen, shown):
    assert jitfish.Board(fen).fen().split()[3] == shown
    assert chess.Board(fen).fen().split()[3] == shown


def test_en_passant_square_appears_after_a_double_step_next_to_an_enemy_pawn():
    board = jitfish.Board("rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    board.push_uci("e2e4")
    assert board.fen() == "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    board.push_uci("d4e3")
    assert board.fen() == "rnbqkbnr/ppp1pppp/8/8/8/4p3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


@pytest.mark.parametrize(
    "fen, xfen, shredder",
    [
        # The inner of two rooks on one side needs its file letter in X-FEN.
        ("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1", "B", "B"),
        ("4k3/8/8/8/8/8/8/RR2K3 w Q - 0 1", "Q", "A"),
        ("4k3/8/8/8/8/8/8/RR2K3 w A - 0 1", "Q", "A"),
        ("1r2kr2/8/8/8/8/8/8/4K3 w f - 0 1", "k", "f"),
        ("r3kr1r/8/8/8/8/8/8/4K3 w fq - 0 1", "fq", "fa"),
        ("rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1", "KQkq", "EAea"),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9", "KQkq", "HFhf"),
        ("1r2kb2/1q2p3/1npp2p1/p1P5/7r/8/3P2P1/4KB2 b b - 3 24", "q", "b"),
    ],
)
def test_chess960_castling_field_is_x_fen_or_shredder_fen(fen, xfen, shredder):
    ours = jitfish.Board(fen, chess960=True)
    theirs = chess.Board(fen, chess960=True)
    assert ours.fen().split()[2] == xfen == theirs.fen().split()[2]
    assert ours.fen(shredder=True).split()[2] == shredder == theirs.fen(shredder=True).split()[2]
    for text in (ours.fen(), ours.fen(shredder=True)):
        assert jitfish.Board(text, chess960=True).fen() == ours.fen()


def test_castling_with_a_rook_off_the_corner_is_accepted_on_a_standard_board():
    board = jitfish.Board("4k3/8/8/8/8/8/8/1R2K1R1 w KQ - 0 1")
    assert board.fen() == "4k3/8/8/8/8/8/8/1R2K1R1 w KQ - 0 1"
    assert board.fen(shredder=True).split()[2] == "GB"
    moves = board.legal_moves()
    assert "e1g1" in moves and "e1c1" in moves
    board.push_uci("e1c1")
    assert board.fen() == "4k3/8/8/8/8/8/8/2KR2R1 b - - 1 1"


def test_fen_is_stable_through_a_game():
    board = jitfish.Board()
    for uci in ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7", "e1g1"]:
        board.push_uci(uci)
    assert board.fen() == "rn1qkbnr/pp1bpppp/3p4/1Bp5/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 3 4"
    assert jitfish.Board(board.fen()).fen() == board.fen()


# --- Rejections --------------------------------------------------------------

BAD_FENS = {
    "too few fields": ("4k3/8/8/8/8/8/8/4K3 w -", "expected 6 fields"),
    "too many fields": ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "expected 6 fields"),
    "empty string": ("", "expected 6 fields"),
    "not a string": (None, "expected a string"),
    "seven ranks": ("4k3/8/8/8/8/8/4K3 w - - 0 1", "expected 8 ranks"),
    "nine ranks": ("4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", "expected 8 ranks"),
    "bad piece letter": ("4k3/8/8/8/8/8/8/4K2X w - - 0 1", "bad piece letter 'X'"),
    "rank too long": ("4k3/8/8/8/8/8/8/4K2R1 w - - 0 1", "rank 1 has 9 squares"),
    "rank too long by digits": ("4k3/8/8/8/8/8/8/4K4 w - - 0 1", "rank 1 has 9 squares"),
    "rank too short": ("4k3/8/8/8/8/8/8/4K2 w - - 0 1", "rank 1 has 7 squares"),
    "two digits in a row": ("4k3/8/8/8/8/8/8/4K12 w - - 0 1", "two digits in a row"),
    "missing king": ("4k3/8/8/8/8/8/8/8 w - - 0 1", "white has 0 kings"),
    "extra king": ("4k2k/8/8/8/8/8/8/4K3 w - - 0 1", "black has 2 kings"),
    "pawn on the last rank": ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on the first or last rank"),
    "pawn on the first rank": ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "pawn on the first or last rank"),
    "nine pawns": ("4k3/8/8/8/8/8/PPPPPPPP/P3K3 w - - 0 1", "more than 8 pawns"),
    "seventeen pieces": ("4k3/8/8/8/8/QQQQQQQQ/QQQQQQQQ/4K3 w - - 0 1", "more than 16 pieces"),
    "side not to move in check": ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "side not to move is in check"),
    "side not to move in check by a pawn": ("4k3/3P4/8/8/8/8/8/4K3 w - - 0 1", "side not to move is in check"),
    "kings touching": ("8/8/8/8/8/8/3k4/4K3 w - - 0 1", "side not to move is in check"),
    "bad side to move": ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move must be 'w' or 'b'"),
    "castling with the king off its back rank": ("4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1", "king not on its back rank"),
    "castling without a rook": ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "no rook for 'K'"),
    "castling with a rook on the wrong side": ("4k3/8/8/8/8/8/8/R3K3 w K - 0 1", "no rook for 'K'"),
    "castling to an empty file": ("4k3/8/8/8/8/8/8/R3K2R w G - 0 1", "no rook for 'G'"),
    "black castling without a rook": ("4k3/8/8/8/8/8/8/R3K2R w KQq - 0 1", "no rook for 'q'"),
    "duplicate castling right": ("4k3/8/8/8/8/8/8/R3K2R w KK - 0 1", "names one right twice"),
    "duplicate right by file letter": ("4k3/8/8/8/8/8/8/R3K2R w KH - 0 1", "names one right twice"),
    "bad castling letter": ("4k3/8/8/8/8/8/8/R3K2R w KX - 0 1", "bad castling letter 'X'"),
    "en passant on the wrong rank": ("4k3/8/8/8/4p3/8/8/4K3 w - e4 0 1", "impossible en-passant square 'e4'"),
    "en passant for the wrong side": ("4k3/8/8/4p3/8/8/8/4K3 b - e6 0 1", "impossible en-passant square 'e6'"),
    "en passant with no pawn in front": ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "impossible en-passant square 'e6'"),
    "en passant square occupied": ("4k3/8/4n3/4p3/8/8/8/4K3 w - e6 0 1", "impossible en-passant square 'e6'"),
    "en passant start square occupied": ("4k3/4n3/8/4p3/8/8/8/4K3 w - e6 0 1", "impossible en-passant square 'e6'"),
    "en passant not a square": ("4k3/8/8/8/8/8/8/4K3 w - e9 0 1", "bad en-passant field 'e9'"),
    "halfmove clock not a number": ("4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove clock 'x' is not a number"),
    "halfmove clock negative": ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", "halfmove clock '-1' is negative"),
    "fullmove number not a number": ("4k3/8/8/8/8/8/8/4K3 w - - 0 y", "fullmove number 'y' is not a number"),
    "fullmove number negative": ("4k3/8/8/8/8/8/8/4K3 w - - 0 -3", "fullmove number '-3' is negative"),
}


@pytest.mark.parametrize("fen, fragment", BAD_FENS.values(), ids=BAD_FENS.keys())
def test_bad_fen_raises_value_error_naming_the_problem(fen, fragment):
    with pytest.raises(ValueError) as error:
        jitfish.Board(fen)
    message = str(error.value)
    assert message.startswith("invalid FEN: ")
    assert fragment in message
    with pytest.raises(ValueError, match="invalid FEN"):
        jitfish.perft(fen, 1)


@pytest.mark.parametrize(
    "fen, fragment",
    [
        ("4k3/8/8/8/8/8/8/RR2K3 w AB - 0 1", "names one right twice"),
        ("4k3/8/8/8/8/8/8/4K2R w Q - 0 1", "no rook for 'Q'"),
        ("4k3/8/8/8/8/8/8/4K2R w A - 0 1", "no rook for 'A'"),
    ],
)
def test_bad_chess960_castling_field_raises_value_error(fen, fragment):
    with pytest.raises(ValueError, match=fragment):
        jitfish.Board(fen, chess960=True)


# Run in a child process: a kernel fed a broken position could crash the
# interpreter instead of raising, and the test must see that as a failure.
FUZZ_SCRIPT = textwrap.dedent('''
    import random, sys
    import chess
    import jitfish
    SEEDS = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    ]
    ALPHABET = "pnbrqkPNBRQK12345678/ wb-KQkqABCDEFGHabcdefgh0123456789x"
    rng = random.Random(int(sys.argv[1]))
    accepted = rejected = compared = 0
    for _ in range(int(sys.argv[2])):
        fen = list(rng.choice(SEEDS))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(fen))
            op = rng.random()
            if op < 0.5:
                fen[i] = rng.choice(ALPHABET)
            elif op < 0.75:
                del fen[i]
            else:
                fen.insert(i, rng.choice(ALPHABET))
        fen = "".join(fen)
        chess960 = rng.random() < 0.5
        try:
            board = jitfish.Board(fen, chess960=chess960)
        except ValueError as error:
            assert str(error).startswith("invalid FEN"), (fen, error)
            rejected += 1
            continue
        accepted += 1
        moves = board.legal_moves()
        try:
            theirs = chess.Board(fen, chess960=chess960)
        except ValueError:
            theirs = None
        # Where python-chess reads the same valid position, the legal moves must agree.
        if theirs is not None and theirs.is_valid() and theirs.fen() == board.fen():
            assert set(moves) == {theirs.uci(m, chess960=chess960) for m in theirs.legal_moves}, fen
            compared += 1
        assert board.perft(1) == len(moves), fen
        board.perft(2)
        assert jitfish.Board(board.fen(), chess960=chess960).fen() == board.fen(), fen
        assert board.zobrist() == board.zobrist_from_scratch(), fen
        for uci in moves:
            board.push_uci(uci)
            assert board.zobrist() == board.zobrist_from_scratch(), (fen, uci)
            board.legal_moves()
            board.pop()
    print("accepted", accepted, "rejected", rejected, "compared", compared)
''')


def test_mutated_fens_are_rejected_or_playable_never_a_crash():
    result = subprocess.run(
        [sys.executable, "-c", FUZZ_SCRIPT, "7", "3000"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"exit code {result.returncode}\n{result.stdout}\n{result.stderr}"
    _, accepted, _, rejected, _, compared = result.stdout.split()
    assert int(accepted) > 100 and int(rejected) > 1000 and int(compared) > 50, result.stdout
