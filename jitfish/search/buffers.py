"""The layout of the search's preallocated buffers, and node counting.

Each search thread owns three, allocated once by :mod:`jitfish.search.worker`
and handed to the kernels inside the search context
(:class:`jitfish.search.context.SearchContext`):

* ``stack`` (:data:`STACK_DTYPE`): one record per ply with named fields,
  holding what negamax keeps for its children (static eval, move made,
  excluded move), what the parent sets before it searches a ply (whether its
  move gave check, the material and piece-square score, the pieces its move
  changed for the NNUE accumulators, ``nn_*``) and the state of the node's
  move picker (``pick_*``).  Ply ``p``'s record is ``stack[p + STACK_ROOT]``:
  the ``STACK_ROOT`` records below the root are padding (:func:`new_stack`
  fills them as "no move, nothing to improve on"), so a node reads its
  parent's and grandparent's records (``ply - 1``, ``ply - 2``: the moves
  continuation history and the countermove are keyed by, the evaluation
  ``improving`` compares with) with no guard at the root.  Nothing reads
  further back.
* ``control`` (``int64``): node counter, stop flag and limits, searchmoves,
  the nodes spent under each root move (the ``C_*`` fields; other threads
  write the stop flag at any moment).
* ``work`` (``int32``): the history tables (killers, history, countermoves,
  continuation and capture history, laid out from 0 by ``HEURISTICS_FIELDS``, read and written by
  :mod:`jitfish.search.history`), from
  ``PV`` the triangular PV table (row ``ply`` at ``PV + ply * PV_STRIDE``:
  length, then moves), from ``MOVES`` ``MAX_MOVES`` move slots per ply, and
  each slot's ordering score ``SCORES`` slots further on, then from ``LMR``
  the late-move reduction table (negamax's formula, filled in Python by
  ``SearchWorker.set_reductions`` when the worker is made, and again when
  ``Searcher.set_param`` changes ``LMR_BASE_PCT`` or ``LMR_DIVISOR_PCT``).

``control``, ``work`` and its history tables are lists of ``(name, size)`` fields (``*_FIELDS``)
whose offsets are derived at import, as in :mod:`jitfish.eval.params`: adding
a field means adding one line.  The offsets are module-level ints, constants
to Numba.
"""

from __future__ import annotations

import numpy as np

from jitfish.board.layout import field_offsets
from jitfish.board.moves import MAX_MOVES, move_from_to
from jitfish.eval.evaluation import psq_delta
from jitfish.runtime.jit import WHILE_WAITING, kernel
from jitfish.types import INF, MAX_PLY

# The per-ply stack: one record per ply, every field an int64.
STACK_FIELDS = (
    # negamax's node
    "eval",  # static evaluation, corrected (search.history's correction tables; NO_EVAL in check)
    "raw_eval",  # ... as the evaluation gave it, which the TT keeps (0 in check)
    "move",  # move made from this ply (0: null move, or none yet)
    "excluded",  # move left out by a singular-extension search
    "piece_to",  # piece * 64 + to-square of that move (continuation history's index)
    # set by the parent before it searches this ply, for negamax and quiescence alike
    "check_known",  # one of CHECK_UNKNOWN, GAVE_NO_CHECK, GAVE_CHECK
    "psq_mg",  # material + piece-square score (white's view), kept move by move
    "psq_eg",
    "nn_ready",  # 1 once the NNUE accumulators of this ply are computed (search.evalstack)
    "nn_removed_1",  # the pieces the move into this ply took off the board ...
    "nn_removed_2",
    "nn_added_1",  # ... and put on it
    "nn_added_2",
    # quiescence's node while its child is searched (search.quiescence keeps no frames of its own)
    "q_alpha",  # the window ...
    "q_beta",
    "q_best_score",  # the best score so far (the stand-pat score to begin with)
    "q_best_move",  # the move that raised alpha (0: none)
    "q_stand_pat",  # the static evaluation (NO_EVAL in check: no captures are pruned)
    # the move picker of this ply's node (search.movepick), negamax's or quiescence's
    "pick_stage",  # one of movepick's STAGE_*
    "pick_next",  # index of the next move to hand out
    "pick_count",  # moves generated
    "pick_quiets",  # index where the quiet moves not yet scored begin (pick_count once scored)
    "pick_sort_rest",  # 1: sort the moves left after the first few picks (negamax)
    "pick_skip_quiets",  # 1: stop ordering, the node searches only the checks among the quiet moves
)
STACK_DTYPE = np.dtype([(name, np.int64) for name in STACK_FIELDS], align=True)
STACK_ROOT = 4  # padding records below ply 0 (the deepest read is ply - 2: two spare)
STACK_RECORDS = STACK_ROOT + MAX_PLY + 4
CHECK_UNKNOWN = 0  # the root, and quiescence's inner nodes: test it
GAVE_NO_CHECK = 1
GAVE_CHECK = 2
NO_EVAL = -INF
PADDING_EVAL = INF  # the padding's static eval: a node near the root has nothing to improve on

