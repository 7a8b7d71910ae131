"""Random games played on a Jitfish board and a python-chess board side by side.

At every position visited, the two must agree on the legal moves, the FEN
(X-FEN and Shredder-FEN) and check; the incremental Zobrist key must equal
the key computed from scratch, and for standard chess the Polyglot key.
When a game ends, it is taken back move by move, and each ``pop`` must
restore the exact arrays and FEN that the position had.

Move choice is biased towards the special moves (castling, en passant,
promotions, captures) so that they are played far more often than uniform
random play would, and captures drain the material so that games reach
endgames.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import chess
import chess.polyglot
import numpy as np

import jitfish
from tests.reference import reference_uci_moves

SPECIAL_MOVE_CHANCE = 0.6  # pick among castling, en passant and promotions when there are any
CAPTURE_CHANCE = 0.4  # else among the captures
PAWN_MOVE_CHANCE = 0.4  # else among the pawn moves (they make en passant and promotions possible)
MAX_HALFMOVE_CLOCK = 60  # a game that shuffles this long has nothing more to show


@dataclass
class PlayoutStats:
    positions: int = 0
    games: int = 0
    moves: Counter = field(default_factory=Counter)  # kinds of move played
    positions_with: Counter = field(default_factory=Counter)  # features of positions visited

    def merge(self, other: PlayoutStats) -> None:
        self.positions += other.positions
        self.games += other.games
        self.moves.update(other.moves)
        self.positions_with.update(other.positions_with)


def move_kinds(board: chess.Board, move: chess.Move) -> list[str]:
    kinds = []
    if board.is_castling(move):
        kinds.append("castling")
    if board.is_en_passant(move):
        kinds.append("en_passant")
    if move.promotion:
        kinds.append("promotion" if move.promotion == chess.QUEEN else "underpromotion")
    if board.is_capture(move):
        kinds.append("capture")
    return kinds


def choose_move(rng: random.Random, board: chess.Board) -> chess.Move:
    moves = list(board.legal_moves)
    special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion]
    if special and rng.random() < SPECIAL_MOVE_CHANCE:
        return rng.choice(special)
    captures = [m for m in moves if board.is_capture(m)]
    if captures and rng.random() < CAPTURE_CHANCE:
        return rng.choice(captures)
    pawn_moves = [m for m in moves if board.pawns & chess.BB_SQUARES[m.from_square]]
    if pawn_moves and rng.random() < PAWN_MOVE_CHANCE:
        return rng.choice(pawn_moves)
    return rng.choice(moves)


def describe(theirs: chess.Board, label: str) -> str:
    """Where a comparison failed: the game, the start position and the moves played (built only on failure)."""
    root = theirs.root()
    moves = " ".join(m.uci() for m in theirs.move_stack)
    return f"{label}, ply {len(theirs.move_stack)}: {theirs.fen()} (from {root.fen()} moves {moves})"


def compare_position(ours: jitfish.Board, theirs: chess.Board, stats: PlayoutStats, label: str) -> tuple[str, bool]:
    """Assert that the two boards describe the same position; return its FEN and whether it has moves."""
    expected_moves = reference_uci_moves(theirs)
    our_moves = ours.legal_moves()
    assert len(our_moves) == len(set(our_moves)), f"duplicate moves {sorted(our_moves)} at {describe(theirs, label)}"
    assert set(our_moves) == expected_moves, (
        f"legal moves differ at {describe(theirs, label)}: missing {sorted(expected_moves - set(our_moves))}, "
        f"extra {sorted(set(our_moves) - expected_moves)}"
    )
    fen = ours.fen()
    assert fen == theirs.fen(), describe(theirs, label)
    if theirs.castling_rights:  # without rights the Shredder-FEN is the FEN
        assert ours.fen(shredder=True) == theirs.fen(shredder=True), describe(theirs, label)
    assert ours.is_check() == theirs.is_check(), describe(theirs, label)
    key = ours.zobrist()
    assert key == ours.zobrist_from_scratch(), (
        f"incremental key differs from the key from scratch at {describe(theirs, label)}"
    )
    if not theirs.chess960:
        assert key == chess.polyglot.zobrist_hash(theirs), f"not the Polyglot key at {describe(theirs, label)}"

    stats.positions += 1
    features = stats.positions_with
    if theirs.is_check():
        features["check"] += 1
    if not expected_moves:
        features["checkmate" if theirs.is_check() else "stalemate"] += 1
    if theirs.has_legal_en_passant():
        features["legal_en_passant"] += 1
    if theirs.castling_rights:
        features["castling_rights"] += 1
    if chess.popcount(theirs.occupied) <= 6:
        features["endgame"] += 1
    return fen, bool(expected_moves)


def play_game(
    start_fen: str, chess960: bool, rng: random.Random, max_plies: int, stats: PlayoutStats, label: str
) -> None:
    """Play one biased random game from ``start_fen``, comparing every position, then take it all back."""
    theirs = chess.Board(start_fen, chess960=chess960)
    ours = jitfish.Board(start_fen, chess960=chess960)
    history: list[tuple[np.ndarray, np.ndarray, str, str]] = []
    for ply in range(max_plies + 1):
        fen, has_moves = compare_position(ours, theirs, stats, label)
        if (
            not has_moves
            or theirs.is_insufficient_material()
            or theirs.halfmove_clock >= MAX_HALFMOVE_CLOCK
            or ply == max_plies
        ):
            break
        move = choose_move(rng, theirs)
        uci = theirs.uci(move, chess960=chess960)
        stats.moves.update(move_kinds(theirs, move))
        history.append((ours.position.bbs.copy(), ours.position.state.copy(), fen, uci))
        ours.push_uci(uci)
        theirs.push(move)
    # python-chess keeps moves as it writes them: e1g1, or king-takes-rook on a Chess960 board.
    assert ours.move_stack == [m.uci() for m in theirs.move_stack], label

    while history:
        bbs, state, fen, uci = history.pop()
        assert ours.pop() == uci, label
        where = f"{label} after popping {uci} back to {fen}"
        assert np.array_equal(ours.position.bbs, bbs), where
        assert np.array_equal(ours.position.state, state), where
        assert ours.fen() == fen, where
    assert ours.fen() == jitfish.Board(start_fen, chess960=chess960).fen()
    stats.games += 1


def play_games(
    starts: list[tuple[str, bool, str]],
    seed: int,
    max_plies: int,
    min_positions: int,
) -> PlayoutStats:
    """Cycle through ``(fen, chess960, label)`` starts until ``min_positions`` positions were compared."""
    rng = random.Random(seed)
    stats = PlayoutStats()
    game = 0
    while stats.positions < min_positions:
        fen, chess960, label = starts[game % len(starts)]
        play_game(fen, chess960, rng, max_plies, stats, f"{label} game {game} (seed {seed})")
        game += 1
    return stats
