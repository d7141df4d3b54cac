"""Every registered task passes PettingZoo's and Gymnasium's checkers in every obs mode."""

import json

import pytest

import mase
from mase.checks import check_task
from mase.spaces import OBS_MODES

BUILTIN = [i for i in mase.list_envs() if i.startswith("mase/")]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("obs_mode", OBS_MODES)
@pytest.mark.parametrize("env_id", BUILTIN)
def test_checkers(env_id, obs_mode):
    check_task(env_id, obs_modes=[obs_mode])


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_checkers_on_a_procedural_instance(obs_mode):
    check_task(
        "mase/SearchRescue-v0",
        obs_modes=[obs_mode],
        n_rooms=9,
        n_bombs=8,
        n_agents=4,
        n_colours=4,
    )


@pytest.mark.filterwarnings("ignore")
def test_checkers_on_random_layout_with_options():
    check_task(
        "mase/SearchRescue-v0",
        obs_modes=["both"],
        layout="random",
        wrong_cutter="explode",
        credit="bomb",
        shaping=True,
        see_teammates=False,
    )


@pytest.mark.parametrize("env_id", BUILTIN)
@pytest.mark.parametrize("team", ["random", "scripted"])
def test_same_seed_same_records(tmp_path, env_id, team):
    for run in ("a", "b"):
        mase.evaluate(env_id, team, episodes=3, seed=11, out=tmp_path / run)
    a = (tmp_path / "a" / "episodes.jsonl").read_text()
    b = (tmp_path / "b" / "episodes.jsonl").read_text()
    assert a == b
    records = [json.loads(line) for line in a.splitlines()]
    assert [r["seed"] for r in records] == [11, 12, 13]
    assert all(r["turns"] for r in records)
