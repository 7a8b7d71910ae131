"""Training data for the evaluation: self-play games (or a user's PGN games), their quiet positions labelled.

``python -m tuning.datagen --positions 1000000`` plays Jitfish against itself
in-process, one search per worker process, from random short openings, and
writes every game, its quiet positions labelled with the search's score and
the game's result, to a game file (:mod:`tuning.datagen.records`);
``python -m tuning.datagen pgn FILES…`` labels the positions of existing
games instead, as ``FEN | score | result`` text (:mod:`tuning.datagen.lines`),
and ``python -m tuning.datagen convert`` turns text into games and back.

* :mod:`~tuning.datagen.lines`: the line format, read and written;
* :mod:`~tuning.datagen.quiet`: which positions get a line;
* :mod:`~tuning.datagen.selfplay`: one game, openings and adjudication;
* :mod:`~tuning.datagen.kernels`: its compiled steps, and the game replay;
* :mod:`~tuning.datagen.records`: packed positions and game files;
* :mod:`~tuning.datagen.convert`: text to games and back, data sets;
* :mod:`~tuning.datagen.run`: chunks, workers, resuming, the output file;
* :mod:`~tuning.datagen.pgn`: positions from PGN files.
"""
