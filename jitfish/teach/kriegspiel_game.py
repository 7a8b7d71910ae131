"""Kriegspiel between programs: a random legal player, and one that averages searches over its belief state.

The sampling player chooses by the lecture notes' equation 4: with the
missing information uncertain, play

    argmax over moves a of  sum over states s of  P(s) * MINIMAX(RESULT(s, a))

approximated by its Monte Carlo form, the average over ``N`` states drawn
from the belief state.  MINIMAX is the teaching alpha-beta search (move
ordering, table, PVS, quiescence) of each position after the move, to a
small depth.  A move that is illegal in a sampled state would be answered
"illegal" there, and the player would choose again knowing more: it counts
as that state's best move.  A mate counts as ``MATE_IN_AVERAGE`` centipawns
(less a centipawn a ply), more than any evaluation but not so much that one
sampled mate drowns the other samples.

Each search is *clairvoyant*: it plays on as if the sampled position were
the true one, and every later choice knew where the pieces are.  That is
what averaging over clairvoyance cannot see; :mod:`jitfish.teach.kriegspiel_clairvoyance`
shows a position where it matters.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import chess

from jitfish.teach.kriegspiel import Announcement, Belief, announce, game_end, position_key, size_text

DEFAULT_SAMPLES = 12
DEFAULT_DEPTH = 2
DEFAULT_LIMIT = 128  # positions a belief state holds before it is sampled
DEFAULT_MAX_MOVES = 80  # a game still going after this many moves is a draw
DEFAULT_SEED = 1
MATE_IN_AVERAGE = 20_000  # centipawns a mate counts for in an average (less a ply for each ply to it)
MAX_ATTEMPTS = 500  # illegal attempts in a row before the game is stopped (a safety net: never reached)
SHOWN_AVERAGES = 3
ENDGAME_EXTRA_DEPTH = 2  # plies searched further once the opponent has its king alone (a bounded belief)


class SearchValues:
    """The value of every legal move of a position, for the side to move, by the teaching alpha-beta."""

    def __init__(self, depth: int = DEFAULT_DEPTH) -> None:
        from jitfish.teach.ladder import _Buffers

        if not 1 <= depth <= 4:
            raise ValueError(f"the sampling player's search depth must be between 1 and 4, got {depth}")
        self.depth = depth
        self.buffers = _Buffers(tt_entries=1 << 16)
        self.searches = 0

    def __call__(self, board: chess.Board) -> dict[str, int]:
        from jitfish.board.board import Board
        from jitfish.board.moves import move_to_uci
        from jitfish.teach import kernels as K
        from jitfish.teach.ladder import _call
        from jitfish.types import MATE, MATE_BOUND

        features = K.TRANSPOSITION_TABLE | K.PVS | K.QUIESCENCE
        fields = board.fen().split()
        fields[4] = "0"  # the evaluation fades as the fifty-move rule nears; the umpire here does not apply it
        position = Board(" ".join(fields))
        values = {}
        for move in position.position.legal_moves():
            position.push(int(move))
            if not len(position.position.legal_moves()):
                value = MATE_IN_AVERAGE if position.is_check() else 0
            else:
                value = -_call("ordering", position.position, self.buffers, self.depth - 1, features=features)
                if abs(value) >= MATE_BOUND:  # MATE - plies, from the position after the move
                    value = (MATE_IN_AVERAGE - MATE + abs(value) - 1) * (1 if value > 0 else -1)
            self.searches += 1
            position.pop()
            values[move_to_uci(int(move), False)] = value
        return values


@dataclass
class Decision:
    """One choice of the sampling player: what it knew, and the averages it chose by."""

    move: chess.Move
    belief_size: float
    mode: str  # the belief state's: "exact", "bounded" (an upper bound) or "sampled" (an estimate)
    samples: int
    averages: dict[str, float]  # UCI -> the average over the samples, best first


class RandomPlayer:
    """Plays a legal move chosen uniformly at random (it asks the umpire which moves are legal)."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.rng = random.Random(seed)
        self.name = "random"

    def choose_legal(self, legal: list[chess.Move]) -> chess.Move:
        return self.rng.choice(legal)

    def tell_illegal(self, move: chess.Move) -> None:
        pass

    def tell_own(self, move: chess.Move, heard: Announcement) -> None:
        pass

    def tell_opponent(self, heard: Announcement) -> None:
        pass


