"""The evaluation: colour symmetry, weights as data, terms that add up."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.tables import lookup_tables
from jitfish.eval import evaluate, evaluate_terms, load_weights, save_weights, trace
from jitfish.eval.evaluation import evaluate_white
from jitfish.eval.params import (
    CONSTANTS,
    OFFSETS,
    PHASE,
    PHASE_TOTAL,
    TERMS,
    WEIGHT_PAIRS,
    WEIGHTS_FILE,
    default_weights,
    weights_from_dict,
    weights_to_dict,
)

DATA = Path(__file__).resolve().parent.parent / "data"
WAC_POSITIONS = 60  # the first positions of Win At Chess


def _positions() -> list[str]:
    lines = (DATA / "win_at_chess.epd").read_text().splitlines()[:WAC_POSITIONS]
    fens = [line.split(" bm")[0].split(" am")[0] for line in lines]
    fens = [" ".join(f.split()[:4]) + " 0 1" for f in fens if f.strip()]
    fens += [
        jitfish.STARTING_FEN,
        "8/8/1p1k4/1P6/2K5/8/8/8 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ]
    return fens


POSITIONS = _positions()


def random_weights(rng: np.random.Generator, bound: int) -> np.ndarray:
    """Every weight pair drawn from [-bound, bound), the phase constants as shipped."""
    weights = default_weights().copy()
    weights[: 2 * WEIGHT_PAIRS] = rng.integers(-bound, bound, 2 * WEIGHT_PAIRS)
    return weights


def test_symmetric_under_colour_flip():
    """eval(pos) == eval(mirror) for the side to move, i.e. white's view negates."""
    tables = lookup_tables()
    weights = default_weights()
    checked = 0
    for fen in POSITIONS:
        board = chess.Board(fen)
        mirrored = board.mirror()
        a, b = jitfish.Board(board.fen()), jitfish.Board(mirrored.fen())
        assert evaluate(a) == evaluate(b), fen
        pa, pb = a.position, b.position
        mg_a, eg_a = evaluate_white(pa.bbs, pa.state, tables, weights)
        mg_b, eg_b = evaluate_white(pb.bbs, pb.state, tables, weights)
        assert (mg_a, eg_a) == (-mg_b, -eg_b), fen
        checked += 1
    assert checked >= 60


def test_symmetry_holds_for_random_weights():
    """Symmetry must not depend on the values: every term must mirror correctly."""
    rng = np.random.default_rng(1)
    weights = random_weights(rng, 50)
    for fen in POSITIONS[:30]:
        board = chess.Board(fen)
        assert evaluate(jitfish.Board(fen), weights) == evaluate(jitfish.Board(board.mirror().fen()), weights)


def test_start_position_is_only_tempo():
    terms = evaluate_terms(jitfish.Board())
    assert terms["total"] == terms["tempo"]
    assert evaluate(jitfish.Board()) > 0


def test_terms_add_up_to_total():
    for fen in POSITIONS[:20]:
        terms = evaluate_terms(jitfish.Board(fen))
        names = [name for name, _ in TERMS]
        mg = sum(terms[n][0] for n in names)
        eg = sum(terms[n][1] for n in names)
        assert (mg, eg) == terms["total"], fen


def test_material_counts():
    up_a_queen = jitfish.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert evaluate(up_a_queen) > 800
    up_a_queen_black_to_move = jitfish.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    assert evaluate(up_a_queen_black_to_move) < -800


def test_weights_are_an_argument_not_a_global():
    board = jitfish.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    weights = default_weights().copy()
    before = evaluate(board, weights)
    weights[2 * (OFFSETS["tempo"])] += 24  # tempo, middlegame; phase 20 of 24
    assert evaluate(board, weights) == before + 20
    assert evaluate(board) == before


def test_weights_file_round_trip(tmp_path):
    data = json.loads(WEIGHTS_FILE.read_text())
    assert list(data) == [name for name, _ in TERMS + CONSTANTS]
    weights = weights_from_dict(data)
    # The documented layout, spelled out without the loader: every value of the file in its order,
    # each (mg, eg) pair as two slots.
    flat = [
        value for values in data.values() for item in values for value in (item if isinstance(item, list) else [item])
    ]
    assert weights.tolist() == flat
    assert np.array_equal(default_weights(), weights)
    assert weights_to_dict(weights) == data
    for name in ("tempo", "phase"):
        with pytest.raises(ValueError, match=name):
            weights_from_dict({k: v for k, v in data.items() if k != name})
    with pytest.raises(ValueError, match="phase_total"):
        weights_from_dict(dict(data, phase_total=[0]))


def test_saved_weights_load_back_identical(tmp_path):
    """What the tuner writes through ``save_weights`` is what the engine loads, value for value."""
    weights = random_weights(np.random.default_rng(3), 1000)
    weights[-1] = 30  # phase_total
    path = tmp_path / "weights.json"
    save_weights(weights, path)
    assert np.array_equal(load_weights(path), weights)
    assert json.loads(path.read_text()) == weights_to_dict(weights)


def test_phase_weights_come_from_the_weight_file():
    """With every phase weight zero the taper is all endgame; a larger total dilutes the middlegame."""
    board = jitfish.Board()
    weights = default_weights().copy()
    mg, eg = evaluate_white(board.position.bbs, board.position.state, lookup_tables(), weights)
    weights[PHASE : PHASE + 4] = 0
    assert evaluate(board, weights) == eg
    weights[PHASE : PHASE + 4] = [1, 1, 2, 4]
    weights[PHASE_TOTAL] = 48
    assert evaluate(board, weights) == (mg * 24 + eg * 24) // 48


