"""Jitfish: a UCI chess engine in Python whose hot core is compiled with Numba.

Public API::

    import jitfish
    board = jitfish.Board()              # python-chess-like, moves as UCI text
    jitfish.perft(jitfish.STARTING_FEN, 5)   # 4865609

Importing the package compiles nothing; kernels load from the on-disk cache
(or compile, the very first time) when first called.
"""

from jitfish._version import __version__
from jitfish.board.board import Board
from jitfish.board.perft import perft, perft_divide
from jitfish.board.position import STARTING_FEN

__all__ = ["Board", "STARTING_FEN", "perft", "perft_divide", "__version__"]
