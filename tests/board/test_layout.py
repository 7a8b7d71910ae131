"""The flat-array layouts: offsets derived from field lists tile their arrays."""

from __future__ import annotations

import pytest

from jitfish.board import layout as L
from jitfish.search import buffers as B
from jitfish.search import history as H


def test_field_offsets_lays_fields_end_to_end():
    offsets, size = L.field_offsets((("a", 3), ("b", 1), ("c", 64)))
    assert offsets == {"a": 0, "b": 3, "c": 4}
    assert size == 68


LAYOUTS = [
    (L.TABLE_FIELDS, L.TABLE_OFFSETS, L.TABLE_SIZE),
    (L.BBS_FIELDS, L.BBS_OFFSETS, L.BBS_SIZE),
    (L.STATE_FIELDS, L.STATE_OFFSETS, L.STATE_SIZE),
    (L.UNDO_FIELDS, L.UNDO_OFFSETS, L.UNDO_SIZE),
    (B.STACK_FIELDS, B.STACK_OFFSETS, B.STACK_WIDTH),
    (B.CONTROL_FIELDS, B.CONTROL_OFFSETS, B.CONTROL_SIZE),
    (B.WORK_FIELDS, B.WORK_OFFSETS, B.WORK_SIZE),
    (H.HEURISTICS_FIELDS, H.HEURISTICS_OFFSETS, H.HEURISTICS_SIZE),
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


def test_the_stack_frames_of_successive_plies_follow_each_other_inside_control():
    assert B.frame(0) == B.STACK
    assert B.frame(5) - B.frame(4) == B.STACK_WIDTH
    last_ply = B.CONTROL_FIELDS[-1][1] // B.STACK_WIDTH - 1
    assert B.frame(last_ply) + B.STACK_WIDTH == B.CONTROL_SIZE
    assert B.MOVES + B.SCORES == B.WORK_OFFSETS["scores"]
