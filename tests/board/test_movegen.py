"""Legal move generation against python-chess: hand-picked rules, then many random games.

The differential games (see :mod:`tests.board.playout`) compare legal moves,
FEN, check and Zobrist keys at every position and take every game back with
``pop``; the default run visits over 10,000 positions, the slow pass 100,000.
"""

from __future__ import annotations

import random

import chess
import pytest

import jitfish
from jitfish.board.movegen import is_legal_normal_move
from jitfish.board.moves import MOVE_NORMAL, encode_move
from jitfish.board.tables import lookup_tables
from tests.board.playout import PlayoutStats, choose_move, play_games
from tests.perft_data import SUITES
from tests.reference import reference_uci_moves

# --- Rules, position by position -------------------------------------------
# Each expected list was checked against python-chess when it was written.

RULE_CASES = {
    "start position": (
        jitfish.STARTING_FEN,
        False,
        [
            "a2a3",
            "a2a4",
            "b1a3",
            "b1c3",
            "b2b3",
            "b2b4",
            "c2c3",
            "c2c4",
            "d2d3",
            "d2d4",
            "e2e3",
            "e2e4",
            "f2f3",
            "f2f4",
            "g1f3",
            "g1h3",
            "g2g3",
            "g2g4",
            "h2h3",
            "h2h4",
        ],
    ),
    "en passant illegal when it uncovers a rank attack on the king": (
        "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
        False,
        ["a5a4", "a5a6", "a5b6", "b5b6"],
    ),
    "en passant legal when it captures the checking pawn": (
        "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        False,
        ["c5b4", "c5b5", "c5b6", "c5c4", "c5c6", "c5d4", "c5d5", "c5d6", "e4d3"],
    ),
    "no castling through an attacked square": (
        "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        False,
        [
            "a1a2",
            "a1a3",
            "a1a4",
            "a1a5",
            "a1a6",
            "a1a7",
            "a1a8",
            "a1b1",
            "a1c1",
            "a1d1",
            "e1c1",
            "e1d1",
            "e1d2",
            "e1e2",
            "h1f1",
            "h1g1",
            "h1h2",
            "h1h3",
            "h1h4",
            "h1h5",
            "h1h6",
            "h1h7",
            "h1h8",
        ],
    ),
    "long castling allowed when only b1 is attacked": (
        "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        False,
        [
            "a1a2",
            "a1a3",
            "a1a4",
            "a1a5",
            "a1a6",
            "a1a7",
            "a1a8",
            "a1b1",
            "a1c1",
            "a1d1",
            "e1c1",
            "e1d1",
            "e1d2",
            "e1e2",
            "e1f1",
            "e1f2",
            "e1g1",
            "h1f1",
            "h1g1",
            "h1h2",
            "h1h3",
            "h1h4",
            "h1h5",
            "h1h6",
            "h1h7",
            "h1h8",
        ],
    ),
    "no castling out of check": ("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1", False, ["e1d1", "e1e2", "e1f1"]),
    "chess960: no castling when the castling rook shields the king's destination": (
        "4k3/8/8/8/8/8/8/5KRr w G - 0 1",
        True,
        ["f1e1", "f1e2", "f1f2", "f1g2", "g1h1"],
    ),
    "chess960: king on b1 castles long with the a1 rook, written king-takes-rook": (
        "4k3/8/8/8/8/8/8/RK6 w A - 0 1",
        True,
        ["a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "b1a1", "b1a2", "b1b2", "b1c1", "b1c2"],
    ),
    "promotions to all four pieces, pushing and capturing": (
        "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        False,
        [
            "a7a8b",
            "a7a8n",
            "a7a8q",
            "a7a8r",
            "a7b8b",
            "a7b8n",
            "a7b8q",
            "a7b8r",
            "e1d1",
            "e1d2",
            "e1e2",
            "e1f1",
            "e1f2",
        ],
    ),
    "double check allows king moves only": ("4k3/8/8/8/1b6/8/3N4/r3K3 w - - 0 1", False, ["e1e2", "e1f2"]),
    "a bishop pinned on a file cannot move": (
        "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
        False,
        ["e1d1", "e1d2", "e1f1", "e1f2"],
    ),
    "a rook pinned on a file moves along it": (
        "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",
        False,
        ["e1d1", "e1d2", "e1f1", "e1f2", "e2e3", "e2e4", "e2e5", "e2e6", "e2e7"],
    ),
}


@pytest.mark.parametrize("fen, chess960, expected", RULE_CASES.values(), ids=RULE_CASES.keys())
def test_legal_moves_follow_the_rule(fen, chess960, expected):
    moves = jitfish.Board(fen, chess960=chess960).legal_moves()
    assert sorted(moves) == expected
    assert len(moves) == len(set(moves))
    assert set(expected) == reference_uci_moves(chess.Board(fen, chess960=chess960))


def test_standard_castling_is_written_as_the_king_step():
    moves = jitfish.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").legal_moves()
    assert {"e1g1", "e1c1"} <= set(moves)
    assert not {"e1h1", "e1a1"} & set(moves)


def test_chess960_castling_is_written_king_takes_rook():
    moves = jitfish.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True).legal_moves()
    assert {"e1h1", "e1a1"} <= set(moves)
    assert not {"e1g1", "e1c1"} & set(moves)


