"""Where averaging over clairvoyance goes wrong: a move that only pays if you already know where the pieces are.

Equation 4 values a move by the average, over the states the player thinks
possible, of a search *that sees the whole board* after it.  Each search
plays on as if its state were the truth, so a move that sets up a winning
continuation *different in every state* scores as if the player would know
which one to play.  It will not: next move it knows no more than now (here:
the umpire says nothing that tells the states apart), and must play one
continuation in all of them.

The position: White knows its own pieces and that Black has a king on e8, a
bishop on a8, a rook on c5, and a queen that is on b7 or on f7 (two states,
equally likely).  White's knight on e4 can take the rook (Nxc5, a
rook in both states) or give check from d6 (Nd6+), forking the king and the
queen wherever it is: Nxb7 wins it in one state, Nxf7 in the other.
Averaged over clairvoyant searches the fork is worth more; but after the
king's reply White must pick Nxb7 or Nxf7 not knowing which is right, and
the wrong one puts the knight on an empty square.

:func:`clairvoyance` computes both numbers for every move: its equation-4
average, and its value when the next move too must be chosen without
knowing the state (the same average, taken one move later over the states
White cannot tell apart by what it heard; Black answers as the search does,
seeing everything).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from jitfish.teach.kriegspiel import announce, game_end
from jitfish.teach.kriegspiel_game import DEFAULT_DEPTH, MATE_IN_AVERAGE, SearchValues, average_values

# White: Kg1, Ra1, Bc1, Ne4, pawns a2 b2 f3 g2 h2; Black: Ke8, Ba8, Rc5, pawns a7 g7 h7, the queen on b7 or f7.
STATES = (
    "b3k3/pq4pp/8/2r5/4N3/5P2/PP4PP/R1B3K1 w - - 0 1",
    "b3k3/p4qpp/8/2r5/4N3/5P2/PP4PP/R1B3K1 w - - 0 1",
)
SHOWN = 3  # moves reported: the best averages


@dataclass
class MoveValues:
    """A move's value in each state, its equation-4 average, and its value without clairvoyance for the next move."""

    move: str  # UCI
    san: str
    values: list[float]  # per state, by the search after the move (clairvoyant)
    average: float
    knowing: float  # the next move chosen knowing the state (the search's own assumption)
    honest: float  # the next move chosen not knowing it
    followups: list[str]  # the continuation chosen for each state, not knowing it (SAN)


@dataclass
class ClairvoyanceResult:
    states: list[str]
    depth: int
    moves: list[MoveValues]  # best average first

    @property
    def clairvoyant_choice(self) -> MoveValues:
        return self.moves[0]

    @property
    def honest_choice(self) -> MoveValues:
        """Of the moves with the best averages, the best when the next move is chosen not knowing the state."""
        return max(self.moves[:SHOWN], key=lambda m: m.honest)

    def text(self) -> str:
        lines = [f"{len(self.states)} states White cannot tell apart (equally likely):"]
        lines += [f"  {fen}" for fen in self.states]
        lines.append(
            f"{'move':>8} "
            + "".join(f"{'state ' + str(i + 1):>9}" for i in range(len(self.states)))
            + f" {'average':>9}   next move chosen knowing the state / not (the moves not knowing it)"
        )
        for m in self.moves[:SHOWN]:
            lines.append(
                f"{m.san:>8} "
                + "".join(f"{v:>+9.0f}" for v in m.values)
                + f" {m.average:>+9.1f}   {m.knowing:>+8.1f} / {m.honest:+.1f}  ({', '.join(m.followups)})"
            )
        chosen, honest = self.clairvoyant_choice, self.honest_choice
        lines.append(
            f"Averaging over clairvoyance plays {chosen.san} ({chosen.average:+.1f}); with its next move chosen "
            f"not knowing the state it is worth {chosen.honest:+.1f}, and {honest.san} "
            f"({honest.honest:+.1f}) is better."
        )
        return "\n".join(lines)


def _value_after(board: chess.Board, move: chess.Move, values: dict[str, int]) -> float:
    """The searched value of ``move``; a move illegal here counts as this state's best (the player tries again)."""
    return values.get(move.uci(), max(values.values()))


def clairvoyance(states=STATES, depth: int = DEFAULT_DEPTH) -> ClairvoyanceResult:
    """Every move of the first state, valued by equation 4 and without clairvoyance for the next move."""
    boards = [chess.Board(fen) for fen in states]
    if len({board.turn for board in boards}) != 1:
        raise ValueError("the states must have the same side to move")
    search = SearchValues(depth)
    tables = [search(board) for board in boards]
    averages = average_values(tables)
    results = []
    for uci, average in averages.items():
        move = chess.Move.from_uci(uci)
        # 1. Each state after the move, and Black's best answer there (it sees everything).
        after, heard = [], []
        for board in boards:
            if not board.is_legal(move):  # illegal here: the player would choose again; value as equation 4 does
                after.append(None)
                heard.append(("illegal",))
                continue
            said = announce(board, move)
            child = board.copy(stack=False)
            child.push(move)
            if game_end(child) is None:
                replies = search(child)
                reply = chess.Move.from_uci(next(iter(average_values([replies]))))
                said = (said, announce(child, reply))
                child.push(reply)
            after.append(child)
            heard.append(said)
        # 2. The next move, chosen by the average over the states that sounded the same.
        honest, knowing, followups = [], [], []
        for index, child in enumerate(after):
            if child is None or game_end(child) is not None:
                if child is None:
                    value = _value_after(boards[index], move, tables[index])
                else:
                    value = _ended(child, boards[0].turn)
                honest.append(value)
                knowing.append(value)
                followups.append("-")
                continue
            knowing.append(max(search(child).values()))
            alike = [c for c, h in zip(after, heard) if h == heard[index] and c is not None and game_end(c) is None]
            next_move = chess.Move.from_uci(next(iter(average_values([search(c) for c in alike]))))
            honest.append(_value_after(child, next_move, search(child)))
            followups.append(child.san(next_move) if child.is_legal(next_move) else f"{next_move.uci()}?")
        results.append(
            MoveValues(
                uci,
                boards[0].san(move) if boards[0].is_legal(move) else uci,
                [table.get(uci, max(table.values())) for table in tables],
                average,
                sum(knowing) / len(knowing),
                sum(honest) / len(honest),
                followups,
            )
        )
    return ClairvoyanceResult(list(states), depth, results)


def _ended(board: chess.Board, player: chess.Color) -> float:
    """The value for ``player`` of a finished game."""
    if game_end(board) == "checkmate":
        return -MATE_IN_AVERAGE if board.turn == player else MATE_IN_AVERAGE
    return 0.0
