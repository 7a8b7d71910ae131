"""The runtime: how Jitfish's kernels are compiled, cached, shipped and started.

``jit`` (the one ``kernel`` decorator and the source-keyed cache folder), ``cache`` (the cache's base folder),
``prebuilt`` (the kernels a wheel ships for a named CPU), ``compile`` (``jitfish compile`` and the cold-start
helper process), ``bundle`` (the one-file executable ``make EXE=`` writes), ``shipped`` (the read-only
default arrays) and ``extras`` (optional dependencies).  The board, the evaluation and the search compile
their kernels through it; it imports no module of the engine layer, the protocol or the CLI (``compile``'s
warm-ups call the search, inside functions).
"""
