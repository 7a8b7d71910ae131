"""The layout of the search's preallocated buffers, and node counting.

Each search thread has two, allocated once by :mod:`jitfish.search.driver`
(two arrays rather than six: every array argument costs a recursive call
seven machine words):

* ``control`` (``int64``): node counter, stop flag and limits, searchmoves
  (the ``C_*`` fields; other threads write the stop flag at any moment),
  then from ``STACK`` the per-ply stack: ``STACK_WIDTH`` fields per ply,
  ply ``p``'s from ``frame(p)`` (``S_*``), holding what negamax keeps for
  its children (static eval, move made, excluded move), what the parent
  sets before it searches a ply (whether its move gave check, the material
  and piece-square score, the pieces its move changed for the NNUE
  accumulators, ``S_NN_*``), the state of the node's move picker
  (``S_PICK_*``), and the frames of the iterative quiescence search
  (``S_Q_*``).
* ``work`` (``int32``): the move-ordering memory (killers, history,
  countermoves, laid out from 0 by :mod:`jitfish.search.history`), from
  ``PV`` the triangular PV table (row ``ply`` at ``PV + ply * PV_STRIDE``:
  length, then moves), from ``MOVES`` ``MAX_MOVES`` move slots per ply, and
  each slot's ordering score ``SCORES`` slots further on, then from ``LMR``
  the late-move reduction table (filled once, by negamax's formula).

Each layout is a list of ``(name, size)`` fields (``*_FIELDS``) whose offsets
are derived at import, as in :mod:`jitfish.eval.params`: adding a field means
adding one line.  The offsets are module-level ints, constants to Numba.
"""

from __future__ import annotations

from jitfish.jit import kernel
from jitfish.board.layout import field_offsets
from jitfish.board.moves import MAX_MOVES
from jitfish.eval.evaluation import psq_delta
from jitfish.search.history import HEURISTICS_SIZE
from jitfish.types import INF, MAX_PLY

# The per-ply stack: ``STACK_WIDTH`` fields per ply, from ``frame(ply)``.
STACK_FIELDS = (
    # negamax's node
    ("eval", 1),                 # static evaluation (NO_EVAL in check)
    ("move", 1),                 # move made from this ply (0: null move)
    ("excluded", 1),             # move left out by a singular-extension search
    # set by the parent before it searches this ply, for negamax and quiescence alike
    ("check_known", 1),          # one of CHECK_UNKNOWN, GAVE_NO_CHECK, GAVE_CHECK
    ("psq_mg", 1),               # material + piece-square score (white's view), kept move by move
    ("psq_eg", 1),
    ("nn_ready", 1),             # 1 once the NNUE accumulators of this ply are computed (search.evalstack)
    ("nn_removed_1", 1),         # the pieces the move into this ply took off the board ...
    ("nn_removed_2", 1),
    ("nn_added_1", 1),           # ... and put on it
    ("nn_added_2", 1),
    # the move picker of this ply's node (search.movepick), negamax's or quiescence's
    ("pick_stage", 1),           # one of movepick's STAGE_*
    ("pick_next", 1),            # index of the next move to hand out
    ("pick_count", 1),           # moves generated
    ("pick_quiets", 1),          # index where the quiet moves not yet scored begin (pick_count once scored)
    ("pick_sort_rest", 1),       # 1: sort the moves left after the first few picks (negamax)
    ("pick_skip_quiets", 1),     # 1: stop ordering, the node searches only the checks among the quiet moves
    # a quiescence node's frame, kept here while its child is searched
    ("q_alpha", 1),
    ("q_beta", 1),
    ("q_best_score", 1),
    ("q_best_move", 1),
    ("q_stand_pat", 1),          # static eval, or NO_EVAL in check
)
STACK_OFFSETS, STACK_WIDTH = field_offsets(STACK_FIELDS)
S_EVAL = STACK_OFFSETS["eval"]
S_MOVE = STACK_OFFSETS["move"]
S_EXCLUDED = STACK_OFFSETS["excluded"]
S_CHECK_KNOWN = STACK_OFFSETS["check_known"]
S_PSQ_MG = STACK_OFFSETS["psq_mg"]
S_PSQ_EG = STACK_OFFSETS["psq_eg"]
S_NN_READY = STACK_OFFSETS["nn_ready"]
S_NN_REMOVED_1 = STACK_OFFSETS["nn_removed_1"]
S_NN_REMOVED_2 = STACK_OFFSETS["nn_removed_2"]
S_NN_ADDED_1 = STACK_OFFSETS["nn_added_1"]
S_NN_ADDED_2 = STACK_OFFSETS["nn_added_2"]
S_Q_ALPHA = STACK_OFFSETS["q_alpha"]
S_Q_BETA = STACK_OFFSETS["q_beta"]
S_Q_BEST_SCORE = STACK_OFFSETS["q_best_score"]
S_Q_BEST_MOVE = STACK_OFFSETS["q_best_move"]
S_Q_STAND_PAT = STACK_OFFSETS["q_stand_pat"]
S_PICK_STAGE = STACK_OFFSETS["pick_stage"]
S_PICK_NEXT = STACK_OFFSETS["pick_next"]
S_PICK_COUNT = STACK_OFFSETS["pick_count"]
S_PICK_QUIETS = STACK_OFFSETS["pick_quiets"]
S_PICK_SORT_REST = STACK_OFFSETS["pick_sort_rest"]
S_PICK_SKIP_QUIETS = STACK_OFFSETS["pick_skip_quiets"]
CHECK_UNKNOWN = 0            # the root, and quiescence's inner nodes: test it
GAVE_NO_CHECK = 1
GAVE_CHECK = 2
NO_EVAL = -INF