# The control array.
ROOT_NODES_SIZE = 64 * 64  # one count per from and to square (time management reads them)
CONTROL_FIELDS = (
    ("nodes", 1),  # nodes searched (this thread)
    ("stop", 1),  # set to 1 (by anyone) to abort
    ("node_limit", 1),  # stop after this many nodes
    ("seldepth", 1),  # deepest ply reached
    ("age", 1),  # TT generation of this search
    ("poll_mask", 1),  # poll the limits when nodes & mask == 0
    ("root_count", 1),  # number of allowed root moves (0: all)
    ("currmove", 1),  # root move being searched | its number << 32 (for currmove reports)
    ("nmp_min_ply", 1),  # no null move before this ply (set during a null-move verification search)
    ("root_moves", MAX_MOVES),  # allowed root moves
    ("root_nodes_total", 1),  # the sum of root_nodes, kept beside them
    ("root_nodes", ROOT_NODES_SIZE),  # nodes searched under each root move this search, by move_from_to
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
C_ROOT_NODES_TOTAL = CONTROL_OFFSETS["root_nodes_total"]
C_ROOT_NODES = CONTROL_OFFSETS["root_nodes"]

# The history tables at the front of the work array (jitfish.search.history reads and writes them).
CORRECTION_BITS = 14  # a structure correction table has 2 ** CORRECTION_BITS slots per side (and colour)
CORRECTION_SLOTS = 1 << CORRECTION_BITS
HEURISTICS_FIELDS = (
    ("killers", 2 * (MAX_PLY + 2)),  # [2 * ply + slot]
    ("history", 2 * 64 * 64),  # [side * 4096 + from + 64 * to]
    ("countermoves", 64 * 64),  # [from + 64 * to] of the previous move
    ("continuation", (12 * 64) ** 2),  # [piece_to of an earlier move * 768 + piece_to of this one]
    ("captures", 12 * 64 * 6),  # [(piece * 64 + to) * 6 + captured type]
    ("pawn_correction", 2 * CORRECTION_SLOTS),  # [side * CORRECTION_SLOTS + pawn-structure hash]
    ("non_pawn_correction", 4 * CORRECTION_SLOTS),  # [(side * 2 + colour) * CORRECTION_SLOTS + its pieces' hash]
    ("continuation_correction", (12 * 64) ** 2),  # [piece_to two plies back * 768 + piece_to one ply back]
)
HEURISTICS_OFFSETS, HEURISTICS_SIZE = field_offsets(HEURISTICS_FIELDS)

# The work array.
PV_STRIDE = MAX_PLY + 2
MOVES_SIZE = (MAX_PLY + 2) * MAX_MOVES
LMR_SIDE = 64
WORK_FIELDS = (
    ("heuristics", HEURISTICS_SIZE),  # the history tables (HEURISTICS_FIELDS)
    ("pv", PV_STRIDE * (MAX_PLY + 2)),  # triangular PV table, a row of PV_STRIDE per ply
    ("moves", MOVES_SIZE),  # MAX_MOVES move slots per ply
    ("scores", MOVES_SIZE),  # each move slot's ordering score
    ("lmr", LMR_SIDE * LMR_SIDE),  # late-move reductions by [depth * LMR_SIDE + move number] (set_reductions)
)
WORK_OFFSETS, WORK_SIZE = field_offsets(WORK_FIELDS)
PV = WORK_OFFSETS["pv"]
PV_SIZE = WORK_OFFSETS["moves"] - PV
MOVES = WORK_OFFSETS["moves"]
SCORES = WORK_OFFSETS["scores"] - MOVES  # from a move's slot to its score's
LMR = WORK_OFFSETS["lmr"]


def new_stack() -> np.ndarray:
    """A stack of cleared records, its padding set up."""
    stack = np.zeros(STACK_RECORDS, dtype=STACK_DTYPE)
    reset_stack(stack)
    return stack


def reset_stack(stack: np.ndarray) -> None:
    """Clear every record; the padding below the root says: no move was made, no eval to improve on."""
    stack[:] = 0
    stack["eval"][:STACK_ROOT] = PADDING_EVAL


@kernel(hot=True, inline=True)
def move_list(ply):
    """Where the move slots of ``ply`` begin in ``work`` (``MAX_MOVES`` of them; scores ``SCORES`` further on)."""
    return MOVES + ply * MAX_MOVES


@kernel(hot=True, inline=True)
def clear_pv(work, ply):
    """The PV at ``ply`` is empty (until a move beats alpha there)."""
    work[PV + ply * PV_STRIDE] = 0


@kernel(hot=True, cold_start=WHILE_WAITING)
def update_pv(work, ply, move):
    """The PV at ``ply`` becomes ``move`` followed by the child's PV."""
    row = PV + ply * PV_STRIDE
    child = row + PV_STRIDE
    length = work[child]
    work[row + 1] = move
    for i in range(length):
        work[row + 2 + i] = work[child + 1 + i]
    work[row] = length + 1


@kernel(hot=True)
def visit_node(control, ply):
    """Count a node, and every few thousand nodes check the node limit."""
    nodes = control[C_NODES] + 1
    control[C_NODES] = nodes
    if ply > control[C_SELDEPTH]:
        control[C_SELDEPTH] = ply
    if (nodes & control[C_POLL_MASK]) == 0 and nodes >= control[C_NODE_LIMIT]:
        control[C_STOP] = 1


@kernel(hot=True, cold_start=WHILE_WAITING)
def root_allowed(control, move):
    """Whether the search may play ``move`` at the root: no ``searchmoves`` list, or ``move`` is in it."""
    count = control[C_ROOT_COUNT]
    if count == 0:
        return True
    for i in range(count):
        if control[C_ROOT_MOVES + i] == move:
            return True
    return False


@kernel(hot=True, inline=True)
def start_root_move(control, move, number):
    """The root's ``number``-th move is searched from now (for ``currmove`` reports); the node count
    before it, for :func:`end_root_move`."""
    control[C_CURRMOVE] = move | (number << 32)
    return control[C_NODES]


@kernel(hot=True, inline=True)
def end_root_move(control, move, nodes_before):
    """Add the nodes searched under a root move to its count (what time management calls its effort)."""
    spent = control[C_NODES] - nodes_before
    control[C_ROOT_NODES + move_from_to(move)] += spent
    control[C_ROOT_NODES_TOTAL] += spent


@kernel(hot=True, inline=True)
def set_child_psq(node, child, state, weights, move):
    """Before ``move`` is made from ``node`` (a stack record): the material and piece-square score of the
    position after it, in the ``child`` record."""
    mg, eg = psq_delta(state, weights, move)
    child.psq_mg = node.psq_mg + mg
    child.psq_eg = node.psq_eg + eg
