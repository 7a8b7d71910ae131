"""The flat-array layouts: offsets derived from field lists tile their arrays."""

from __future__ import annotations

import pytest

from jitfish.board import layout as L
from jitfish.search import buffers as B
from jitfish.types import MAX_PLY


def test_field_offsets_lays_fields_end_to_end():
    offsets, size = L.field_offsets((("a", 3), ("b", 1), ("c", 64)))
    assert offsets == {"a": 0, "b": 3, "c": 4}
    assert size == 68


LAYOUTS = [
    (L.TABLE_FIELDS, L.TABLE_OFFSETS, L.TABLE_SIZE),
    (L.BBS_FIELDS, L.BBS_OFFSETS, L.BBS_SIZE),
    (L.STATE_FIELDS, L.STATE_OFFSETS, L.STATE_SIZE),
    (L.UNDO_FIELDS, L.UNDO_OFFSETS, L.UNDO_SIZE),
    (B.CONTROL_FIELDS, B.CONTROL_OFFSETS, B.CONTROL_SIZE),
    (B.WORK_FIELDS, B.WORK_OFFSETS, B.WORK_SIZE),
    (B.HEURISTICS_FIELDS, B.HEURISTICS_OFFSETS, B.HEURISTICS_SIZE),
]


@pytest.mark.parametrize("fields, offsets, size", LAYOUTS)
def test_every_layout_has_distinct_names_and_no_gap_or_overlap(fields, offsets, size):
    names = [name for name, _ in fields]
    assert len(set(names)) == len(names)
    at = 0
    for name, field_size in fields:
        assert field_size > 0
        assert offsets[name] == at
        at += field_size
    assert at == size


def test_the_piece_bitboards_come_first_as_kernels_index_them_by_piece():
    assert L.BBS_OFFSETS["pieces"] == 0
    assert L.OCCUPIED_BLACK == L.OCCUPIED_WHITE + 1


def test_the_search_stack_has_a_record_per_ply_and_padding_below_the_root():
    stack = B.new_stack()
    assert stack.dtype.names == B.STACK_FIELDS
    assert len(stack) == B.STACK_ROOT + MAX_PLY + 4  # negamax at MAX_PLY - 1 writes its child's record
    assert B.STACK_ROOT >= 4  # ply - 4 reads no guard
    padding = stack[: B.STACK_ROOT]
    assert (padding["move"] == 0).all() and (padding["eval"] == B.PADDING_EVAL).all()
    assert all(value == 0 for record in stack[B.STACK_ROOT :].tolist() for value in record)
    assert B.MOVES + B.SCORES == B.WORK_OFFSETS["scores"]
