import csv
import subprocess
import sys

import pytest

import mase
from mase.agents import make_policy
from mase.envs.search_rescue.policies import checkpoint

torch = pytest.importorskip("torch")

from mase.baselines.mappo import Args, MAPPOPolicy, train  # noqa: E402

ENV = "mase/SearchRescue-v0"


def test_training_smoke_run_writes_metrics_and_a_loadable_checkpoint(tmp_path):
    args = Args(
        total_timesteps=2 * 4 * 8 * 3, num_envs=4, num_rounds=8, out=str(tmp_path), update_epochs=2
    )
    path = train(args)
    rows = list(csv.DictReader((tmp_path / "metrics.csv").open()))
    assert [int(r["update"]) for r in rows] == [1, 2]
    assert int(rows[-1]["global_step"]) == 2 * 4 * 8 * 3
    for column in ("losses/pg_loss", "losses/v_loss", "charts/episodic_score"):
        assert column in rows[0]
    policy = MAPPOPolicy.load(path)
    env = mase.make(ENV, obs_mode="vector")
    record = mase.run_episode(env, dict.fromkeys(env.possible_agents, policy), seed=0)
    assert record["metrics"]["turns"] == 3 * record["metrics"]["rounds"]


def test_same_seed_same_training(tmp_path):
    losses = []
    for run in ("a", "b"):
        args = Args(
            total_timesteps=4 * 4 * 3,
            num_envs=4,
            num_rounds=4,
            update_epochs=1,
            out=str(tmp_path / run),
        )
        train(args)
        row = next(csv.DictReader((tmp_path / run / "metrics.csv").open()))
        losses.append({k: v for k, v in row.items() if "sps" not in k and k != "wall_s"})
    assert losses[0] == losses[1]
    assert float(losses[0]["losses/v_loss"]) > 0.0


def test_cli_train_smoke(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mase.cli",
            "train",
            "mappo",
            "--total-timesteps",
            "96",
            "--num-envs",
            "2",
            "--num-rounds",
            "4",
            "--update-epochs",
            "1",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "mappo.pt").exists()


def test_shipped_checkpoint_plays_whole_episodes():
    """The checkpoint in the repository plays every seat through env.step to the end.

    How well it plays is measured by benchmarks/mappo_training.py.
    """
    policy = make_policy("mappo", mase.make(ENV))
    summary = mase.evaluate(
        ENV,
        dict.fromkeys(policy.agents, policy),
        episodes=2,
        seed=500,
        messages=False,
        env_kwargs=policy.checkpoint["env_kwargs"],
        record_text=False,
    )
    assert summary["episodes"] == 2 and summary["failed"] == 0
    assert summary["metrics"]["turns"]["mean"] > 0
    assert checkpoint("mappo.pt").endswith(".pt")


def test_one_mappo_seat_among_other_policies_and_in_text_mode():
    env = mase.make(ENV, obs_mode="text")
    team = {
        "alpha": make_policy("mappo", env),
        "bravo": make_policy("random", env),
        "charlie": make_policy("random", env),
    }
    record = mase.run_episode(env, team, seed=1)
    assert record["metrics"]["turns"] > 0


def test_wrong_seat_is_a_clear_error():
    policy = make_policy("mappo", mase.make(ENV))
    with pytest.raises(ValueError, match="trained for seats"):
        policy.reset("delta", mase.make(ENV, n_agents=4))
