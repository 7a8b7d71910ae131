"""Kriegspiel: the umpire and the belief state against python-chess, reproducible games, the match, clairvoyance.

The umpire's words are recomputed here from python-chess's own primitives
(captures, en passant, checkers, the rays through the king), and exact
belief states are compared with a plain enumeration: every history of
opponent moves that python-chess allows and that would have sounded the same.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from jitfish.teach.kriegspiel import Announcement, Belief, announce, position_key
from jitfish.teach.kriegspiel_clairvoyance import clairvoyance
from jitfish.teach.kriegspiel_game import RandomPlayer, SamplingPlayer, game_text, match, play_game
from jitfish.teach.plot import plot_belief
from tests.extras import needs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "teaching.md"

# (mover, attempts the umpire refuses first, the move): a short game with captures, a check on the file,
# attempts refused in check, a block, a pinned piece's attempt and a knight's check.
SCRIPT = [
    (chess.WHITE, [], "e2e4"),
    (chess.BLACK, [], "d7d5"),
    (chess.WHITE, ["e4f5"], "e4d5"),
    (chess.BLACK, [], "d8d5"),
    (chess.WHITE, [], "b1c3"),
    (chess.BLACK, [], "d5e5"),
    (chess.WHITE, ["g1f3", "d2d4"], "f1e2"),
    (chess.BLACK, ["e5e1"], "c7c5"),
    (chess.WHITE, [], "d2d4"),
    (chess.BLACK, ["e5b2"], "c5d4"),
    (chess.WHITE, [], "c3b5"),
    (chess.BLACK, [], "g8f6"),
    (chess.WHITE, ["e2d3"], "b5c7"),
]


def expected_announcement(board: chess.Board, move: chess.Move) -> Announcement:
    """The umpire's words from python-chess alone."""
    capture = None
    if board.is_en_passant(move):
        taken = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        capture = chess.square_name(taken)
    elif board.is_capture(move):
        capture = chess.square_name(move.to_square)
    after = board.copy()
    after.push(move)
    king = after.king(after.turn)
    checks = []
    for checker in after.checkers():
        line = chess.BB_RAYS[king][checker]
        if after.piece_type_at(checker) == chess.KNIGHT:
            checks.append("knight")
        elif line == chess.BB_RANKS[chess.square_rank(king)]:
            checks.append("rank")
        elif line == chess.BB_FILES[chess.square_file(king)]:
            checks.append("file")
        else:
            other = chess.BB_DIAG_MASKS[king] & ~line  # the other diagonal, the king's square left out
            longer = chess.popcount(line) > chess.popcount(other) + 1
            checks.append("long diagonal" if longer else "short diagonal")
    if after.is_checkmate():
        end = "checkmate"
    elif after.is_stalemate():
        end = "stalemate"
    elif after.is_insufficient_material():
        end = "draw (insufficient material)"
    else:
        end = None
    return Announcement(capture, tuple(sorted(checks)), end)


def follow(boards: list[chess.Board], kind: str, move: chess.Move | None, heard) -> list[chess.Board]:
    """Every position a player can be in after it is told one more thing, by brute force over ``boards``."""
    following = []
    for board in boards:
        if kind == "illegal":
            following += [] if board.is_legal(move) else [board]
            continue
        moves = list(board.legal_moves) if kind == "opponent" else [move] if board.is_legal(move) else []
        for candidate in moves:
            if expected_announcement(board, candidate) == heard:
                child = board.copy(stack=False)
                child.push(candidate)
                following.append(child)
    return list({position_key(board): board for board in following}.values())


def keys(boards) -> set:
    return {position_key(board) for board in boards}


def test_the_umpire_names_captures_and_checks_as_python_chess_sees_them():
    cases = [
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", Announcement("d5")),  # en passant: the taken pawn's square
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a8", Announcement(None, ("rank",))),
        ("3k4/8/8/8/8/8/8/3RK3 w - - 0 1", "d1d2", Announcement(None, ("file",))),
        ("3k4/8/8/8/8/8/2R5/3K4 w - - 0 1", "c2c3", Announcement()),
        ("3k4/8/8/8/8/8/3B4/3RK3 w - - 0 1", "d2e3", Announcement(None, ("file",))),  # a discovered check
        ("3k4/8/8/8/8/8/3B4/3RK3 w - - 0 1", "d2g5", Announcement(None, ("file", "long diagonal"))),  # and double
        ("7k/8/8/8/8/8/PB6/4K3 w - - 0 1", "b2c3", Announcement(None, ("long diagonal",))),
        ("4k3/8/8/8/8/5B2/P7/4K3 w - - 0 1", "f3h5", Announcement(None, ("short diagonal",))),  # e8-h5: 4
        ("4k3/8/8/8/8/8/P2B4/4K3 w - - 0 1", "d2a5", Announcement()),
        ("4k3/8/8/8/8/8/P2B4/4K3 w - - 0 1", "d2b4", Announcement()),
        ("4k3/8/8/8/8/8/P7/2B1K3 w - - 0 1", "c1a3", Announcement()),
        ("4k3/8/8/8/8/8/P7/3BK3 w - - 0 1", "d1a4", Announcement(None, ("long diagonal",))),  # a4-e8: 5
        ("4k3/8/8/8/4N3/8/P7/4K3 w - - 0 1", "e4d6", Announcement(None, ("knight",))),
        ("4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1", "e4f6", Announcement(None, ("file", "knight"))),  # double check
        ("4k3/3p4/8/8/8/8/P7/4K3 b - - 0 1", "d7d6", Announcement()),
        ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", Announcement(None, ("rank",), "checkmate")),
        ("7k/8/6Q1/8/8/8/8/6K1 w - - 0 1", "g6f7", Announcement(None, (), "stalemate")),
        ("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1", "e1d2", Announcement("d2", (), "draw (insufficient material)")),
    ]
    for fen, uci, said in cases:
        board = chess.Board(fen)
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move), (fen, uci)
        assert announce(board, move) == expected_announcement(board, move) == said, (fen, uci)
        assert board.fen() == fen  # the umpire leaves the board as it was


