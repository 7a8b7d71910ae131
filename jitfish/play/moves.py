"""A move as a person types it: SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q``), UCI (``g1f3``), or close to
either (``nf3``, ``0-0``, ``Ng1-f3``).  A bad one raises :class:`MoveError`, whose message is one line
saying why and naming the legal moves that come closest."""

from __future__ import annotations

import difflib
import re

import chess

CLOSEST = 3  # legal moves named after a bad one
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")
_SQUARE = re.compile(r"[a-h][1-8]")


class MoveError(ValueError):
    """A typed move that is not legal here; the message is the line shown to the player."""


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """The legal move ``text`` names in ``board``; :class:`MoveError` with the reason otherwise."""
    text = text.strip()
    if not text:
        raise MoveError("type a move (Nf3, e4, O-O, g1f3) or a command (help)")
    lowered = text.lower()
    if _UCI.match(lowered):
        return _parse_uci(board, lowered)
    readable = False  # some spelling is a SAN move, legal here or not
    for candidate in _spellings(text):
        try:
            return board.parse_san(candidate)
        except chess.AmbiguousMoveError:
            raise MoveError(f"{text} is ambiguous: {_or_list(_ambiguous(board, candidate))}") from None
        except chess.IllegalMoveError:
            readable = True
        except ValueError:
            pass
    if not readable:
        raise MoveError(f"{text} is neither a move nor a command (help lists them){_closest_text(board, text)}")
    spelled = _spellings(text)[-1]
    for piece in "QRBN":  # e8 for e8=Q
        try:
            board.parse_san(f"{spelled}={piece}")
        except ValueError:
            continue
        raise MoveError(f"{text} needs the piece to promote to: {spelled}=Q, {spelled}=R, {spelled}=B or {spelled}=N")
    raise MoveError(f"{text} is not legal here{_illegal_san_reason(board, spelled)}{_closest_text(board, text)}")


def _spellings(text: str) -> list[str]:
    """``text`` and the SAN a person probably meant by it: ``0-0`` for ``O-O``, ``Nf3`` for ``nf3``, no
    ``+``/``#``/``!``/``?``; a lowercase ``b`` is a pawn first, then a bishop."""
    base = text.replace("0", "O") if set(text) <= set("0-Oo+#") else text
    base = base.rstrip("+#!?")
    if base.lower() in ("o-o", "o-o-o"):
        base = base.upper()
    spellings = [base]
    if base[:1] in ("n", "r", "q", "k", "b") and len(base) >= 3:
        spellings.append(base[0].upper() + base[1:])
    return spellings


def _parse_uci(board: chess.Board, text: str) -> chess.Move:
    move = chess.Move.from_uci(text)
    if board.is_legal(move):
        return move
    piece = board.piece_at(move.from_square)
    if move.promotion is None and piece is not None and piece.piece_type == chess.PAWN:
        promoted = chess.Move(move.from_square, move.to_square, chess.QUEEN)
        if board.is_legal(promoted):
            raise MoveError(f"{text} needs the piece to promote to: {text}q, {text}r, {text}b or {text}n")
    if piece is None:
        why = f": there is no piece on {chess.square_name(move.from_square)}"
    elif piece.color != board.turn:
        why = f": the piece on {chess.square_name(move.from_square)} is not yours"
    elif board.is_pseudo_legal(move):
        why = ": it leaves your king in check" if not board.is_check() else _reason(board)
    else:
        why = _reason(board)
    raise MoveError(f"{text} is not legal here{why}{_closest_text(board, text)}")


def _illegal_san_reason(board: chess.Board, san: str) -> str:
    """Why a well-formed SAN move is not legal: castling, a pin or a check, or no such piece move."""
    if san.upper().startswith("O-O"):
        return ": you cannot castle now" + (" (your king is in check)" if board.is_check() else "")
    squares = _SQUARE.findall(san)
    if not squares:
        return _reason(board)
    target = chess.parse_square(squares[-1])
    piece = chess.PIECE_SYMBOLS.index(san[0].lower()) if san[0] in "NBRQK" else chess.PAWN
    for move in board.pseudo_legal_moves:
        if move.to_square == target and board.piece_type_at(move.from_square) == piece:
            return ": your king is in check" if board.is_check() else ": it leaves your king in check"
    name = chess.piece_name(piece)
    return f": no {name} of yours can go to {squares[-1]}"


def _reason(board: chess.Board) -> str:
    return ": your king is in check" if board.is_check() else ""


def _ambiguous(board: chess.Board, san: str) -> list[str]:
    """The legal moves an ambiguous SAN could mean, in full SAN."""
    piece = chess.PIECE_SYMBOLS.index(san[0].lower()) if san[0] in "NBRQK" else chess.PAWN
    squares = _SQUARE.findall(san)
    target = chess.parse_square(squares[-1]) if squares else None
    return sorted(
        board.san(move)
        for move in board.legal_moves
        if move.to_square == target and board.piece_type_at(move.from_square) == piece
    )


def closest_moves(board: chess.Board, text: str, count: int = CLOSEST) -> list[str]:
    """The legal moves (SAN) that look most like ``text``: the same squares first, then the spelling."""
    typed = text.strip().lower()
    squares = set(_SQUARE.findall(typed))
    scored = []
    for move in board.legal_moves:
        san = board.san(move)
        names = {chess.square_name(move.to_square), chess.square_name(move.from_square)}
        shared = len(squares & names) + (chess.square_name(move.to_square) in squares)
        likeness = max(
            difflib.SequenceMatcher(None, typed, san.lower().rstrip("+#")).ratio(),
            difflib.SequenceMatcher(None, typed, move.uci()).ratio(),
        )
        scored.append((-shared, -likeness, san))
    return [san for _, _, san in sorted(scored)[:count]]


def _closest_text(board: chess.Board, text: str) -> str:
    closest = closest_moves(board, text)
    return f" (closest: {', '.join(closest)})" if closest else ""


def _or_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
