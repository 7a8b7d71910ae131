"""Kriegspiel: chess in which each player sees only its own pieces, and an umpire tells what the rules say.

The rules (after the classic ones; python-chess decides what is legal):

* a player *attempts* a move; the umpire, who sees the board, answers
  "illegal" if it is not legal there (the player then tries again), and
  otherwise plays it;
* after each move the umpire announces to both players a capture and the
  square it took place on (not what was taken), a check and its direction
  (rank, file, long or short diagonal, knight), and checkmate or
  stalemate.  (Some rule sets also announce each turn how many pawn
  captures the player to move has; these are left out.)

A player's *belief state* is every position consistent with what it has
been told: its own moves, the answers to its own attempts, and the
announcements.  It starts as the one initial position and grows by the
opponent's unseen moves, about thirty for each position, so after a few
moves there are far too many to keep.  :class:`Belief` keeps them all while
they number at most ``limit``, and from then on a uniform sample of
``limit`` of them, estimating the size: the sample's positions are expanded
and filtered as the exact set would be, and the estimate grows by the
sample's average number of consistent successors.  That counts a position
once for every way of reaching it, so it is capped by the number of ways
the opponent's remaining pieces could stand.  A sample may lose every
position consistent with what is told next (the truth was not among them);
it is then drawn again by replaying what it was told since a recent sample
(or since the belief was last exact) with random consistent opponent moves
(:meth:`Belief.regenerate`), as is a sample that has shrunk below the few
positions a player chooses by.  When that finds nothing within its budget,
the sample follows the announcement loosely (the closest positions there
are) and is no longer quite consistent: the price of keeping the work
bounded.  Once the opponent has its king alone (we hear our captures, so we
know), its positions are few again: every square the king could stand on
makes a *bounded* belief, a superset of the consistent positions that holds
the true one.

The opponent's illegal attempts are heard too, but without knowing the move
attempted they rule out nothing, and are ignored.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import chess

KNIGHT_CHECK = "knight"
CHECKPOINTS = 6  # recent samples a belief keeps to draw new positions from
RECOVERY_MOVES = 3  # a lost sample is searched again from the last consistent one this many opponent moves back
LONE_KING = 15  # captures that leave the opponent its king alone
BREADTH = 8  # regenerating, the last sample's successors are followed up to this many times the limit


@dataclass(frozen=True)
class Announcement:
    """What the umpire says after a move: a capture's square, the checks' directions, the end of the game."""

    capture: str | None = None  # square name, e.g. "e5"
    checks: tuple[str, ...] = ()  # "rank", "file", "long diagonal", "short diagonal", "knight"
    end: str | None = None  # "checkmate", "stalemate", "draw (insufficient material)"

    def text(self) -> str:
        said = []
        if self.capture:
            said.append(f"capture at {self.capture}")
        said += [f"check ({direction})" for direction in self.checks]
        if self.end:
            said.append(self.end)
        return ", ".join(said) or "-"


def check_direction(king: chess.Square, checker: chess.Square, piece_type: chess.PieceType) -> str:
    """The direction of a check as the umpire names it, seen from the king's square."""
    if piece_type == chess.KNIGHT:
        return KNIGHT_CHECK
    if chess.square_rank(king) == chess.square_rank(checker):
        return "rank"
    if chess.square_file(king) == chess.square_file(checker):
        return "file"
    file, rank = chess.square_file(king), chess.square_rank(king)
    # The two diagonals through the king: a1-h8 direction (length 8 - |file - rank|) and a8-h1 (8 - |file + rank - 7|).
    rising = 8 - abs(file - rank)
    falling = 8 - abs(file + rank - 7)
    on_rising = chess.square_file(checker) - chess.square_rank(checker) == file - rank
    mine, other = (rising, falling) if on_rising else (falling, rising)
    return "long diagonal" if mine > other else "short diagonal"


def capture_square(board: chess.Board, move: chess.Move) -> str | None:
    """The square a capture takes place on (en passant: the taken pawn's), or None."""
    if board.is_en_passant(move):
        return chess.square_name(move.to_square + (-8 if board.turn == chess.WHITE else 8))
    if board.is_capture(move):
        return chess.square_name(move.to_square)
    return None


