"""The search parameter array: its file round-trips, the loader rejects bad names and values, the LMR table
follows it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from jitfish.search import params as P
from jitfish.search.buffers import LMR_SIDE
from jitfish.search.negamax import late_move_reductions


def test_offsets_follow_the_field_list():
    """Each row's member is its slot: its place in the list, an ``int`` (Numba folds it as a constant)."""
    assert list(P.Param) == list(P.FIELDS) == list(range(P.PARAMS_SIZE))
    assert [P.INDEX[field.name] for field in P.FIELDS] == list(range(P.PARAMS_SIZE))
    assert P.Param.RFP_MARGIN == [field.name for field in P.FIELDS].index("RFP_MARGIN")
    assert P.Param.TM_MAX_SCALE_PCT == P.PARAMS_SIZE - 1
    assert P.BY_NAME["RFP_MARGIN"] is P.Param.RFP_MARGIN
    assert (P.Param.RFP_MARGIN.low, P.Param.RFP_MARGIN.high) == (20, 250)
    assert P.Param.RFP_MARGIN.meaning.startswith("... the static eval")
    assert P.default_params()[P.Param.RFP_MARGIN] == 71


def test_shipped_values_are_the_tuned_ones():
    """The SPSA values of issue 45 (records/spsa-issue45/, 601 iterations) where it tuned, else the search
    constants the parameters replaced."""
    defaults = P.params_to_dict(P.default_params())
    assert defaults["RFP_MARGIN"] == 71
    assert defaults["LMR_BASE_PCT"] == 52 and defaults["LMR_DIVISOR_PCT"] == 242
    assert defaults["NMP_VERIFY_PLIES_PCT"] == 75
    assert defaults["ASPIRATION_DELTA"] == 21
    assert defaults["TM_HARD_TO_SOFT_PCT"] == 400
    for field in P.FIELDS:
        assert field.low <= defaults[field.name] <= field.high, field.name
        assert field.c_end >= 1 and 0 < field.r_end < 1, field.name  # a step of at least one unit


def test_params_file_round_trips(tmp_path):
    changed = P.params_from_dict({"RFP_MARGIN": 95, "SE_MARGIN": 3}, base=P.default_params())
    path = tmp_path / "params.json"
    P.save_params(changed, path)
    loaded = P.load_params(path)
    assert loaded.dtype == np.int64
    assert (loaded == changed).all()
    assert json.loads(path.read_text())["RFP_MARGIN"] == 95
    assert list(json.loads(path.read_text())) == [field.name for field in P.FIELDS]


def test_shipped_file_is_written_as_save_params_writes_it(tmp_path):
    path = tmp_path / "params.json"
    P.save_params(P.default_params(), path)
    assert path.read_text() == P.PARAMS_FILE.read_text()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"NO_SUCH_MARGIN": 3}, "unknown parameter"),
        ({"RFP_MARGIN": 10_000}, "RFP_MARGIN = 10000 is out of range [20, 250]"),
        ({"RFP_MARGIN": -1}, "out of range"),
        ({"RFP_MARGIN": 80.5}, "must be an integer"),
        ({"RFP_MARGIN": "80"}, "must be an integer"),
    ],
)
def test_loader_rejects_unknown_names_and_bad_values(tmp_path, change, message):
    data = {**P.params_to_dict(P.default_params()), **change}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        P.load_params(path)


def test_loader_rejects_a_file_missing_a_parameter(tmp_path):
    data = P.params_to_dict(P.default_params())
    del data["SE_MARGIN"]
    path = tmp_path / "short.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="missing SE_MARGIN"):
        P.load_params(path)


def test_save_refuses_an_out_of_range_array_and_writes_nothing(tmp_path):
    bad = np.array(P.default_params())
    bad[P.Param.SEE_MAX_DEPTH] = 99
    path = tmp_path / "params.json"
    with pytest.raises(ValueError, match="SEE_MAX_DEPTH"):
        P.save_params(bad, path)
    assert not path.exists()
    with pytest.raises(ValueError, match="expected"):
        P.checked_params(bad[:-1])


def test_reduction_table_follows_the_lmr_parameters():
    default = late_move_reductions().reshape(LMR_SIDE, LMR_SIDE)
    assert default[8, 20] == 3  # 0.52 + ln 8 ln 20 / 2.42 = 3.09 with the shipped LMR_BASE_PCT, LMR_DIVISOR_PCT
    wider = P.params_from_dict({"LMR_BASE_PCT": 150, "LMR_DIVISOR_PCT": 150}, base=P.default_params())
    table = late_move_reductions(wider).reshape(LMR_SIDE, LMR_SIDE)
    assert table[8, 20] == 5  # 1.5 + ln 8 ln 20 / 1.5 = 5.65
    assert table[1, 30] == 1  # ln 1 = 0: the base alone, truncated