# --- Random games against python-chess --------------------------------------

DEFAULT_POSITIONS_PER_TEST = 5_000  # three tests: 15,000 positions, 15-40 s on the shared machine
SLOW_POSITIONS_PER_TEST = 34_000  # over 100,000 in the slow pass
GAME_PLIES = 300
SUITE_GAME_PLIES = 40


def assert_well_covered(stats: PlayoutStats, minimum: int) -> None:
    """The games visited enough positions and played every kind of special move."""
    assert stats.positions >= minimum
    for kind in ("capture", "castling", "en_passant", "promotion", "underpromotion"):
        assert stats.moves[kind] > 0, f"no {kind} played: {stats.moves}"
    for feature in ("check", "endgame", "castling_rights", "legal_en_passant"):
        assert stats.positions_with[feature] > 0, f"no position with {feature}: {stats.positions_with}"


def start_position_games(seed: int, positions: int) -> PlayoutStats:
    return play_games([(chess.STARTING_FEN, False, "start position")], seed, GAME_PLIES, positions)


def chess960_games(seed: int, positions: int) -> PlayoutStats:
    setups = random.Random(seed).sample(range(960), 200)
    starts = [(chess.Board.from_chess960_pos(n).fen(), True, f"Chess960 setup {n}") for n in setups]
    return play_games(starts, seed, GAME_PLIES, positions)


def suite_games(seed: int, positions: int) -> PlayoutStats:
    starts = []
    for suite in SUITES.values():
        starts += [(case.fen, case.chess960, case.name) for case in suite.cases()]
    random.Random(seed).shuffle(starts)
    return play_games(starts, seed, SUITE_GAME_PLIES, positions)


def test_random_games_from_the_start_agree_with_python_chess():
    stats = start_position_games(seed=1, positions=DEFAULT_POSITIONS_PER_TEST)
    assert_well_covered(stats, DEFAULT_POSITIONS_PER_TEST)
    assert stats.positions_with["checkmate"] + stats.positions_with["stalemate"] > 0


def test_random_chess960_games_agree_with_python_chess():
    stats = chess960_games(seed=2, positions=DEFAULT_POSITIONS_PER_TEST)
    assert_well_covered(stats, DEFAULT_POSITIONS_PER_TEST)


def test_random_games_from_perft_suite_positions_agree_with_python_chess():
    stats = suite_games(seed=3, positions=DEFAULT_POSITIONS_PER_TEST)
    assert_well_covered(stats, DEFAULT_POSITIONS_PER_TEST)


@pytest.mark.slow
@pytest.mark.parametrize(
    "games", [start_position_games, chess960_games, suite_games], ids=["start", "chess960", "suites"]
)
def test_hundred_thousand_positions_agree_with_python_chess(games):
    stats = games(seed=1000, positions=SLOW_POSITIONS_PER_TEST)
    assert_well_covered(stats, SLOW_POSITIONS_PER_TEST)


