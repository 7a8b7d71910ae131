"""Positions from PGN games: results from the headers, scores from [%eval] comments or a search."""

from __future__ import annotations

from tuning.datagen.lines import read_data
from tuning.datagen.pgn import import_pgn

GAMES = """\
[Event "annotated"]
[Result "1-0"]

1. e4 { [%eval 0.3] } 1... e5 { [%eval 0.25] } 2. Nf3 { [%eval 0.2] } 2... Nc6 { [%eval #-3] }
3. Bb5 { [%eval 0.3] } 3... a6 4. Bxc6 { [%eval 0.1] } 4... dxc6 { [%eval -0.2] } 5. O-O 1-0

[Event "fool's mate, no comments"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "unfinished"]
[Result "*"]

1. d4 d5 *
"""

ANNOTATED = [  # after 1.e4, 1...e5, 2.Nf3; 3.Bb5 (after 2...Nc6 the eval is a mate), 4...dxc6; captures skipped
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 30, 1.0),
    ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", 25, 1.0),
    ("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", 20, 1.0),
    ("r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3", 30, 1.0),
    ("r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5", -20, 1.0),
]


def test_eval_comments_score_the_positions_they_follow(tmp_path):
    (tmp_path / "g.pgn").write_text(GAMES)
    summary = import_pgn([tmp_path / "g.pgn"], tmp_path / "d.gz", nodes=0, progress=False)
    assert list(read_data(tmp_path / "d.gz")) == ANNOTATED
    assert (summary.games, summary.skipped, summary.positions, summary.from_eval) == (3, 1, 5, 5)


def test_a_search_scores_positions_without_a_comment(tmp_path, searcher):
    (tmp_path / "g.pgn").write_text(GAMES)
    summary = import_pgn([tmp_path / "g.pgn"], tmp_path / "d.gz", nodes=500, depth_cap=6, progress=False)
    data = list(read_data(tmp_path / "d.gz"))
    assert [line for line in data if line[2] == 1.0][1:] == ANNOTATED
    fools_mate = [fen for fen, _, result in data if result == 0.0]
    # 1.f3 and 1...e5 are scored by search; before 2...Qh4# the best move mates, so that position is dropped.
    assert fools_mate == [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2",
    ]
    assert summary.positions == len(data) and summary.from_eval == 5
