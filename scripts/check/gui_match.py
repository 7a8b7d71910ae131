"""Play Jitfish in a real GUI: xboard under Xvfb, Jitfish through Polyglot, against Fairy-Max, pondering on.

This is what a new user does (issue 30): xboard talks the xboard protocol, so a UCI engine goes through
Polyglot, which translates xboard's moves and clocks into ``position``/``go`` and, with pondering on, writes
``stop``, ``position`` and ``go`` in one burst on every ponder miss.  The script plays a match the way xboard
plays one (``-mg``), reads the PGN xboard saves, and prints the score and the games lost on time::

    python -m scripts.check.gui_match                       # 10 games at 20 s + 0.2 s, pondering on
    python -m scripts.check.gui_match --games 4 --tc 0:30 --inc 0.5 --no-ponder --out /tmp/gm

Jitfish runs as ``python -m jitfish`` from the repository this script lives in (``PYTHONPATH`` is set to it).
The Debian packages ``xboard``, ``polyglot``, ``fairymax`` and ``xvfb`` are installed with apt-get when
missing (root only).  Everything goes into ``--out`` (a fresh temporary folder by default): ``games.pgn``,
``polyglot.log`` (every line between Polyglot and Jitfish, with times: read it when a game is lost on time),
``xboard.debug`` and the Polyglot settings file ``jitfish.ini``.

Exit status: 0 when the match was played and Jitfish lost no game on time, 1 when it lost one on time,
2 when the match could not be played to the end.  The timing is real: on a loaded machine a loss on time
may be the machine's fault, which the Polyglot log shows (the time between ``go`` and ``bestmove``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Debian puts games in /usr/games, which is not always on PATH.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"])
# Program name -> Debian package.
NEEDED = {"xboard": "xboard", "polyglot": "polyglot", "fairymax": "fairymax", "Xvfb": "xvfb"}
# A result comment that means the loser ran out of time (xboard writes "White wins on time",
# "Black loses on time" or "... out of time"; a time forfeit or a flag fall are spelled variously).
TIME_LOSS = re.compile(r"on time|out of time|time forfeit|flag", re.IGNORECASE)
# A cold start compiles the search kernels: 10-40 s, more on a loaded machine.
WARM_UP_TIMEOUT = 600
RESULT_COMMENT = re.compile(r"\{([^{}]*)\}\s*(1-0|0-1|1/2-1/2|\*)\s*$")


@dataclass
class Game:
    white: str
    black: str
    result: str
    comment: str

    def points_of(self, name: str) -> float | None:
        """The points ``name``'s engine scored (``None``: unfinished)."""
        white_points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(self.result)
        if white_points is None:
            return None
        return white_points if name in self.white else 1.0 - white_points

    @property
    def loser(self) -> str | None:
        return {"1-0": self.black, "0-1": self.white}.get(self.result)

    @property
    def lost_on_time(self) -> str | None:
        """The player who lost on time, if the game ended so."""
        return self.loser if TIME_LOSS.search(self.comment) else None


def parse_games(pgn: str) -> list[Game]:
    """The games of an xboard PGN file: players, result and the result comment xboard writes before it."""
    games = []
    for text in re.split(r"\n(?=\[Event )", pgn.strip()):
        if not text.strip():
            continue
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', text, re.MULTILINE))
        found = RESULT_COMMENT.search(text)
        comment = found.group(1) if found else ""
        games.append(Game(tags.get("White", "?"), tags.get("Black", "?"), tags.get("Result", "*"), comment))
    return games


def find_tools(install: bool) -> dict[str, str]:
    """Paths of the programs the match needs; installs the missing packages with apt-get if allowed."""
    missing = [package for program, package in NEEDED.items() if shutil.which(program, path=SEARCH_PATH) is None]
    if missing:
        if not install or os.geteuid() != 0:
            sys.exit(f"missing: {' '.join(missing)}; install them with: apt-get install {' '.join(missing)}")
        print(f"installing {' '.join(missing)} with apt-get", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", *missing],
            check=True,
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
        )
    return {program: shutil.which(program, path=SEARCH_PATH) for program in NEEDED}


def polyglot_settings(out: Path, ponder_log: Path) -> Path:
    """The Polyglot settings file that starts Jitfish from this repository, logging every line."""
    path = out / "jitfish.ini"
    path.write_text(
        "\n".join(
            [
                "[PolyGlot]",
                "EngineName = Jitfish",
                f"EngineDir = {REPO}",
                f"EngineCommand = {sys.executable} -m jitfish",
                "Log = true",
                f"LogFile = {ponder_log}",
                "[Engine]",
                "",
            ]
        )
    )
    return path


def warm_up(env: dict[str, str]) -> None:
    """Start Jitfish once and wait for ``readyok``, so that no game waits for kernels to compile."""
    print("loading Jitfish once (compiles the kernels if the cache is cold)", flush=True)
    subprocess.run(
        [sys.executable, "-m", "jitfish"],
        input="uci\nisready\nquit\n",
        text=True,
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        timeout=WARM_UP_TIMEOUT,
        check=True,
    )


