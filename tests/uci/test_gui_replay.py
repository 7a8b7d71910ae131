"""What real GUIs send, replayed byte for byte: no command may be lost for arriving early.

Polyglot (xboard's UCI adapter) writes ``stop``, ``position`` and ``go`` in one
write on a ponder miss, so the ``go`` reaches the engine while the stopped
search is still winding down (issue 30: it used to be refused, and every game
was lost on time).  Cutechess and python-chess wait for the ``bestmove`` after
``stop``.  Each test writes a GUI's lines in the same grouping the GUI uses (one
``os.write`` for lines written together) and checks the exact sequence of
``bestmove`` lines: how many, and which position each one answers.

Nothing here is timed: the deadlines only keep a broken engine from hanging the
suite, and the engine's own ``info`` and ``readyok`` lines say when it has
reached a step.
"""

from __future__ import annotations

import os

import chess

from tests.uci.conftest import UciPipe, errors_in

# Long enough for any search below on a loaded machine; never reached by a working engine.
DEADLINE = 60.0
WHITE_AFTER_EXD5 = "startpos moves e2e4 d7d5 e4d5"
# Positions whose legal moves are pairwise disjoint, so a bestmove tells which one it answers.
DISJOINT = [
    "startpos",
    "startpos moves e2e4",
    "fen 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "fen r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
    "fen 8/8/1Q6/3k4/8/8/8/3K4 w - - 0 1",
]


def board_of(position: str) -> chess.Board:
    """The python-chess board of a ``position`` command's arguments."""
    head, _, moves = position.partition(" moves ")
    board = chess.Board() if head == "startpos" else chess.Board(head.removeprefix("fen "))
    for move in moves.split():
        board.push_uci(move)
    return board


def write_at_once(pipe: UciPipe, *lines: str) -> None:
    """Lines in one write, as a GUI that does not wait for replies sends them."""
    for line in lines:
        pipe.transcript.append(f"> {line}")
    os.write(pipe.process.stdin.fileno(), "".join(line + "\n" for line in lines).encode())


def searching(pipe: UciPipe) -> list[str]:
    """Read until the running search has reported a depth: it is under way (call it when no other search
    may still be winding down, or after that one's bestmove)."""
    return pipe.read_until("info depth", DEADLINE)


def bestmoves(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("bestmove ")]


def assert_legal(move: str, position: str) -> None:
    assert chess.Move.from_uci(move) in board_of(position).legal_moves, (move, position)


def read_bestmoves(pipe: UciPipe, count: int) -> list[list[str]]:
    """The lines of the next ``count`` searches, each list ending with its ``bestmove``."""
    return [pipe.read_until("bestmove", DEADLINE) for _ in range(count)]


def split_at_bestmoves(lines: list[str], count: int) -> list[list[str]]:
    """``lines`` cut after each ``bestmove``: exactly ``count`` searches' lines, then ``readyok`` alone."""
    cuts = [index + 1 for index, line in enumerate(lines) if line.startswith("bestmove ")]
    assert len(cuts) == count and lines[cuts[-1] :] == ["readyok"], lines
    return [lines[start:end] for start, end in zip([0] + cuts, cuts)]


def assert_nothing_more(pipe: UciPipe) -> None:
    """No further bestmove and no error: ``isready`` is answered with nothing before it but info lines."""
    lines = pipe.ready(DEADLINE)
    assert not bestmoves(lines), pipe.dump()
    assert not errors_in(lines), pipe.dump()


def test_polyglot_ponder_miss_searches_the_new_position(engine):
    engine.send("setoption name Ponder value true")
    # Jitfish (white) played exd5 and ponders on the expected ...Nf6.
    pondered = WHITE_AFTER_EXD5 + " g8f6"
    write_at_once(engine, f"position {pondered}", "go wtime 29560 btime 30000 ponder")  # Polyglot's order
    searching(engine)
    # Black played ...Qxd5 instead: Polyglot writes these three lines in the same millisecond.
    played = WHITE_AFTER_EXD5 + " d8d5"
    write_at_once(engine, "stop", f"position {played}", "go wtime 29130 btime 28560")
    ponder_lines, game_lines = read_bestmoves(engine, 2)
    assert not errors_in(ponder_lines + game_lines), engine.dump()
    assert_legal(bestmoves(ponder_lines)[0], pondered)
    assert_legal(bestmoves(game_lines)[0], played)
    assert any(line.startswith("info depth") for line in game_lines), game_lines  # a real search
    assert_nothing_more(engine)


