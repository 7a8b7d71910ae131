"""The noisy move list (what quiescence searches): every capture and queen promotion; no quiet move, no
under-promotion."""

from __future__ import annotations

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.movegen import GEN_NOISY, generate_moves
from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.board.tables import lookup_tables


def _noisy(fen: str) -> set[str]:
    p = jitfish.Board(fen).position
    moves = np.zeros(MAX_MOVES, dtype=np.int32)
    count = generate_moves(p.bbs, p.state, lookup_tables(), moves, 0, GEN_NOISY)
    return {move_to_uci(int(m), False) for m in moves[:count]}


@pytest.mark.parametrize(
    "fen",
    [
        "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",  # a plain pawn capture
        "4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1",  # ... for black
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # Kiwipete
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant
        "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1",  # promotions, with a capture
        "4k3/8/8/8/3b4/4P3/8/4K2r w - - 0 1",  # in check: evasions only
    ],
)
def test_noisy_moves_are_the_legal_captures_and_queen_promotions(fen):
    board = chess.Board(fen)
    expected = {
        m.uci()
        for m in board.legal_moves
        if m.promotion in (None, chess.QUEEN) and (board.is_capture(m) or m.promotion)
    }
    assert _noisy(fen) == expected
