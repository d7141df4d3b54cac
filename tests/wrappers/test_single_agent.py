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


def test_sb3_accepts_the_default_view():
    from stable_baselines3.common.env_checker import check_env

    env = gymnasium.make("mase/SearchRescue-v0")
    check_env(env.unwrapped, warn=False)


def test_sb3_make_vec_env_builds_the_task_with_its_rgb_array_default():
    """Stable-Baselines3 passes render_mode="rgb_array" and falls back only on TypeError."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("mase/SearchRescue-v0", n_envs=2)
    vec.reset()
    picture = vec.envs[0].render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert picture.min() < 128 < picture.max()  # text on a page, not a blank


def test_observe_and_last_before_reset_say_what_to_do():
    env = mase.make("mase/SearchRescue-v0")
    for call in (env.last, lambda: env.observe("alpha"), lambda: env.step(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no agent 'zulu'"):
        env.observe("zulu")


TRAINABLE = [i for i in mase.list_envs("mase") if "AgentVerse" not in i]  # Text actions: no RL
SLOW = {"MenuDesign", "MenuDesignLevel3", "MenuDesignSemantic", "TaskAllocation"}  # MILP bots


@pytest.fixture
def one_torch_thread():
    """Steps of one observation run fastest on one thread, and far slower on a busy machine."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_every_tasks_default_view_is_vector_and_mask_and_text_is_a_keyword_away():
    for env_id in mase.list_envs("mase"):
        env = gymnasium.make(env_id)
        keys = set(env.observation_space.spaces)
        assert "observation" in keys and "text" not in keys, env_id
        assert ("action_mask" in keys) == isinstance(env.action_space, gymnasium.spaces.Discrete)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs), env_id
    both = gymnasium.make("mase/SearchRescue-v0", obs_mode="both").observation_space.spaces
    assert isinstance(both["text"], gymnasium.spaces.Text) and "observation" in both
    assert set(gymnasium.make("mase/SearchRescue-v0", obs_mode="text").observation_space) == {
        "text",
        "action_mask",
    }


def test_a_registered_obs_mode_is_the_multi_agent_views_default_not_the_gymnasium_views():
    mase.register("tests/RescueBoth-v0", "mase.envs.search_rescue.env:SearchRescueEnv",
                  obs_mode="both")  # fmt: skip
    assert mase.make("tests/RescueBoth-v0").obs_mode == "both"
    assert gymnasium.make("tests/RescueBoth-v0").unwrapped.aec.unwrapped.obs_mode == "vector"
    assert gymnasium.make("tests/RescueBoth-v0", obs_mode="text").unwrapped.aec.unwrapped.obs_mode == "text"  # noqa: E501  # fmt: skip
    with pytest.raises(TypeError, match="reserved"):
        mase.register("tests/Bad-v0", "mase.envs.search_rescue.env:SearchRescueEnv",
                      aec_obs_mode="both")  # fmt: skip


@pytest.mark.parametrize("env_id", TRAINABLE)
def test_ppo_on_the_default_view_and_maskable_ppo_train_on_every_task(
    env_id, tmp_path, one_torch_thread
):
    """``make_vec_env(id)`` with no arguments trains SB3's PPO; sb3-contrib's MaskablePPO
    trains on the same view with the masks of its convention (Discrete: one per action;
    MultiDiscrete: every dimension's, concatenated)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure

    steps = 1_024 if env_id.split("/")[1].split("-")[0] in SLOW else 2_048
    settings = {"n_steps": 64, "batch_size": 256, "n_epochs": 1, "seed": 0, "device": "cpu"}
    venv = make_vec_env(env_id, n_envs=8, seed=0)
    model = PPO("MultiInputPolicy", venv, **settings)
    model.set_logger(configure(str(tmp_path), []))
    model.learn(steps)
    assert model.num_timesteps >= steps
    venv = make_vec_env(env_id, n_envs=8, seed=0, env_kwargs={"teammates": "random"})
    model = MaskablePPO("MultiInputPolicy", venv, **settings)
    model.set_logger(configure(str(tmp_path), []))
    model.learn(steps)
    assert model.num_timesteps >= steps
    space = venv.action_space
    obs = venv.reset()
    masks = get_action_masks(venv)
    width = space.n if hasattr(space, "n") else int(space.nvec.sum())
    assert masks.shape == (8, width) and masks.dtype == bool
    if "action_mask" in obs:  # the mask MaskablePPO reads is the observation's
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    if "action_mask" in obs:  # a masked policy picks legal actions (speech turns have none)
        decides = obs["action_mask"].any(axis=1)
        assert obs["action_mask"][np.arange(8), actions][decides].all()


def test_a_multi_discrete_mask_concatenates_each_dimension_and_text_actions_have_none():
    env = gymnasium.make("mase/TaskAllocation-v0")
    env.reset(seed=0)
    space = env.action_space
    assert isinstance(space, gymnasium.spaces.MultiDiscrete)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.shape == (int(space.nvec.sum()),) and mask.all()
    verse = gymnasium.make("mase/AgentVerse-v0")
    verse.reset(seed=0)
    with pytest.raises(mase.actions.UsageError, match="Text action space has no action mask"):
        verse.unwrapped.action_masks()
