"""``python -m tuning.spsa``: tune the search parameters by self-play (SPSA).

Simultaneous perturbation stochastic approximation (Spall, 1992), in the form
Fishtest uses for engine parameters.  At iteration ``k`` of ``N``:

1. Every tuned parameter ``i`` gets a step ``c_k,i = c_end,i * (N / k) ** GAMMA``
   and a random sign ``s_i`` (+1 or -1, Rademacher).
2. θ+ = θ + c_k s and θ− = θ − c_k s (each clamped to the parameter's range,
   rounded to integers for the engines) play a few game pairs against each
   other through :func:`tuning.match.run_match` (engines started with
   ``--tune``, the parameters set as UCI options), at fixed nodes or a short clock.
3. With ``result`` = θ+'s wins minus its losses, every parameter moves by
   ``r_k,i * c_k,i * result * s_i`` (clamped to its range), where
   ``r_k,i = a_k,i / c_k,i ** 2`` and ``a_k,i = a_i / (A + k) ** ALPHA``,
   ``A = A_SHARE * N``, and ``a_i`` is chosen so that ``a_N,i = r_end,i * c_end,i ** 2``.

``c_end`` and ``r_end`` come from the parameter list
(:data:`jitfish.search.params.FIELDS`).  The signs and openings of iteration
``k`` are drawn from a generator seeded with ``(seed, k)``, so a run stopped
and resumed from its state file (JSON, written after every iteration) ends
exactly where an uninterrupted run would.  At the end the rounded values are
written through :func:`jitfish.search.params.save_params`, into the package's
parameter file or ``--output``.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from jitfish.search.params import (
    BY_NAME,
    FIELDS,
    PARAMS_FILE,
    load_params,
    params_from_dict,
    params_to_dict,
    save_params,
)
from tuning.datagen.lines import write_atomically

GAMMA = 0.101  # decay of the perturbation c_k
ALPHA = 0.602  # decay of the gain a_k
A_SHARE = 0.1  # the stability constant A as a share of the iterations
STATE_VERSION = 1
DEFAULT_OPENINGS = Path(__file__).resolve().parent / "openings" / "balanced-600.epd"
DEFAULT_STATE_DIR = Path.home() / ".cache" / "jitfish" / "spsa"

# (wins, draws, losses) of θ+ against θ−, given θ+ and θ− as {name: value} and the iteration number.
MatchFunction = Callable[[dict[str, int], dict[str, int], int], tuple[int, int, int]]


@dataclass(frozen=True)
class Schedule:
    """The gain sequences of a run of ``iterations`` iterations (iterations are numbered from 1)."""

    iterations: int

    @property
    def stability(self) -> float:
        """Spall's ``A``."""
        return A_SHARE * self.iterations

    def c(self, k: int, c_end: float) -> float:
        """The perturbation at iteration ``k``: ``c_end`` at the last one, larger before."""
        return c_end * (self.iterations / k) ** GAMMA

    def a(self, k: int, c_end: float, r_end: float) -> float:
        """The gain at iteration ``k``: ``r_end * c_end**2`` at the last one, larger before."""
        a_end = r_end * c_end * c_end
        return a_end * ((self.stability + self.iterations) / (self.stability + k)) ** ALPHA

    def r(self, k: int, c_end: float, r_end: float) -> float:
        """The learning rate ``a_k / c_k**2`` (the update is ``r_k * c_k * result * sign``)."""
        return self.a(k, c_end, r_end) / self.c(k, c_end) ** 2


def clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def signs_for(seed: int, k: int, count: int) -> list[int]:
    """The Rademacher signs of iteration ``k`` (the same on every run with this seed)."""
    rng = random.Random(f"spsa:{seed}:{k}")
    return [rng.choice((-1, 1)) for _ in range(count)]


def perturbed(state: dict, k: int) -> tuple[list[int], list[float], dict[str, int], dict[str, int]]:
    """Iteration ``k``'s signs, steps c_k, and θ+ and θ− as the engines get them (clamped, rounded)."""
    schedule = Schedule(state["iterations"])
    tuned = state["params"]
    signs = signs_for(state["seed"], k, len(tuned))
    steps, plus, minus = [], {}, {}
    for sign, (name, entry) in zip(signs, tuned.items()):
        field = BY_NAME[name]
        step = schedule.c(k, entry["c_end"])
        steps.append(step)
        plus[name] = round(clamp(entry["theta"] + step * sign, field.low, field.high))
        minus[name] = round(clamp(entry["theta"] - step * sign, field.low, field.high))
    return signs, steps, plus, minus


