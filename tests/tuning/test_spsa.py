"""SPSA (``tuning.spsa``): its gain schedule, its update on hand-computed cases, clamping, resuming, the file it
writes."""

from __future__ import annotations

import json
import sys

import pytest

from jitfish.search.params import BY_NAME, FIELDS, default_params, load_params, params_to_dict
from tuning import spsa

DEFAULTS = params_to_dict(default_params())


def _state(names=("RFP_MARGIN",), iterations=10, seed=1, games=2, **starts) -> dict:
    return spsa.new_state(list(names), iterations, games, seed, {**DEFAULTS, **starts})


def test_schedule_ends_at_c_end_and_a_end_and_decays_by_fishtests_exponents():
    schedule = spsa.Schedule(iterations=10)  # A = 0.1 * 10 = 1
    assert schedule.stability == pytest.approx(1.0)
    assert schedule.c(10, c_end=10) == pytest.approx(10.0)  # c_N = c_end
    assert schedule.a(10, c_end=10, r_end=0.002) == pytest.approx(0.2)  # a_N = r_end * c_end^2
    assert schedule.r(10, c_end=10, r_end=0.002) == pytest.approx(0.002)  # r_N = r_end
    # k = 1: c_1 = 10 * 10^0.101 = 12.6183; a_1 = 0.2 * (11 / 2)^0.602 = 0.55812.
    assert schedule.c(1, c_end=10) == pytest.approx(12.61828, rel=1e-5)
    assert schedule.a(1, c_end=10, r_end=0.002) == pytest.approx(0.558121, rel=1e-5)
    assert schedule.r(1, c_end=10, r_end=0.002) == pytest.approx(0.558121 / 12.61828**2, rel=1e-5)
    steps = [schedule.c(k, 10) for k in range(1, 11)]
    assert steps == sorted(steps, reverse=True)


def test_update_on_a_hand_computed_case():
    # N = 10, k = 1, c_end = 10, r_end = 0.002: the step is r_1 * c_1 * result * sign = a_1 / c_1 * result * sign
    # = 0.558121 / 12.61828 * 2 * (+1) = +0.0884623 after θ+ won both games of the pair.
    state = _state(RFP_MARGIN=80)
    state["params"]["RFP_MARGIN"]["c_end"] = 10
    spsa.update(state, 1, [1], result=2)
    assert state["params"]["RFP_MARGIN"]["theta"] == pytest.approx(80.0884623, abs=1e-6)
    # At the last iteration (c = 10, a = 0.2), a loss of the pair with sign -1 moves θ by 0.02 * -2 * -1 = +0.04.
    spsa.update(state, 10, [-1], result=-2)
    assert state["params"]["RFP_MARGIN"]["theta"] == pytest.approx(80.1284623, abs=1e-6)
    # A drawn pair leaves θ where it was.
    spsa.update(state, 5, [1], result=0)
    assert state["params"]["RFP_MARGIN"]["theta"] == pytest.approx(80.1284623, abs=1e-6)


def test_perturbation_is_plus_and_minus_c_k_rounded_for_the_engines():
    state = _state(("RFP_MARGIN", "SE_MARGIN"), RFP_MARGIN=80, SE_MARGIN=2)
    signs, steps, plus, minus = spsa.perturbed(state, 10)  # last iteration: c_k = c_end
    assert steps == [BY_NAME["RFP_MARGIN"].c_end, BY_NAME["SE_MARGIN"].c_end]
    assert set(signs) <= {-1, 1}
    assert plus["RFP_MARGIN"] == 80 + signs[0] * 8 and minus["RFP_MARGIN"] == 80 - signs[0] * 8
    assert plus["SE_MARGIN"] == 2 + signs[1] and minus["SE_MARGIN"] == 2 - signs[1]
    assert spsa.perturbed(state, 10) == (signs, steps, plus, minus)  # the same seed, the same draw


def test_perturbed_values_and_updates_stay_in_range():
    high = BY_NAME["SE_MARGIN"].high
    state = _state(("SE_MARGIN",), SE_MARGIN=high)
    _, _, plus, minus = spsa.perturbed(state, 1)
    assert {plus["SE_MARGIN"], minus["SE_MARGIN"]} == {high, high - 1}  # c_1 = 1.26: 8 + 1.26 is clamped to 8
    state["params"]["SE_MARGIN"]["r_end"] = 50.0  # a huge gain
    spsa.update(state, 1, [1], result=2)
    assert state["params"]["SE_MARGIN"]["theta"] == high
    spsa.update(state, 1, [-1], result=2)
    spsa.update(state, 1, [-1], result=2)
    assert state["params"]["SE_MARGIN"]["theta"] == BY_NAME["SE_MARGIN"].low