class SamplingPlayer:
    """Keeps its belief state and plays the move with the best average search value over ``samples`` of it."""

    def __init__(
        self,
        color: chess.Color,
        samples: int = DEFAULT_SAMPLES,
        depth: int = DEFAULT_DEPTH,
        limit: int = DEFAULT_LIMIT,
        seed: int = DEFAULT_SEED,
        start: chess.Board | None = None,
    ) -> None:
        if samples < 1:
            raise ValueError(f"the sampling player needs at least 1 sample, got {samples}")
        self.belief = Belief(color, start or chess.Board(), max(limit, samples), seed, samples)
        self.samples = samples
        self.values = SearchValues(depth)
        self.endgame_values = SearchValues(min(depth + ENDGAME_EXTRA_DEPTH, 4))  # for a lone king's few squares
        self.name = f"{samples} samples"
        self.cache: dict[tuple, dict[str, int]] = {}
        self.refused: set[str] = set()  # this turn's attempts the umpire answered "illegal"

    def choose(self) -> Decision:
        """Equation 4 over a fresh sample of the belief state (never a move already refused this turn)."""
        drawn = self.belief.sample(self.samples)
        tables = []
        for board in drawn:
            if board.turn != self.belief.color or not board.is_valid():  # a lost sample's leftovers
                continue
            key = position_key(board)
            if key not in self.cache:
                self.cache[key] = (self.endgame_values if self.belief.mode == "bounded" else self.values)(board)
            table = {move: value for move, value in self.cache[key].items() if move not in self.refused}
            if table:
                tables.append(table)
        if not tables:  # a sample that lost track of the truth: a move its pieces could make, not yet refused
            moves = sorted(conceivable_moves(self.belief.positions[0], self.belief.color) - self.refused)
            return Decision(chess.Move.from_uci(self.belief.rng.choice(moves)), self.belief.size, "sampled", 0, {})
        averages = average_values(tables)
        best = next(iter(averages))
        return Decision(chess.Move.from_uci(best), self.belief.size, self.belief.mode, len(tables), averages)

    def tell_illegal(self, move: chess.Move) -> None:
        self.refused.add(move.uci())
        self.belief.illegal(move)

    def tell_own(self, move: chess.Move, heard: Announcement) -> None:
        self.belief.own_move(move, heard)
        self.cache.clear()
        self.refused.clear()

    def tell_opponent(self, heard: Announcement) -> None:
        self.belief.opponent_move(heard)


def conceivable_moves(board: chess.Board, color: chess.Color) -> set[str]:
    """Every move ``color``'s pieces could make with the opponent's pieces anywhere (UCI): a superset of the legal ones.

    The opponent's pieces but its king are taken off, so that nothing
    blocks; every diagonal step of a pawn is added, as a capture might be there.
    """
    empty = board.copy(stack=False)
    empty.turn = color
    for square in chess.SquareSet(empty.occupied_co[not color] & ~empty.kings):
        empty.remove_piece_at(square)
    moves = {move.uci() for move in empty.generate_pseudo_legal_moves()}
    for square in chess.SquareSet(empty.pawns & empty.occupied_co[color]):
        rank = chess.square_rank(square) + (1 if color == chess.WHITE else -1)
        for file in (chess.square_file(square) - 1, chess.square_file(square) + 1):
            if 0 <= file <= 7 and 0 <= rank <= 7:
                target = chess.square(file, rank)
                last = rank in (0, 7)
                for promotion in "qrbn" if last else "":
                    moves.add(chess.square_name(square) + chess.square_name(target) + promotion)
                if not last:
                    moves.add(chess.square_name(square) + chess.square_name(target))
    return moves


def average_values(tables: list[dict[str, int]]) -> dict[str, float]:
    """Each move's average over the sampled states, best first (ties in UCI order).

    Where a move is illegal in a state, the state counts with its best move.
    """
    moves = sorted({move for table in tables for move in table})
    averages = {move: sum(table.get(move, max(table.values())) for table in tables) / len(tables) for move in moves}
    return dict(sorted(averages.items(), key=lambda item: -item[1]))


