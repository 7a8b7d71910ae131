"""One self-play game: a random opening vetted by a quick search, then the engine against itself.

Every move is a search of ``GameSettings.nodes`` soft nodes (no new iteration
starts past them; ``HARD_NODES_FACTOR`` times as many abort one) capped at
``GameSettings.depth_cap``.  Each searched position is recorded with its score
from white's view; when the game ends the quiet ones (:mod:`tuning.datagen.quiet`)
become lines labelled with the result.

A game depends only on the run's seed, its index and the settings: the
opening's random moves come from a generator seeded with both (drawn from
python-chess's list of legal moves, whose order a python-chess release
could change), and the searcher's table and heuristics are cleared before
the game, so that a single-threaded, node-limited search plays the same
moves whichever process plays the game and whatever it played before.

Games end on the board (checkmate, stalemate, insufficient material, the
fifty-move rule, threefold repetition) or by adjudication: a win once both
sides have scored it beyond ``WIN_SCORE`` for ``WIN_PLIES`` plies in a row, a
draw once a game past ``DRAW_MIN_PLY`` has stayed within ``DRAW_SCORE`` for
``DRAW_PLIES`` plies, and a draw at ``MAX_GAME_PLIES``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import chess

import jitfish
from jitfish.search import SearchLimits, Searcher
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN, format_line
from tuning.datagen.quiet import is_quiet

# Openings: this many random plies (± the spread), kept if a quick search scores them within the margin.
OPENING_PLIES = 8
OPENING_PLIES_SPREAD = 1
OPENING_NODES = 2000
OPENING_MAX_SCORE = 300
OPENING_ATTEMPTS = 1000

# Searches: the hard node limit, a multiple of the soft one, only guards against a runaway iteration.
HARD_NODES_FACTOR = 8
HASH_MB = 16

# Adjudication, scores in centipawns from white's view.
WIN_SCORE = 1000
WIN_PLIES = 4
DRAW_SCORE = 10
DRAW_PLIES = 10
DRAW_MIN_PLY = 80
MAX_GAME_PLIES = 400

DEFAULT_NODES = 5000
DEFAULT_DEPTH_CAP = 16


@dataclass(frozen=True)
class GameSettings:
    nodes: int = DEFAULT_NODES          # soft node limit per move
    depth_cap: int = DEFAULT_DEPTH_CAP  # deepest iteration per move

    def limits(self, nodes: int | None = None) -> SearchLimits:
        soft = self.nodes if nodes is None else nodes
        return SearchLimits(depth=self.depth_cap, soft_nodes=soft, nodes=soft * HARD_NODES_FACTOR)


@dataclass
class Game:
    """A finished game: its opening, the ending, the result and the lines of its quiet positions."""

    index: int
    opening: list[str]
    moves: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)   # white's view, one per searched position
    ending: str = ""
    result: float = DRAW
    lines: list[str] = field(default_factory=list)


def game_rng(seed: int, index: int) -> random.Random:
    """The random generator of game ``index`` in a run seeded with ``seed`` (string seeds hash stably)."""
    return random.Random(f"jitfish-datagen:{seed}:{index}")


def random_opening(rng: random.Random, searcher: Searcher, settings: GameSettings) -> chess.Board:
    """Random legal plies from the start, drawn until a quick search finds the result playable."""
    for _ in range(OPENING_ATTEMPTS):
        board = chess.Board()
        plies = OPENING_PLIES + rng.randint(-OPENING_PLIES_SPREAD, OPENING_PLIES_SPREAD)
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        result = searcher.search(jitfish.Board.from_chess(board), settings.limits(OPENING_NODES))
        if abs(result.score) <= OPENING_MAX_SCORE:
            return board
    raise RuntimeError(f"no playable opening in {OPENING_ATTEMPTS} attempts")


def ending_on_board(board: chess.Board) -> tuple[str, float] | None:
    """How the game ends on the board after the last move, and the result; ``None`` if it goes on."""
    if board.is_checkmate():
        return "checkmate", BLACK_WIN if board.turn == chess.WHITE else WHITE_WIN
    draws = (("stalemate", board.is_stalemate), ("insufficient material", board.is_insufficient_material),
             ("fifty-move rule", board.is_fifty_moves), ("threefold repetition", board.is_repetition))
    for ending, over in draws:
        if over():
            return ending, DRAW
    return None


def adjudicate(scores: list[int], ply: int) -> tuple[str, float] | None:
    """The adjudicated ending and result of a game at ``ply`` whose searched positions scored ``scores``
    (white's view, the last one most recent), or ``None`` to play on."""
    if ply >= MAX_GAME_PLIES:
        return "move limit", DRAW
    recent = scores[-WIN_PLIES:]
    if len(recent) == WIN_PLIES and all(s >= WIN_SCORE for s in recent):
        return "adjudicated win", WHITE_WIN
    if len(recent) == WIN_PLIES and all(s <= -WIN_SCORE for s in recent):
        return "adjudicated win", BLACK_WIN
    recent = scores[-DRAW_PLIES:]
    if ply >= DRAW_MIN_PLY and len(recent) == DRAW_PLIES and all(abs(s) <= DRAW_SCORE for s in recent):
        return "adjudicated draw", DRAW
    return None


def play_game(searcher: Searcher, seed: int, index: int, settings: GameSettings) -> Game:
    """Play game ``index`` of the run seeded with ``seed`` and label its quiet positions."""
    searcher.clear()
    board = random_opening(game_rng(seed, index), searcher, settings)
    game = Game(index, [move.uci() for move in board.move_stack])
    engine_board = jitfish.Board.from_chess(board)
    kept: list[tuple[str, int]] = []
    limits = settings.limits()
    while True:
        searched = searcher.search(engine_board, limits)
        white_score = searched.score if board.turn == chess.WHITE else -searched.score
        move = chess.Move.from_uci(searched.best_move)
        if is_quiet(board, move, searched.score):
            kept.append((board.fen(), white_score))
        game.scores.append(white_score)
        board.push(move)
        engine_board.push_uci(searched.best_move)
        game.moves.append(searched.best_move)
        ending = ending_on_board(board) or adjudicate(game.scores, board.ply())
        if ending is not None:
            break
    game.ending, game.result = ending
    game.lines = [format_line(fen, score, game.result) for fen, score in kept]
    return game

