"""The layout of the search's preallocated buffers, and node counting.

Each search thread has two, allocated once by :mod:`jitfish.search.driver`
(two arrays rather than six: every array argument costs a recursive call
seven machine words):

* ``control`` (``int64``): node counter, stop flag and limits, searchmoves
  (the ``C_*`` fields; other threads write the stop flag at any moment),
  then from ``STACK`` the per-ply stack: ``STACK_WIDTH`` fields per ply
  (``S_*``) holding what negamax keeps for its children (static eval, move
  made, excluded move), the material and piece-square score of each ply's
  position, and the frames of the iterative quiescence search (``S_Q_*``).
* ``work`` (``int32``): the move-ordering memory (killers, history,
  countermoves, laid out from 0 by :mod:`jitfish.search.history`), from
  ``PV`` the triangular PV table (row ``ply`` at ``PV + ply * PV_STRIDE``:
  length, then moves), from ``MOVES`` ``MAX_MOVES`` move slots per ply, and
  each slot's ordering score ``SCORES`` slots further on, then from ``LMR``
  the late-move reduction table (filled once, by negamax's formula).
"""

from __future__ import annotations

from jitfish.jit import kernel
from jitfish.board.moves import MAX_MOVES
from jitfish.eval.evaluation import evaluate_with_psq, psq_delta
from jitfish.search.history import HEURISTICS_SIZE
from jitfish.search.tt import tt_eval
from jitfish.types import INF, MAX_PLY

# The control array.
C_NODES = 0                  # nodes searched (this thread)
C_STOP = 1                   # set to 1 (by anyone) to abort
C_NODE_LIMIT = 2             # stop after this many nodes
C_SELDEPTH = 3               # deepest ply reached
C_AGE = 4                    # TT generation of this search
C_POLL_MASK = 5              # poll the limits when nodes & mask == 0
C_ROOT_COUNT = 6             # number of allowed root moves (0: all)
C_CURRMOVE = 7               # root move being searched | its number << 32 (for currmove reports)
C_NMP_MIN_PLY = 8            # no null move before this ply (set during a null-move verification search)
C_ROOT_MOVES = 9             # allowed root moves
STACK = C_ROOT_MOVES + MAX_MOVES   # where the per-ply stack begins

# Per-ply stack fields: negamax's ...
S_EVAL = 0                   # static evaluation (NO_EVAL in check)
S_MOVE = 1                   # move made from this ply (0: null move)
S_EXCLUDED = 2               # move left out by a singular-extension search
S_PSQ_MG = 10                # material + piece-square score (white's view), kept move by move
S_PSQ_EG = 11
S_CHECK_KNOWN = 12           # set by the parent just before the call: one of the three below
CHECK_UNKNOWN = 0            # (the root, and quiescence's inner nodes: test it)
GAVE_NO_CHECK = 1
GAVE_CHECK = 2
# ... and a quiescence node's frame, kept here while its child is searched.
S_Q_ALPHA = 3
S_Q_BETA = 4
S_Q_BEST_SCORE = 5
S_Q_BEST_MOVE = 6
S_Q_STAND_PAT = 7            # static eval, or NO_EVAL in check
S_Q_COUNT = 8                # moves generated
S_Q_NEXT = 9                 # index of the next move to try
STACK_WIDTH = 13
STACK_SIZE = (MAX_PLY + 4) * STACK_WIDTH
CONTROL_SIZE = STACK + STACK_SIZE
NO_EVAL = -INF

# The work array.
PV_STRIDE = MAX_PLY + 2
PV_SIZE = PV_STRIDE * (MAX_PLY + 2)
MOVES_SIZE = (MAX_PLY + 2) * MAX_MOVES
PV = HEURISTICS_SIZE
MOVES = PV + PV_SIZE
SCORES = MOVES_SIZE          # from a move's slot to its score's
LMR = MOVES + 2 * MOVES_SIZE  # late-move reductions by [depth * LMR_SIDE + move number], written once
LMR_SIDE = 64
WORK_SIZE = LMR + LMR_SIDE * LMR_SIDE


@kernel(hot=True)
def visit_node(control, ply):
    """Count a node, and every few thousand nodes check the node limit."""
    nodes = control[C_NODES] + 1
    control[C_NODES] = nodes
    if ply > control[C_SELDEPTH]:
        control[C_SELDEPTH] = ply
    if (nodes & control[C_POLL_MASK]) == 0 and nodes >= control[C_NODE_LIMIT]:
        control[C_STOP] = 1


@kernel(hot=True, inline=True)
def set_child_psq(control, state, weights, ply, move):
    """Before ``move`` is made at ``ply``: the material and piece-square score of the position after it."""
    mg, eg = psq_delta(state, weights, move)
    here = STACK + ply * STACK_WIDTH
    child = here + STACK_WIDTH
    control[child + S_PSQ_MG] = control[here + S_PSQ_MG] + mg
    control[child + S_PSQ_EG] = control[here + S_PSQ_EG] + eg


@kernel(hot=True)
def set_null_move_psq(control, ply):
    """A null move changes no piece: the child's score is this ply's."""
    here = STACK + ply * STACK_WIDTH
    control[here + STACK_WIDTH + S_PSQ_MG] = control[here + S_PSQ_MG]
    control[here + STACK_WIDTH + S_PSQ_EG] = control[here + S_PSQ_EG]


@kernel(hot=True, inline=True)
def static_eval_at(bbs, state, tables, weights, control, ply, found, data):
    """The static evaluation at ``ply``: stored in the TT entry ``data`` if ``found``, else computed."""
    if found:
        return tt_eval(data)
    return evaluate_at(bbs, state, tables, weights, control, ply)


@kernel(hot=True, inline=True)
def evaluate_at(bbs, state, tables, weights, control, ply):
    """The static evaluation at ``ply``, from the material and piece-square score kept on the stack."""
    here = STACK + ply * STACK_WIDTH
    return evaluate_with_psq(bbs, state, tables, weights, control[here + S_PSQ_MG], control[here + S_PSQ_EG])
