"""Games read back to their players: ``jitfish.analyse("game.pgn")`` and ``jitfish analyse game.pgn``.

Every position of every game is searched once (:mod:`jitfish.analysis.searching`), each move judged by the
winning chances it lost under Jitfish's WDL model (:mod:`jitfish.analysis.judge`), and the games written
back with ``[%eval]`` comments, NAGs and best lines (:mod:`jitfish.analysis.report`)::

    import jitfish
    games = jitfish.analyse("game.pgn", nodes=300_000, workers=2)   # jitfish.analysis.games.analyse
    print(games[0].summary())              # each side's accuracy, inaccuracies, mistakes and blunders
    open("game-analysed.pgn", "w").write(games[0].pgn())

docs/analyse.md has the rules and an analysed game.  This package's own module imports nothing, so that the
command line builds its parser (:mod:`jitfish.analysis.cli`) without loading the search.
"""

DEFAULT_NODES = 300_000  # a position's search when no limit is given
