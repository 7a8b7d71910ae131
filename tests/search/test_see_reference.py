"""The kernel's SEE against the plain-Python swap-off of :mod:`tests.reference_see`.

``see_ge(move, t)`` must be true exactly when the reference's exchange value
is at least ``t``: checked at the value itself, one either side of it, and a
spread of fixed thresholds, for every capture of every perft suite and of
the tactics suites (Win At Chess, Bratko-Kopec, CCR).  A few positions built
for one rule each (the king's recapture, x-rays, en passant, promotions)
pin down the reference itself with values worked out by hand.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

import jitfish
from jitfish.board.moves import move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.search.see import see_ge
from tests.perft_data import SUITES
from tests.reference_see import captures, see

DATA = Path(__file__).resolve().parents[1] / "data"
TACTICS = ("win_at_chess.epd", "bratko_kopec.epd", "ccr_one_hour.epd")
FIXED_THRESHOLDS = (-20000, -900, -330, -100, -1, 0, 1, 100, 220, 320, 500, 900, 20000)

# (FEN, move, value): each line is worked out by hand in its comment.
HAND_WORKED = [
    # RxP on d5; the black king on d6 is the only defender and nothing backs the rook: KxR, 100 - 500.
    ("8/8/3k4/3p4/8/8/8/3R3K w - - 0 1", "d1d5", -400),
    # The white queen behind the rook (an x-ray down the d-file) guards d5: the king may not take.
    ("8/8/3k4/3p4/8/8/3R4/3Q3K w - - 0 1", "d2d5", 100),
    # The queen on a2 guards d5 along the diagonal: the king cannot recapture, the rook wins the pawn.
    ("8/8/3k4/3p4/8/8/Q7/3R3K w - - 0 1", "d1d5", 100),
    # A king capture onto an undefended square wins the piece.
    ("7k/8/8/8/3n4/3K4/8/8 w - - 0 1", "d3d4", 320),
    # RxR, RxR, RxR: our second rook behind ours (an x-ray) has the last word, +500.
    ("3r3k/3r4/8/8/8/8/3R4/3R3K w - - 0 1", "d2d7", 500),
    # Without our second rook: RxR, RxR, 500 - 500 = 0.
    ("3r3k/3r4/8/8/8/8/3R4/7K w - - 0 1", "d2d7", 0),
    # En passant with no defender of d6: +100.
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),
    # En passant, recaptured by the c7 pawn: 100 - 100 = 0.
    ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
    # The pawn en passant removes from d5 opens the d-file for the rook on d1: exd6, cxd6, Rxd6, +100.
    ("4k3/2p5/8/3pP3/8/8/8/3RK3 w - d6 0 1", "e5d6", 100),
    # A pawn takes a knight and promotes, no recapture: +320 (the promotion itself is not counted).
    ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 320),
    # A pawn takes a rook and promotes; the knight on c6 recaptures what counts as a pawn: 500 - 100.
    ("1r2k3/P7/2n5/8/8/8/8/4K3 w - - 0 1", "a7b8q", 400),
    # A bishop takes a pawn defended by a pawn: 100 - 330.
    ("4k3/8/2p5/3p4/8/8/8/K6B w - - 0 1", "h1d5", -230),
]


class KernelSee:
    """The kernel's ``see_ge`` on one position, moves named as python-chess names them."""

    def __init__(self, board: chess.Board) -> None:
        ours = jitfish.Board(board.fen(), chess960=board.chess960)
        self.position, self.tables = ours.position, lookup_tables()
        self.codes = {move_to_uci(code, board.chess960): int(code) for code in ours.position.legal_moves()}

    def __call__(self, move: chess.Move, threshold: int) -> bool:
        p = self.position
        return bool(see_ge(p.bbs, p.state, self.tables, self.codes[move.uci()], threshold))


def kernel_see_ge(board: chess.Board, move: chess.Move, threshold: int) -> bool:
    return KernelSee(board)(move, threshold)


def suite_boards() -> list[chess.Board]:
    boards = [chess.Board(case.fen, chess960=suite.chess960) for suite in SUITES.values() for case in suite.cases()]
    for name in TACTICS:
        for line in (DATA / name).read_text().splitlines():
            if line.strip():  # the first four fields are the position (CCR adds clocks, WAC does not)
                boards.append(chess.Board(" ".join(line.split()[:4]) + " 0 1"))
    return boards


def test_the_reference_gets_the_hand_worked_exchanges():
    wrong = []
    for fen, uci, value in HAND_WORKED:
        board = chess.Board(fen)
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (fen, uci)
        if see(board, move) != value:
            wrong.append((fen, uci, value, see(board, move)))
    assert not wrong, "reference SEE (fen, move, expected, got): " + repr(wrong)


def test_kernel_see_ge_is_the_reference_value_compared_with_the_threshold():
    checked = 0
    disagreements = []
    boards = suite_boards()
    assert len(boards) > 2500
    for board in boards:
        kernel = KernelSee(board)
        for move in captures(board):
            value = see(board, move)
            for threshold in {value - 1, value, value + 1, *FIXED_THRESHOLDS}:
                expected = value >= threshold
                if kernel(move, threshold) != expected:
                    disagreements.append(
                        f"{board.fen()} {move.uci()}: reference SEE {value}, "
                        f"kernel see_ge(t={threshold}) says {not expected}"
                    )
            checked += 1
    assert not disagreements, f"{len(disagreements)} disagreements, first ones:\n" + "\n".join(disagreements[:10])
    assert checked > 6000


@pytest.mark.parametrize("fen,uci,value", HAND_WORKED)
def test_kernel_on_the_hand_worked_exchanges(fen, uci, value):
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert kernel_see_ge(board, move, value) and not kernel_see_ge(board, move, value + 1), (
        f"kernel SEE of {uci} in {fen} should be exactly {value}"
    )