def test_polyglot_ponder_hit_then_the_next_ponder_miss(engine):
    engine.send("setoption name Ponder value true")
    pondered = WHITE_AFTER_EXD5 + " d8d5"
    write_at_once(engine, f"position {pondered}", "go wtime 3000 btime 3000 ponder")
    searching(engine)
    engine.send("ponderhit")  # the expected move came: Polyglot sends nothing else
    [lines] = read_bestmoves(engine, 1)
    best = bestmoves(lines)[0]
    assert_legal(best, pondered)
    # Polyglot starts the next ponder search on the move to ponder, both lines in one write.
    after_best = f"{pondered} {best}"
    words = lines[-1].split()
    expected = words[3] if len(words) == 4 else next(iter(board_of(after_best).legal_moves)).uci()
    assert_legal(expected, after_best)
    next_pondered = f"{after_best} {expected}"
    write_at_once(engine, f"position {next_pondered}", "go wtime 2900 btime 3000 ponder")
    searching(engine)
    # The opponent plays another move: a ponder miss.
    other = next(move.uci() for move in board_of(after_best).legal_moves if move.uci() != expected)
    played = f"{after_best} {other}"
    write_at_once(engine, "stop", f"position {played}", "go wtime 2900 btime 3000")
    ponder_lines, game_lines = read_bestmoves(engine, 2)
    assert_legal(bestmoves(ponder_lines)[0], next_pondered)
    assert_legal(bestmoves(game_lines)[0], played)
    assert any(line.startswith("info depth") for line in game_lines), game_lines
    assert_nothing_more(engine)


def test_cutechess_order_stop_then_wait_then_position_and_go(engine):
    engine.send("setoption name Ponder value true")
    pondered = WHITE_AFTER_EXD5 + " g8f6"
    engine.send(f"position {pondered}")
    engine.send("go ponder wtime 30000 btime 30000 winc 0 binc 0")
    searching(engine)
    engine.send("stop")
    [ponder_lines] = read_bestmoves(engine, 1)
    assert_legal(bestmoves(ponder_lines)[0], pondered)
    played = WHITE_AFTER_EXD5 + " d8d5"
    engine.send(f"position {played}")
    engine.send("go wtime 29130 btime 28560 winc 0 binc 0")
    [game_lines] = read_bestmoves(engine, 1)
    assert_legal(bestmoves(game_lines)[0], played)
    assert_nothing_more(engine)


def test_a_burst_of_position_and_go_pairs_answers_each_in_order(engine):
    """Three searches each stopped as soon as sent, then two that end by themselves: five answers, in order."""
    legal = [{move.uci() for move in board_of(position).legal_moves} for position in DISJOINT]
    assert sum(map(len, legal)) == len(set().union(*legal))  # each move tells its position
    stopped, timed = DISJOINT[:3], DISJOINT[3:]
    burst = [line for position in stopped for line in (f"position {position}", "go infinite", "stop")]
    burst += [line for position in timed for line in (f"position {position}", "go depth 4")]
    write_at_once(engine, *burst)
    answers = read_bestmoves(engine, len(DISJOINT))
    for lines, position in zip(answers, DISJOINT):
        assert len(bestmoves(lines)) == 1
        assert_legal(bestmoves(lines)[0], position)
    for lines in answers[len(stopped) :]:
        assert any(line.startswith("info depth 4 ") for line in lines), lines
    assert not errors_in([line for lines in answers for line in lines]), engine.dump()
    assert_nothing_more(engine)


def test_pychess_analysis_mode_follows_each_move(engine):
    """pychess's analysis mode writes ``stop``, ``position`` and ``go infinite`` at once on every move."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    answers = []
    for position in DISJOINT[1:3]:
        write_at_once(engine, "stop", f"position {position}", "go infinite")
        answers += read_bestmoves(engine, 1)
        searching(engine)  # the new position's search: it came after the bestmove
    engine.send("stop")
    answers += read_bestmoves(engine, 1)
    for lines, position in zip(answers, DISJOINT):
        assert_legal(bestmoves(lines)[0], position)
    assert_nothing_more(engine)


def test_ucinewgame_and_isready_during_a_search(engine):
    engine.send("position startpos")
    engine.send("go infinite")
    searching(engine)
    write_at_once(engine, "ucinewgame", "isready")
    lines = engine.read_until("readyok", DEADLINE)  # answered at once: the search is still running
    assert not bestmoves(lines) and not errors_in(lines), lines
    # A go held behind an infinite search waits for stop: isready still comes back, with no answer yet.
    write_at_once(engine, f"position {DISJOINT[1]}", "go depth 3", "isready")
    lines = engine.read_until("readyok", DEADLINE)
    assert not bestmoves(lines) and not errors_in(lines), lines
    # The stop ends both: the held go, received before it, answers from its first iteration, and
    # isready waits for both answers.
    write_at_once(engine, "stop", "isready")
    infinite_lines, held_lines = split_at_bestmoves(engine.read_until("readyok", DEADLINE), 2)
    assert_legal(bestmoves(infinite_lines)[0], DISJOINT[0])
    assert_legal(bestmoves(held_lines)[0], DISJOINT[1])
    assert not any(line.startswith("info depth 2 ") for line in held_lines), held_lines
    assert_nothing_more(engine)


def test_a_stop_after_a_held_go_ends_it_and_the_search_it_waits_for(engine):
    """A GUI that forgets ``stop`` before ``go``: the next ``stop`` ends the running search and the held one."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    write_at_once(engine, f"position {DISJOINT[1]}", "go infinite", "stop", "isready")
    first, second = split_at_bestmoves(engine.read_until("readyok", DEADLINE), 2)
    assert_legal(bestmoves(first)[0], DISJOINT[0])
    assert_legal(bestmoves(second)[0], DISJOINT[1])
    assert_nothing_more(engine)


