"""Craft's shipped MAPPO checkpoint: it loads by name and plays seeded episodes legally.

How well it plays, beside the scripted team, is measured by benchmarks/craft_training.py.
"""

import pytest

import mase
from mase.agents import make_policy
from mase.envs.craft.policies import checkpoint

ENV_ID = "mase/Craft-v0"


def test_the_shipped_checkpoint_plays_seeded_episodes_legally():
    policy = make_policy("mappo", mase.make(ENV_ID))
    assert policy.checkpoint["env"] == ENV_ID
    assert policy.checkpoint["obs_dim"] == mase.make(ENV_ID).unwrapped.codec.size
    summary = mase.evaluate(
        ENV_ID,
        dict.fromkeys(policy.agents, policy),
        episodes=3,
        seed=500,
        messages=False,
        record_text=False,
    )
    assert summary["failed"] == 0
    metrics = summary["metrics"]
    assert metrics["valid_action_rate"]["mean"] == 1.0  # only legal actions
    assert metrics["success"]["mean"] == 1.0  # the trained team makes the bookshelf
    assert metrics["rounds"]["mean"] < 50  # before the round limit


def test_a_checkpoint_of_ones_own_is_played_by_path_and_a_missing_one_is_refused(tmp_path):
    policy = make_policy(f"mappo:{checkpoint('mappo.pt')}", mase.make(ENV_ID))
    assert policy.agents == ["alpha", "bravo", "charlie"]
    with pytest.raises(FileNotFoundError):
        make_policy(f"mappo:{tmp_path / 'none.pt'}", mase.make(ENV_ID))


def test_the_random_map_team_plays_random_maps_legally():
    env = mase.make(ENV_ID, layout="random")
    policy = make_policy("mappo-random", env)
    assert policy.checkpoint["env_kwargs"]["layout"] == "random"
    assert policy.checkpoint["obs_dim"] == env.unwrapped.codec.size  # the map in the vector
    summary = mase.evaluate(
        ENV_ID,
        dict.fromkeys(policy.agents, policy),
        episodes=3,
        seed=500,
        env_kwargs={"layout": "random"},
        messages=False,
        record_text=False,
    )
    assert summary["failed"] == 0
    assert summary["metrics"]["valid_action_rate"]["mean"] == 1.0