@pytest.mark.parametrize("chess960", [False, True], ids=["standard", "chess960"])
def test_gives_check_agrees_with_python_chess_in_random_games(chess960):
    rng = random.Random(960 if chess960 else 7)
    positions = checks = 0
    while positions < 1500:
        start = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
        theirs = start.copy()
        ours = jitfish.Board(start.fen(), chess960=chess960)
        for _ in range(120):
            moves = list(theirs.legal_moves)
            if not moves:
                break
            expected = {theirs.uci(m, chess960=chess960) for m in moves if theirs.gives_check(m)}
            found = {uci for uci in ours.legal_moves() if ours.gives_check(uci)}
            assert found == expected, f"checking moves differ at {theirs.fen()}"
            positions += 1
            checks += len(expected)
            move = choose_move(rng, theirs)
            ours.push_uci(theirs.uci(move, chess960=chess960))
            theirs.push(move)
    assert checks > 500  # enough checking moves seen to mean something


def test_gives_check_finds_discovered_castling_en_passant_and_promotion_checks():
    cases = {
        # every bishop move uncovers the rook's check
        "4k3/8/8/8/8/8/4B3/4R1K1 w - - 0 1": {"e2d3", "e2c4", "e2b5", "e2a6", "e2d1", "e2f1", "e2f3", "e2g4", "e2h5"},
        # the castled rook checks along the f-file
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1": {"e1g1", "h1h8", "h1f1"},
        # en passant empties two squares of the fifth rank for the rook
        "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1": {"e5d6"},
        # queen and rook promotions check, bishop and knight promotions do not
        "2k5/4P3/8/8/8/8/8/4K3 w - - 0 1": {"e7e8q", "e7e8r"},
    }
    for fen, expected in cases.items():
        ours = jitfish.Board(fen)
        theirs = chess.Board(fen)
        reference = {m.uci() for m in theirs.legal_moves if theirs.gives_check(m)}
        found = {uci for uci in ours.legal_moves() if ours.gives_check(uci)}
        assert found == reference == expected, fen


def _normal_move_candidates(rng: random.Random, boards: list[jitfish.Board]) -> set[int]:
    """Encoded moves to ask about: the legal moves of ``boards`` (this position, the one before it, the same
    with the other side to move) and arbitrary codes, some with promotion or kind bits no move has."""
    candidates = {int(m) for board in boards for m in board.position.legal_moves()}
    for _ in range(40):
        candidates.add(encode_move(rng.randrange(64), rng.randrange(64), rng.choice([0, 0, 0, 1, 4, 5, 7]), 0))
    candidates.add(encode_move(rng.randrange(64), rng.randrange(64), 0, rng.randrange(4)))
    return candidates


def _describe(move: int) -> str:
    return f"from {move & 63} to {(move >> 6) & 63} promotion {(move >> 12) & 7} kind {move >> 15}"


@pytest.mark.parametrize("chess960", [False, True], ids=["standard", "chess960"])
def test_is_legal_normal_move_agrees_with_the_generator_on_moves_from_elsewhere(chess960):
    """A TT move may come from any position: for every candidate, the one-move test says what the generator's
    list says, except for castling and en passant, which it leaves to the generator."""
    rng = random.Random(74)
    tables = lookup_tables()
    starts = [(case.fen, case.chess960) for case in SUITES["perft-chess960" if chess960 else "perft-random"].cases()]
    positions = legal_checked = 0
    while positions < 1200:
        fen, flag = starts[rng.randrange(len(starts))]
        theirs = chess.Board(fen, chess960=flag)
        previous = jitfish.Board(fen, chess960=flag)
        for _ in range(60):
            ours = jitfish.Board(theirs.fen(), chess960=flag)
            flipped = theirs.copy(stack=False)
            flipped.turn = not flipped.turn
            flipped.ep_square = None
            others = [previous] + ([jitfish.Board(flipped.fen(), chess960=flag)] if flipped.is_valid() else [])
            legal = {int(m) for m in ours.position.legal_moves()}
            for move in _normal_move_candidates(rng, [ours, *others]):
                expected = move in legal and move >> 15 == MOVE_NORMAL
                found = is_legal_normal_move(ours.position.bbs, ours.position.state, tables, move)
                assert found == expected, f"{_describe(move)} at {theirs.fen()}: {found}"
                legal_checked += expected
            positions += 1
            moves = list(theirs.legal_moves)
            if not moves:
                break
            previous = ours
            theirs.push(choose_move(rng, theirs))
    assert legal_checked > 20_000
