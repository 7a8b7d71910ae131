"""Training data for the evaluation: self-play positions (or a user's PGN games) as ``FEN | score | result``.

``python -m tuning.datagen --positions 1000000`` plays Jitfish against itself
in-process, one search per worker process, from random short openings, and
writes the quiet positions of every game, labelled with the search's score
and the game's result, to a gzip text file (:mod:`tuning.datagen.lines`);
``python -m tuning.datagen pgn FILES…`` labels the positions of existing
games instead.

* :mod:`~tuning.datagen.lines`: the line format, read and written;
* :mod:`~tuning.datagen.quiet`: which positions get a line;
* :mod:`~tuning.datagen.selfplay`: one game, openings and adjudication;
* :mod:`~tuning.datagen.run`: chunks, workers, resuming, the output file;
* :mod:`~tuning.datagen.pgn`: positions from PGN files.
"""
