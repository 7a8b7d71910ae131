"""The staged move picker: what order it hands moves out in, and that it hands each out once."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.search import buffers as B
from jitfish.search.context import new_context
from jitfish.search.evalstack import network_arrays
from jitfish.search.history import HISTORY_MAX, KILLERS, countermove_index, history_index
from jitfish.search.movepick import (
    SELECTION_PICKS,
    init_picker,
    init_qsearch_picker,
    next_move,
    quiet_score,
    skip_quiet_moves,
)
from jitfish.search.params import Param, default_params
from jitfish.search.tt import new_table
from tests.reference_history import capture_index
from tests.reference_see import see

PLY = 3
PREVIOUS_MOVE = 1234  # any non-zero code: the move that led to PLY, whose countermove is set
FENS = [
    "r3k2r/1P3ppp/2n5/3p4/4P3/2N2Q2/5PPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkb1r/pp1p1ppp/2p5/4P3/2B5/8/PPP1NnPP/RNBQK2R w KQkq - 0 6",
]
TT, GOOD_NOISY, KILLER_1, KILLER_2, COUNTER, QUIET, BAD_CAPTURE, UNDERPROMOTION = range(8)


class Node:
    """A node's move list at PLY with chosen TT move, killers, countermove and history."""

    def __init__(self, fen: str, seed: int) -> None:
        rng = random.Random(seed)
        self.board = chess.Board(fen)
        position = jitfish.Board(fen).position
        self.bbs, self.state, self.tables = position.bbs, position.state, lookup_tables()
        self.work = np.zeros(B.WORK_SIZE, dtype=np.int32)
        self.stack = B.new_stack()
        self.ctx = new_context(
            position,
            self.tables,
            default_weights(),
            network_arrays(None),
            default_params(),
            new_table(1),
            self.work,
            np.zeros(B.CONTROL_SIZE, dtype=np.int64),
            self.stack,
        )
        self.base = B.MOVES + PLY * MAX_MOVES
        moves = [int(m) for m in position.legal_moves()]
        rng.shuffle(moves)  # quiescence's picker takes the list as it lies: the order must not matter
        self.count = len(moves)
        self.work[self.base : self.base + self.count] = moves  # negamax's picker generates its own
        self.uci = {m: move_to_uci(m) for m in moves}
        quiets = [m for m in moves if self._is_quiet(m)]
        rng.shuffle(quiets)
        self.tt_move, killer_1, killer_2, counter = (quiets + [0, 0, 0, 0])[:4]
        self.work[KILLERS + 2 * PLY] = killer_1
        self.work[KILLERS + 2 * PLY + 1] = killer_2
        self.stack["move"][PLY - 1 + B.STACK_ROOT] = PREVIOUS_MOVE
        self.work[countermove_index(PREVIOUS_MOVE)] = counter
        self.special = {killer_1: KILLER_1, killer_2: KILLER_2, counter: COUNTER}
        side = int(self.state[jitfish.board.layout.SIDE_TO_MOVE])
        self.history = {m: rng.randrange(-2000, 2000) for m in quiets}
        for move, value in self.history.items():
            self.work[history_index(side, move)] = value
        for move in moves:  # promotions to different pieces share their capture's entry
            if self.board.is_capture(self._chess_move(move)):
                self.work[capture_index(self.board, move)] = rng.randrange(-HISTORY_MAX, HISTORY_MAX)

    def _chess_move(self, move: int) -> chess.Move:
        return chess.Move.from_uci(self.uci[move])

    def _is_quiet(self, move: int) -> bool:
        m = self._chess_move(move)
        return not self.board.is_capture(m) and m.promotion is None

    def category(self, move: int) -> int:
        m = self._chess_move(move)
        if move == self.tt_move:
            return TT
        if m.promotion not in (None, chess.QUEEN):
            return UNDERPROMOTION
        if self._is_quiet(move):
            return self.special.get(move, QUIET)
        # Classified by the plain-Python reference, not by the kernel the picker itself calls.
        return GOOD_NOISY if see(self.board, m) >= 0 else BAD_CAPTURE

    def mvv_lva(self, move: int) -> int:
        """Most valuable victim, then least valuable attacker; a queen promotion counts 64 more."""
        m = self._chess_move(move)
        victim = chess.PAWN if self.board.is_en_passant(m) else self.board.piece_type_at(m.to_square) or 0
        attacker = self.board.piece_type_at(m.from_square)
        return victim * 16 - (attacker - 1) + (64 if m.promotion == chess.QUEEN else 0)

    def noisy_order(self, move: int) -> int:
        """How captures and queen promotions are ordered: MVV-LVA, weighted, plus capture history."""
        history = (
            int(self.work[capture_index(self.board, move)]) if self.board.is_capture(self._chess_move(move)) else 0
        )
        return self.mvv_lva(move) * int(default_params()[Param.CAPTURE_MVV_LVA_WEIGHT]) + history

    def start(self, sort_rest: bool) -> bool:
        """Start the picker, which generates the moves (after a legal TT move, at the second pick)."""
        return init_picker(self.ctx, PLY, self.tt_move, 0, sort_rest)

    def next(self) -> int:
        slot = next_move(self.ctx, PLY)
        return -1 if slot < 0 else int(self.work[slot])

    def drain(self) -> list[int]:
        picked = []
        while (move := self.next()) != -1:
            picked.append(move)
        return picked