# The control array.
CONTROL_FIELDS = (
    ("nodes", 1),                # nodes searched (this thread)
    ("stop", 1),                 # set to 1 (by anyone) to abort
    ("node_limit", 1),           # stop after this many nodes
    ("seldepth", 1),             # deepest ply reached
    ("age", 1),                  # TT generation of this search
    ("poll_mask", 1),            # poll the limits when nodes & mask == 0
    ("root_count", 1),           # number of allowed root moves (0: all)
    ("currmove", 1),             # root move being searched | its number << 32 (for currmove reports)
    ("nmp_min_ply", 1),          # no null move before this ply (set during a null-move verification search)
    ("root_moves", MAX_MOVES),   # allowed root moves
    ("stack", (MAX_PLY + 4) * STACK_WIDTH),
)
CONTROL_OFFSETS, CONTROL_SIZE = field_offsets(CONTROL_FIELDS)
C_NODES = CONTROL_OFFSETS["nodes"]
C_STOP = CONTROL_OFFSETS["stop"]
C_NODE_LIMIT = CONTROL_OFFSETS["node_limit"]
C_SELDEPTH = CONTROL_OFFSETS["seldepth"]
C_AGE = CONTROL_OFFSETS["age"]
C_POLL_MASK = CONTROL_OFFSETS["poll_mask"]
C_ROOT_COUNT = CONTROL_OFFSETS["root_count"]
C_CURRMOVE = CONTROL_OFFSETS["currmove"]
C_NMP_MIN_PLY = CONTROL_OFFSETS["nmp_min_ply"]
C_ROOT_MOVES = CONTROL_OFFSETS["root_moves"]
STACK = CONTROL_OFFSETS["stack"]

# The work array.
PV_STRIDE = MAX_PLY + 2
MOVES_SIZE = (MAX_PLY + 2) * MAX_MOVES
LMR_SIDE = 64
WORK_FIELDS = (
    ("heuristics", HEURISTICS_SIZE),     # laid out by jitfish.search.history
    ("pv", PV_STRIDE * (MAX_PLY + 2)),   # triangular PV table, a row of PV_STRIDE per ply
    ("moves", MOVES_SIZE),               # MAX_MOVES move slots per ply
    ("scores", MOVES_SIZE),              # each move slot's ordering score
    ("lmr", LMR_SIDE * LMR_SIDE),        # late-move reductions by [depth * LMR_SIDE + move number], written once
)
WORK_OFFSETS, WORK_SIZE = field_offsets(WORK_FIELDS)
PV = WORK_OFFSETS["pv"]
PV_SIZE = WORK_OFFSETS["moves"] - PV
MOVES = WORK_OFFSETS["moves"]
SCORES = WORK_OFFSETS["scores"] - MOVES   # from a move's slot to its score's
LMR = WORK_OFFSETS["lmr"]


@kernel(hot=True, inline=True)
def frame(ply):
    """Where the stack fields of ``ply`` begin in ``control`` (``frame(ply) + S_*``)."""
    return STACK + ply * STACK_WIDTH


@kernel(hot=True, inline=True)
def move_list(ply):
    """Where the move slots of ``ply`` begin in ``work`` (``MAX_MOVES`` of them; scores ``SCORES`` further on)."""
    return MOVES + ply * MAX_MOVES


@kernel(hot=True, inline=True)
def previous_move(control, ply):
    """The move that led to ``ply``: 0 at the root and after a null move."""
    return control[frame(ply - 1) + S_MOVE] if ply > 0 else 0


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
    here = frame(ply)
    child = frame(ply + 1)
    control[child + S_PSQ_MG] = control[here + S_PSQ_MG] + mg
    control[child + S_PSQ_EG] = control[here + S_PSQ_EG] + eg


@kernel(hot=True)
def set_null_move_psq(control, ply):
    """A null move changes no piece: the child's score is this ply's."""
    here = frame(ply)
    child = frame(ply + 1)
    control[child + S_PSQ_MG] = control[here + S_PSQ_MG]
    control[child + S_PSQ_EG] = control[here + S_PSQ_EG]
