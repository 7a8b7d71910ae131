"""Bad input: one line naming the file, or the game (number and players) and the move (number and SAN)."""

from __future__ import annotations

import io

import pytest

import jitfish
from jitfish.analysis.reading import read_games

GOOD = '[Event "first"]\n[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'


def error_of(text: str | bytes, tmp_path) -> str:
    """The message of ``jitfish.analyse`` on a file of ``text``; it must raise before searching anything."""
    path = tmp_path / "games.pgn"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    with pytest.raises(ValueError) as raised:
        jitfish.analyse(path)
    message = str(raised.value)
    assert "\n" not in message
    return message.replace(str(path), "FILE")


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_file(tmp_path, text):
    assert error_of(text, tmp_path) == "FILE is empty: there is no game to analyse"


def test_a_file_that_is_not_pgn(tmp_path):
    assert error_of("Dear diary,\nthis is not a chess game.\n", tmp_path) == (
        "FILE is not a PGN file: no tag and no move in it"
    )


def test_a_binary_file(tmp_path):
    assert error_of(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", tmp_path) == "FILE is not a PGN file: it is binary"


def test_a_missing_file(tmp_path):
    with pytest.raises(ValueError, match="No such file"):
        jitfish.analyse(tmp_path / "absent.pgn")


def test_an_illegal_move_names_the_game_and_the_move(tmp_path):
    text = GOOD + '[Event "second"]\n[White "Carl"]\n[Black "Dora"]\n\n1. d4 d5 2. Ke3 Nf6 *\n'
    assert error_of(text, tmp_path) == "game 2 (Carl - Dora): 2. Ke3 is not a legal move"


def test_an_illegal_black_move_without_players(tmp_path):
    assert error_of("1. e4 e5 2. Nf3 Ke6 *\n", tmp_path) == "game 1: 2... Ke6 is not a legal move"


def test_an_ambiguous_move(tmp_path):
    text = "1. d4 d5 2. Nf3 Nf6 3. Nd2 *\n"  # the b1 and the f3 knight both reach d2
    assert error_of(text, tmp_path) == "game 1: 3. Nd2 is ambiguous"


def test_an_illegal_move_in_a_variation(tmp_path):
    text = '[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 (1... Ke7) 2. Nf3 *\n'
    assert error_of(text, tmp_path) == "game 1 (Ann - Bob): 1... Ke7 is not a legal move (in a variation)"


def test_a_bad_fen_tag(tmp_path):
    message = error_of('[FEN "8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 *\n', tmp_path)
    assert message.startswith("game 1: ")


def test_a_variant_jitfish_does_not_play(tmp_path):
    text = '[Variant "Atomic"]\n\n1. e4 e5 *\n'
    assert error_of(text, tmp_path) == "game 1: its variant (Atomic) is not one Jitfish plays"


def test_a_game_without_moves(tmp_path):
    assert error_of('[White "Ann"]\n[Black "Bob"]\n\n*\n', tmp_path) == "game 1 (Ann - Bob): has no move to analyse"


def test_games_and_their_text_are_read_in_order_with_the_bad_one_marked():
    text = GOOD + "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# Ke7 *\n\n" + GOOD  # a move after the mate
    games = read_games(io.StringIO(text))
    assert [game.number for game in games] == [1, 2, 3]
    assert [game.error for game in games] == [None, "4... Ke7 is not a legal move", None]
    assert "".join(game.text for game in games) == text
    assert games[0].name == "game 1 (Ann - Bob)" and games[1].name == "game 2"


def test_latin_1_text_is_read(tmp_path):
    path = tmp_path / "latin.pgn"
    path.write_bytes('[White "Müller"]\n[Black "Bob"]\n\n1. e4 *\n'.encode("latin-1"))
    assert read_games(path)[0].name == "game 1 (Müller - Bob)"