def _fake_match(optimum: dict[str, int]):
    """θ+ wins the pair when it is nearer ``optimum`` than θ−, loses it when farther, draws on a tie."""

    def play(plus, minus, k):
        distance_plus = sum(abs(plus[name] - value) / BY_NAME[name].c_end for name, value in optimum.items())
        distance_minus = sum(abs(minus[name] - value) / BY_NAME[name].c_end for name, value in optimum.items())
        if distance_plus < distance_minus:
            return 2, 0, 0
        if distance_plus > distance_minus:
            return 0, 0, 2
        return 0, 2, 0

    return play


def test_resuming_gives_the_result_of_an_uninterrupted_run(tmp_path):
    names = ("RFP_MARGIN", "FUTILITY_MARGIN", "LMP_BASE")
    play = _fake_match({"RFP_MARGIN": 120, "FUTILITY_MARGIN": 60, "LMP_BASE": 6})
    whole = spsa.run(_state(names, iterations=12), play, tmp_path / "whole.json", progress=False, log=lambda _: None)

    interrupted_path = tmp_path / "interrupted.json"

    def stops_at_seven(plus, minus, k):
        if k == 7:
            raise KeyboardInterrupt
        return play(plus, minus, k)

    with pytest.raises(KeyboardInterrupt):
        spsa.run(_state(names, iterations=12), stops_at_seven, interrupted_path, progress=False, log=lambda _: None)
    resumed_state = spsa.load_state(interrupted_path)
    assert resumed_state["iteration"] == 6
    resumed = spsa.run(resumed_state, play, interrupted_path, progress=False, log=lambda _: None)
    assert resumed == json.loads(json.dumps(whole))
    assert spsa.load_state(interrupted_path) == resumed


def test_theta_moves_towards_what_wins():
    names = ("RFP_MARGIN", "SEE_QUIET_MARGIN")
    optimum = {"RFP_MARGIN": 140, "SEE_QUIET_MARGIN": 30}
    state = _state(names, iterations=300)
    for name in names:
        state["params"][name]["r_end"] = 0.02
    spsa.run(state, _fake_match(optimum), progress=False, log=lambda _: None)
    for name in names:
        assert abs(state["params"][name]["theta"] - optimum[name]) < abs(DEFAULTS[name] - optimum[name]) / 2, name


def test_result_is_written_through_the_loader_others_unchanged(tmp_path):
    state = _state(("RFP_MARGIN", "SE_MARGIN"))
    state["params"]["RFP_MARGIN"]["theta"] = 91.6
    state["params"]["SE_MARGIN"]["theta"] = 2.4
    output = tmp_path / "tuned.json"
    spsa.write_result(state, output)
    written = params_to_dict(load_params(output))
    assert written == {**DEFAULTS, "RFP_MARGIN": 92, "SE_MARGIN": 2}


def test_gain_scales_the_learning_rate_and_so_the_update():
    # The hand-computed first step above, +0.0884623 at gain 1, is ten times as long at gain 10.
    state = spsa.new_state(["RFP_MARGIN"], 10, 2, 1, {**DEFAULTS, "RFP_MARGIN": 80}, gain=10)
    assert state["params"]["RFP_MARGIN"]["r_end"] == pytest.approx(0.02)
    state["params"]["RFP_MARGIN"]["c_end"] = 10
    spsa.update(state, 1, [1], result=2)
    assert state["params"]["RFP_MARGIN"]["theta"] == pytest.approx(80.884623, abs=1e-5)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="unknown parameter"):
        _state(("NO_SUCH",))
    with pytest.raises(ValueError, match="even"):
        _state(games=3)
    with pytest.raises(ValueError, match="gain"):
        spsa.new_state(["RFP_MARGIN"], 10, 2, 1, DEFAULTS, gain=0)


@pytest.fixture(scope="module")
def warm_search() -> None:
    from jitfish.runtime.compile import warm_up_search

    warm_up_search()  # the engines then load the kernels from the cache


def test_one_iteration_against_real_tune_engines(tmp_path, warm_search):
    """Two engines started with --tune accept every parameter as an option, play a pair, θ is written."""
    state_path, output = tmp_path / "state.json", tmp_path / "out.json"
    status = spsa.main(
        [
            "--iterations",
            "1",
            "--games-per-iteration",
            "2",
            "--tc",
            "nodes=300",
            "--seed",
            "3",
            "--params",
            "RFP_MARGIN",
            "LMR_BASE_PCT",
            "--state",
            str(state_path),
            "--output",
            str(output),
            "--engine",
            f"{sys.executable} -m jitfish",
        ]
    )
    assert status == 0
    state = spsa.load_state(state_path)
    assert state["iteration"] == 1
    wins, draws, losses = state["score"]
    assert wins + draws + losses == 2
    written = params_to_dict(load_params(output))
    assert {name for name in written if written[name] != DEFAULTS[name]} <= {"RFP_MARGIN", "LMR_BASE_PCT"}
    assert len(written) == len(FIELDS)