def _checks(board: chess.Board) -> tuple[str, ...]:
    """The directions of the checks on the side to move (none, one, or two for a double check)."""
    king = board.king(board.turn)
    if king is None:
        return ()
    return tuple(sorted(check_direction(king, square, board.piece_type_at(square)) for square in board.checkers()))


def game_end(board: chess.Board) -> str | None:
    """The umpire's word on a position where the game ends, else None."""
    if not any(board.generate_legal_moves()):
        return "checkmate" if board.is_check() else "stalemate"
    if board.is_insufficient_material():
        return "draw (insufficient material)"
    return None


def announce(board: chess.Board, move: chess.Move) -> Announcement:
    """What the umpire announces when the legal ``move`` is played on ``board`` (which is left as it was)."""
    capture = capture_square(board, move)
    board.push(move)
    try:
        return Announcement(capture, _checks(board), game_end(board))
    finally:
        board.pop()


def _matches(board: chess.Board, move: chess.Move, heard: Announcement) -> bool:
    """Whether playing ``move`` would make the umpire say ``heard`` (cheap tests first)."""
    if capture_square(board, move) != heard.capture:
        return False
    return announce(board, move) == heard


def position_key(board: chess.Board) -> tuple:
    """A position as the rules see it (castling and en passant rights included, clocks not)."""
    return (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
        board.occupied_co[chess.WHITE],
        board.turn,
        board.clean_castling_rights(),
        board.ep_square if board.ep_square is not None and board.has_legal_en_passant() else None,
    )


@dataclass
class Event:
    """Something a player was told: ``kind`` is "illegal" (its own attempt), "own" or "opponent" (a move)."""

    kind: str
    move: chess.Move | None
    heard: Announcement | None


