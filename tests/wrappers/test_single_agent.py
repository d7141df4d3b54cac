import gymnasium
import numpy as np
import pytest

import mase  # noqa: F401
from mase.agents import RandomPolicy


def play(env, seed):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


def test_learner_reward_is_the_team_reward_between_its_turns():
    env = gymnasium.make("mase/SearchRescue-v0", agent="bravo", obs_mode="vector")
    total, steps, info = play(env, seed=1)
    assert total == info["metrics"]["score"]
    assert steps == info["metrics"]["rounds"]


def test_teammates_by_name_object_and_dict():
    env = gymnasium.make("mase/SearchRescue-v0", teammates="random")
    assert all(isinstance(p, RandomPolicy) for p in env.unwrapped.teammates.values())
    mine = RandomPolicy()
    env = gymnasium.make("mase/SearchRescue-v0", agent="alpha", teammates={"bravo": mine})
    team = env.unwrapped.teammates
    assert team["bravo"] is mine and type(team["charlie"]).__name__ == "ScriptedRescuer"


def test_bad_seats_are_clear():
    with pytest.raises(ValueError, match="agent must be one of"):
        gymnasium.make("mase/SearchRescue-v0", agent="zulu")
    with pytest.raises(ValueError, match="unknown seats"):
        gymnasium.make("mase/SearchRescue-v0", agent="alpha", teammates={"zulu": "random"})


def test_same_seed_same_episode():
    env = gymnasium.make("mase/SearchRescue-v0", agent="charlie", teammates="random")
    assert play(env, seed=7) == play(env, seed=7)


def test_sb3_accepts_the_vector_view():
    from stable_baselines3.common.env_checker import check_env

    env = gymnasium.make("mase/SearchRescue-v0", obs_mode="vector")
    check_env(env.unwrapped, warn=False)