def test_weights_ship_with_the_package():
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "eval/*.json" in pyproject["tool"]["setuptools"]["package-data"]["jitfish"]
    assert WEIGHTS_FILE.name == "weights.json" and WEIGHTS_FILE.exists()


def _psq_after_each_move(fen: str, plies: int, seed: int, weights, chess960: bool) -> tuple[int, set[str]]:
    """Play random legal moves from ``fen``; at each one compare the kept score with a recount.

    Returns how many moves were checked and which special kinds were among them.
    """
    from jitfish.eval.evaluation import psq_delta, psq_score

    rng = np.random.default_rng(seed)
    board = jitfish.Board(fen, chess960=chess960)
    p = board.position
    mg, eg = psq_score(p.bbs, weights)
    checked = 0
    kinds = set()
    for _ in range(plies):
        moves = board._encoded_legal_moves()
        if not len(moves):
            break
        move = int(moves[rng.integers(len(moves))])
        promotion = "promotion" if (move >> 12) & 7 else "normal"
        kinds.add({1: "en passant", 2: "castling"}.get(move >> 15, promotion))
        dmg, deg = psq_delta(p.state, weights, move)
        board.push(move)
        mg, eg = mg + dmg, eg + deg
        assert (mg, eg) == psq_score(p.bbs, weights), (fen, board.fen())
        checked += 1
    return checked, kinds


@pytest.mark.parametrize(
    "fen, chess960, special",
    [
        (jitfish.STARTING_FEN, False, "normal"),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False, "castling"),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False, "en passant"),
        ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", False, "promotion"),
        ("1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9", True, "castling"),
    ],
)
def test_kept_material_and_piece_square_score_matches_a_recount(fen, chess960, special):
    """The search adds ``psq_delta`` move by move; any drift would skew every evaluation."""
    rng = np.random.default_rng(7)
    for weights in (default_weights(), random_weights(rng, 300)):
        checked, kinds = 0, set()
        for seed in range(25):
            n, k = _psq_after_each_move(fen, 60, seed, weights, chess960)
            checked += n
            kinds |= k
        assert checked >= 300
        assert special in kinds


def test_evaluation_from_kept_score_equals_full_evaluation():
    from jitfish.eval.evaluation import evaluate as evaluate_kernel
    from jitfish.eval.evaluation import evaluate_with_psq, psq_score

    tables = lookup_tables()
    weights = default_weights()
    for fen in POSITIONS:
        p = jitfish.Board(fen).position
        mg, eg = psq_score(p.bbs, weights)
        assert evaluate_with_psq(p.bbs, p.state, tables, weights, mg, eg) == evaluate_kernel(
            p.bbs, p.state, tables, weights
        ), fen


def _passer_counts(board: chess.Board) -> dict[str, np.ndarray]:
    """White-minus-black counts of the passed-pawn blocks by python-chess: one per passer, blocked, king distances."""
    counts = {
        name: np.zeros(6, dtype=np.int64)
        for name in ("passed_pawn", "passed_blocked", "passed_own_king", "passed_enemy_king")
    }
    for colour in chess.COLORS:
        sign = 1 if colour == chess.WHITE else -1
        step = 8 if colour == chess.WHITE else -8
        for square in board.pieces(chess.PAWN, colour):
            file, rank = chess.square_file(square), chess.square_rank(square)
            ahead = range(rank + 1, 8) if colour == chess.WHITE else range(rank)
            if any(
                board.piece_at(chess.square(f, r)) == chess.Piece(chess.PAWN, not colour)
                for f in (file - 1, file, file + 1)
                if 0 <= f < 8
                for r in ahead
            ):
                continue
            index = (rank if colour == chess.WHITE else 7 - rank) - 1
            stop = square + step
            counts["passed_pawn"][index] += sign
            counts["passed_blocked"][index] += sign * (board.piece_at(stop) is not None)
            counts["passed_own_king"][index] += sign * chess.square_distance(board.king(colour), stop)
            counts["passed_enemy_king"][index] += sign * chess.square_distance(board.king(not colour), stop)
    return counts


def test_passed_pawns_count_rank_blockers_and_both_kings_distances():
    fens = POSITIONS + ["8/3k4/8/3P4/8/8/8/6K1 w - - 0 1", "8/8/1P6/1n6/8/k7/6p1/6K1 b - - 0 1"]
    seen = 0
    for fen in fens:
        coefficients = trace(jitfish.Board(fen))[0]
        for name, expected in _passer_counts(chess.Board(fen)).items():
            assert np.array_equal(coefficients[OFFSETS[name] : OFFSETS[name] + 6], expected), (fen, name)
        seen += bool(coefficients[OFFSETS["passed_blocked"] : OFFSETS["passed_blocked"] + 6].any())
    # d5 passer, stop d6: own king g1 is 5 away, the enemy king d7 1 away.
    coefficients = trace(jitfish.Board(fens[-2]))[0]
    assert coefficients[OFFSETS["passed_own_king"] + 3] == 5 and coefficients[OFFSETS["passed_enemy_king"] + 3] == 1
    assert seen >= 2