class Belief:
    """The positions one player (``color``) holds possible: all of them, a few more, or a sample (see ``mode``)."""

    def __init__(
        self, color: chess.Color, start: chess.Board, limit: int = 256, seed: int = 1, minimum: int = 1
    ) -> None:
        if not 1 <= minimum <= limit:
            raise ValueError(f"a belief state's limit must be at least 1 and its minimum at most that; got {limit}")
        self.color = color
        self.limit = limit
        self.minimum = minimum  # a sample smaller than this is topped up (see :meth:`regenerate`)
        self.rng = random.Random(seed)
        self.positions = [start.copy(stack=False)]
        self.size = 1.0  # exact, an upper bound or an estimate, as ``mode`` says
        self.mode = "exact"  # "exact": every consistent position; "bounded": a few more; "sampled": a sample
        self.taken = 0  # the opponent's pieces we captured (we hear our captures)
        self.anchor = list(self.positions)  # the last exact belief, and what was told since
        self.events: list[Event] = []
        self.checkpoints: list[tuple[list[chess.Board], int]] = []  # recent samples, and the event they came before
        self.regenerations = 0
        self.relaxed = 0  # events the sample could not follow, and followed loosely (see ``_closest``)
        self.consistent = True  # every position consistent with everything told (false after following loosely)

    def __len__(self) -> int:
        return len(self.positions)

    def contains(self, board: chess.Board) -> bool:
        key = position_key(board)
        return any(position_key(position) == key for position in self.positions)

    # ------------------------------------------------------------------ what the player is told

    def illegal(self, move: chess.Move) -> None:
        """Its own attempt ``move`` was answered "illegal": only positions where it is illegal remain."""
        self._tell(Event("illegal", move, None))

    def own_move(self, move: chess.Move, heard: Announcement) -> None:
        """Its own ``move`` was played and ``heard`` announced."""
        self._tell(Event("own", move, heard))

    def opponent_move(self, heard: Announcement) -> None:
        """The opponent moved (unseen) and ``heard`` was announced: every consistent move, in every position."""
        self._tell(Event("opponent", None, heard))

    @property
    def exact(self) -> bool:
        return self.mode == "exact"

    def _tell(self, event: Event) -> None:
        if self.mode == "sampled" and event.kind == "opponent" and self.consistent:
            self.checkpoints = self.checkpoints[-(CHECKPOINTS - 1) :] + [(self.positions, len(self.events))]
        self.taken += event.kind == "own" and event.heard.capture is not None
        self.events.append(event)
        if self.mode == "sampled" and event.kind == "opponent" and self.taken == LONE_KING:
            successors, self.mode, self.consistent = self._lone_king(event.heard), "bounded", True
        else:
            successors = _unique([child for position in self.positions for child in _successors(position, event)])
        if self.mode != "sampled" and len(successors) <= self.limit:
            self.positions, self.size = successors, float(len(successors))
            self.anchor, self.events, self.checkpoints = list(self.positions), [], []
            return
        if self.mode != "sampled":  # too many to keep: a uniform sample of them from now on, the size known here
            self.size = float(len(successors))
            self.mode = "sampled"
        elif successors:  # a sample of the old belief expands into a sample of the new one
            self.size = min(self.size * len(successors) / len(self.positions), self._placements())
        if not self.consistent and event.kind == "opponent" and self._recent():  # lost: try to find the way back
            successors = self.regenerate(self.limit) or successors
        elif len(successors) < self.minimum:  # too few left to choose by: draw more
            successors = _unique(successors + self.regenerate(self.minimum - len(successors)))
        if not successors:  # the sample lost the truth and no history was found quickly: keep the closest
            successors = _unique([child for p in self.positions for child in _closest(p, event)])
            successors = [child for child in successors if child.is_valid()] or successors
            self.relaxed += 1
            self.consistent = False
        self.positions = successors if len(successors) <= self.limit else self.rng.sample(successors, self.limit)

    def regenerate(self, count: int, budget: int = 400) -> list[chess.Board]:
        """Up to ``count`` positions consistent with everything told since the belief was exact, or none.

        First every successor of the sample kept before the last opponent move
        (not only the sampled ones), followed through what was told since; then
        histories replayed one by one from the samples kept before earlier
        opponent moves (failing those, the last exact belief), with random
        consistent moves, backtracking from dead ends, ``budget`` expansions in all.
        """
        self.regenerations += 1
        if self.checkpoints:
            starts, first = self.checkpoints[-1]
            frontier = list(starts)
            for event in self.events[first:]:
                frontier = _unique([child for position in frontier for child in _successors(position, event)])
                if len(frontier) > BREADTH * self.limit:
                    frontier = self.rng.sample(frontier, BREADTH * self.limit)
            if frontier:
                self.consistent = True
                return frontier if len(frontier) <= count else self.rng.sample(frontier, count)
        found: dict[tuple, chess.Board] = {}
        spent = repeats = 0
        for starts, first in reversed([(self.anchor, 0)] + self.checkpoints[:-1]):
            while starts and len(found) < count and spent < budget and repeats < count:  # (repeats: may be no more)
                board, cost = self._history(self.rng.choice(starts), first, budget - spent)
                spent += cost
                if board is None:
                    break  # nothing from these within the budget: further back
                repeats += position_key(board) in found
                found.setdefault(position_key(board), board)
            if found or spent >= budget:
                break
        self.consistent = self.consistent or bool(found)
        return list(found.values())

    def _placements(self) -> float:
        """At most this many positions: the ways the opponent's remaining pieces could stand on the free squares.

        (Which squares, which is the king, a type of five for each other piece,
        four castling states.)  It caps the estimate, which counts a position
        once per way of reaching it and so grows too fast once pieces shuffle.
        """
        ours = chess.popcount(self.positions[0].occupied_co[self.color])
        pieces = 16 - self.taken
        return float(math.comb(64 - ours, pieces) * pieces * 5 ** (pieces - 1) * 4)

    def _lone_king(self, heard: Announcement) -> list[chess.Board]:
        """With only its king left the opponent's positions are few: every square its king can stand on now.

        Our pieces are known; the king is wherever it would be legal, and
        not in check (it is our move), or on the square of its capture.  A
        superset of the consistent positions (the history is forgotten), but
        it holds the true one: the belief is "bounded" from here on.
        """
        base = self.positions[0].copy(stack=False)
        for square in chess.SquareSet(base.occupied_co[not self.color]):
            base.remove_piece_at(square)
        if heard.capture is not None:
            base.remove_piece_at(chess.parse_square(heard.capture))
        base.turn, base.ep_square = self.color, None
        base.castling_rights &= chess.BB_RANK_1 if self.color == chess.WHITE else chess.BB_RANK_8
        squares = [chess.parse_square(heard.capture)] if heard.capture else chess.SquareSet(~base.occupied)
        positions = []
        for square in squares:
            board = base.copy(stack=False)
            board.set_piece_at(square, chess.Piece(chess.KING, not self.color))
            if board.is_valid() and game_end(board) is None:
                positions.append(board)
        return positions

    def _recent(self) -> bool:
        """Whether the last consistent sample is recent enough to search again from."""
        if not self.checkpoints:
            return False
        first = self.checkpoints[-1][1]
        return sum(event.kind == "opponent" for event in self.events[first:]) <= RECOVERY_MOVES

    def _history(self, start: chess.Board, first: int, budget: int) -> tuple[chess.Board | None, int]:
        """Depth first, children in random order: the first position that the events from ``first`` on lead to."""
        stack, spent = [[start]], 0
        while stack:
            level = stack[-1]
            if not level:  # a dead end: back up one step and drop the position that led here
                stack.pop()
                if stack:
                    stack[-1].pop()
                continue
            step = first + len(stack) - 1
            if step == len(self.events):
                return level[-1], spent
            if spent >= budget:
                return None, spent
            children = _successors(level[-1], self.events[step])
            spent += 1
            self.rng.shuffle(children)
            stack.append(children)
        return None, spent

    # ------------------------------------------------------------------ sampling

    def sample(self, count: int) -> list[chess.Board]:
        """``count`` positions drawn from the belief without replacement (all of them if fewer)."""
        if count >= len(self.positions):
            return list(self.positions)
        return self.rng.sample(self.positions, count)

    def size_text(self) -> str:
        return size_text(self.size, self.mode)


