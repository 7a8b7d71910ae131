"""The win/draw/loss model behind ``UCI_ShowWDL``: how often Jitfish's own games were won, drawn and lost
from a score, given how much material is left.

The form is Stockfish's: the chance that the side to move wins is a logistic curve of the score ``cp``,

    win  = 1 / (1 + exp((a - cp) / b))        loss = 1 / (1 + exp((a + cp) / b))        draw = 1 - win - loss

where ``a`` (the score at which a win is as likely as not) and ``b`` (how fast the chance rises) are
cubic polynomials in ``m = ln(clamp(material, 4, 78) / 58)``, and material counts both sides' pawns 1,
knights and bishops 3, rooks 5 and queens 9 (78 at the start).  With less material a score converts
less often into a win (``a`` grows), which a model of the score alone cannot say.  Stockfish takes
``m`` as material / 58 from 17 up; Jitfish's games have many endgames below 17, where ``a`` climbs
steeply (from about 110 cp with most pieces on to about 450 cp at 10), which a cubic follows in the
logarithm of material but not in material itself.

The eight coefficients are data, ``wdl.json`` beside this file, fitted by maximum likelihood to
Jitfish's self-play games by ``tuning/fit_wdl.py`` (docs/wdl.md has the data, the fit and the check on
held-out games).  The model reports the score's meaning; it never changes the score (``cp`` in ``info``
stays the search's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from jitfish.board.board import Board

PARAMETERS_FILE = Path(__file__).with_name("wdl.json")
# Material of each piece type in the engine's order (pawn, knight, bishop, rook, queen, king).
PIECE_MATERIAL = (1, 3, 3, 5, 9, 0)
MATERIAL_BY_LETTER = dict(zip("pnbrqk", PIECE_MATERIAL))
MATERIAL_CLAMP = (4, 78)  # below 4 (a few pawns) the games are too few to fit: the ends count as these
MATERIAL_SCALE = 58.0  # m = ln(material / 58) lies near 0 in the middlegame (58: Stockfish's unit)


def load_parameters(path: Path = PARAMETERS_FILE) -> tuple[np.ndarray, np.ndarray]:
    """The coefficients of ``a`` and ``b`` (highest power first, as :func:`numpy.polyval` takes them)."""
    data = json.loads(path.read_text())
    return np.asarray(data["a"], dtype=float), np.asarray(data["b"], dtype=float)


A_COEFFICIENTS, B_COEFFICIENTS = load_parameters()


def material_of_fen(fen: str) -> int:
    """Both sides' material (pawn 1, knight and bishop 3, rook 5, queen 9) of a FEN's piece placement."""
    return sum(MATERIAL_BY_LETTER.get(letter.lower(), 0) for letter in fen.split(" ", 1)[0])


def scale_parameters(
    material: np.ndarray | int, a_coefficients: np.ndarray = A_COEFFICIENTS, b_coefficients: np.ndarray = B_COEFFICIENTS
) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` of the logistic curves at a material count (scalar or array)."""
    m = np.log(np.clip(np.asarray(material, dtype=float), *MATERIAL_CLAMP) / MATERIAL_SCALE)
    return np.polyval(a_coefficients, m), np.polyval(b_coefficients, m)


def probabilities(
    score_cp: np.ndarray | int,
    material: np.ndarray | int,
    a_coefficients: np.ndarray = A_COEFFICIENTS,
    b_coefficients: np.ndarray = B_COEFFICIENTS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chances ``(win, draw, loss)`` of the side whose score ``score_cp`` is (arrays broadcast)."""
    a, b = scale_parameters(material, a_coefficients, b_coefficients)
    score = np.asarray(score_cp, dtype=float)
    win = 1.0 / (1.0 + np.exp((a - score) / b))
    loss = 1.0 / (1.0 + np.exp((a + score) / b))
    return win, 1.0 - win - loss, loss


def expected_score(score_cp: np.ndarray | int, material: np.ndarray | int) -> np.ndarray:
    """The points the side expects (win 1, draw 1/2): what a game's result is compared with."""
    win, draw, _ = probabilities(score_cp, material)
    return win + 0.5 * draw


def win_draw_loss(score_cp: int | None, score_mate: int | None, board: Board) -> tuple[int, int, int]:
    """Per-mille chances ``(win, draw, loss)`` for the side to move in ``board`` (the root of the search)
    with the search's score; a mate score is a certain result."""
    if score_mate is not None:
        return (1000, 0, 0) if score_mate > 0 else (0, 0, 1000)
    win, _, loss = probabilities(score_cp or 0, material_of_fen(board.fen()))
    win_per_mille, loss_per_mille = round(1000 * float(win)), round(1000 * float(loss))
    return win_per_mille, 1000 - win_per_mille - loss_per_mille, loss_per_mille