@dataclass
class Ply:
    """One move of a game: who played it, what was tried first, what the umpire said, what the player knew."""

    number: int  # ply, from 1
    color: chess.Color
    player: str
    illegal: list[str]  # attempts answered "illegal" (UCI), in order
    move: str  # SAN in the true position
    heard: Announcement
    decision: Decision | None = None  # the sampling player's last choice (the one that was legal)
    truth_in_belief: bool | None = None  # whether the true position was in the belief when it chose
    averages: list[tuple[str, float]] = field(default_factory=list)  # the best averages, SAN where legal


@dataclass
class Game:
    white: str
    black: str
    seed: int
    plies: list[Ply] = field(default_factory=list)
    result: str = "*"  # "1-0", "0-1", "1/2-1/2"
    reason: str = ""
    trace: Any = field(default=None, repr=False, compare=False)  # a jitfish.teach.trace.Trace, when traced

    def _repr_html_(self) -> str | None:
        """In a notebook, the page that replays the traced game (none when it was not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)

    def score(self, color: chess.Color) -> float:
        """Points for ``color``: 1 a win, 1/2 a draw."""
        if self.result == "1/2-1/2":
            return 0.5
        return float(self.result == ("1-0" if color == chess.WHITE else "0-1"))


def play_game(
    white, black, seed: int = DEFAULT_SEED, max_moves: int = DEFAULT_MAX_MOVES, track_truth: bool = False, trace=None
):
    """One game with an umpire; ``track_truth`` records whether each belief held the true position.

    A ``trace`` (:class:`jitfish.teach.trace.Trace`) records every illegal
    attempt and every announcement, with the true position after the move and
    each sampling player's belief state (its size and kind) when it chose and
    once the announcement is heard.
    """
    game = _play(white, black, seed, max_moves, track_truth, trace)
    if trace is not None:
        trace.summary = {
            "plies": len(game.plies),
            "illegal attempts": sum(len(ply.illegal) for ply in game.plies),
            "result": f"{game.result} {game.reason}".strip(),
        }
    return game


def _play(white, black, seed: int, max_moves: int, track_truth: bool, trace) -> Game:
    """The game :func:`play_game` plays."""
    board = chess.Board()
    players = {chess.WHITE: white, chess.BLACK: black}
    game = Game(white.name, black.name, seed)
    game.trace = trace
    while True:
        end = game_end(board)
        if end is not None:
            game.reason = end
            game.result = ("0-1" if board.turn == chess.WHITE else "1-0") if end == "checkmate" else "1/2-1/2"
            return game
        if board.fullmove_number > max_moves:
            game.result, game.reason = "1/2-1/2", f"no result after {max_moves} moves"
            return game
        mover, other = players[board.turn], players[not board.turn]
        illegal, decision, truth = [], None, None
        while True:
            if isinstance(mover, RandomPlayer):
                move = mover.choose_legal(list(board.legal_moves))
            else:
                decision = mover.choose()
                move = decision.move
                if track_truth:
                    truth = mover.belief.contains(board)
            if board.is_legal(move):
                break
            illegal.append(move.uci())
            mover.tell_illegal(move)
            if trace is not None:
                trace.add("illegal", ply=len(board.move_stack) + 1, player=mover.name, move=move.uci())
            if len(illegal) >= MAX_ATTEMPTS:
                raise RuntimeError(f"{mover.name} made {MAX_ATTEMPTS} illegal attempts in a row")
        heard = announce(board, move)
        shown = [] if decision is None else [(_san(board, uci), v) for uci, v in decision.averages.items()]
        san = board.san(move)
        board.push(move)
        ply = Ply(len(board.move_stack), not board.turn, mover.name, illegal, san, heard, decision, truth)
        ply.averages = shown[:SHOWN_AVERAGES]
        game.plies.append(ply)
        if heard.end is None:
            mover.tell_own(move, heard)
            other.tell_opponent(heard)
        if trace is not None:
            trace.add(
                "announcement",
                ply=ply.number,
                color="White" if ply.color == chess.WHITE else "Black",
                player=mover.name,
                move=san,
                text=heard.text(),
                fen=board.fen(),
                chosen_with=None if decision is None else [decision.belief_size, decision.mode],
                belief={
                    name: [player.belief.size, player.belief.mode]
                    for name, player in (("White", white), ("Black", black))
                    if isinstance(player, SamplingPlayer)
                },
            )


def _san(board: chess.Board, uci: str) -> str:
    """A move in standard notation if it is legal on ``board`` (the true position), else as UCI text."""
    move = chess.Move.from_uci(uci)
    return board.san(move) if board.is_legal(move) else uci


def game_text(game: Game) -> str:
    """Per move: the player, its belief state's size and samples, its illegal attempts, the move, the umpire's words.

    For the sampling player, the moves with the best averages too.  A size
    is exact, ``<=`` an upper bound, or ``~`` an estimate.
    """
    lines = [
        f"Kriegspiel: {game.white} (White) against {game.black} (Black), seed {game.seed}",
        f"{'ply':>4}  {'player':<11} {'belief':>9} {'samples':>7}  {'move':<7} {'umpire':<37} "
        "tried first (illegal); best averages",
    ]
    for ply in game.plies:
        d = ply.decision
        size = "" if d is None else size_text(d.belief_size, d.mode)
        samples = "" if d is None else str(d.samples)
        notes = []
        if ply.illegal:
            notes.append("illegal: " + " ".join(ply.illegal))
        if ply.averages:
            notes.append(", ".join(f"{move} {value:+.0f}" for move, value in ply.averages))
        row = f"{ply.number:>4}  {ply.player:<11} {size:>9} {samples:>7}  {ply.move:<7} {ply.heard.text():<37} "
        lines.append((row + "; ".join(notes)).rstrip())
    lines.append(f"Result: {game.result} ({game.reason}) after {len(game.plies)} plies")
    return "\n".join(lines)


@dataclass
class Match:
    player: str
    opponent: str
    games: list[Game]

    @property
    def wins(self) -> int:
        return sum(1 for i, g in enumerate(self.games) if g.score(_color(i)) == 1)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.result == "1/2-1/2")

    @property
    def losses(self) -> int:
        return len(self.games) - self.wins - self.draws

    def text(self) -> str:
        lines = []
        for index, game in enumerate(self.games):
            color = "White" if _color(index) == chess.WHITE else "Black"
            lines.append(
                f"game {index + 1:>2} (seed {game.seed}): {self.player} as {color}: {game.result} "
                f"in {len(game.plies)} plies, {game.reason}"
            )
        lines.append(
            f"{self.player} against {self.opponent}: {self.wins} won, {self.draws} drawn, {self.losses} lost "
            f"({self.wins + self.draws / 2:g} of {len(self.games)})"
        )
        return "\n".join(lines)


def _color(game_index: int) -> chess.Color:
    """The sampling player's colour in a match's game: White first, then alternating."""
    return chess.WHITE if game_index % 2 == 0 else chess.BLACK


def match(
    games: int = 10,
    samples: int = DEFAULT_SAMPLES,
    opponent_samples: int | None = None,
    depth: int = DEFAULT_DEPTH,
    limit: int = DEFAULT_LIMIT,
    seed: int = DEFAULT_SEED,
    max_moves: int = DEFAULT_MAX_MOVES,
) -> Match:
    """The sampling player against the random one (or, with ``opponent_samples``, a sampling one), colours alternating.

    Game ``i`` uses the seed ``seed + i`` for both players: the same seed gives the same match.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    played = []
    for index in range(games):
        game_seed = seed + index
        color = _color(index)
        player = SamplingPlayer(color, samples, depth, limit, game_seed)
        if opponent_samples is None:
            opponent = RandomPlayer(game_seed)
        else:
            opponent = SamplingPlayer(not color, opponent_samples, depth, limit, game_seed + 1000)
        white, black = (player, opponent) if color == chess.WHITE else (opponent, player)
        played.append(play_game(white, black, game_seed, max_moves))
    return Match(player.name, opponent.name, played)