def update(state: dict, k: int, signs: Sequence[int], result: int) -> None:
    """Move θ after iteration ``k`` by ``r_k c_k result sign`` per parameter, within its range."""
    schedule = Schedule(state["iterations"])
    for sign, (name, entry) in zip(signs, state["params"].items()):
        field = BY_NAME[name]
        step = schedule.c(k, entry["c_end"])
        rate = schedule.r(k, entry["c_end"], entry["r_end"])
        entry["theta"] = clamp(entry["theta"] + rate * step * result * sign, field.low, field.high)


def new_state(
    names: Sequence[str],
    iterations: int,
    games_per_iteration: int,
    seed: int,
    start: dict[str, int],
    gain: float = 1.0,
) -> dict:
    """A fresh run's state: θ starts at ``start`` (a {name: value} of every parameter); every ``r_end`` is the
    parameter list's times ``gain`` (a run of a few thousand games needs a larger one to move at all)."""
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise ValueError(f"spsa: unknown parameter(s) {', '.join(unknown)}")
    if not names:
        raise ValueError("spsa: no parameter to tune")
    if iterations < 1:
        raise ValueError("spsa: --iterations must be at least 1")
    if games_per_iteration < 2 or games_per_iteration % 2:
        raise ValueError("spsa: --games-per-iteration must be a positive even number (game pairs)")
    if not gain > 0:
        raise ValueError("spsa: --gain must be positive")
    return {
        "version": STATE_VERSION,
        "seed": seed,
        "iterations": iterations,
        "games_per_iteration": games_per_iteration,
        "iteration": 0,
        "params": {
            name: {
                "theta": float(start[name]),
                "start": int(start[name]),
                "c_end": BY_NAME[name].c_end,
                "r_end": BY_NAME[name].r_end * gain,
            }
            for name in names
        },
        "score": [0, 0, 0],
        "history": [],
    }


def load_state(path: str | Path) -> dict:
    with open(path) as handle:
        state = json.load(handle)
    if state.get("version") != STATE_VERSION:
        raise ValueError(f"spsa: {path} is not a state file of this version")
    return state


def save_state(state: dict, path: str | Path) -> None:
    """Write the state atomically (a stop mid-write leaves the previous one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda temporary: temporary.write_text(json.dumps(state, indent=1)))


def tuned_values(state: dict) -> dict[str, int]:
    """θ rounded: the values the run would write now."""
    return {name: round(entry["theta"]) for name, entry in state["params"].items()}


def describe(state: dict) -> str:
    return " ".join(f"{name}={entry['theta']:.2f}" for name, entry in state["params"].items())


def run(
    state: dict,
    match: MatchFunction,
    state_path: str | Path | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict:
    """Play the iterations left in ``state`` (changed in place, saved after each one); returns it."""
    total = state["iterations"]
    say = log or tqdm.write
    with tqdm(
        total=total, initial=state["iteration"], unit="it", file=sys.stderr, disable=not progress, dynamic_ncols=True
    ) as bar:
        for k in range(state["iteration"] + 1, total + 1):
            signs, steps, plus, minus = perturbed(state, k)
            wins, draws, losses = match(plus, minus, k)
            update(state, k, signs, wins - losses)
            state["iteration"] = k
            state["score"] = [a + b for a, b in zip(state["score"], (wins, draws, losses))]
            state["history"].append(
                {
                    "iteration": k,
                    "result": [wins, draws, losses],
                    "theta": {name: entry["theta"] for name, entry in state["params"].items()},
                }
            )
            if state_path is not None:
                save_state(state, state_path)
            say(f"spsa {k}/{total}: θ+ {wins}-{draws}-{losses}, c_k[0] {steps[0]:.2f}; {describe(state)}")
            bar.update(1)
    return state


def write_result(state: dict, output: str | Path = PARAMS_FILE, base: str | Path = PARAMS_FILE) -> None:
    """Write the tuned values (the others as in ``base``) through the parameter file's loader and checks."""
    params = params_from_dict(tuned_values(state), base=load_params(base))
    save_params(params, output)


# --- games -------------------------------------------------------------------
@dataclass(frozen=True)
class MatchSettings:
    """How the games of one iteration are played."""

    command: tuple[str, ...]
    time_control: str = "nodes=5000"
    concurrency: int = 1
    hash_mb: int = 16
    openings_file: str | Path = DEFAULT_OPENINGS
    startup_timeout: float = 300.0