def start_xvfb(xvfb: str, out: Path) -> tuple[subprocess.Popen, str]:
    """A virtual screen; its display name, read from Xvfb's ``-displayfd``."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=open(out / "xvfb.log", "w"),
    )
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        sys.exit(f"Xvfb did not start; see {out / 'xvfb.log'}")
    return server, f":{number}"


def xboard_command(tools: dict[str, str], args: argparse.Namespace, settings: Path, out: Path) -> list[str]:
    command = [
        tools["xboard"],
        "-fcp",
        f"{tools['polyglot']} {settings}",
        "-fd",
        str(out),
        "-scp",
        tools["fairymax"],
        "-sd",
        str(out),
        "-mg",
        str(args.games),
        "-tc",
        args.tc,
        "-inc",
        str(args.inc),
        "-ponder" if args.ponder else "-xponder",
        "-sgf",
        str(out / "games.pgn"),
        "-pgnExtendedInfo",
        "true",
        "-autoCallFlag",
        "true",  # a flag fall ends the game at once
        # No pop-ups to click away, no sounds, and the user's xboard settings left as they were.
        "-xpopup",
        "-xexit",
        "-saveSettingsOnExit",
        "false",
        "-xbuttons",
        "-soundProgram",
        "",
        "-debug",
        "-nameOfDebugFile",
        str(out / "xboard.debug"),
    ]
    if args.openings:
        # Each position twice, colours reversed (xboard's -2 index), from the first one on.
        command += ["-lpf", str(Path(args.openings).resolve()), "-lpi", "-2"]
    return command


def report(games: list[Game], expected: int, out: Path) -> int:
    name = "Jitfish"
    finished = [game for game in games if game.points_of(name) is not None]
    points = sum(game.points_of(name) for game in finished)
    wins = sum(game.points_of(name) == 1.0 for game in finished)
    draws = sum(game.points_of(name) == 0.5 for game in finished)
    on_time = [game for game in finished if game.lost_on_time]
    ours = [game for game in on_time if name in game.lost_on_time]
    for number, game in enumerate(games, 1):
        print(f"{number:3d}. {game.white} - {game.black}  {game.result}  {{{game.comment}}}")
    print(f"games: {len(finished)} of {expected} finished")
    if finished:
        print(
            f"Jitfish: +{wins} ={draws} -{len(finished) - wins - draws}, {points:g}/{len(finished)} "
            f"({100 * points / len(finished):.0f}%)"
        )
    print(f"lost on time: Jitfish {len(ours)}, opponent {len(on_time) - len(ours)}")
    errors = [line for line in _read(out / "polyglot.log").splitlines() if "info string error" in line]
    print(f"engine error lines in the Polyglot log: {len(errors)}")
    for line in errors[:5]:
        print("   ", line.strip()[:200])
    if len(finished) < expected:
        return 2
    return 1 if ours else 0


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games in the match (colours alternate)")
    parser.add_argument("--tc", default="0:20", help="xboard's -tc: minutes[:seconds] per game (default 0:20)")
    parser.add_argument("--inc", type=float, default=0.2, help="increment in seconds (default 0.2)")
    parser.add_argument("--no-ponder", dest="ponder", action="store_false", help="switch pondering off")
    parser.add_argument("--openings", help="a FEN/EPD file of start positions, each played with both colours")
    parser.add_argument("--out", help="folder for the PGN and logs (default: a new temporary folder)")
    parser.add_argument(
        "--no-install", dest="install", action="store_false", help="do not apt-get install missing packages"
    )
    args = parser.parse_args(argv)
    tools = find_tools(args.install)
    out = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix="gui-match-"))
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("games.pgn", "polyglot.log", "xboard.debug"):
        (out / stale).unlink(missing_ok=True)
    settings = polyglot_settings(out, out / "polyglot.log")
    minutes, _, seconds = args.tc.partition(":")
    per_game = 2 * (60 * float(minutes) + float(seconds or 0) + 200 * args.inc) + 60
    deadline = time.monotonic() + args.games * per_game + 120
    print(
        f"xboard match: {args.games} games, {args.tc} + {args.inc} s, pondering "
        f"{'on' if args.ponder else 'off'}; files in {out}",
        flush=True,
    )
    env = dict(
        os.environ,
        PATH=SEARCH_PATH,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )
    warm_up(env)
    server, display = start_xvfb(tools["Xvfb"], out)
    env["DISPLAY"] = display
    xboard = subprocess.Popen(
        xboard_command(tools, args, settings, out),
        cwd=out,
        env=env,
        stdout=open(out / "xboard.out", "w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        while xboard.poll() is None and time.monotonic() < deadline:
            time.sleep(1.0)
        if xboard.poll() is None:
            print("xboard did not finish the match in time: stopping it", flush=True)
    finally:
        if xboard.poll() is None:
            os.killpg(xboard.pid, signal.SIGTERM)
            try:
                xboard.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(xboard.pid, signal.SIGKILL)
        server.terminate()
        server.wait()
    return report(parse_games(_read(out / "games.pgn")), args.games, out)


if __name__ == "__main__":
    sys.exit(main())
