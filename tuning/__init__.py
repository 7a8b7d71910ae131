"""Engine-versus-engine testing: match runner, Elo and SPRT statistics, openings.

``python -m tuning.match`` runs a match (see :mod:`tuning.match`); the statistics live in :mod:`tuning.elo`
and :mod:`tuning.sprt`, the two ways of playing games in :mod:`tuning.backends`.
"""
