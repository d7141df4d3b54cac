import pytest

import mase
from mase.agents import make_policy

pytest.importorskip("stable_baselines3")
pytest.importorskip("supersuit")

from mase.baselines.sb3 import Args, SB3Policy, train  # noqa: E402

ENV = "mase/SearchRescue-v0"


def test_training_smoke_run_saves_a_model_that_plays(tmp_path):
    args = Args(
        total_timesteps=2 * 2 * 3 * 32,
        num_envs=2,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        out=str(tmp_path),
    )
    path = train(args)
    assert path.exists() and (tmp_path / "progress.csv").exists()
    policy = SB3Policy.load(path)
    env = mase.make(ENV)
    record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=0)
    assert record["metrics"]["rounds"] >= 1


def test_shipped_model_plays_every_seat():
    env = mase.make(ENV, obs_mode="vector")
    policy = make_policy("sb3-ppo", env)
    record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=3)
    assert record["metrics"]["turns"] == 3 * record["metrics"]["rounds"]
