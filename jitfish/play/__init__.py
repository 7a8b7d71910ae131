"""``jitfish play``: a game against Jitfish in the terminal, for a person at a keyboard.

One module per concern: :mod:`~jitfish.play.moves` reads a move as people type it (SAN or UCI) and says
why a bad one is bad, :mod:`~jitfish.play.drawing` draws the board, :mod:`~jitfish.play.clock` keeps the
clocks, :mod:`~jitfish.play.opponent` asks the engine (:class:`jitfish.engine.engine.Engine`) for its move,
a hint or an evaluation, :mod:`~jitfish.play.ending` words the result and writes the PGN, and
:mod:`~jitfish.play.session` runs the game loop, :mod:`~jitfish.play.review` analyses the game after it, and
:mod:`~jitfish.play.cli` is the subcommand.  This module imports nothing, so that the command line builds its
parser without loading the search (docs/play.md).
"""
