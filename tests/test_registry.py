import gymnasium
import pytest
from pettingzoo import AECEnv, ParallelEnv

import mase
from mase.wrappers import SingleAgentEnv


def test_make_builds_the_multi_agent_env():
    env = mase.make("mase/SearchRescue-v0")
    assert isinstance(env, AECEnv)
    env.reset(seed=0)
    assert env.agents == ["alpha", "bravo", "charlie"]
    assert isinstance(mase.make_parallel("mase/SearchRescue-v0"), ParallelEnv)


def test_gymnasium_make_builds_the_single_agent_view():
    env = gymnasium.make("mase/SearchRescue-v0", agent="charlie", obs_mode="vector")
    assert isinstance(env.unwrapped, SingleAgentEnv)
    assert env.unwrapped.agent == "charlie"
    obs, info = env.reset(seed=3)
    assert set(obs) == {"observation", "action_mask"}


def test_list_envs_lists_the_builtin_tasks():
    assert "mase/SearchRescue-v0" in mase.list_envs()
    assert "CartPole-v1" not in mase.list_envs()


def test_unknown_id_names_the_registered_ones():
    with pytest.raises(mase.UnknownEnvError) as err:
        mase.make("mase/SearchRescue-v9")
    assert "mase/SearchRescue-v0" in str(err.value)
    assert "Did you mean" in str(err.value)
    with pytest.raises(mase.UnknownEnvError):
        mase.make("CartPole-v1")  # a gymnasium env, not a MASE task


def test_unknown_kwarg_lists_the_valid_ones():
    with pytest.raises(mase.UnknownArgumentError) as err:
        mase.make("mase/SearchRescue-v0", wrong_cuter="explode")
    message = str(err.value)
    assert "wrong_cuter" in message and "wrong_cutter" in message and "obs_mode" in message


def test_bad_option_values_are_clear():
    with pytest.raises(ValueError, match="obs_mode"):
        mase.make("mase/SearchRescue-v0", obs_mode="pixels")
    with pytest.raises(ValueError, match="wrong_cutter"):
        mase.make("mase/SearchRescue-v0", wrong_cutter="boom")


def test_register_sets_defaults_for_both_views():
    mase.register(
        "tests/RescueExplode-v0",
        "mase.envs.search_rescue.env:SearchRescueEnv",
        wrong_cutter="explode",
        obs_mode="vector",
    )
    assert "tests/RescueExplode-v0" in mase.list_envs()
    env = mase.make("tests/RescueExplode-v0")
    assert env.rules.wrong_cutter == "explode" and env.obs_mode == "vector"
    assert mase.make("tests/RescueExplode-v0", obs_mode="text").obs_mode == "text"
    single = gymnasium.make("tests/RescueExplode-v0")
    assert single.unwrapped.aec.unwrapped.rules.wrong_cutter == "explode"


def test_register_takes_a_class_and_rejects_the_reserved_key():
    from mase.envs.search_rescue import SearchRescueEnv

    mase.register("tests/RescueClass-v0", SearchRescueEnv, max_cycles=5)
    assert mase.make("tests/RescueClass-v0").max_cycles == 5
    with pytest.raises(TypeError, match="reserved"):
        mase.register("tests/Bad-v0", SearchRescueEnv, aec_entry_point="x")