def match_function(settings: MatchSettings, state: dict, progress: bool = False) -> MatchFunction:
    """Games through :mod:`tuning.match`: θ+ against θ−, one opening per game pair (drawn with (seed, k))."""
    from tuning.config import DrawAdjudication, MatchConfig, ResignAdjudication
    from tuning.engines import EngineSpec
    from tuning.match import run_match
    from tuning.openings import read_openings
    from tuning.tc import parse_time_control

    openings = read_openings(str(settings.openings_file), None, None)
    time_control = parse_time_control(settings.time_control)
    pairs = state["games_per_iteration"] // 2
    program, *arguments = settings.command

    def engine(name: str, values: dict[str, int]) -> EngineSpec:
        options = {"Hash": str(settings.hash_mb), "Threads": "1", **{key: str(v) for key, v in values.items()}}
        return EngineSpec(program, name, arguments=(*arguments, "--tune"), options=options)

    def play(plus: dict[str, int], minus: dict[str, int], k: int) -> tuple[int, int, int]:
        rng = random.Random(f"spsa-openings:{state['seed']}:{k}")
        chosen = tuple(rng.choice(openings) for _ in range(pairs))
        config = MatchConfig(
            engines=(engine("plus", plus), engine("minus", minus)),
            time_control=time_control,
            rounds=pairs,
            concurrency=settings.concurrency,
            openings=chosen,
            opening_order="sequential",
            draw=DrawAdjudication(),
            resign=ResignAdjudication(),
            startup_timeout=settings.startup_timeout,
            event=f"SPSA iteration {k}",
        )
        summary = run_match(config, progress=progress)
        return int(summary["wins"]), int(summary["draws"]), int(summary["losses"])

    return play


# --- command line --------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tuning.spsa",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--iterations", type=int, default=200, help="SPSA iterations N (default 200)")
    parser.add_argument(
        "--games-per-iteration", type=int, default=2, help="games θ+ plays θ− per iteration, in pairs (default 2)"
    )
    parser.add_argument("--tc", default="nodes=5000", help="time control of the games (default nodes=5000)")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at the same time")
    parser.add_argument(
        "--params",
        nargs="+",
        metavar="NAME",
        help="the parameters to tune (default: all but the time-management TM_* ones)",
    )
    parser.add_argument(
        "--gain",
        type=float,
        default=1.0,
        help="multiplies every parameter's learning rate r_end (default 1: Fishtest's, made for tens of "
        "thousands of games)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the signs and openings (default 0)")
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="state file, resumed when it exists (default ~/.cache/jitfish/spsa/seed<S>.json)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        default=str(PARAMS_FILE),
        help="where the tuned values go at the end (default: the package's search_params.json)",
    )
    parser.add_argument(
        "--engine",
        default=f"{shlex.quote(sys.executable)} -m jitfish",
        help="the engine command, without --tune (default: this Python's -m jitfish)",
    )
    parser.add_argument("--openings", default=str(DEFAULT_OPENINGS), metavar="FILE", help="EPD or PGN openings")
    parser.add_argument("--hash", type=int, default=16, help="Hash of each engine, MiB")
    parser.add_argument("--startup-timeout", type=float, default=300.0, metavar="S")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    state_path = Path(args.state) if args.state else DEFAULT_STATE_DIR / f"seed{args.seed}.json"
    try:
        if state_path.exists():
            state = load_state(state_path)
            print(
                f"resuming {state_path} at iteration {state['iteration']} of {state['iterations']} "
                f"(its seed, parameters, gains, iterations and games per iteration apply)",
                file=sys.stderr,
            )
        else:
            names = args.params or [field.name for field in FIELDS if not field.name.startswith("TM_")]
            start = params_to_dict(load_params(PARAMS_FILE))
            state = new_state(names, args.iterations, args.games_per_iteration, args.seed, start, args.gain)
        settings = MatchSettings(
            tuple(shlex.split(args.engine)), args.tc, args.concurrency, args.hash, args.openings, args.startup_timeout
        )
        play = match_function(settings, state)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    try:
        run(state, play, state_path)
    except RuntimeError as error:  # an engine that will not start
        print(f"error: {error}", file=sys.stderr)
        return 1
    write_result(state, args.output)
    moved = ", ".join(f"{name} {entry['start']} -> {round(entry['theta'])}" for name, entry in state["params"].items())
    print(f"wrote {args.output}: {moved}")
    wins, draws, losses = state["score"]
    print(f"θ+ against θ− over the run: {wins}-{draws}-{losses} (not a strength measure: run an SPRT)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
