"""tuning/profile_kernels.py names Numba's compiled functions (no profile is taken here)."""

from __future__ import annotations

from tuning import profile_kernels as profile


def test_mangled_names_become_dotted_paths():
    signature = "B4v121B52c8tJTIeFIjxB2IKSgI4CrvSCKg1MMbCQQPKkLTj8QGEPTzVgbZoAE5ArrayIyLi1E1C7mutable7alignedE"
    assert profile.readable("_ZN7jitfish6search7negamax7negamax" + signature) == "jitfish.search.negamax.negamax"
    assert profile.readable("_ZN7cpython7jitfish5board7movegen14generate_moves" + signature) == (
        "cpython.jitfish.board.movegen.generate_moves"
    )
    assert profile.readable("cfunc._ZN7jitfish2tt8tt_store" + signature) == "cfunc.jitfish.tt.tt_store"
    assert profile.readable("memmove") == "memmove"