def test_the_scripted_game_announcements_and_exact_beliefs_match_brute_force():
    board = chess.Board()
    beliefs = {color: Belief(color, chess.Board(), limit=1_000_000) for color in chess.COLORS}
    brute = {color: [chess.Board()] for color in chess.COLORS}
    sizes = []
    for mover, attempts, uci in SCRIPT:
        assert board.turn == mover
        for attempt in map(chess.Move.from_uci, attempts):
            assert not board.is_legal(attempt)
            beliefs[mover].illegal(attempt)
            brute[mover] = follow(brute[mover], "illegal", attempt, None)
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move)
        heard = announce(board, move)
        assert heard == expected_announcement(board, move)
        board.push(move)
        beliefs[mover].own_move(move, heard)
        beliefs[not mover].opponent_move(heard)
        brute[mover] = follow(brute[mover], "own", move, heard)
        brute[not mover] = follow(brute[not mover], "opponent", None, heard)
        for color in chess.COLORS:
            belief = beliefs[color]
            assert belief.exact and belief.contains(board)  # the true position is always in the belief state
            assert keys(belief.positions) == keys(brute[color])  # and never an inconsistent one
        sizes.append(len(beliefs[not mover]))
    assert sizes[:2] == [20, 20]  # one unseen first move: twenty positions
    assert heard == Announcement(None, ("knight",))


def test_a_sampled_belief_is_a_subset_of_the_exact_one_and_estimates_its_size():
    belief = Belief(chess.BLACK, chess.Board(), limit=30, seed=4)
    exact = [chess.Board()]
    for kind, uci in (("opponent", None), ("own", "e7e5"), ("opponent", None), ("own", "b8c6"), ("opponent", None)):
        move = None if uci is None else chess.Move.from_uci(uci)
        if kind == "own":
            belief.own_move(move, Announcement())
        else:
            belief.opponent_move(Announcement())
        exact = follow(exact, kind, move, Announcement())
        assert keys(belief.positions) <= keys(exact)  # a sample never holds an inconsistent position either
        if belief.exact:
            assert keys(belief.positions) == keys(exact)
        elif belief.size == len(exact):  # sampled from here: the size known exactly at the switch
            assert len(belief) == 30 and belief.size_text() == f"~{len(exact)}"
    # The estimate counts a position once per way to reach it from the sample's positions: transpositions
    # (1.Nf3 ... 2.Nc3 and 1.Nc3 ... 2.Nf3) make it high.
    assert not belief.exact and len(exact) < belief.size < 3 * len(exact)
    with pytest.raises(ValueError):
        Belief(chess.WHITE, chess.Board(), limit=0)


@pytest.mark.usefixtures("teaching_kernels")
def test_a_game_with_a_fixed_seed_is_the_same_game_every_time():
    def played():
        return play_game(SamplingPlayer(chess.WHITE, 6, seed=3), RandomPlayer(3), seed=3, max_moves=15)

    first, second = played(), played()
    assert [p.move for p in first.plies] == [p.move for p in second.plies]
    assert [p.illegal for p in first.plies] == [p.illegal for p in second.plies]
    assert [p.decision.belief_size for p in first.plies if p.decision] == [
        p.decision.belief_size for p in second.plies if p.decision
    ]
    assert first.result == second.result
    text = game_text(first)
    assert "Kriegspiel: 6 samples (White) against random (Black), seed 3" in text
    assert text.splitlines()[-1].startswith("Result: ")


@pytest.mark.usefixtures("teaching_kernels")
def test_the_truth_stays_in_the_belief_while_it_is_exact():
    player = SamplingPlayer(chess.BLACK, 4, limit=5000, seed=5)
    game = play_game(RandomPlayer(5), player, seed=5, max_moves=3, track_truth=True)
    exact = [p for p in game.plies if p.decision is not None and p.decision.mode == "exact"]
    assert len(exact) >= 2 and all(p.truth_in_belief for p in exact)


@pytest.mark.slow
@pytest.mark.usefixtures("teaching_kernels")
def test_the_sampling_player_beats_the_random_player_in_a_short_match():
    played = match(10, seed=1)
    assert played.wins >= 8, played.text()
    assert all(game.reason == "checkmate" for game in played.games if game.score(chess.WHITE) != 0.5)


@needs("matplotlib")
@pytest.mark.usefixtures("teaching_kernels")
def test_plot_belief_writes_a_png(tmp_path):
    game = play_game(SamplingPlayer(chess.WHITE, 4, seed=2), RandomPlayer(2), seed=2, max_moves=8)
    plot_belief(game, str(tmp_path / "belief.png"))
    assert (tmp_path / "belief.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.usefixtures("teaching_kernels")
def test_averaging_over_clairvoyance_prefers_a_fork_that_pays_only_if_you_know_where_the_queen_is():
    result = clairvoyance()
    fork, rook = result.moves[0], result.moves[1]
    assert (fork.san, rook.san) == ("Nd6+", "Nxc5")
    assert result.clairvoyant_choice is fork and result.honest_choice is rook
    assert fork.average > rook.average and fork.honest < rook.honest
    # Knowing the state the fork's next move differs (Nxb7, Nxf7); not knowing it, one move for both.
    assert fork.knowing - fork.honest > 200 and rook.knowing - rook.honest < 50
    assert fork.followups == ["Nf7", "Nxf7"]
    page = DOCS.read_text()
    for line in result.text().splitlines():
        assert line in page, line
