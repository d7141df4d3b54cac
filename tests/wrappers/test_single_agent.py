import gymnasium
import numpy as np
import pytest

import mase
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


def test_sb3_make_vec_env_builds_the_task_with_its_rgb_array_default():
    """Stable-Baselines3 passes render_mode="rgb_array" and falls back only on TypeError."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("mase/SearchRescue-v0", n_envs=2, env_kwargs={"obs_mode": "vector"})
    vec.reset()
    picture = vec.envs[0].render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert picture.min() < 128 < picture.max()  # text on a page, not a blank


def test_action_masks_for_maskable_ppo_train_a_few_thousand_steps(tmp_path):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    env = gymnasium.make("mase/SearchRescue-v0", obs_mode="vector", teammates="random")
    obs, _ = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.tolist() == obs["action_mask"].astype(bool).tolist()
    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, seed=0, verbose=0)
    model.set_logger(configure(str(tmp_path), []))  # else SB3 leaves a folder in /tmp
    model.learn(2_048)
    assert model.num_timesteps >= 2_048
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
    assert obs["action_mask"][int(action)] == 1  # a masked policy picks a legal action


def test_observe_and_last_before_reset_say_what_to_do():
    env = mase.make("mase/SearchRescue-v0")
    for call in (env.last, lambda: env.observe("alpha"), lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no agent 'zulu'"):
        env.observe("zulu")
