"""One self-play game: a random opening vetted by a quick search, then the engine against itself.

Every move is a search of ``GameSettings.nodes`` soft nodes (no new iteration
starts past them; ``HARD_NODES_FACTOR`` times as many abort one) capped at
``GameSettings.depth_cap``: the searcher's iterative deepening and aspiration
windows (:class:`jitfish.search.Searcher` with one thread, the same moves,
scores and node counts), without its threads, clock, info reports and PV
strings, on the engine's own position arrays (no python-chess in the loop).
Each searched position is recorded with its score from white's view; the
quiet ones (:mod:`tuning.datagen.quiet`: the same test, compiled in
:mod:`tuning.datagen.kernels`) keep their score in the game's record
(:mod:`tuning.datagen.records`), the others are stored unlabelled.

A game depends only on the run's seed, its index and the settings: the
opening's random moves come from a generator seeded with both (drawn from
python-chess's list of legal moves, whose order a python-chess release
could change), and the search's table and heuristics are cleared before
the game, so that a node-limited search plays the same moves whichever
process plays the game and whatever it played before.  These are the
games the generator played before it wrote game files, move for move.

Games end on the board (checkmate, stalemate, insufficient material, the
fifty-move rule, threefold repetition) or by adjudication: a win once both
sides have scored it beyond ``WIN_SCORE`` for ``WIN_PLIES`` plies in a row, a
draw once a game past ``DRAW_MIN_PLY`` has stayed within ``DRAW_SCORE`` for
``DRAW_PLIES`` plies, and a draw at ``MAX_GAME_PLIES``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import chess

from jitfish.board import layout as L
from jitfish.board.makemove import make_move
from jitfish.board.moves import move_to_uci
from jitfish.board.position import STARTING_FEN, Position
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.nnue.format import read_network
from jitfish.nnue.inference import kernel_network
from jitfish.search import SearchLimits
from jitfish.search.params import checked_params, default_params
from jitfish.search.tt import AGE_MASK, new_table
from jitfish.search.worker import SearchWorker
from tuning.datagen.kernels import CHECKMATE, ENDING_NAMES, PLAYING, play_move, sorted_legal_moves
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN
from tuning.datagen.records import encode_game, pack

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
    nodes: int = DEFAULT_NODES  # soft node limit per move
    depth_cap: int = DEFAULT_DEPTH_CAP  # deepest iteration per move

    def limits(self, nodes: int | None = None) -> SearchLimits:
        soft = self.nodes if nodes is None else nodes
        return SearchLimits(depth=self.depth_cap, soft_nodes=soft, nodes=soft * HARD_NODES_FACTOR)


@dataclass
class Game:
    """A finished game: its start after the opening, the moves, every position's score (white's view),
    which positions are kept (quiet), the ending and the result."""

    index: int
    opening: list[int]  # the random plies, encoded moves
    start: Position  # the position after them (a copy)
    moves: list[int] = field(default_factory=list)  # encoded moves from ``start``
    numbers: list[int] = field(default_factory=list)  # each move's number among the sorted legal moves
    scores: list[int] = field(default_factory=list)  # white's view, one per searched position
    quiet: list[bool] = field(default_factory=list)  # whether that position is kept
    ending: str = ""
    result: float = DRAW

    @property
    def positions(self) -> int:
        """The labelled (kept) positions."""
        return sum(self.quiet)

    def record(self) -> bytes:
        """The game as a record of a game file: the quiet positions are labelled; the final position,
        never searched, is stored with the last score."""
        return encode_game(
            pack(self.start, 0, self.result), self.numbers, self.scores + self.scores[-1:], self.quiet + [False]
        )


def game_rng(seed: int, index: int) -> random.Random:
    """The random generator of game ``index`` in a run seeded with ``seed`` (string seeds hash stably)."""
    return random.Random(f"jitfish-datagen:{seed}:{index}")


def draw_opening(rng: random.Random) -> chess.Board | None:
    """``OPENING_PLIES`` (± the spread) random legal plies from the start, or ``None`` if they end the game.

    Drawn from python-chess's list of legal moves (once per game, not in the game's loop): the same
    openings, so the same games, as the generator before game files.
    """
    board = chess.Board()
    plies = OPENING_PLIES + rng.randint(-OPENING_PLIES_SPREAD, OPENING_PLIES_SPREAD)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return None if board.is_game_over() else board


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


class SelfPlayer:
    """One thread's search buffers (a :class:`~jitfish.search.worker.SearchWorker`), reused from game to game.

    ``network`` is the teacher: the network file whose evaluation the searches use (``None``: the
    hand-written evaluation).
    """

    def __init__(self, hash_mb: int = HASH_MB, network: str | Path | None = None) -> None:
        self.params = checked_params(default_params())
        self.weights = default_weights()
        self.tables = lookup_tables()
        self.tt = new_table(hash_mb)
        self.worker = SearchWorker(self.params, None if network is None else kernel_network(read_network(network)))
        self.age = 0

    def clear(self) -> None:
        """Forget the table and the move-ordering memory, as ``Searcher.clear`` does."""
        self.tt[:] = 0
        self.worker.heuristics[:] = 0
        self.age = 0

    def search(self, p: Position, soft_nodes: int, depth_cap: int) -> tuple[int, int]:
        """``(best move, score for the side to move)`` of a position with a legal move: the
        searcher's node-limited iterative deepening (``SearchWorker.iterate_nodes``) on this player's table."""
        self.age = (self.age + 1) & AGE_MASK
        self.worker.prepare(p, self.age, soft_nodes * HARD_NODES_FACTOR, [])
        best_move, score = self.worker.iterate_nodes(self.tt, self.weights, self.params, soft_nodes, depth_cap)
        if best_move == 0:  # no iteration left a PV: the searcher's fallback, the first legal move
            best_move = int(p.legal_moves()[0])
        return best_move, score

    def random_opening(self, rng: random.Random, settings: GameSettings) -> tuple[Position, list[int]]:
        """Random legal plies from the start, drawn until a quick search finds the result playable."""
        for _ in range(OPENING_ATTEMPTS):
            board = draw_opening(rng)
            if board is None:
                continue
            p = Position.from_fen(STARTING_FEN)
            opening = [self._encoded(p, move) for move in board.move_stack]
            _, score = self.search(p, OPENING_NODES, settings.depth_cap)
            if abs(score) <= OPENING_MAX_SCORE:
                return p, opening
        raise RuntimeError(f"no playable opening in {OPENING_ATTEMPTS} attempts")

    def _encoded(self, p: Position, move: chess.Move) -> int:
        """Play a python-chess move on ``p``; its engine encoding."""
        for encoded in sorted_legal_moves(p.bbs, p.state, self.tables):
            if move_to_uci(int(encoded)) == move.uci():
                play(p, int(encoded))
                return int(encoded)
        raise ValueError(f"{move.uci()} is not legal in {p.fen()}")

    def play_game(self, seed: int, index: int, settings: GameSettings) -> Game:
        """Play game ``index`` of the run seeded with ``seed``."""
        self.clear()
        p, opening = self.random_opening(game_rng(seed, index), settings)
        game = Game(index, opening, p.copy())
        while True:
            white = p.state[L.SIDE_TO_MOVE] == 0
            move, score = self.search(p, settings.nodes, settings.depth_cap)
            number, quiet, over = play_move(p.bbs, p.state, p.undo, p.key_history, self.tables, move, score)
            game.moves.append(move)
            game.numbers.append(int(number))
            game.scores.append(score if white else -score)
            game.quiet.append(bool(quiet))
            if over != PLAYING:
                game.ending = ENDING_NAMES[over]
                game.result = (WHITE_WIN if white else BLACK_WIN) if over == CHECKMATE else DRAW
                return game
            adjudicated = adjudicate(game.scores, int(p.state[L.GAME_PLY]))
            if adjudicated is not None:
                game.ending, game.result = adjudicated
                return game


def play(p: Position, move: int) -> None:
    """Make a legal encoded move on ``p``."""
    make_move(p.bbs, p.state, p.undo, p.key_history, lookup_tables(), move)


def warm_up(network: str | Path | None = None) -> None:
    """Load (or compile) every kernel a game with the teacher ``network`` and its record use: a tiny game."""
    SelfPlayer(hash_mb=1, network=network).play_game(0, 0, GameSettings(nodes=50, depth_cap=2)).record()
