"""UCI values, not only fields: scores from the side to move's view, WDL, mates and clocks with Black to move.

The UCI protocol reports ``score`` from the engine's point of view, the side
to move: every check here has Black to move, where a score taken from
White's side would show with the wrong sign.  The positions' values are
known without the engine (a whole queen up, mates checked by exhaustive
search with python-chess in :func:`mates_in`), and the time limits read back
with ``debug on`` are worked out by hand from the formula documented in
:mod:`jitfish.search.timeman`.
"""

from __future__ import annotations

import chess
import pytest

from tests.uci.conftest import UciPipe

BLACK_QUEEN_UP = "3qk3/8/8/8/8/8/8/4K3 b - - 0 1"
BLACK_QUEEN_DOWN = "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"
BLACK_MATES_IN_2 = "r7/8/8/8/8/1p6/PP6/KBk5 b - - 0 1"  # 1...Ra3 2.bxa3 b2#; the colour mirror of a known one
BLACK_IS_MATED_IN_1 = "kbK5/pp6/RP6/8/8/8/8/8 b - - 0 1"  # whatever Black plays, 2.b7# or 2.Rxa7#
# Openings with many replies (no book: OwnBook is off by default), Black and White to move.
BLACK_TO_MOVE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 5 4"
WHITE_TO_MOVE = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def mates_in(board: chess.Board, plies_left: int) -> chess.Move | None:
    """A move of the side to move that mates within ``plies_left`` of its own moves against any defence."""
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                return move
            if (
                plies_left > 1
                and not board.is_game_over()
                and all(
                    _after(board, reply, lambda b: mates_in(b, plies_left - 1) is not None)
                    for reply in list(board.legal_moves)
                )
            ):
                return move
        finally:
            board.pop()
    return None


def _after(board: chess.Board, move: chess.Move, check) -> bool:
    board.push(move)
    try:
        return check(board)
    finally:
        board.pop()


def search(uci: UciPipe, fen: str, go: str = "go depth 6") -> list[str]:
    uci.send(f"position fen {fen}")
    uci.send(go)
    return uci.read_until("bestmove", 60)


def last_score(lines: list[str]) -> tuple[str, int]:
    """(``cp`` or ``mate``, value) of the last info line with a score."""
    words = [line for line in lines if line.startswith("info") and " score " in line][-1].split()
    at = words.index("score")
    return words[at + 1], int(words[at + 2])


def test_the_positions_are_what_they_say():
    assert mates_in(chess.Board(BLACK_MATES_IN_2), 1) is None
    assert mates_in(chess.Board(BLACK_MATES_IN_2), 2) == chess.Move.from_uci("a8a3")
    mated = chess.Board(BLACK_IS_MATED_IN_1)
    assert all(_after(mated, move, lambda b: mates_in(b, 1) is not None) for move in list(mated.legal_moves))


def test_black_a_queen_up_scores_positive_and_a_queen_down_negative(uci):
    kind, value = last_score(search(uci, BLACK_QUEEN_UP))
    assert kind == "cp" and value > 500, f"Black to move, a queen up: score {kind} {value} should be > +500"
    kind, value = last_score(search(uci, BLACK_QUEEN_DOWN))
    assert kind == "cp" and value < -500, f"Black to move, a queen down: score {kind} {value} should be < -500"


def test_black_mating_in_two_reports_mate_2_and_plays_the_mating_move(uci):
    # "go mate 2": the rook sacrifice is a quiet move with a losing exchange, which a depth-limited
    # search may prune at low depths (Stockfish too); the mate search deepens until it finds it.
    lines = search(uci, BLACK_MATES_IN_2, "go mate 2")
    assert last_score(lines) == ("mate", 2), f"Black mates in 2, reported: {last_score(lines)}"
    assert lines[-1].split()[1] == "a8a3", lines[-1]


def test_black_getting_mated_reports_a_negative_mate(uci):
    lines = search(uci, BLACK_IS_MATED_IN_1)
    assert last_score(lines) == ("mate", -1), f"Black is mated next move, reported: {last_score(lines)}"


def test_wdl_is_from_the_side_to_move(uci):
    uci.send("setoption name UCI_ShowWDL value true")
    try:
        for fen, winning in ((BLACK_QUEEN_UP, True), (BLACK_QUEEN_DOWN, False)):
            line = [line for line in search(uci, fen) if " wdl " in line][-1]
            win, draw, loss = (int(x) for x in line.split(" wdl ")[1].split()[:3])
            assert win + draw + loss == 1000
            if winning:
                assert win > 900 and loss == 0, f"Black a queen up should be winning for the mover: {line}"
            else:
                assert loss > 900 and win == 0, f"Black a queen down should be losing for the mover: {line}"
    finally:
        uci.send("setoption name UCI_ShowWDL value false")
        uci.ready()


def debug_limits(uci: UciPipe, fen: str, go: str) -> tuple[float, float]:
    """The soft and hard limits the engine prints under ``debug on`` for ``go`` (then stopped)."""
    uci.send("debug on")
    try:
        uci.send(f"position fen {fen}")
        uci.send(go)
        line = uci.read_until("info string limits", 60)[-1]
        uci.send("stop")
        uci.read_until("bestmove", 60)
    finally:
        uci.send("debug off")
        uci.ready()
    words = line.split()
    return float(words[words.index("soft") + 1]), float(words[words.index("hard") + 1])


# Default Move Overhead 20 ms, 30 moves to go, hard limit 4 ideal shares but at most 0.4 of the clock:
#   budget = clock + increment * 29 - 0.020 * 32, ideal (soft) = budget / 30,
#   hard = min(4 * ideal, 0.4 * (clock - 0.020)).
# Black, btime 30 s, binc 2 s:  budget = 30 + 58 - 0.64 = 87.36, soft 2.912, hard min(11.648, 11.992) = 11.648.
# White, wtime 90 s, winc 0.5 s: budget = 90 + 14.5 - 0.64 = 103.86, soft 3.462, hard min(13.848, 35.992).
# Black, btime 2 s, binc 3 s: budget = 2 + 87 - 0.64 = 88.36, ideal 2.945333; the clock caps both
#   at 0.4 * 1.98 = 0.792.
@pytest.mark.parametrize(
    "fen,go,soft,hard",
    [
        (BLACK_TO_MOVE, "go wtime 90000 btime 30000 winc 500 binc 2000", 2.912, 11.648),
        (WHITE_TO_MOVE, "go wtime 90000 btime 30000 winc 500 binc 2000", 3.462, 13.848),
        (BLACK_TO_MOVE, "go wtime 90000 btime 2000 winc 500 binc 3000", 0.792, 0.792),
    ],
)
def test_asymmetric_clocks_give_the_side_to_move_its_own_limits(uci, fen, go, soft, hard):
    side = "White" if " w " in fen else "Black"
    assert debug_limits(uci, fen, go) == (pytest.approx(soft, abs=1e-6), pytest.approx(hard, abs=1e-6)), (
        f"{go} with {side} to move: expected soft {soft} hard {hard}"
    )
