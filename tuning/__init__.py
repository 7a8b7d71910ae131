"""Engine-versus-engine testing: match runner, Elo and SPRT statistics, openings.

``python -m tuning.match`` runs a match (see :mod:`tuning.match`); the statistics live in :mod:`tuning.elo`
and :mod:`tuning.sprt`, the two ways of playing games in :mod:`tuning.backends`.  The other tools run the same
way from the repository's root (``python -m tuning.ladder``, ``python -m tuning.spsa``, ``python -m
tuning.openbench.local``, ...; docs/architecture.md lists them); ``scripts/`` may import them, never the reverse.
"""