def test_a_stop_ends_held_searches_whatever_their_limit(engine):
    """Issue 78's fuzzer find: a held ``go`` with a huge limit of its own used to search on after the ``stop``
    and ``readyok``, and the next ``go movetime`` waited behind it.  Every ``go`` before the ``stop`` is answered
    at once, in order, before ``readyok``; the ``go`` after it searches to its own limit."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    held = ["go nodes 2147483648", "go depth 60", "go wtime 3600000 btime 3600000", "go mate 40", "go ponder"]
    write_at_once(engine, *held, f"position {DISJOINT[1]}", "go movetime 60000", "stop", "isready")
    answers = split_at_bestmoves(engine.read_until("readyok", DEADLINE), len(held) + 2)
    for lines, position in zip(answers, [DISJOINT[0]] * (len(held) + 1) + [DISJOINT[1]]):
        assert_legal(bestmoves(lines)[0], position)
    assert not errors_in([line for lines in answers for line in lines]), engine.dump()
    write_at_once(engine, f"position {DISJOINT[2]}", "go depth 4")
    [searched] = read_bestmoves(engine, 1)
    assert_legal(bestmoves(searched)[0], DISJOINT[2])
    assert any(line.startswith("info depth 4 ") for line in searched), searched
    assert_nothing_more(engine)


def test_a_held_stop_reaches_its_search_past_a_held_position(engine):
    """``stop`` belongs to the ``go`` before it, even with a ``position`` between them that waits for the end."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    write_at_once(engine, "stop", f"position {DISJOINT[1]}", "go infinite", f"position {DISJOINT[2]}", "stop")
    first, second = read_bestmoves(engine, 2)
    assert_legal(bestmoves(first)[0], DISJOINT[0])
    assert_legal(bestmoves(second)[0], DISJOINT[1])
    assert_nothing_more(engine)
    engine.send("go depth 1")  # the held position came after the stop's search: it is the one set now
    [third] = read_bestmoves(engine, 1)
    assert_legal(bestmoves(third)[0], DISJOINT[2])


def test_quit_during_a_search_sends_its_bestmove_and_drops_held_commands(warm_cache):
    pipe = UciPipe()
    pipe.send("uci")
    pipe.ready(DEADLINE)
    write_at_once(pipe, f"position {DISJOINT[0]}", "go infinite")
    searching(pipe)
    # The held go waits for a stop that never comes: quit ends the search and drops it.
    write_at_once(pipe, f"position {DISJOINT[1]}", "go infinite", "quit")
    assert pipe.process.wait(DEADLINE) == 0
    rest = []
    while (line := pipe.lines.get(timeout=DEADLINE)) is not None:
        rest.append(line)
    moves = bestmoves(rest)
    assert len(moves) == 1, rest
    assert_legal(moves[0], DISJOINT[0])


def test_a_stop_ends_every_search_before_it_that_waits_for_one(engine):
    """A second ``go infinite`` held behind the first: one ``stop`` ends both, and the ``go movetime`` sent after
    them is answered with no second ``stop`` (a fuzzer's find: it used to wait behind the held infinite search)."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    write_at_once(engine, "go infinite", "stop", "isready", f"position {DISJOINT[2]}", "go movetime 50")
    first, held, timed = read_bestmoves(engine, 3)
    assert_legal(bestmoves(first)[0], DISJOINT[0])
    assert_legal(bestmoves(held)[0], DISJOINT[0])
    assert_legal(bestmoves(timed)[0], DISJOINT[2])
    assert not errors_in(first + held + timed), engine.dump()
    assert_nothing_more(engine)


def test_a_go_that_comes_after_the_stop_still_searches(engine):
    """Polyglot's burst after an infinite search: the ``stop`` is the old search's, the ``go`` after it searches."""
    write_at_once(engine, f"position {DISJOINT[0]}", "go infinite")
    searching(engine)
    write_at_once(engine, "stop", f"position {DISJOINT[1]}", "go depth 4")
    stopped, searched = read_bestmoves(engine, 2)
    assert_legal(bestmoves(stopped)[0], DISJOINT[0])
    assert_legal(bestmoves(searched)[0], DISJOINT[1])
    assert any(line.startswith("info depth 4 ") for line in searched), searched
    assert_nothing_more(engine)
