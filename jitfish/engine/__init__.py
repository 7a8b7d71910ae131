"""The engine layer: what a protocol needs from a chess engine, without the protocol.

``engine`` (the :class:`~jitfish.engine.engine.Engine` facade), ``options`` (every UCI option and
``Settings``, the store of their values), ``turn`` (one ``go``), ``game`` (the position of ``position``),
``book`` (Polyglot), ``strength`` (``Skill Level``, ``UCI_Elo``), ``report`` (``d``, ``eval``), ``wdl``
(the win/draw/loss model, with ``wdl.json``) and ``genfens`` (OpenBench's openings).  It imports the
board, the evaluation, the search and the runtime, never the protocol (:mod:`jitfish.uci`).  Importing this
package imports nothing: the protocol reads ``options`` before any kernel is loaded.
"""