def size_text(size: float, mode: str) -> str:
    """A belief state's size: exact, ``<=`` an upper bound, ``~`` an estimate (large ones as powers of ten)."""
    number = f"{size:,.0f}" if size < 1e7 else f"{size:.1e}"
    return {"exact": "", "bounded": "<=", "sampled": "~"}[mode] + number


def _successors(position: chess.Board, event: Event) -> list[chess.Board]:
    """The positions ``position`` becomes under ``event``, if it is consistent with it (else none)."""
    if event.kind == "illegal":
        return [] if position.is_legal(event.move) else [position]
    if event.kind == "own":
        if not position.is_legal(event.move) or not _matches(position, event.move, event.heard):
            return []
        moves = [event.move]
    else:
        moves = [move for move in position.generate_legal_moves() if _matches(position, move, event.heard)]
    return [_pushed(position, move) for move in moves]


def _closest(position: chess.Board, event: Event) -> list[chess.Board]:
    """The nearest ``position`` can come to following ``event`` when it cannot be consistent with it.

    Our own pieces stay right, since we know them: an attempt answered
    "illegal" rules nothing out; our move is made whatever stands in its way;
    the opponent makes a move that takes on the announced square, or none
    that takes when none was announced; failing that it passes (and the
    piece it took on the announced square is removed).
    """
    if event.kind == "illegal":
        return [position]
    if event.kind == "own":
        return [_pushed(position, event.move)] if position.color_at(event.move.from_square) == position.turn else []
    moves = [m for m in position.generate_legal_moves() if capture_square(position, m) == event.heard.capture]
    if moves:
        return [_pushed(position, move) for move in moves]
    child = _pushed(position, chess.Move.null())
    if event.heard.capture is not None:
        child.remove_piece_at(chess.parse_square(event.heard.capture))
    return [child]


def _pushed(position: chess.Board, move: chess.Move) -> chess.Board:
    child = position.copy(stack=False)
    child.push(move)
    return child


def _unique(positions: list[chess.Board]) -> list[chess.Board]:
    """One board per position (two move orders can reach the same one)."""
    seen: dict[tuple, chess.Board] = {}
    for position in positions:
        seen.setdefault(position_key(position), position)
    return list(seen.values())