CASES = [(fen, seed) for fen in FENS for seed in range(4)]


@pytest.mark.parametrize("sort_rest", [False, True])
@pytest.mark.parametrize("fen,seed", CASES)
def test_stages_come_in_order_each_best_first(fen, seed, sort_rest):
    node = Node(fen, seed)
    node.start(sort_rest)
    picked = node.drain()
    assert sorted(picked) == sorted(int(m) for m in node.work[node.base : node.base + node.count])
    categories = [node.category(m) for m in picked]
    assert categories == sorted(categories), [(node.uci[m], c) for m, c in zip(picked, categories)]
    good = [node.noisy_order(m) for m, c in zip(picked, categories) if c == GOOD_NOISY]
    assert good == sorted(good, reverse=True)
    history = [node.history[m] for m, c in zip(picked, categories) if c == QUIET]
    assert history == sorted(history, reverse=True)


def test_a_legal_tt_move_is_handed_out_before_anything_is_generated_or_scored():
    node = Node(FENS[1], 0)
    moves = slice(node.base + 1, node.base + node.count)
    scores = slice(node.base + B.SCORES, node.base + B.SCORES + node.count)
    node.work[moves] = 5
    node.work[scores] = 77
    assert node.start(False)
    assert node.next() == node.tt_move
    assert (node.work[moves] == 5).all() and (node.work[scores][1:] == 77).all()
    second = node.next()
    assert node.work[node.base] == node.tt_move and second in node.uci and second != node.tt_move
    assert sorted(node.work[node.base : node.base + node.count]) == sorted(node.uci)


@pytest.mark.parametrize("fen,seed", CASES[::3])
def test_a_tt_move_that_is_not_legal_here_is_never_handed_out(fen, seed):
    node = Node(fen, seed)
    other = next(
        int(m)
        for m in jitfish.Board(FENS[(FENS.index(fen) + 1) % len(FENS)]).position.legal_moves()
        if int(m) not in node.uci
    )
    node.tt_move = other
    node.start(True)
    assert sorted(node.drain()) == sorted(node.uci)


@pytest.mark.parametrize("tt_move", [0, 1234])
def test_a_node_without_legal_moves_starts_no_picker(tt_move):
    node = Node("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0)
    node.tt_move = tt_move
    assert node.count == 0 and not node.start(False)
    assert node.next() == -1


@pytest.mark.parametrize("fen,seed", CASES)
def test_skipping_quiet_moves_hands_out_the_rest_as_they_lie(fen, seed):
    node = Node(fen, seed)
    node.start(True)
    first = [node.next() for _ in range(2)]
    skip_quiet_moves(node.ctx, PLY)
    lying = [int(m) for m in node.work[node.base + 2 : node.base + node.count]]
    assert node.drain() == lying
    assert sorted(first + lying) == sorted(node.history.keys() | {m for m in node.uci if not node._is_quiet(m)})


@pytest.mark.parametrize("fen,seed", CASES)
def test_a_quiet_move_handed_out_unscored_is_scored_when_asked(fen, seed):
    node = Node(fen, seed)
    node.start(True)
    node.next()
    node.next()
    skip_quiet_moves(node.ctx, PLY)
    for slot in range(node.base + 2, node.base + node.count):
        move = int(node.work[slot])
        if node._is_quiet(move) and move != node.tt_move:
            kind = node.category(move)
            score = quiet_score(node.ctx, PLY, slot)
            expected = {KILLER_1: 1 << 27, KILLER_2: (1 << 27) - 1, COUNTER: (1 << 27) - 2}
            assert score == expected.get(kind, node.history.get(move))


def test_moves_past_the_selection_picks_are_sorted_once():
    node = Node(FENS[1], 1)
    node.start(True)
    for _ in range(SELECTION_PICKS + 1):
        node.next()
    rest = node.work[node.base + SELECTION_PICKS + B.SCORES : node.base + node.count + B.SCORES]
    assert (np.diff(rest) <= 0).all()


@pytest.mark.parametrize("fen,seed", CASES)
def test_quiescence_picks_the_tt_move_then_by_mvv_lva_and_capture_history(fen, seed):
    node = Node(fen, seed)
    init_qsearch_picker(node.ctx, PLY, node.count, node.tt_move)
    picked = node.drain()
    assert picked[0] == node.tt_move and len(picked) == node.count
    noisy = [node.noisy_order(m) for m in picked[1:] if not node._is_quiet(m) and node.category(m) != UNDERPROMOTION]
    assert noisy == sorted(noisy, reverse=True)
